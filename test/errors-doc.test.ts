/**
 * The errors pages (docs/reference/errors.md and every `errors-*.md` beside it: the connection, a call, runs, loading
 * code) list each code under the class it is raised with, each class's codes on one page: checked here against
 * errors the code raises.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { contextSource } from '../src/client/client';
import type { ToolwireError } from '../src/errors';
import { Agent, Client, OptionsError, ToolDefinitionError, tool } from '../src/index';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The errors pages: docs/reference/errors.md and every page split from it (`errors-*.md`), by path. */
function errorPages(): string[] {
  return readdirSync(join(root, 'docs/reference'))
    .filter((name) => /^errors(-[\w-]+)?\.md$/.test(name))
    .sort()
    .map((name) => `docs/reference/${name}`);
}

/** The codes of each class's table on each errors page ("### `OptionsError`" …), in order: `[page, class, codes]`. */
function tables(): Array<[string, string, string[]]> {
  const found: Array<[string, string, string[]]> = [];
  for (const page of errorPages()) {
    let current: string[] | undefined;
    for (const line of readFileSync(`${root}${page}`, 'utf8').split('\n')) {
      const heading = /^###? `?(\w+)`?/.exec(line);
      if (heading !== null) {
        current = [];
        found.push([page, heading[1] as string, current]);
      } else if (current !== undefined) {
        const row = /^\| `(\w+)`(?:, `\w+`)* +\|/.exec(line);
        if (row !== null)
          current.push(...[...(line.split('|')[1] ?? '').matchAll(/`(\w+)`/g)].map((m) => m[1] as string));
      }
    }
  }
  return found;
}

/** The codes listed under each class, over every errors page. */
function codesByClass(): Map<string, string[]> {
  const byClass = new Map<string, string[]>();
  for (const [, name, codes] of tables()) byClass.set(name, [...(byClass.get(name) ?? []), ...codes]);
  return byClass;
}

/** What the client reports (its `error` event) when its `context` function throws for a call. */
function contextFailure(): ToolwireError {
  const reported: ToolwireError[] = [];
  const contextFor = contextSource(
    new Map(),
    {
      context: () => {
        throw new Error('no tenant');
      },
    },
    (error) => reported.push(error),
  );
  raised(() => contextFor({ callId: 'c1', runId: 'r1', toolName: 'echo' }));
  return reported[0] as ToolwireError;
}

function raised(fn: () => unknown): ToolwireError {
  try {
    fn();
  } catch (error) {
    return error as ToolwireError;
  }
  throw new Error('nothing was thrown');
}

it('lists each code under the class that raises it, and only there', () => {
  const echo = tool({ name: 'echo', description: 'd', execute: () => '' });
  const other = tool({ name: 'echo', description: 'another', execute: () => '' });
  const errors: ToolwireError[] = [
    raised(() => new Client({ url: 'ws://127.0.0.1:1', apiKey: 'k', tools: [echo, other] })),
    raised(() => new Agent({ name: 'A', instructions: '', tools: [echo, other] })),
    raised(() =>
      tool({
        name: 't',
        description: 'd',
        parameters: { type: 'object', required: ['x'], additionalProperties: false },
        execute: () => '',
      }),
    ),
    contextFailure(),
  ];
  const byClass = codesByClass();
  for (const error of errors) {
    const listedUnder = [...byClass].filter(([, codes]) => codes.includes(error.code)).map(([name]) => name);
    expect(listedUnder, `${error.name} ${error.code}`).toContain(error.name);
  }
  // Raised by one class only, listed under that one only.
  const contextError = errors[3] as ToolwireError;
  expect(contextError).toBeInstanceOf(OptionsError);
  expect([...byClass].filter(([, codes]) => codes.includes('context_failed')).map(([name]) => name)).toEqual([
    'OptionsError',
  ]);
  expect(errors[1]).toBeInstanceOf(ToolDefinitionError);
});

/** `new XError('code'` in the sources of src/ and server-stub/: every code written out where it is raised. */
function codesRaised(): Array<[string, string]> {
  const files = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'ui' ? [] : files(path);
      return entry.name.endsWith('.ts') ? [path] : [];
    });
  const found = new Set<string>();
  for (const file of [...files('src'), ...files('server-stub')]) {
    for (const match of readFileSync(join(root, file), 'utf8').matchAll(/new (\w+Error)\(\s*'(\w+)'/g)) {
      found.add(`${match[1]} ${match[2]}`);
    }
  }
  return [...found].sort().map((entry) => entry.split(' ') as [string, string]);
}

it('lists the codes of each class on one page, the pages split from errors.md included', () => {
  expect(errorPages()).toEqual(
    expect.arrayContaining(['docs/reference/errors.md', 'docs/reference/errors-calls.md']),
  );
  const pagesOf = new Map<string, Set<string>>();
  for (const [page, name, codes] of tables()) {
    if (codes.length > 0) pagesOf.set(name, (pagesOf.get(name) ?? new Set()).add(page));
  }
  expect([...pagesOf].filter(([, pages]) => pages.size > 1)).toEqual([]);
  expect([...pagesOf.keys()]).toEqual(
    expect.arrayContaining([
      'ConnectionError',
      'RunError',
      'QuestionError',
      'ApprovalError',
      'ProtocolError',
    ]),
  );
});

it('documents every code the sources raise by name', () => {
  const pages = errorPages()
    .map((page) => readFileSync(`${root}${page}`, 'utf8'))
    .join('\n');
  const raised = codesRaised();
  expect(raised.length).toBeGreaterThan(30);
  expect(raised.filter(([, code]) => !pages.includes(`\`${code}\``))).toEqual([]);
});
