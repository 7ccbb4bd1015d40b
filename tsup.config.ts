import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'server-stub/index': 'server-stub/index.ts',
    'server-stub/cli': 'server-stub/cli.ts',
    'mcp/index': 'src/mcp/index.ts',
    'ai-sdk/index': 'src/ai-sdk/index.ts',
    'otel/index': 'src/otel/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // The adapters (toolwire/mcp, toolwire/ai-sdk, toolwire/otel) import the core as 'toolwire': one copy of it, ESM
  // and CJS alike.
  external: ['ws', 'zod', 'zod3', 'valibot', 'arktype', 'toolwire', '@opentelemetry/api'],
});
