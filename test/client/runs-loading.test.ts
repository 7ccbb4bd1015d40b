/**
 * The run code as a browser gets it: the core entry (src/index.ts) loads src/client/runs.ts with `import()` on a client's
 * first `run()` (the Node entry registers it up front). A failed load fails that run with `ToolwireError`
 * `load_failed` and is forgotten, so the next `run()` loads again; `close()`, and a run's own `signal`, end runs
 * still waiting for the code.
 * The source is loaded afresh (`vi.resetModules()`) so that the Node entry's registration is not there.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Core from '../../src/index';
import { controlLoads } from '../helpers/code-loads';
import { type MemoryPeer, memorySocketPair } from '../helpers/memory-socket';

/** The core with nothing registered, the loads of its run code set by `loads` (see {@link controlLoads}). */
async function freshCore(loads: { held?: boolean; offline?: boolean }) {
  vi.resetModules();
  const core = await import('../../src/index');
  const { setCodeLoader } = await import('../../src/code-on-demand');
  return { core, loads: controlLoads(setCodeLoader, 'run', loads) };
}

/**
 * A service that welcomes the client and answers each `run_start` with a completed run echoing its input (with
 * `silent`, with `run_started` only: the run stays open).
 */
function service(silent = false) {
  const runStarts: string[] = [];
  const pair = memorySocketPair({
    onConnection(peer: MemoryPeer) {
      peer.onMessage = (text) => {
        const frame = JSON.parse(text) as { type: string; requestId?: string; input?: string; id?: string };
        if (frame.type === 'hello') {
          peer.send({
            type: 'welcome',
            sessionId: 's1',
            resumed: false,
            heartbeatIntervalMs: 15_000,
            maxPayloadBytes: 1_048_576,
          });
        } else if (frame.type === 'run_start') {
          runStarts.push(frame.input as string);
          const runId = `r${runStarts.length}`;
          peer.send({ type: 'run_started', requestId: frame.requestId, runId });
          if (!silent)
            peer.send({
              type: 'run_result',
              runId,
              status: 'completed',
              finalOutput: `echo ${frame.input}`,
              toolCalls: [],
              turns: 1,
            });
        }
      };
    },
  });
  return { pair, runStarts };
}

/** A client of the fresh core, connected to {@link service}, and an agent with no tools. */
async function connectedClient(options: { held?: boolean; offline?: boolean; silent?: boolean } = {}) {
  const { core, loads } = await freshCore(options);
  const { pair, runStarts } = service(options.silent);
  const client = new core.Client({
    url: 'ws://service',
    apiKey: 'key-1',
    WebSocket: pair.WebSocket,
    tools: [],
  });
  await client.connect();
  return {
    core,
    loads,
    client,
    runStarts,
    agent: new core.Agent({ name: 'A', instructions: '', tools: [] }),
  };
}

afterEach(() => {
  vi.resetModules();
});

describe('client.run() where the run code loads with import()', () => {
  it('fails a run whose code could not load with ToolwireError load_failed, and loads again at the next run', async () => {
    const { core, client, runStarts, agent, loads } = await connectedClient({ offline: true });

    const error = (await client.run(agent, 'one').catch((thrown: unknown) => thrown)) as Core.ToolwireError;
    expect(error).toBeInstanceOf(core.ToolwireError);
    expect({ name: error.name, code: error.code }).toEqual({ name: 'ToolwireError', code: 'load_failed' });
    expect(error.message).toBe(`toolwire could not load its run code: ${(error.cause as Error).message}`);
    expect(runStarts).toEqual([]);

    loads.offline = false;
    await expect(client.run(agent, 'two')).resolves.toMatchObject({ runId: 'r1', finalOutput: 'echo two' });
    await expect(client.run(agent, 'three')).resolves.toMatchObject({
      runId: 'r2',
      finalOutput: 'echo three',
    });
    expect(runStarts).toEqual(['two', 'three']);
    expect(loads.begun).toBe(2);
    await client.close();
  });

  it('ends runs still waiting for the code when the client closes, not when the code arrives', async () => {
    const { client, runStarts, agent, loads } = await connectedClient({ held: true });
    const outcomes: string[] = [];
    const first = client.run(agent, 'one').catch((error: Core.ConnectionError) => {
      outcomes.push(`one: ${error.name} ${error.code}`);
    });
    const second = client.run(agent, 'two').catch((error: Core.ConnectionError) => {
      outcomes.push(`two: ${error.name} ${error.code}`);
    });
    await client.close();
    await Promise.all([first, second]);
    expect(outcomes).toEqual(['one: ConnectionError closed', 'two: ConnectionError closed']);

    loads.arrive();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(runStarts).toEqual([]);
  });

  it('ends a run pending at close() with one message, loaded or not; a run after close() is told it is closed', async () => {
    const ended = async (held: boolean) => {
      const { client, agent, loads, runStarts } = await connectedClient({ held, silent: true });
      const pending = client.run(agent, 'one').catch((error: Core.ConnectionError) => error);
      if (!held) await vi.waitFor(() => expect(runStarts).toContain('one'));
      await client.close({ drain: false });
      const error = await pending;
      loads.arrive();
      const late = await client.run(agent, 'late').catch((thrown: Core.ConnectionError) => thrown);
      return [error, late].map((e) => {
        const { name, code, message } = e as Core.ConnectionError;
        return `${name} ${code}: ${message}`;
      });
    };
    const expected = [
      'ConnectionError closed: the client was closed',
      'ConnectionError closed: the client is closed',
    ];
    expect(await ended(true)).toEqual(expected);
    expect(await ended(false)).toEqual(expected);
  });

  it('ends a run waiting for the code at once when its signal aborts; the code is kept for the next run', async () => {
    const { core, client, runStarts, agent, loads } = await connectedClient({ held: true });
    const controller = new AbortController();
    const running = client
      .run(agent, 'one', { signal: controller.signal })
      .catch((thrown: unknown) => thrown);
    controller.abort(new Error('the user left'));
    const error = (await running) as Core.AbortError;
    expect(error).toBeInstanceOf(core.AbortError);
    expect({ name: error.name, code: error.code, message: error.message }).toEqual({
      name: 'AbortError',
      code: 'aborted',
      message: 'the run was aborted before it started',
    });
    expect(error.cause).toEqual(new Error('the user left'));

    loads.arrive();
    await expect(client.run(agent, 'two')).resolves.toMatchObject({ runId: 'r1', finalOutput: 'echo two' });
    expect(runStarts).toEqual(['two']);
    await client.close();
  });
});
