/**
 * `npx tsx bench/define.ts`: what defining a tool costs (issue 28: a fleet worker defines its 50–1,000 tools at
 * every start), per schema library (zod 4, zod 3 through `toolwire/zod3`, valibot, a plain JSON Schema), with the
 * Node entry (src/node.ts, which registers every optional part).
 *
 * Each library runs in fresh processes, which import the library and toolwire and build 201 parameter schemas of
 * four shapes (not measured), then define one tool ("first": it pays the first run of toolwire's and the library's
 * conversion code) and 200 more ("next": a tool each). Printed per library and run:
 * - CPU ms (`process.cpuUsage()`, user + system) of the first tool and a tool of the next 200;
 * - with callgrind (`--no-instructions` skips it; `valgrind --instr-atstart=no`, counting switched on by
 *   `callgrind_control` for the two windows only): the instructions of the same windows, every thread.
 *
 * `--runs N` (default 2) processes of each kind per library; `--libs zod4,valibot` a subset. Not part of
 * `npm run bench`; figures go to bench/results/ by hand. No assertions.
 *
 * @module
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { compilerShare } from './lib/instructions';

const LIBS = ['zod4', 'zod3', 'valibot', 'json-schema'] as const;
type Lib = (typeof LIBS)[number];
const NEXT = 200;

const argv = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const index = argv.indexOf(`--${name}`);
  return index === -1 ? fallback : argv[index + 1]!;
};

/** The parameters of tool `i`: four shapes, each schema its own object (nothing shared between tools). */
async function schemaMaker(lib: Lib): Promise<(i: number) => unknown> {
  if (lib === 'zod4' || lib === 'zod3') {
    const { z } =
      lib === 'zod4' ? await import('zod') : ((await import('zod3')) as unknown as typeof import('zod'));
    const shapes = [
      () => z.object({ id: z.string(), limit: z.number().int().optional(), exact: z.boolean() }),
      () =>
        z.object({
          q: z.string().describe('What to search for'),
          tags: z.array(z.string()).max(5),
          kind: z.enum(['order', 'invoice']),
        }),
      () => z.object({ a: z.number(), b: z.number() }),
      () =>
        z.object({
          user: z.object({ name: z.string().min(1), email: z.string().email() }),
          page: z.number().int().min(0).max(100).default(1),
        }),
    ];
    return (i) => shapes[i % shapes.length]!();
  }
  if (lib === 'valibot') {
    const v = await import('valibot');
    const shapes = [
      () =>
        v.object({ id: v.string(), limit: v.optional(v.pipe(v.number(), v.integer())), exact: v.boolean() }),
      () =>
        v.object({
          q: v.pipe(v.string(), v.description('What to search for')),
          tags: v.pipe(v.array(v.string()), v.maxLength(5)),
          kind: v.picklist(['order', 'invoice']),
        }),
      () => v.object({ a: v.number(), b: v.number() }),
      () =>
        v.object({
          user: v.object({ name: v.pipe(v.string(), v.minLength(1)), email: v.pipe(v.string(), v.email()) }),
          page: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100)), 1),
        }),
    ];
    return (i) => shapes[i % shapes.length]!();
  }
  const object = (properties: Record<string, unknown>, required: string[]) => ({
    type: 'object',
    properties,
    required,
    additionalProperties: false,
  });
  const shapes = [
    () =>
      object({ id: { type: 'string' }, limit: { type: 'integer' }, exact: { type: 'boolean' } }, [
        'id',
        'exact',
      ]),
    () =>
      object(
        {
          q: { type: 'string', description: 'What to search for' },
          tags: { type: 'array', items: { type: 'string' }, maxItems: 5 },
          kind: { enum: ['order', 'invoice'] },
        },
        ['q', 'tags', 'kind'],
      ),
    () => object({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
    () =>
      object(
        {
          user: object(
            { name: { type: 'string', minLength: 1 }, email: { type: 'string', format: 'email' } },
            ['name', 'email'],
          ),
          page: { type: 'integer', minimum: 0, maximum: 100, default: 1 },
        },
        ['user'],
      ),
  ];
  return (i) => shapes[i % shapes.length]!();
}

/** The child: defines the tools when told to (a line on stdin), saying when each window ended. */
async function child(lib: Lib): Promise<void> {
  const { tool } = await import('../src/node');
  const make = await schemaMaker(lib);
  const schemas = Array.from({ length: NEXT + 1 }, (_, i) => make(i));
  const define = (i: number) =>
    tool({
      name: `tool_${i}`,
      description: `Looks up record ${i} of the inventory by its id, and returns its fields.`,
      parameters: schemas[i] as never,
      execute: (input: unknown) => input,
    });
  const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const say = (line: string) => process.stdout.write(`${line}\n`);
  say('ready');
  await lines.next();
  let start = cpu();
  define(0);
  const first = cpu() - start;
  say('one');
  await lines.next();
  start = cpu();
  for (let i = 1; i <= NEXT; i++) define(i);
  const next = (cpu() - start) / NEXT;
  say('more');
  await lines.next();
  say(JSON.stringify({ first, next }));
  process.exit(0);
}

/** One child process: its CPU figures, and its instructions when run under callgrind. */
async function measure(
  lib: Lib,
  callgrind: boolean,
): Promise<{ first: number; next: number; instructions?: { first: number; next: number } }> {
  const dir = callgrind ? mkdtempSync(join(tmpdir(), 'toolwire-define-')) : '';
  const node = [process.execPath, '--import', 'tsx', fileURLToPath(import.meta.url), '--child', lib];
  const command = callgrind
    ? [
        'valgrind',
        '--tool=callgrind',
        '--quiet',
        '--instr-atstart=no',
        `--callgrind-out-file=${join(dir, 'out')}`,
        ...node,
      ]
    : node;
  const proc = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  const read = async () => String((await lines.next()).value);
  const control = (...args: string[]) =>
    execFileSync('callgrind_control', [...args, String(proc.pid)], { stdio: 'ignore', timeout: 60_000 });
  const dumps: number[] = [];
  const seen = new Set<string>();
  const dumped = () => {
    control('--dump');
    const fresh = readdirSync(dir).filter((name) => !seen.has(name) && name !== 'out');
    if (fresh.length !== 1) throw new Error(`callgrind: expected one dump, found ${fresh.length}`);
    seen.add(fresh[0]!);
    dumps.push(compilerShare(readFileSync(join(dir, fresh[0]!), 'utf8')).total);
  };
  try {
    await read(); // ready
    if (callgrind) control('--instr=on');
    proc.stdin!.write('go\n');
    await read(); // one
    if (callgrind) dumped();
    proc.stdin!.write('go\n');
    await read(); // more
    if (callgrind) dumped();
    proc.stdin!.write('go\n');
    const figures = JSON.parse(await read()) as { first: number; next: number };
    return callgrind ? { ...figures, instructions: { first: dumps[0]!, next: dumps[1]! / NEXT } } : figures;
  } finally {
    if (proc.exitCode === null && proc.signalCode === null) {
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill();
      await exited;
    }
    if (callgrind) rmSync(dir, { recursive: true, force: true });
  }
}

if (argv.includes('--child')) {
  await child(option('child', 'zod4') as Lib);
} else {
  const runs = Number(option('runs', '2'));
  const libs = option('libs', LIBS.join(',')).split(',') as Lib[];
  const counted = !argv.includes('--no-instructions');
  const log = (message: string) => process.stdout.write(`${message}\n`);
  log(`tools of ${libs.join(', ')}: the first, then each of the next ${NEXT}`);
  for (const lib of libs) {
    for (let run = 1; run <= runs; run++) {
      const cpu = await measure(lib, false);
      let line = `${lib.padEnd(11)} run ${run}: CPU first ${cpu.first.toFixed(2)} ms, next ${cpu.next.toFixed(3)} ms a tool`;
      if (counted) {
        const { instructions } = await measure(lib, true);
        const m = (n: number) => `${(n / 1e6).toFixed(2)} M`;
        line += `; instructions first ${m(instructions!.first)}, next ${m(instructions!.next)} a tool`;
      }
      log(line);
    }
  }
}
