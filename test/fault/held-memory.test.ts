/**
 * A regression guard for the heap a call held in flight costs (issue 20's memory target, measured by
 * `npm run bench:held` and `npm run bench`): a client in a process of its own (run with --expose-gc) holds
 * 10,000 calls of a tool awaiting a promise; its heap + external after a full GC, against the same after a
 * warm-up, divided by the calls held, must stay within a generous bound. Bytes after a full GC, never time: it
 * is deterministic up to V8's own allocation steps (hash tables grow by doubling), which the bound leaves room
 * for. It prints its figure as `[held-memory] …`.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ServiceFrame } from '../../src/wire/protocol';
import { onCleanup, until } from './harness';
import { startRawService } from './raw-service';

const CHILD = fileURLToPath(new URL('./fixtures/held-client.ts', import.meta.url));
const HELD = 10_000;
const WARM_UP = 5_000;
/**
 * Bytes per held call allowed (1.6 KB): about 1,520 measured here on Node 20 (2,600 before issue 20's work; run
 * from source through tsx, whose kept function names make a named closure per call cost more than in the bench's
 * bundle), the target being 1,228 (1.2 KB). A regression guard, not the target: a closure, a map entry or a copy
 * per call more trips it. V8's object sizes differ a little between Node versions.
 */
const BOUND = 1_640;

const call = (callId: string, toolName: string): ServiceFrame => ({
  type: 'tool_call',
  callId,
  runId: 'run_held',
  toolName,
  arguments: {},
});

describe('calls held in flight: heap per call, in a process of its own', { timeout: 180_000 }, () => {
  it(`${HELD.toLocaleString('en')} held calls cost at most ${BOUND} bytes of heap each (regression guard)`, async () => {
    const service = await startRawService();
    onCleanup(() => service.close());
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD], {
      env: { ...process.env, TOOLWIRE_URL: service.url, HELD_CALLS: String(HELD) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    onCleanup(() => {
      if (child.exitCode === null) child.kill('SIGKILL');
    });
    const lines: string[] = [];
    let stderr = '';
    let buffer = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split('\n');
      buffer = parts.pop() ?? '';
      lines.push(...parts);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const line = async (test: (text: string) => boolean) => {
      await until(
        () => {
          if (child.exitCode !== null && !lines.some(test)) throw new Error(`the client exited: ${stderr}`);
          return lines.some(test);
        },
        true,
        120_000,
      );
      return lines.find(test) as string;
    };

    await line((text) => text === 'ready');
    service.sendAll(Array.from({ length: WARM_UP }, (_, n) => call(`w${n}`, 'add')));
    await until(() => service.results().length, WARM_UP, 120_000);
    child.stdin.write('mark\n');
    await line((text) => text === 'marked');
    service.sendAll(Array.from({ length: HELD }, (_, n) => call(`h${n}`, 'hold')));
    const perCall = Number((await line((text) => text.startsWith('held '))).slice(5));
    console.info(
      `[held-memory] ${HELD.toLocaleString('en')} calls held: ${Math.round(perCall)} B of heap each`,
    );
    child.stdin.write('release\n');
    await until(() => service.results().length, WARM_UP + HELD, 120_000);
    expect(service.results().every((result) => result.status === 'ok')).toBe(true);
    expect(perCall).toBeGreaterThan(0);
    expect(perCall).toBeLessThanOrEqual(BOUND);
  });
});
