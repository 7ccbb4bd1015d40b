/**
 * The worker of docs/guide/workers.md, refused for good (its API key revoked, close 4001): client.md ("Refused
 * for good") says the client logs an `error` line saying it serves no more calls, and that a worker should exit
 * non-zero so that its supervisor (systemd `Restart=on-failure`, Docker `on-failure`) starts one with the right
 * settings. A client given no logger writes that line to stderr, and the page's worker exits 1 on `closed`. (It
 * exited 0 and printed nothing: the default logger discarded everything, and the worker did not listen.)
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { onCleanup } from '../fault/harness';
import { stub } from '../stub/helpers';

const DOC_WORKER = fileURLToPath(new URL('./fixtures/doc-worker.ts', import.meta.url));

describe("the docs' worker, its API key revoked", () => {
  it('says so on stderr, and exits non-zero', async () => {
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
    expect(code).toBe(1);
    expect(stderr).toBe(
      '[toolwire] error the client closed for good and serves no more calls: the service refused the connection (4001: API key revoked) {"code":"unauthorized"}\n',
    );
    // The key itself is never printed.
    expect(stderr).not.toContain('key-1');
  }, 30_000);
});
