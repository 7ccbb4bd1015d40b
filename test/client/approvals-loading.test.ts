/**
 * Who decides a call's approval (src/client/approvals.ts) as a browser gets it: the core entry (src/index.ts) loads
 * it with `import()`: `connect()` with the gate when the client's tools or `policies` may ask (src/call/parts.ts),
 * `addTool()` for a tool that may, the first `run()` and `decide()`, and a call that asks before it is here waits
 * for it (the Node entry and the tests' setup register it up front). A client whose calls never ask never loads it.
 * A load that fails fails `connect()` with `load_failed`, or ends the call that waited for it `rejected` saying
 * why, and the next need loads again. The source is loaded afresh (`vi.resetModules()`) so that no registration is
 * there.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Calls from '../../src/client/calls';
import type { ClientOptions } from '../../src/client/client-options';
import type * as Core from '../../src/index';
import { controlLoads } from '../helpers/code-loads';
import {
  type MemoryPeer,
  type MemorySocketPair,
  memorySocketPair,
  welcomeFrame,
} from '../helpers/memory-socket';

/**
 * The core with nothing registered, its approvals code, and the loads of that code set by `loads` (see
 * {@link controlLoads}).
 */
async function freshCore(loads: { held?: boolean; offline?: boolean } = {}): Promise<{
  core: typeof Core;
  code: typeof Calls.approvalsCode;
  loads: ReturnType<typeof controlLoads>;
}> {
  vi.resetModules();
  const core = await import('../../src/index');
  const { approvalsCode } = await import('../../src/client/calls');
  const { setCodeLoader } = await import('../../src/code-on-demand');
  return { core, code: approvalsCode, loads: controlLoads(setCodeLoader, 'approvals', loads) };
}

/**
 * A service that welcomes the client, records whether the approvals code was here at `hello`, answers each
 * `approval_request` by sending the call again approved, and collects `tool_result` frames.
 */
function service(code: typeof Calls.approvalsCode) {
  const atHello: boolean[] = [];
  const results: Array<{ callId: string; status: string; output: string }> = [];
  let peer: MemoryPeer | undefined;
  const pair = memorySocketPair({
    onConnection(connected: MemoryPeer) {
      peer = connected;
      connected.onMessage = (text) => {
        const frame = JSON.parse(text) as { type: string; callId: string; status: string; output: string };
        if (frame.type === 'hello') {
          atHello.push(code.code !== undefined);
          connected.send(welcomeFrame());
        } else if (frame.type === 'approval_request') {
          connected.send({
            type: 'tool_call',
            callId: frame.callId,
            runId: 'r1',
            toolName: 'gated',
            arguments: {},
            approved: true,
          });
        } else if (frame.type === 'tool_result') {
          results.push({ callId: frame.callId, status: frame.status, output: frame.output });
          connected.send({ type: 'ack', callIds: [frame.callId] });
        }
      };
    },
  });
  const call = (callId: string, toolName: string) =>
    peer!.send({ type: 'tool_call', callId, runId: 'r1', toolName, arguments: {} });
  return { pair, atHello, results, call };
}

/** A tool that needs approval: its calls ask the service. */
const gatedTool = (core: typeof Core) =>
  core.tool({ name: 'gated', description: 'Asks.', needsApproval: true, execute: () => 'ran' });

/** A client of `core` whose socket is one of `pair`'s, with `options` beside the URL and the key. */
function clientOf(
  core: typeof Core,
  pair: MemorySocketPair,
  options: Omit<ClientOptions, 'url' | 'apiKey' | 'WebSocket'>,
): Core.Client {
  return new core.Client({ url: 'ws://s', apiKey: 'key-1', WebSocket: pair.WebSocket, ...options });
}

const ping = (core: typeof Core) => core.tool({ name: 'ping', description: 'Pong.', execute: () => 'pong' });

afterEach(() => {
  vi.resetModules();
});

describe('who decides approvals, loaded with import()', () => {
  it('is not loaded by a client whose calls never ask, and its plain calls run', async () => {
    const { core, code, loads } = await freshCore();
    const { pair, atHello, results, call } = service(code);
    const client = clientOf(core, pair, { tools: [ping(core)] });
    await client.connect();
    call('c1', 'ping');
    await vi.waitFor(() => expect(results).toEqual([{ callId: 'c1', status: 'ok', output: 'pong' }]));
    expect(atHello).toEqual([false]);
    expect(loads.begun).toBe(0);
    await client.close({ drain: false });
  });

  it('is not loaded for a tool that only names the agents allowed to call it, added or given', async () => {
    const { core, code, loads } = await freshCore();
    const { pair, atHello, results, call } = service(code);
    const allowed = (name: string) =>
      core.tool({ name, description: 'Agents.', allowedAgentNames: ['Support'], execute: () => 'ran' });
    const client = clientOf(core, pair, { tools: [allowed('given')] });
    await client.connect();
    client.addTool(allowed('added'));
    // The gate decides such a call by itself: a call of no agent it names is refused, asking no one.
    call('c1', 'added');
    await vi.waitFor(() =>
      expect(results).toEqual([
        {
          callId: 'c1',
          status: 'rejected',
          output: 'added was not run: the calling agent is unknown, and only some agents may call it.',
        },
      ]),
    );
    expect(atHello).toEqual([false]);
    expect(loads.begun).toBe(0);
    await client.close({ drain: false });
  });

  it('is loaded by connect() before hello when a tool may ask, and its calls are decided by the service', async () => {
    const { core, code, loads } = await freshCore();
    const { pair, atHello, results, call } = service(code);
    const client = clientOf(core, pair, { tools: [gatedTool(core)] });
    const requested: string[] = [];
    client.on('approval_requested', (request) => requested.push(request.callId));
    await client.connect();
    expect(atHello).toEqual([true]);
    call('c1', 'gated');
    await vi.waitFor(() => expect(results).toEqual([{ callId: 'c1', status: 'ok', output: 'ran' }]));
    expect(requested).toEqual(['c1']);
    expect(loads.begun).toBe(1);
    await client.close({ drain: false });
  });

  it('fails connect() with load_failed when it cannot load, and loads again at the next connect()', async () => {
    const { core, code, loads } = await freshCore({ offline: true });
    const { pair, atHello } = service(code);
    const client = clientOf(core, pair, { tools: [gatedTool(core)] });
    const error = (await client.connect().catch((thrown: unknown) => thrown)) as Core.ToolwireError;
    expect({ name: error.name, code: error.code, message: error.message }).toEqual({
      name: 'ToolwireError',
      code: 'load_failed',
      message: 'toolwire could not load its approvals code: the network is down',
    });
    expect(atHello).toEqual([]);
    loads.offline = false;
    await client.connect();
    expect(atHello).toEqual([true]);
    await client.close({ drain: false });
  });

  it('holds a call of a tool added while connected until it arrives, then asks', async () => {
    const { core, code, loads } = await freshCore({ held: true });
    const { pair, results, call } = service(code);
    const client = clientOf(core, pair, { tools: [] });
    await client.connect();
    client.addTool(gatedTool(core));
    expect(loads.begun).toBe(1);
    call('c1', 'gated');
    await loads.imported;
    await new Promise((resolve) => setImmediate(resolve));
    expect(results).toEqual([]);
    loads.arrive();
    await vi.waitFor(() => expect(results).toEqual([{ callId: 'c1', status: 'ok', output: 'ran' }]));
    expect(loads.begun).toBe(1);
    await client.close({ drain: false });
  });

  it('ends a call whose approval code cannot load rejected, saying why; the next call loads again', async () => {
    const { core, code, loads } = await freshCore({ offline: true });
    const { pair, results, call } = service(code);
    const client = clientOf(core, pair, { tools: [] });
    await client.connect();
    client.addTool(gatedTool(core));
    call('c1', 'gated');
    await vi.waitFor(() =>
      expect(results).toEqual([
        {
          callId: 'c1',
          status: 'rejected',
          output:
            'gated was not run: approval could not be obtained (toolwire could not load its approvals code: the network is down).',
        },
      ]),
    );
    loads.offline = false;
    call('c2', 'gated');
    await vi.waitFor(() => expect(results[1]).toEqual({ callId: 'c2', status: 'ok', output: 'ran' }));
    await client.close({ drain: false });
  });

  it('hands a call waiting for it back at close(), without waiting for it to arrive', async () => {
    const { core, code, loads } = await freshCore({ held: true });
    const { pair, results, call } = service(code);
    const asked: string[] = [];
    const client = clientOf(core, pair, {
      tools: [],
      onApproval: (request) => {
        asked.push(request.callId);
        return true;
      },
    });
    await client.connect();
    client.addTool(gatedTool(core));
    call('c1', 'gated');
    await loads.imported;
    let closed = false;
    const closing = client.close().then(() => {
      closed = true;
    });
    // The page's chunk never comes (a network that hangs): the call never ran, and another worker takes it.
    await vi.waitFor(() => expect(closed).toBe(true));
    expect(results).toEqual([
      {
        callId: 'c1',
        status: 'error',
        output: 'Error running gated: the client is shutting down; try again later',
      },
    ]);
    loads.arrive();
    await closing;
    await new Promise((resolve) => setImmediate(resolve));
    expect(asked).toEqual([]);
  });

  it('is loaded with the run code by the first run()', async () => {
    const { core, code } = await freshCore();
    const { pair } = service(code);
    const client = clientOf(core, pair, { tools: [] });
    await client.connect();
    const agent = new core.Agent({ name: 'helper', instructions: 'Help.' });
    const running = client.run(agent, 'hi').catch(() => undefined);
    await vi.waitFor(() => expect(code.code).toBeDefined());
    await client.close({ drain: false });
    await running;
  });
});
