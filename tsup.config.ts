import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import { defineConfig, type Options } from 'tsup';

/**
 * Two builds of the one source, each whole: what a program loads must come from one of them only, so that a
 * subpath (`toolwire/mcp`, `toolwire/zod3`, …) and the root share one core (one tool registry, one set of error
 * classes). package.json `exports` gives the `node` condition the first and everything else the second
 * (test/export-conditions.test.ts).
 *
 * - **The Node build** (`dist/`, ESM and CommonJS, with the types of both): Node, Bun and Deno, and bundlers
 *   that build for them. Its entries share one chunk, the core with every optional part (src/node.ts registers
 *   them all), so that a worker loads toolwire in two files: Node's ES module loader pays per file, and the
 *   split build of 44 files cost a cold worker ~30 ms more on Node 20, ~50 ms more on Node 24 (issue 28).
 * - **The browser build** (`dist/browser/`, ESM): browsers, edge runtimes and any other resolver. Split as
 *   finely as the entries and the code loaded on demand (src/call/parts.ts) make it, for a small first download.
 *
 * Dependencies and peers stay external (tsup leaves out every `dependencies` and `peerDependencies` name); so do
 * the schema libraries the tests use, and `toolwire` itself: the subpaths that define tools import the package's
 * own entry for its registrations, which resolves to the same build's root (src/compat.ts).
 */
const external = ['toolwire', 'ws', 'zod', 'zod3', 'valibot', 'arktype', '@opentelemetry/api'];

const SRC = fileURLToPath(new URL('./src/', import.meta.url));
const NODE_ENTRY = `${SRC}node.ts`;

/** The entries of both builds, by their path in dist/ (the root's is `node` in one and `index` in the other). */
const SUBPATHS = {
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
};

/**
 * The Node build's one core. Every entry imports src/node.ts first, so every file it reaches is reached by every
 * entry and esbuild puts them in one shared chunk (it splits by file, by the set of entries that reach it). The
 * code a browser loads on demand (`import('./approval')` …) is imported statically instead: src/node.ts registers
 * it all at start, and a dynamic import is a chunk of its own. The source stays one; only the build reads it so.
 */
function oneCore(entries: Record<string, string>): Plugin {
  const firsts = new Set(
    Object.values(entries)
      .map((file) => fileURLToPath(new URL(file, import.meta.url)))
      .filter((file) => file !== NODE_ENTRY),
  );
  return {
    name: 'one-core',
    setup(build) {
      // The bare import of src/node.ts each entry begins with must stay: package.json's `sideEffects` names built
      // files, not sources, so esbuild would take src/node.ts for a pure module and drop the import.
      build.onResolve({ filter: /\/src\/node\.ts$/ }, (args) =>
        args.path === NODE_ENTRY ? { path: NODE_ENTRY, sideEffects: true } : undefined,
      );
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (args.path.includes('/node_modules/')) return undefined;
        const text = await readFile(args.path, 'utf8');
        const heads: string[] = [];
        // Not `typeof import('./x')`: a type, which the build erases.
        let contents = text.replace(
          /(?<!typeof\s*)\bimport\((['"])(\.{1,2}\/[^'"]+)\1\)/g,
          (_, _quote, spec) => {
            const name = `__onDemand${heads.length}`;
            heads.push(`import * as ${name} from '${spec}';`);
            return `Promise.resolve(${name})`;
          },
        );
        if (firsts.has(args.path)) heads.unshift(`import ${JSON.stringify(NODE_ENTRY)};`);
        if (heads.length > 0) {
          // After a hashbang (server-stub/cli.ts), which must stay the first line.
          const hashbang = /^#!.*\n/.exec(contents)?.[0] ?? '';
          contents = `${hashbang}${heads.join('\n')}\n${contents.slice(hashbang.length)}`;
        }
        return { contents, loader: 'ts' };
      });
    },
  };
}

/**
 * Keeps every built JavaScript file ASCII: each character above U+007F written as its escape. esbuild already
 * escapes them in strings, templates, regular expressions and names; what is left is in the comments it keeps,
 * where the escape reads as the character did. V8 holds a module's whole source for as long as the program runs
 * (it compiles each function from it at its first call), as Latin-1 when every character fits and as UTF-16
 * otherwise: eleven arrows and ellipses in comments made the Node core's 775 KB chunk 1.55 MB of heap in every
 * process, which moved a cold worker's first major collection into its first 1,000 calls (issue 28: 402,000
 * instructions a call against 332,000 without it). Below U+0100 the heap is the same, but V8's UTF-8 decoding of
 * a file takes a fast path only when every byte is ASCII: a `§` and a `×` in the Node core's comments cost every
 * process ~17 million instructions at its import (issue 28).
 */
const asciiText: NonNullable<Options['plugins']>[number] = {
  name: 'ascii-text',
  renderChunk(code, chunk) {
    if (!/\.c?js$/.test(chunk.path)) return undefined;
    // By UTF-16 unit: a character above U+FFFF becomes its two surrogates' escapes, as a string reads them.
    const escaped = code.replace(
      /[\u0080-\uffff]/g,
      (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
    return escaped === code ? undefined : { code: escaped };
  },
};

const common: Options = {
  // No source maps: the package ships no sources for them to point at (with the sources' text they would more
  // than double the packed size), and the output is unminified ES2022 that reads as the source does.
  sourcemap: false,
  // Node 20 and the browsers toolwire supports run ES2022 as written.
  target: 'es2022',
  external,
  splitting: true,
  plugins: [asciiText],
};

const NODE_ENTRIES = {
  node: 'src/node.ts',
  ...SUBPATHS,
  // The hosted-service stand-in and its CLI (`toolwire-stub`): Node only.
  'server-stub/index': 'server-stub/index.ts',
  'server-stub/cli': 'server-stub/cli.ts',
};

export default defineConfig([
  {
    ...common,
    entry: NODE_ENTRIES,
    format: ['esm', 'cjs'],
    outDir: 'dist',
    dts: true,
    esbuildPlugins: [oneCore(NODE_ENTRIES)],
    esbuildOptions(options, { format }) {
      if (format === 'cjs') {
        // CommonJS has no `import.meta`: there `import.meta.url` is `undefined` (src/wire/transport.ts then leaves
        // `ws` to `import('ws')`, which the CommonJS output turns into `require('ws')`).
        options.define = { ...options.define, 'import.meta.url': 'undefined' };
        // tsup turns the split ESM chunks into CommonJS with sucrase, which makes a class with fields anonymous
        // (`_class2`): keeping names gives `OptionsError` etc. their names back in logs and `constructor.name`.
        options.keepNames = true;
      }
    },
  },
  {
    ...common,
    entry: { index: 'src/index.ts', ...SUBPATHS },
    format: ['esm'],
    outDir: 'dist/browser',
    // The declarations are the Node build's: one API.
    dts: false,
  },
]);
