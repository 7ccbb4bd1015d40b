import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The layers of src/ (see docs/design.md): imports run one way, client → call → tool → wire → the shared
 * files at the top of src/, and no file imports one that imports it back, through any chain. The adapters
 * (src/mcp, src/ai-sdk, src/otel: the `toolwire/mcp`, `toolwire/ai-sdk` and `toolwire/otel` subpaths) rank above
 * the client and import the core's modules directly, never an entry file nor the package by name; the build puts
 * what an entry and an adapter share in common chunks, so one copy of the core is loaded when both are
 * (test/package/install.test.ts).
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const RANK: Record<string, number> = {
  mcp: 5,
  'ai-sdk': 5,
  otel: 5,
  client: 4,
  call: 3,
  tool: 2,
  wire: 1,
  shared: 0,
};
const ADAPTERS = new Set(['mcp', 'ai-sdk', 'otel']);
/** The package's entry files: they compose the layers, so they stand above all of them. */
const ENTRIES = new Set([
  'src/index.ts',
  'src/node.ts',
  'src/zod3.ts',
  'src/valibot.ts',
  'src/json-schema.ts',
  'src/strict.ts',
  'src/compat.ts',
  'src/testing.ts',
  'src/tracing.ts',
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.generated.ts') ? [path] : [];
  });
}

/** Relative imports of a file (static, dynamic, type-only and re-exports), resolved to repo paths. */
function importsOf(file: string, known: Set<string>): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    const base = posix.normalize(posix.join(posix.dirname(file), match[1] as string));
    const target = [`${base}.ts`, `${base}/index.ts`, base].find((candidate) => known.has(candidate));
    if (target !== undefined) found.push(target);
  }
  return found;
}

function layerOf(file: string): string {
  const [, folder] = file.split('/');
  return folder !== undefined && folder in RANK && file.split('/').length > 2 ? folder : 'shared';
}

function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

const files = [...sourceFiles('src'), ...sourceFiles('server-stub')];
const known = new Set(files);
const graph = new Map(files.map((file) => [file, importsOf(file, known)]));

describe('architecture', () => {
  it('has no import from a lower layer of src/ to a higher one', () => {
    const upward = [...graph]
      .filter(([file]) => file.startsWith('src/') && !ENTRIES.has(file))
      .flatMap(([file, targets]) =>
        targets
          .filter((target) => target.startsWith('src/'))
          .filter((target) => (RANK[layerOf(target)] ?? 0) > (RANK[layerOf(file)] ?? 0))
          .map((target) => `${file} -> ${target}`),
      );
    expect(upward).toEqual([]);
  });

  it('keeps the adapters apart: each imports the core modules below it, no entry and no other adapter, and nothing imports them', () => {
    const isAdapter = (file: string) => file.startsWith('src/') && ADAPTERS.has(layerOf(file));
    const crossing = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) =>
          isAdapter(file)
            ? ENTRIES.has(target) || (isAdapter(target) && layerOf(target) !== layerOf(file))
            : isAdapter(target),
        )
        .map((target) => `${file} -> ${target}`),
    );
    expect(crossing).toEqual([]);
  });

  it('never imports the package by its own name in src/: a module reaches another by its path', () => {
    // Statements only: TSDoc examples and messages do name 'toolwire'. One exception, a bare `import 'toolwire';`
    // in the subpaths that define tools: it takes nothing, and resolves by the runtime's export conditions (the Node
    // entry and its registrations in Node, the core elsewhere), which a path cannot do.
    const REGISTERING = new Set([
      'src/compat.ts',
      'src/ai-sdk/index.ts',
      'src/mcp/index.ts',
      'src/testing.ts',
    ]);
    const byName = files
      .filter((file) => file.startsWith('src/'))
      .filter((file) =>
        readFileSync(join(root, file), 'utf8')
          .split('\n')
          .some(
            (line) =>
              !(REGISTERING.has(file) && line === "import 'toolwire';") &&
              (/^\s*(?:import|export)\b[^`]*'toolwire[/']/.test(line) ||
                /\bimport\(\s*'toolwire[/']/.test(line)),
          ),
      );
    expect(byName).toEqual([]);
    // And those four do import it.
    for (const file of REGISTERING)
      expect(readFileSync(join(root, file), 'utf8').split('\n'), file).toContain("import 'toolwire';");
  });

  it("keeps the adapters off the client's public events: an application's removeAllListeners() cannot disable them", () => {
    // They are reached through what the application hands the client (`tools`, `tracing`) and called directly; an
    // event listener would be the application's to remove (test/mcp/through-client.test.ts runs them without any).
    const listening = files
      .filter((file) => file.startsWith('src/') && ADAPTERS.has(layerOf(file)))
      .filter((file) =>
        /\.(?:on|once|addListener|prependListener|prependOnceListener)\(/.test(
          readFileSync(join(root, file), 'utf8'),
        ),
      );
    expect(listening).toEqual([]);
  });

  it('has no import cycle in src/ or server-stub/', () => {
    expect(cycles(graph).map((cycle) => cycle.join(' -> '))).toEqual([]);
  });
});
