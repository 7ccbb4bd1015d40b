/**
 * A runtime without `TextEncoder`, `TextDecoder` or `structuredClone` (Jest's jsdom environment; React Native has
 * no `structuredClone`): toolwire imports, defines tools of every schema kind, runs them and redacts secrets there.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

/**
 * An entry of toolwire (the Node one, which Jest's jsdom environment resolves, or the browser one, which React
 * Native's does) and its parts, loaded afresh where the runtime lacks the three globals.
 */
async function loadWithout(entry: 'node' | 'browser' = 'node') {
  for (const name of ['TextEncoder', 'TextDecoder', 'structuredClone']) vi.stubGlobal(name, undefined);
  vi.resetModules();
  const toolwire = entry === 'node' ? await import('../src/node') : await import('../src/index');
  // A page asks for JSON Schema tools by an import (docs/guide/browsers.md).
  if (entry === 'browser') await import('../src/json-schema');
  const { invokeTool } = await import('../src/call/invoke');
  const { Redactor } = await import('../src/redact');
  const { inputSchemaOf } = await import('../src/tool/tool');
  return { ...toolwire, invokeTool, Redactor, inputSchemaOf };
}

describe('a runtime without TextEncoder, TextDecoder and structuredClone', () => {
  it.each(['node', 'browser'] as const)(
    'imports toolwire (%s entry) and runs a zod and a JSON Schema tool',
    async (entry) => {
      const { tool, invokeTool, inputSchemaOf } = await loadWithout(entry);
      expect(typeof TextEncoder).toBe('undefined');
      const add = tool({
        name: 'add',
        description: 'Adds two numbers',
        parameters: z.object({ a: z.number(), b: z.number() }),
        execute: ({ a, b }) => String(a + b),
      });
      const greet = tool({
        name: 'greet',
        description: 'Greets someone',
        parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        execute: ({ name }: { name: string }) => `hello ${name}`,
      });
      await expect(invokeTool(add, { a: 2, b: 3 })).resolves.toMatchObject({ status: 'ok', output: '5' });
      await expect(invokeTool(greet, { name: 'Ada' })).resolves.toMatchObject({ output: 'hello Ada' });
      await expect(invokeTool(greet, { name: 7 })).resolves.toMatchObject({ status: 'invalid_arguments' });
      const schema = inputSchemaOf(greet);
      expect(schema).toEqual(greet.definition.parameters);
      expect(schema).not.toBe(greet.definition.parameters);
    },
  );

  it('redacts a secret in every form it knows, bytes included', async () => {
    const { Redactor } = await loadWithout();
    const secret = 'sk-live-ключ-0123456789';
    const redactor = new Redactor([secret]);
    const bytes = Uint8Array.from(Buffer.from(`token ${secret}`));
    expect(redactor.bytes(bytes)).toBe(true);
    expect(redactor.text(`a ${encodeURIComponent(secret)} b`)).toBe('a [redacted] b');
    expect(redactor.text(`hex ${Buffer.from(secret).toString('hex')}`)).not.toContain(
      Buffer.from(secret).toString('hex'),
    );
    expect(redactor.text(`b64 ${Buffer.from(`user:${secret}`).toString('base64')}`)).toContain('[redacted]');
  });
});
