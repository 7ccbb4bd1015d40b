/**
 * `npm run bench:scaling`: 1, 2, 4 and 8 worker processes (test/fleet/fixtures/worker.ts) against one stub, with
 * a per-tenant limit in each worker (`concurrency: { limit: 2, key: tenant }`), a rolling deploy (half the
 * workers on build b1, half on b2; the current build moves from b1 to b2 mid-way) and a key rotation under load
 * (the key file is rewritten and the old key revoked mid-way). Prints calls/s, the spread of calls between
 * workers, and calls lost and duplicated; writes bench/results/scaling.md.
 *
 * `--workers 1,2` picks the fleet sizes, `--runs <n>` the runs per size (40 calls each, 4 tenants), `--out <file>`
 * where the report goes (a smoke run can keep the committed one). The report is written again after each size,
 * so a run stopped part-way keeps the rows it measured. Every worker is killed after its size, failed or not.
 *
 * @module
 */

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { scriptedModel, silentLogger, startStubServer } from '../server-stub/index';
import { AGENT, keyFile, workTurns } from '../test/fleet/fixtures/setup';

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const index = argv.indexOf(name);
  return index === -1 ? undefined : argv[index + 1];
};
const SIZES = (flag('--workers') ?? '1,2,4,8').split(',').map(Number);
const RUNS = Number(flag('--runs') ?? '20');
const OUT = flag('--out') ?? fileURLToPath(new URL('./results/scaling.md', import.meta.url));
if (SIZES.some((size) => !Number.isInteger(size) || size < 1) || !Number.isInteger(RUNS) || RUNS < 1) {
  console.error('usage: bench/scaling.ts [--workers 1,2,4,8] [--runs 20] [--out file.md]');
  process.exit(2);
}
const CALLS = 40;

/** A worker process: its stdout lines, and a promise of its first line starting with `prefix`. */
function spawnClient(script: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: string[] = [];
  let buffer = '';
  let wake: (() => void) | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (buffer + chunk.toString()).split('\n');
    buffer = parts.pop() ?? '';
    lines.push(...parts);
    wake?.();
  });
  const line = async (prefix: string): Promise<string> => {
    for (;;) {
      const found = lines.find((text) => text.startsWith(prefix));
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  };
  return { child, lines, line };
}

interface Row {
  workers: number;
  calls: number;
  seconds: number;
  spread: string;
  lost: number;
  duplicated: number;
}

async function measure(size: number): Promise<Row> {
  const server = await startStubServer({
    apiKeys: ['scale-key-1'],
    agents: [AGENT],
    model: scriptedModel(workTurns(CALLS, 4)),
    logger: silentLogger,
  });
  const key = keyFile('scale-key-1');
  const spawned: Array<ReturnType<typeof spawnClient>> = [];
  try {
    return await measureWith(size, server, key, spawned);
  } finally {
    for (const w of spawned) w.child.kill('SIGKILL');
    await server.close();
  }
}

async function measureWith(
  size: number,
  server: Awaited<ReturnType<typeof startStubServer>>,
  key: ReturnType<typeof keyFile>,
  spawned: Array<ReturnType<typeof spawnClient>>,
): Promise<Row> {
  const workers = await Promise.all(
    Array.from({ length: size }, (_, i) => {
      const worker = spawnClient(
        fileURLToPath(new URL('../test/fleet/fixtures/worker.ts', import.meta.url)),
        {
          TOOLWIRE_URL: server.url,
          KEY_FILE: key.path,
          WORKER: `w${i}`,
          DELAY_MS: '5',
          KEYED: '2',
          BUILD_ID: size > 1 && i >= size / 2 ? 'b2' : 'b1',
        },
      );
      spawned.push(worker);
      return worker.line('ready').then(() => worker);
    }),
  );
  server.setCurrentBuild('b1');
  const started = performance.now();
  const runIds: string[] = [];
  for (let run = 0; run < RUNS; run++) {
    runIds.push(server.runs.start('Fleet', 'go', { apiKey: 'scale-key-1' }));
    if (run === Math.floor(RUNS / 2)) {
      // Mid-way: the deploy moves on, and the key rotates under load.
      if (size > 1) server.setCurrentBuild('b2');
      key.write('scale-key-2');
      server.setApiKeys([{ key: 'scale-key-2', tenant: 'scale-key-1' }]);
    }
  }
  const transcripts = await Promise.all(runIds.map((runId) => server.runs.waitFor(runId)));
  const seconds = (performance.now() - started) / 1000;
  const ok = transcripts.flatMap((t) => t.toolCalls).filter((call) => call.status === 'ok');
  const perWorker = new Map<string, number>();
  for (const call of ok) {
    const name = (call.output ?? '').split(':')[0] as string;
    perWorker.set(name, (perWorker.get(name) ?? 0) + 1);
  }
  const ran = workers.flatMap((w) => w.lines.filter((line) => line.startsWith('ran ')));
  return {
    workers: size,
    calls: ok.length,
    seconds,
    spread: [...perWorker.entries()]
      .sort()
      .map(([name, count]) => `${name} ${count}`)
      .join(', '),
    lost: RUNS * CALLS - ok.length,
    duplicated: ran.length - new Set(ran).size,
  };
}

const rows: Row[] = [];
/** The report of the rows measured so far. */
function report(): string {
  return [
    `# Scaling: worker processes against one stub`,
    '',
    `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${RUNS} runs of ${CALLS} calls (4 tenants, 5 ms each, 2 per tenant per worker), a rolling deploy b1 → b2 and a key rotation mid-way. \`npm run bench:scaling\`.`,
    '',
    '| workers | calls | calls/s | lost | duplicated | calls per worker |',
    '|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.workers} | ${row.calls} | ${(row.calls / row.seconds).toFixed(0)} | ${row.lost} | ${row.duplicated} | ${row.spread} |`,
    ),
    '',
  ].join('\n');
}
for (const size of SIZES) {
  const row = await measure(size);
  rows.push(row);
  console.log(
    `${row.workers} workers: ${(row.calls / row.seconds).toFixed(0)} calls/s, ${row.lost} lost, ${row.duplicated} duplicated; ${row.spread}`,
  );
  writeFileSync(OUT, report());
}
process.exit(0);
