import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    alias: {
      'toolwire/compat': fileURLToPath(new URL('./src/compat.ts', import.meta.url)),
      'toolwire/mcp': fileURLToPath(new URL('./src/mcp/index.ts', import.meta.url)),
      'toolwire/ai-sdk': fileURLToPath(new URL('./src/ai-sdk/index.ts', import.meta.url)),
      'toolwire/otel': fileURLToPath(new URL('./src/otel/index.ts', import.meta.url)),
      'toolwire/zod3': fileURLToPath(new URL('./src/zod3.ts', import.meta.url)),
      'toolwire/valibot': fileURLToPath(new URL('./src/valibot.ts', import.meta.url)),
      'toolwire/json-schema': fileURLToPath(new URL('./src/json-schema.ts', import.meta.url)),
      'toolwire/server-stub': fileURLToPath(new URL('./server-stub/index.ts', import.meta.url)),
      // The Node entry, as the package's `node` condition gives it: the core with every optional part registered.
      toolwire: fileURLToPath(new URL('./src/node.ts', import.meta.url)),
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 20_000,
    typecheck: { enabled: true, include: ['test/**/*.test-d.ts'], tsconfig: './tsconfig.json' },
  },
});
