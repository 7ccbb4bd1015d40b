/**
 * Breaker finding: the worker of docs/guide/workers.md, refused for good (its API key revoked, close 4001),
 * exits with status 0 and prints nothing, on Node 20/22/24, Bun and Deno. client.md ("Refused for good") says the
 * client logs an `error` line saying it serves no more calls and that a worker should exit non-zero so that its
 * supervisor starts one with the right settings; but the default logger discards everything and the page's own
 * worker does not listen for `closed`. A supervisor that restarts on failure (systemd `Restart=on-failure`,
 * Docker `on-failure`) sees a clean exit and leaves the fleet shrunk, with no line in any log saying why.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { onCleanup } from '../fault/harness';
import { stub } from '../stub/helpers';

const DOC_WORKER = fileURLToPath(new URL('./fixtures/doc-worker.ts', import.meta.url));

describe("the docs' worker, its API key revoked", () => {
  it.fails('says so on stderr, or exits non-zero', async () => {
    const server = await stub({ apiKeys: ['key-1'] });
    const child = spawn(process.execPath, ['--import', 'tsx', DOC_WORKER], {
      env: { ...process.env, TOOLWIRE_URL: server.url, TOOLWIRE_API_KEY: 'key-1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    onCleanup(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const ready = new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('ready')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await ready;
    server.setApiKeys(['key-2']);
    const code = await exited;
    // Either is enough for an operator: a non-zero status, or a line naming the cause.
    expect(code !== 0 || /unauthori[sz]ed|API key/i.test(stderr)).toBe(true);
  }, 30_000);
});
