import { defineConfig } from 'tsup';

/**
 * One build for every runtime: each entry in ESM and CommonJS, with what entries share split into common chunks,
 * so that the core is loaded once when the root and a subpath (`toolwire/mcp`, `toolwire/zod3`, …) are both
 * imported, in either format (test/package/install.test.ts). Dependencies and peers stay external (tsup
 * leaves out every `dependencies` and `peerDependencies` name); so do the schema libraries the tests use.
 */
export default defineConfig({
  entry: {
    // The core (`browser` and `default` conditions of `toolwire`) and the Node entry (`node` condition).
    index: 'src/index.ts',
    node: 'src/node.ts',
    // Subpaths that register an optional part.
    zod3: 'src/zod3.ts',
    valibot: 'src/valibot.ts',
    'json-schema': 'src/json-schema.ts',
    strict: 'src/strict.ts',
    // What tests use: `invokeTool`, run replay, the widget check.
    testing: 'src/testing.ts',
    // What a tracer of your own is handed (no OpenTelemetry).
    tracing: 'src/tracing.ts',
    // Other SDKs' names (`defineTool`, their names on ctx).
    compat: 'src/compat.ts',
    // Adapters.
    'mcp/index': 'src/mcp/index.ts',
    'ai-sdk/index': 'src/ai-sdk/index.ts',
    'otel/index': 'src/otel/index.ts',
    // The hosted-service stand-in and its CLI (`toolwire-stub`).
    'server-stub/index': 'server-stub/index.ts',
    'server-stub/cli': 'server-stub/cli.ts',
  },
  format: ['esm', 'cjs'],
  // tsup splits ESM by default; CommonJS only when asked.
  splitting: true,
  dts: true,
  clean: true,
  // No source maps: the package ships no sources for them to point at (with the sources' text they would more
  // than double the packed size), and the output is unminified ES2022 that reads as the source does.
  sourcemap: false,
  // Node 20 and the browsers toolwire supports run ES2022 as written.
  target: 'es2022',
  // `toolwire` itself: the subpaths that define tools import the package's own entry for its registrations, which
  // Node resolves to the Node entry (src/compat.ts).
  external: ['toolwire', 'ws', 'zod', 'zod3', 'valibot', 'arktype', '@opentelemetry/api'],
  // CommonJS has no `import.meta`: there `import.meta.url` is `undefined` (src/wire/transport.ts then leaves
  // `ws` to `import('ws')`, which the CommonJS output turns into `require('ws')`).
  esbuildOptions(options, { format }) {
    if (format === 'cjs') {
      options.define = { ...options.define, 'import.meta.url': 'undefined' };
      // tsup turns the split ESM chunks into CommonJS with sucrase, which makes a class with fields anonymous
      // (`_class2`): keeping names gives `OptionsError` etc. their names back in logs and `constructor.name`.
      options.keepNames = true;
    }
  },
});
