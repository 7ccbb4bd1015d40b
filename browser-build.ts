/**
 * The browser build of `toolwire` (the `browser` export condition: dist/browser/index.js): the same
 * src/index.ts with the parts a page does not need to connect and answer tool calls left out of its first download,
 * swapped here at bundle time.
 *
 * - each module of {@link SUBPATH_MODULES} (the zod 3 and valibot adapters, with their converters
 *   `zod-to-json-schema` and `@valibot/to-json-schema`) resolves to its `.browser.ts` stand-in, which hands on to
 *   the real adapter once `import 'toolwire/zod3'` / `import 'toolwire/valibot'` registered it
 *   (src/tool/schema/subpaths.ts).
 * - each module of {@link LAZY_MODULES} resolves to its `.browser.ts` stand-in, which loads it by a dynamic
 *   `import()` the first time a page needs it, in a chunk of its own: e.g. validator.browser.ts loads
 *   src/tool/schema/validator.ts (with `@cfworker/json-schema`) the first time a tool needs it (plain JSON Schema
 *   parameters, or a library schema whose announcement must be checked).
 *
 * Used by tsup.config.ts and by bench/lib/bundle-size.ts, so that the bench measures what ships.
 *
 * @module
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';

const ROOT = dirname(fileURLToPath(import.meta.url));

/**
 * Modules the browser build replaces by a stand-in of the same exports (`<name>.browser.ts` beside each) that
 * finds the real module in src/tool/schema/subpaths.ts, put there by the subpath entry `<name>-subpath.ts`
 * (`toolwire/zod3`, `toolwire/valibot`), whose import of the real module is not swapped.
 */
export const SUBPATH_MODULES: readonly string[] = ['src/tool/schema/zod3', 'src/tool/schema/valibot'];

/**
 * Modules the browser build replaces by a lazy stand-in of the same exports (`<name>.browser.ts` beside each):
 * the stand-in loads the real module with a dynamic `import()`, which lands in a chunk of its own, when a page
 * first needs it. Paths from the repository root, without `.ts`. The stand-in's own import of the real module
 * is not swapped.
 */
export const LAZY_MODULES: readonly string[] = [
  'src/tool/schema/validator',
  'src/client/runs',
  'src/call/gate',
  'src/call/approval',
  'src/call/retry',
  'src/call/questions',
  'src/tool/schema/zod4-trust',
  'src/client/decisions',
  'src/client/signals',
  'src/client/questions',
  'src/call/steps',
  'src/client/tracing',
  'src/call/number-refusals',
];

const SWAPPED = new Set([...LAZY_MODULES, ...SUBPATH_MODULES].map((module) => join(ROOT, module)));

/** The esbuild plugin that makes the swaps above. */
export function browserSwaps(): Plugin {
  return {
    name: 'toolwire-browser-swaps',
    setup(build) {
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        const target = join(args.resolveDir, args.path).replace(/\.(?:ts|js)$/, '');
        const own = args.importer === `${target}.browser.ts` || args.importer === `${target}-subpath.ts`;
        if (!SWAPPED.has(target) || own) return undefined;
        return { path: `${target}.browser.ts` };
      });
    },
  };
}
