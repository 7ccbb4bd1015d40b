import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'server-stub/index': 'server-stub/index.ts',
    'server-stub/cli': 'server-stub/cli.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  external: ['ws', 'zod', 'zod3', 'valibot', 'arktype'],
});
