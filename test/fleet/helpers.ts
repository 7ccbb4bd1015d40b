/** Worker processes and runs for the fleet tests: a stub, a key file, workers spawned against it. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StubServer } from '../../server-stub/index';
import { spawnClient } from '../fault/spawn-client';

export const WORKER = fileURLToPath(new URL('./fixtures/worker.ts', import.meta.url));

/** A file holding `key`, read by the workers before every connection attempt; `write` rotates it. */
export function keyFile(key: string): { path: string; write(next: string): void } {
  const path = join(mkdtempSync(join(tmpdir(), 'toolwire-fleet-')), 'key');
  writeFileSync(path, key);
  return { path, write: (next) => writeFileSync(path, next) };
}

/** Starts a worker process and waits until it is connected. */
export async function worker(server: StubServer, key: string, env: Record<string, string>) {
  const spawned = spawnClient(WORKER, { TOOLWIRE_URL: server.url, KEY_FILE: key, ...env });
  await spawned.line('ready');
  return spawned;
}

/** The agent of the fleet tests: one `work` tool. */
export const AGENT = { name: 'Fleet', instructions: 'Work.', tools: ['work'] };

/** A script whose first turn calls `work` `count` times at once (tenant `t<n % tenants>`), then answers. */
export function workTurns(count: number, tenants = 1) {
  return [
    {
      toolCalls: Array.from({ length: count }, (_, n) => ({
        name: 'work',
        arguments: { n, tenant: `t${n % tenants}` },
      })),
    },
    { text: 'done' },
  ];
}
