/**
 * The operator changes a running `toolwire-stub` process from outside it: its keys over HTTP
 * (`PUT /v1/admin/keys`) and through its keys file and SIGHUP, its current build over HTTP. Worker processes
 * with a key function ride each rotation: their old sockets are closed 4001, they resume their sessions with
 * the new key, and no call is lost or run twice.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { onCleanup } from '../fault/harness';
import { spawnClient } from '../fault/spawn-client';
import { AGENT, keyFile, WORKER, workTurns } from './helpers';

const root = fileURLToPath(new URL('../../', import.meta.url));
const ADMIN = 'admin-key-for-the-operator-test';

/** `toolwire-stub` in a process of its own, with a keys file, an admin key (from the environment) and a script. */
async function stubProcess(keys: string) {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-operator-'));
  const files = {
    keys: join(dir, 'keys.txt'),
    agents: join(dir, 'agents.json'),
    script: join(dir, 'script.json'),
  };
  writeFileSync(files.keys, keys);
  writeFileSync(files.agents, JSON.stringify([AGENT]));
  writeFileSync(files.script, JSON.stringify(workTurns(40, 4)));
  const args = [
    '--port',
    '0',
    '--api-keys-file',
    files.keys,
    '--agents',
    files.agents,
    '--script',
    files.script,
  ];
  const child = spawn(process.execPath, ['--import', 'tsx', 'server-stub/cli.ts', ...args], {
    cwd: root,
    env: { ...process.env, TOOLWIRE_STUB_ADMIN_KEY: ADMIN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onCleanup(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('\n')) resolve(stdout.split('\n')[0] as string);
    });
    child.once('exit', (code) => reject(new Error(`the stub exited with ${code}: ${stderr}`)));
  });
  const httpUrl = url.replace('ws://', 'http://');
  const request = async (method: string, path: string, key: string, body?: unknown) => {
    const response = await fetch(`${httpUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  /** Resolves once the stub's stderr holds `text`. */
  const said = async (text: string) => {
    while (!stderr.includes(text)) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  return { child, url, files, request, said, stderr: () => stderr };
}

type Stub = Awaited<ReturnType<typeof stubProcess>>;

/** Starts a run over HTTP with `key`; resolves with its transcript once it has ended. */
async function run(stub: Stub, key: string) {
  const started = await stub.request('POST', '/v1/runs', key, { agent: 'Fleet', input: 'go' });
  expect(started.status).toBe(201);
  const runId = started.body.runId as string;
  return async (readKey: () => string) => {
    for (;;) {
      const got = await stub.request('GET', `/v1/runs/${runId}`, readKey());
      if (got.body.status !== 'running')
        return got.body as { status: string; toolCalls: { status: string }[] };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
}

describe('toolwire-stub changed from outside its process', () => {
  it('rotates keys over HTTP, then through its keys file and SIGHUP, losing and repeating no call', async () => {
    const stub = await stubProcess('# tenant acme\nkey-1 acme\n');
    const key = keyFile('key-1');
    const workers = await Promise.all(
      ['a', 'b'].map(async (name) => {
        const spawned = spawnClient(WORKER, {
          TOOLWIRE_URL: stub.url,
          KEY_FILE: key.path,
          WORKER: name,
          DELAY_MS: '20',
          MAX_CONCURRENCY: '4',
        });
        await spawned.line('ready');
        return spawned;
      }),
    );
    let current = 'key-1';
    const reader = () => current;

    // Over HTTP: accept both keys, move the workers to the new one, drop the old one (under load).
    const first = await Promise.all([run(stub, 'key-1'), run(stub, 'key-1')]);
    await workers[0]?.waitFor('ran ');
    const both = [
      { key: 'key-1', tenant: 'acme' },
      { key: 'key-2', tenant: 'acme' },
    ];
    expect(await stub.request('PUT', '/v1/admin/keys', ADMIN, { keys: both })).toEqual({
      status: 200,
      body: { keys: 2, tenants: 1, revoked: 0 },
    });
    key.write('key-2');
    current = 'key-2';
    expect(
      await stub.request('PUT', '/v1/admin/keys', ADMIN, { keys: [{ key: 'key-2', tenant: 'acme' }] }),
    ).toEqual({ status: 200, body: { keys: 1, tenants: 1, revoked: 2 } });
    for (const spawned of workers) {
      await spawned.waitFor('disconnected 4001');
      await spawned.waitFor('connected true');
    }
    const firstRuns = await Promise.all(first.map((wait) => wait(reader)));

    // Through the file: list key-2 and key-3, SIGHUP, move the workers, list key-3 alone, SIGHUP (under load).
    const second = await run(stub, 'key-2');
    const ranCount = () =>
      workers.reduce((n, w) => n + w.lines.filter((l) => l.startsWith('ran ')).length, 0);
    while (ranCount() <= 80) await new Promise((resolve) => setTimeout(resolve, 5));
    writeFileSync(stub.files.keys, 'key-2 acme\nkey-3 acme\n');
    stub.child.kill('SIGHUP');
    await stub.said('SIGHUP: 2 API keys from');
    key.write('key-3');
    current = 'key-3';
    // Listed twice for its tenant: one key.
    writeFileSync(stub.files.keys, 'key-3 acme\nkey-3 acme\n');
    stub.child.kill('SIGHUP');
    await stub.said('SIGHUP: 1 API key from');
    for (const spawned of workers) {
      await spawned.waitFor('disconnected 4001', 2);
      await spawned.waitFor('connected true', 2);
    }
    const secondRun = await second(reader);

    // A file that lists no key, or a key for two tenants, changes nothing.
    writeFileSync(stub.files.keys, '# nothing\n');
    stub.child.kill('SIGHUP');
    await stub.said('SIGHUP: keeping the current API keys');
    writeFileSync(stub.files.keys, 'key-3 acme\nkey-3 other\n');
    stub.child.kill('SIGHUP');
    await stub.said('line 2 lists the key of line 1 for another tenant: a key belongs to one tenant');
    expect((await stub.request('GET', '/v1/admin/keys', ADMIN)).body.keys).toHaveLength(1);
    expect((await stub.request('GET', '/v1/agents', 'key-3')).body.clients).toBe(2);
    expect((await stub.request('GET', '/v1/agents', 'key-2')).status).toBe(401);

    const transcripts = [...firstRuns, secondRun];
    expect(transcripts.map((t) => t.status)).toEqual(['completed', 'completed', 'completed']);
    const calls = transcripts.flatMap((t) => t.toolCalls);
    expect(calls.filter((call) => call.status === 'ok')).toHaveLength(120);
    const ran = workers.flatMap((spawned) => spawned.lines.filter((line) => line.startsWith('ran ')));
    expect(ran).toHaveLength(120);
    expect(new Set(ran).size).toBe(120);
    // No key in what the stub said about the rotations.
    const sighup = stub
      .stderr()
      .split('\n')
      .filter((line) => line.includes('SIGHUP'));
    expect(sighup).toHaveLength(4);
    expect(sighup.join('\n')).not.toMatch(/key-\d/);
  }, 90_000);

  it('sets the current build over HTTP: a run started afterwards goes to that build', async () => {
    const stub = await stubProcess('key-1\n');
    const key = keyFile('key-1');
    const spawnWorker = async (name: string, build: string) => {
      const spawned = spawnClient(WORKER, {
        TOOLWIRE_URL: stub.url,
        KEY_FILE: key.path,
        WORKER: name,
        BUILD_ID: build,
      });
      await spawned.line('ready');
      return spawned;
    };
    await Promise.all([spawnWorker('old', 'b1'), spawnWorker('new', 'b2')]);
    expect(await stub.request('PUT', '/v1/admin/build', ADMIN, { buildId: 'b2' })).toEqual({
      status: 200,
      body: { buildPolicy: 'current', currentBuildId: 'b2' },
    });
    const transcript = (await (
      await run(stub, 'key-1')
    )(() => 'key-1')) as unknown as {
      toolCalls: { output: string }[];
    };
    expect(new Set(transcript.toolCalls.map((call) => call.output.split(':')[0]))).toEqual(new Set(['new']));
    expect(await stub.request('PUT', '/v1/admin/build', ADMIN, { buildId: null })).toEqual({
      status: 200,
      body: { buildPolicy: 'first_call' },
    });
    expect(await stub.request('PUT', '/v1/admin/build', 'key-1', { buildId: 'b1' })).toEqual({
      status: 401,
      body: { error: { code: 'unauthorized', message: 'not the admin key' } },
    });
  }, 60_000);
});
