/**
 * `npm run test:soak`: the long versions of the fault scenarios, bounded by flags.
 *
 * - `TOOLWIRE_SOAK_MS`: how long the soak starts new runs (default 45,000 ms; the whole command stays under 60 s).
 * - `TOOLWIRE_SOAK_SEED`: the seed of every random choice (default 1).
 * - `TOOLWIRE_FLOOD_CALLS`: calls sent at once by the flood (default 100,000).
 * - `TOOLWIRE_LONG=1`: also measures dead-peer detection with the default 15 s heartbeat, for real.
 */
import { defineConfig } from 'vitest/config';
import base from './vitest.config';

// The base config's tiers (projects) aside: this config names its own files.
const { projects: _tiers, ...shared } = base.test ?? {};

export default defineConfig({
  ...base,
  test: {
    ...shared,
    include: ['test/fault/soak.test.ts', 'test/fault/flood.test.ts', 'test/fault/heartbeat.test.ts'],
    typecheck: { enabled: false },
    // The files mostly wait on sockets and timers: run them side by side even on two cores.
    maxWorkers: 3,
    env: {
      TOOLWIRE_SOAK_MS: process.env.TOOLWIRE_SOAK_MS ?? '45000',
      TOOLWIRE_FLOOD_CALLS: process.env.TOOLWIRE_FLOOD_CALLS ?? '100000',
      TOOLWIRE_LONG: '1',
    },
  },
});
