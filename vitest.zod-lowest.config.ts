import { fileURLToPath } from 'node:url';
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config';

/**
 * The suite against the oldest zod that package.json's range admits (`zod-lowest`, a dev alias): `zod` and its
 * subpaths, in the sources and the tests, resolve to it. Packages loaded from node_modules keep their own.
 * `npm run test:zod-lowest`. Tests that pin what only the locked zod does fail there and are read, not fixed:
 * zod's own messages and JSON Schema forms, `z.undefined()` announced and the trust proof (both from 4.6), and
 * the constructs a later minor added (`.exactOptional()`). What must hold with the oldest zod (one copy, the
 * same announcement and results through the stub) is in test/package/install.test.ts, which `npm test` runs.
 */
const lowest = fileURLToPath(new URL('./node_modules/zod-lowest', import.meta.url));

// The base config's tiers (projects) aside: the files are named on the command line.
const { projects: _tiers, ...shared } = base.test ?? {};

export default mergeConfig(defineConfig({ ...base, test: shared }), {
  resolve: { alias: [{ find: /^zod(\/.*)?$/, replacement: `${lowest}$1` }] },
  test: { typecheck: { enabled: false } },
});
