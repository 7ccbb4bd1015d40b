/**
 * The test suite in two tiers, as vitest projects (`npx vitest run --project <name>`):
 * - `unit` (`npm run test:unit`): the library's own behaviour, in memory, on fake timers where time matters;
 * - `slow`: real sockets against the stand-in service, faults, full property runs, the package build, the
 *   examples, the docs' type-checks;
 * - `browser`: the agent UI and the browser example in headless Chromium (one, started for the tier). Left out, with one printed line, where
 *   no Chromium is found ({@link findChromium}); the tests get its path as `inject('chromium')`.
 * `vitest run` (what `npm test` runs) runs all three. The type tests (`*.test-d.ts`) are checked by
 * `npm run typecheck` (tsconfig.json includes test/), which `npm test` runs first: `expectTypeOf` and
 * `@ts-expect-error` fail there as they would under vitest's typecheck, without a second tsc over the sources.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Where Chromium is looked for, in order, after `TOOLWIRE_CHROMIUM` (Debian's package, which `.ci/run` installs, first). */
const CHROMIUM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

/** The Chromium binary the browser tests drive: `TOOLWIRE_CHROMIUM` when set, else the first path that exists. */
function findChromium(): string | undefined {
  const chosen = process.env.TOOLWIRE_CHROMIUM;
  if (chosen !== undefined && chosen !== '') return existsSync(chosen) ? chosen : undefined;
  return CHROMIUM_PATHS.find((path) => existsSync(path));
}

declare module 'vitest' {
  interface ProvidedContext {
    /** The Chromium binary the browser tests drive ('' when there is none and they do not run). */
    chromium: string;
    /** `performance.now()` stands still in each test unless the test moves it (test/support/still-clock.ts). */
    stillClock: boolean;
    /** The major of the `openai` package the tests load as `openai`: '6' (the dev dependency), '7' (`openai7`). */
    openaiMajor: string;
  }
}

/** Files that drive a browser. */
export const BROWSER_TESTS = [
  'test/ui/address.test.ts',
  'test/ui/hosts.test.ts',
  'test/ui/approvals.test.ts',
  'test/ui/browser-example.test.ts',
  'test/ui/call-facts.test.ts',
  'test/ui/composer.test.ts',
  'test/ui/live-counts.test.ts',
  'test/ui/long-calls.test.ts',
  'test/ui/nested-runs.test.ts',
  'test/ui/optional-parts.test.ts',
  'test/ui/page.test.ts',
  'test/ui/streaming.test.ts',
];

/** Files of the slow tier (besides the browser's). */
export const SLOW_TESTS = [
  'test/fault/**/*.test.ts',
  'test/fleet/**/*.test.ts',
  'test/package/**/*.test.ts',
  'test/property/**/*.test.ts',
  'test/seeds/**/*.test.ts',
  'test/stub/**/*.test.ts',
  'test/ui/**/*.test.ts',
  'test/docs.test.ts',
  'test/demo.test.ts',
  'test/examples.test.ts',
  'test/tool/exact-optional-types.test.ts',
  // Worker processes spawned against the stand-in service.
  'test/fleet/processes.test.ts',
  // Files whose tests mostly run the stand-in service or an MCP server over real sockets and processes, waiting
  // on real time (reconnects, leases, signals): to move back to the unit tier as they move onto the in-memory
  // socket pair (test/helpers/memory-socket.ts) and fake timers.
  'test/bench/driver.test.ts',
  // Builds the browser bundle and measures a call's trip in a process of its own.
  'test/bench/budgets.test.ts',
  'test/client/agents.test.ts',
  'test/client/call-sequence.test.ts',
  'test/client/content.test.ts',
  'test/client/integration.test.ts',
  'test/client/internal-hooks.test.ts',
  'test/client/lease.test.ts',
  'test/client/preliminary.test.ts',
  'test/client/progress.test.ts',
  'test/client/questions.test.ts',
  'test/client/redaction-paths.test.ts',
  'test/client/signals.test.ts',
  'test/client/tool-events.test.ts',
  'test/mcp/stdio.test.ts',
  'test/mcp/through-client.test.ts',
  'test/wire/accept-what-protocol-says.test.ts',
];

/** Files that drive the `openai` package: run against openai 6 (slow tier) and openai 7 (`openai7` project). */
export const OPENAI_TESTS = ['test/stub/openai-model.test.ts', 'test/stub/openai-content.test.ts'];

/** The package test that packs the repository for the others (test/package/fresh-pack.ts `sharedPack`). */
const PACKS = 'test/package/install.test.ts';
/** Package tests that wait for that pack. */
const WAIT_FOR_PACK = ['test/package/quick-start.test.ts', 'test/package/checks.test.ts'];

/**
 * vitest's order (each project's files, longest or largest first), with the pack started first, so that its
 * build overlaps the other files, and the files that wait for it run last, when it is long done: run beside
 * it, a file would hold a worker idle for the whole build.
 */
class PackFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) =>
      spec.moduleId.endsWith(PACKS) ? 0 : WAIT_FOR_PACK.some((file) => spec.moduleId.endsWith(file)) ? 2 : 1;
    // Array sort is stable: the order within each rank is vitest's.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

/** The projects named by `--project` on the command line (none: every project runs). */
function selectedProjects(argv: readonly string[]): string[] {
  return argv.flatMap((arg, index) => {
    if (arg.startsWith('--project=')) return [arg.slice('--project='.length)];
    return arg === '--project' && argv[index + 1] !== undefined ? [argv[index + 1] as string] : [];
  });
}

const chromium = findChromium();
const selected = selectedProjects(process.argv);
// Said once per command: vitest loads this file again for each project that extends it.
if (
  chromium === undefined &&
  (selected.length === 0 || selected.includes('browser')) &&
  process.env.TOOLWIRE_SAID_NO_CHROMIUM === undefined
) {
  process.env.TOOLWIRE_SAID_NO_CHROMIUM = '1';
  console.info(
    `[toolwire] browser tests skipped (${BROWSER_TESTS.length} files): no Chromium found; install it ` +
      '(apt-get install chromium) or set TOOLWIRE_CHROMIUM to a Chromium or Chrome binary to run them.',
  );
}

export default defineConfig({
  resolve: {
    alias: {
      'toolwire/compat': fileURLToPath(new URL('./src/compat.ts', import.meta.url)),
      'toolwire/testing': fileURLToPath(new URL('./src/testing.ts', import.meta.url)),
      'toolwire/tracing': fileURLToPath(new URL('./src/tracing.ts', import.meta.url)),
      'toolwire/mcp': fileURLToPath(new URL('./src/mcp/index.ts', import.meta.url)),
      'toolwire/ai-sdk': fileURLToPath(new URL('./src/ai-sdk/index.ts', import.meta.url)),
      'toolwire/otel': fileURLToPath(new URL('./src/otel/index.ts', import.meta.url)),
      'toolwire/zod3': fileURLToPath(new URL('./src/zod3.ts', import.meta.url)),
      'toolwire/valibot': fileURLToPath(new URL('./src/valibot.ts', import.meta.url)),
      'toolwire/json-schema': fileURLToPath(new URL('./src/json-schema.ts', import.meta.url)),
      'toolwire/strict': fileURLToPath(new URL('./src/strict.ts', import.meta.url)),
      'toolwire/server-stub': fileURLToPath(new URL('./server-stub/index.ts', import.meta.url)),
      // The Node entry, as the package's `node` condition gives it: the core with every optional part registered.
      toolwire: fileURLToPath(new URL('./src/node.ts', import.meta.url)),
    },
  },
  test: {
    // No include here: a project that extends this config would add its own to it, not replace it.
    setupFiles: ['test/setup.ts'],
    testTimeout: 20_000,
    // vitest's default for `run` is a worker less than the cores: one on a 2-core machine, where the suite then
    // ran one file at a time. Most tests wait on sockets, timers and child processes, so two workers there took
    // the fault and property folders from 93 s to 65 s; three were slower (82 s) and starved the soak's timing.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: PackFirst },
    provide: { chromium: chromium ?? '', stillClock: false, openaiMajor: '6' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...SLOW_TESTS, ...BROWSER_TESTS],
          // One module graph per worker: importing the sources once rather than per file saves most of the
          // tier's time. test/setup.ts puts back the globals a file changed, and fails a file that leaves one.
          isolate: false,
          // A call's duration, and the other times read from `performance.now()`, do not depend on the machine's
          // load: the clock stands still in a test unless the test moves it (test/support/still-clock.ts).
          provide: { stillClock: true },
        },
      },
      {
        extends: true,
        test: {
          name: 'slow',
          include: SLOW_TESTS,
          exclude: BROWSER_TESTS,
          // As in the unit tier: a fresh module graph per file cost more than half this tier's time (a worker
          // started, and the sources, zod and ws imported, for each of ~100 files). Every file here closes the
          // servers, processes and sockets it opens, and test/setup.ts checks the globals.
          isolate: false,
          // The package tests share one `npm pack` (and so one build) of a fresh clone.
          globalSetup: ['test/package/pack-dir.ts'],
        },
      },
      {
        extends: true,
        // The stub's OpenAI-compatible model against the other major the `openai` peer range admits: `openai`
        // and its subpaths resolve to `openai7` (a dev alias, openai 7), through that package's own `exports`.
        // openai 7 declares Node 22 and later (its `engines`); these tests pass with it on Node 20 too.
        resolve: { alias: [{ find: /^openai(\/.*)?$/, replacement: 'openai7$1' }] },
        test: {
          name: 'openai7',
          include: OPENAI_TESTS,
          isolate: false,
          provide: { openaiMajor: '7' },
        },
      },
      ...(chromium === undefined
        ? []
        : [
            {
              extends: true as const,
              test: {
                name: 'browser',
                include: BROWSER_TESTS,
                isolate: false,
                // One Chromium for the tier; each file opens a fresh context in it. The page built from the
                // packed package uses the slow tier's pack (one `npm pack` a run).
                globalSetup: ['test/ui/chromium-server.ts', 'test/package/pack-dir.ts'],
              },
            },
          ]),
    ],
  },
});
