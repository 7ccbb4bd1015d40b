import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * The suite against the oldest zod that package.json's range admits (`zod-lowest`, a dev alias, zod 4.1.0):
 * `zod` and its subpaths, in the sources and the tests, resolve to the `zod-lowest` package through its own
 * `exports`, so that `zod` and `zod/mini` load one copy of zod as in an app (a path to the package's folder
 * would load `zod` from its CommonJS `main` beside an ESM `zod/mini`: two registries, descriptions lost).
 * Packages loaded from node_modules keep their own. `npm run test:zod-lowest` must pass.
 *
 * A test that pins what only a newer zod does skips below that version with `zodBefore()`
 * (test/support/zod-version.ts, read from the zod the test imports), saying why: zod's own messages and JSON
 * Schema forms (4.5, 4.6), `z.undefined()` announced (4.5, when zod calls the `unrepresentable` hook), the trust
 * proof (checked against 4.6), constructs a later minor added (`.exactOptional()`, `z.withParser()`). What must
 * hold with the oldest zod through the packed build (one copy, the same announcement and results through the
 * stub) is in test/package/install.test.ts, which `npm test` runs.
 */
// The base config's tiers (projects) aside: the files are named on the command line.
const { projects: _tiers, ...shared } = base.test ?? {};

export default mergeConfig(defineConfig({ ...base, test: shared }), {
  resolve: { alias: [{ find: /^zod(\/.*)?$/, replacement: 'zod-lowest$1' }] },
  test: { typecheck: { enabled: false } },
});
