/**
 * The conditions of package.json `exports` as a bundler for a browser reads them: `browser` beside `import` for an
 * `import`, beside `require` for a `require()` (esbuild with `platform: 'browser'`, webpack's web target). The
 * entries that register an optional part into the core must resolve to the same build of the core the root does,
 * whichever of the two a page's code uses: a registration made into another copy changes nothing for the core the
 * page's tools are made with.
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
const REGISTERING = ['./zod3', './valibot', './json-schema', './strict'];

describe('the package in a browser bundle', () => {
  it.each(['import', 'require'])(
    'gives an entry that registers a part the core of the root, by %s',
    (kind) => {
      const conditions = ['browser', kind];
      expect(resolve(exports['.'] as Target, conditions)).toBe('./dist/browser/index.js');
      const resolved = REGISTERING.map((entry) => resolve(exports[entry] as Target, conditions));
      expect(resolved).toEqual(REGISTERING.map((entry) => `./dist/browser/${entry.slice(2)}.js`));
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
])('the package in %s', (_name, conditions, build) => {
  it('resolves the root and every subpath into one build', () => {
    for (const entry of ['.', ...SUBPATHS]) {
      expect(resolve(exports[entry] as Target, conditions), entry).toMatch(build);
    }
  });
});
