/** Worker processes and runs for the fleet tests: a stub, a key file, workers spawned against it. */
import { fileURLToPath } from 'node:url';
import type { StubServer } from '../../server-stub/index';
import { spawnClient } from '../fault/spawn-client';

export { AGENT, keyFile, workTurns } from './fixtures/setup';

export const WORKER = fileURLToPath(new URL('./fixtures/worker.ts', import.meta.url));

/** Starts a worker process and waits until it is connected. */
export async function worker(server: StubServer, key: string, env: Record<string, string>) {
  const spawned = spawnClient(WORKER, { TOOLWIRE_URL: server.url, KEY_FILE: key, ...env });
  await spawned.line('ready');
  return spawned;
}
