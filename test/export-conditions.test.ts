/**
 * The conditions of package.json `exports` as resolvers read them: Node (`node`, by `import` or `require`), a bundler
 * for a browser (`browser` beside `import`, or beside `require` for a CommonJS module in the page), edge runtimes and
 * others. Every entry must resolve into the build the root does (tsup.config.ts), whichever way a program's code
 * reaches it: a registration made into another copy of the core changes nothing for the core the program's tools
 * are made with, and the Node build does not load in a page.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

type Target = string | { readonly [condition: string]: Target };

const { exports } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  exports: Record<string, Target>;
};

/** What `target` resolves to under `conditions`: the first key in order that is one of them, as Node reads it. */
function resolve(target: Target, conditions: readonly string[]): string | undefined {
  if (typeof target === 'string') return target;
  for (const [condition, next] of Object.entries(target)) {
    if (condition !== 'default' && !conditions.includes(condition)) continue;
    const found = resolve(next, conditions);
    if (found !== undefined) return found;
  }
  return undefined;
}

const SUBPATHS = Object.keys(exports).filter(
  (entry) => entry.startsWith('./') && entry !== './package.json' && entry !== './server-stub',
);
describe('the package in a browser bundle', () => {
  it.each(['import', 'require'])(
    'gives every entry, by %s, the browser build the root comes from (a require too: a CommonJS module in a page)',
    (kind) => {
      const conditions = ['browser', kind];
      expect(resolve(exports['.'] as Target, conditions)).toBe('./dist/browser/index.js');
      const resolved = SUBPATHS.map((entry) => resolve(exports[entry] as Target, conditions));
      // The same file as Node's ES module, from the browser build.
      const inNode = SUBPATHS.map((entry) => resolve(exports[entry] as Target, ['node', 'import']));
      expect(resolved).toEqual(inNode.map((file) => file?.replace('./dist/', './dist/browser/')));
    },
  );
});

// Each build shares one core among its own entries only (tsup.config.ts): a subpath from the other build would
// bring a second core, whose registry and error classes the root's tools do not know.
describe.each([
  ['Node, by import', ['node', 'import'], /^\.\/dist\/[^/]+(\/index)?\.js$/],
  ['Node, by require', ['node', 'require'], /^\.\/dist\/[^/]+(\/index)?\.cjs$/],
  ['a browser', ['browser', 'import'], /^\.\/dist\/browser\//],
  ['an edge runtime', ['workerd', 'worker', 'import'], /^\.\/dist\/browser\//],
  ['a resolver with no known condition', ['import'], /^\.\/dist\/browser\//],
  [
    'a CommonJS resolver neither Node nor a browser (React Native)',
    ['react-native', 'require'],
    /^\.\/dist\/browser\//,
  ],
  ['an edge runtime, by require', ['workerd', 'worker', 'browser', 'require'], /^\.\/dist\/browser\//],
])('the package in %s', (_name, conditions, build) => {
  it('resolves the root and every subpath into one build', () => {
    for (const entry of ['.', ...SUBPATHS]) {
      expect(resolve(exports[entry] as Target, conditions), entry).toMatch(build);
    }
  });
});
