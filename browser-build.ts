/**
 * The browser build of `toolwire` (the `browser` export condition: dist/browser/index.js): the same
 * src/index.ts with the parts a page does not need to connect and answer tool calls left out of its first download,
 * swapped here at bundle time.
 *
 * - `zod-to-json-schema` and `@valibot/to-json-schema` resolve to stand-ins (src/browser/) that hand on to
 *   the real converters once `import 'toolwire/zod3'` / `import 'toolwire/valibot'` registered them.
 * - each module of {@link LAZY_MODULES} resolves to its `.browser.ts` stand-in, which loads it by a dynamic
 *   `import()` the first time a page needs it, in a chunk of its own: e.g. validator.browser.ts loads
 *   `@cfworker/json-schema` the first time a tool needs it (plain JSON Schema parameters, or a library schema
 *   whose announcement must be checked).
 *
 * Used by tsup.config.ts and by bench/lib/bundle-size.ts, so that the bench measures what ships.
 *
 * @module
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';

const ROOT = dirname(fileURLToPath(import.meta.url));

/** Packages the browser build does not bundle, and their stand-ins. */
export const BROWSER_STAND_INS: Readonly<Record<string, string>> = {
  'zod-to-json-schema': join(ROOT, 'src/browser/zod-to-json-schema.ts'),
  '@valibot/to-json-schema': join(ROOT, 'src/browser/valibot-to-json-schema.ts'),
};

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
];

const LAZY = new Set(LAZY_MODULES.map((module) => join(ROOT, module)));

/** The esbuild plugin that makes the swaps above. */
export function browserSwaps(): Plugin {
  return {
    name: 'toolwire-browser-swaps',
    setup(build) {
      // toolwire/zod3 and toolwire/valibot (src/browser/) import the real packages, to register them.
      build.onResolve({ filter: /^(zod-to-json-schema|@valibot\/to-json-schema)$/ }, (args) =>
        args.importer.startsWith(join(ROOT, 'src/browser/'))
          ? undefined
          : { path: BROWSER_STAND_INS[args.path]! },
      );
      build.onResolve({ filter: /^\.\.?\// }, (args) => {
        const target = join(args.resolveDir, args.path).replace(/\.(?:ts|js)$/, '');
        if (!LAZY.has(target) || args.importer === `${target}.browser.ts`) return undefined;
        return { path: `${target}.browser.ts` };
      });
    },
  };
}
