import { defineConfig } from 'tsup';

// The adapters (toolwire/mcp, toolwire/ai-sdk, toolwire/otel) import the core as 'toolwire': one copy of it, ESM
// and CJS alike.
const external = ['ws', 'zod', 'zod3', 'valibot', 'arktype', 'toolwire', '@opentelemetry/api'];

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      'server-stub/index': 'server-stub/index.ts',
      'server-stub/cli': 'server-stub/cli.ts',
      'mcp/index': 'src/mcp/index.ts',
      'ai-sdk/index': 'src/ai-sdk/index.ts',
      'otel/index': 'src/otel/index.ts',
      // In the full build these change nothing; the browser build needs them for zod 3 / valibot parameters.
      zod3: 'src/zod3.ts',
      valibot: 'src/valibot.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    // Not `clean: true`: tsup runs both configs at once, and this one's clean could remove the browser build the
    // other had already written (publint then found no dist/browser/index.js). `npm run clean` empties dist first.
    clean: false,
    sourcemap: true,
    target: 'node20',
    external,
    // CommonJS has no `import.meta`: there `import.meta.url` is `undefined` (src/wire/transport.ts then leaves
    // `ws` to `import('ws')`, which the CommonJS output turns into `require('ws')`).
    esbuildOptions(options, { format }) {
      if (format === 'cjs') options.define = { ...options.define, 'import.meta.url': 'undefined' };
    },
  },
  {
    // The `browser` condition of `toolwire`: ESM for bundlers, built for the browser platform.
    entry: { 'browser/index': 'src/index.ts' },
    format: ['esm'],
    dts: false,
    clean: false,
    sourcemap: true,
    target: 'es2022',
    platform: 'browser',
    external,
  },
]);
