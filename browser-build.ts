/**
 * The browser build of `toolwire` (the `browser` export condition: dist/browser/index.js): the same
 * src/index.ts with three things left out of the first download, swapped here at bundle time.
 *
 * - `zod-to-json-schema` and `@valibot/to-json-schema` resolve to stand-ins (src/browser/) that hand on to
 *   the real converters once `import 'toolwire/zod3'` / `import 'toolwire/valibot'` registered them.
 * - src/tool/schema/validator.ts resolves to validator.browser.ts: `@cfworker/json-schema` is loaded by a
 *   dynamic `import()` the first time a tool needs it (plain JSON Schema parameters, or a library schema whose
 *   announcement must be checked), in a chunk of its own.
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

const VALIDATOR = join(ROOT, 'src/tool/schema/validator.ts');

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
      build.onResolve({ filter: /\/validator$/ }, (args) =>
        join(args.resolveDir, args.path) === VALIDATOR.replace(/\.ts$/, '')
          ? { path: VALIDATOR.replace(/\.ts$/, '.browser.ts') }
          : undefined,
      );
    },
  };
}
