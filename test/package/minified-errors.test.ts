import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as Toolwire from '../../src/index';
import * as source from '../../src/index';
import type * as Testing from '../../src/testing';
import { buildBrowser, root } from './browser-bundle';

/**
 * The core (src/index.ts, what `toolwire` gives a browser) minified, as an application's bundler makes it (esbuild
 * `minify`, as bench/lib/bundle-size.ts measures it): the minifier renames classes, and an error's `name` must still
 * be its class's name (src/errors.ts). `toolwire/testing` (its `ReplayError`) is built with it, as a page's tests
 * would build it.
 */
const outDir = join(root, 'test/artifacts', `minified-errors-${process.pid}`);
let minified: typeof Toolwire;
let testing: typeof Testing;

beforeAll(async () => {
  mkdirSync(outDir, { recursive: true });
  await buildBrowser(outDir, {
    minify: true,
    entryPoints: { index: 'src/index.ts', testing: 'src/testing.ts' },
  });
  minified = (await import(pathToFileURL(join(outDir, 'index.js')).href)) as typeof Toolwire;
  testing = (await import(pathToFileURL(join(outDir, 'testing.js')).href)) as typeof Testing;
}, 60_000);
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('the core, minified by a bundler', () => {
  it("keeps every exported error class's name, and instanceof", () => {
    const classes = Object.entries({ ...minified, ...testing } as Record<string, unknown>).filter(
      (entry): entry is [string, typeof Error] =>
        typeof entry[1] === 'function' && entry[1].prototype instanceof Error,
    );
    expect(classes.map(([name]) => name).sort()).toEqual([
      'AbortError',
      'ApprovalError',
      'ConnectionError',
      'OptionsError',
      'ProtocolError',
      'QuestionError',
      'ReplayError',
      'RunError',
      'TimeoutError',
      'ToolDefinitionError',
      'ToolwireError',
    ]);
    // The minifier did rename them: a name taken from the class would be wrong.
    expect(classes.filter(([name, cls]) => cls.name !== name).length).toBeGreaterThan(0);
    for (const [name, cls] of classes) {
      const error = new (cls as unknown as new (code: string, message: string) => Toolwire.ToolwireError)(
        'some_code',
        'a message',
      );
      expect(error.name, name).toBe(name);
      expect(error, name).toBeInstanceOf(cls);
      expect(error, name).toBeInstanceOf(minified.ToolwireError);
      expect(error, name).toBeInstanceOf(Error);
      expect(String(error), name).toBe(`${name}: a message`);
    }
  });

  it("gives a subclass of the application's its class's name", () => {
    class PaymentError extends minified.ToolwireError {}
    expect(new PaymentError('declined', 'no').name).toBe('PaymentError');
    expect(new minified.ToolwireError('c', 'm').name).toBe('ToolwireError');
  });

  it('throws named errors from its own code', async () => {
    const thrown = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error as Error;
      }
      throw new Error('did not throw');
    };
    const options = thrown(
      () => new minified.Client({ url: 'ws://127.0.0.1:1', apiKey: 'k', tools: [], maxQueue: -1 }),
    );
    expect(options).toBeInstanceOf(minified.OptionsError);
    expect(options.name).toBe('OptionsError');
    const definition = thrown(() => minified.tool({ name: 'bad name!', description: 'd', execute: () => 1 }));
    expect(definition).toBeInstanceOf(minified.ToolDefinitionError);
    expect(definition.name).toBe('ToolDefinitionError');
    const client = new minified.Client({ url: 'ws://127.0.0.1:1', apiKey: 'a-long-enough-key', tools: [] });
    const agent = new minified.Agent({ name: 'A', instructions: 'x', tools: [] });
    const connection = (await client.run(agent, 'x').catch((error: unknown) => error)) as Error;
    expect(connection).toBeInstanceOf(minified.ConnectionError);
    expect(connection.name).toBe('ConnectionError');
  });

  it('is instanceof across copies of toolwire (an ES module and a CommonJS build in one process)', () => {
    // The minified bundle is a second copy of the core beside the sources this file imports.
    const theirs = new minified.ConnectionError('closed', 'bye');
    expect(theirs).toBeInstanceOf(source.ConnectionError);
    expect(theirs).toBeInstanceOf(source.ToolwireError);
    expect(new source.QuestionError('declined', 'no')).toBeInstanceOf(minified.QuestionError);
    expect(new testing.ReplayError('not_recorded', 'no')).toBeInstanceOf(source.ToolwireError);
    expect(theirs).not.toBeInstanceOf(source.OptionsError);
    expect(new source.ToolwireError('c', 'm')).not.toBeInstanceOf(minified.ConnectionError);
    // A class of the application's keeps plain instanceof: an error of another class is not one of it.
    class PaymentError extends source.ToolwireError {}
    expect(new minified.ToolwireError('c', 'm')).not.toBeInstanceOf(PaymentError);
    expect(new PaymentError('c', 'm')).toBeInstanceOf(minified.ToolwireError);
    expect({ code: 'closed' }).not.toBeInstanceOf(source.ConnectionError);
  });
});
