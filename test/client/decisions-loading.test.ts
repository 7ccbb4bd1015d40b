/**
 * The decision code as a browser gets it: the core entry (src/index.ts) loads src/client/decisions.ts with
 * `import()` at a client's first `decide()` (the Node entry and the tests' setup register it up front). Until
 * then the client routes the frames that answer a decision itself: none can be waiting for one. A failed load
 * fails that decision with `ToolwireError` `load_failed` and is forgotten, so the next `decide()` loads again;
 * `close()` ends decisions still waiting for the code. The source is loaded afresh (`vi.resetModules()`) so that
 * no registration is there.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Core from '../../src/index';
import { DECISION_ANSWER_TIMEOUT_MS } from '../../src/limits';
import { controlLoads } from '../helpers/code-loads';
import { type MemoryPeer, memorySocketPair, welcomeFrame } from '../helpers/memory-socket';

/** The core with nothing registered, the loads of its decision code set by `loads` (see {@link controlLoads}). */
async function freshCore(loads: { held?: boolean; offline?: boolean } = {}) {
  vi.resetModules();
  const core = await import('../../src/index');
  const { setCodeLoader } = await import('../../src/code-on-demand');
  return { core, loads: controlLoads(setCodeLoader, 'decision', loads) };
}

/**
 * A service taking the feature `decisions`: it answers each `approval` frame carrying a `requestId` with
 * `approval_applied` (unless `answering` is off), and records the approvals it got.
 */
function service() {
  const approvals: Array<Record<string, unknown>> = [];
  const state = { answering: true };
  let peer: MemoryPeer | undefined;
  const pair = memorySocketPair({
    onConnection(connected: MemoryPeer) {
      peer = connected;
      connected.onMessage = (text) => {
        const frame = JSON.parse(text) as { type: string; callId: string; requestId?: string };
        if (frame.type === 'hello') {
          connected.send(welcomeFrame({ features: ['decisions'] }));
        } else if (frame.type === 'approval') {
          approvals.push(frame);
          if (frame.requestId !== undefined && state.answering) {
            connected.send({
              type: 'approval_applied',
              requestId: frame.requestId,
              callId: frame.callId,
              approved: true,
            });
          }
        }
      };
    },
  });
  return { pair, approvals, state, send: (frame: object) => peer!.send(frame) };
}

/** A client of the fresh core, connected to {@link service}. */
async function connectedClient(options: { held?: boolean; offline?: boolean } = {}) {
  const { core, loads } = await freshCore(options);
  const { pair, approvals, state, send } = service();
  const client = new core.Client({
    url: 'ws://service',
    apiKey: 'key-1',
    WebSocket: pair.WebSocket,
    tools: [],
  });
  const errors: string[] = [];
  client.on('error', (error) => errors.push(`${error.name} ${(error as Core.ConnectionError).code}`));
  await client.connect();
  return { core, loads, client, approvals, state, send, errors };
}

afterEach(() => {
  vi.resetModules();
});

describe('client.decide() where the decision code loads with import()', () => {
  it('is not loaded by a client that never decides, whatever frames about decisions come', async () => {
    const { client, send, errors, loads } = await connectedClient();
    // Answers to decisions this client never sent: the one ignored, the other an error event, as in Node.
    send({ type: 'approval_applied', requestId: 'd1', callId: 'c1', approved: true });
    send({ type: 'error', code: 'not_allowed', message: 'not pending', requestId: 'd1' });
    await vi.waitFor(() => expect(errors).toEqual(['ConnectionError service_not_allowed']));
    expect(loads.begun).toBe(0);
    await client.close();
    expect(loads.begun).toBe(0);
  });

  it('loads at the first decide(), with what the welcome before it negotiated, and once', async () => {
    const { client, approvals, loads } = await connectedClient();
    // `always` needs the feature `decisions`, which the welcome gave before the code was there.
    await client.decide('c1', { approved: true, always: true });
    await client.decide('c2', false);
    expect(approvals).toEqual([
      { type: 'approval', callId: 'c1', approved: true, always: true, requestId: 'd1' },
      { type: 'approval', callId: 'c2', approved: false, requestId: 'd2' },
    ]);
    expect(loads.begun).toBe(1);
    await client.close();
  });

  it('fails a decision whose code could not load with ToolwireError load_failed, and loads again at the next one', async () => {
    const { core, client, approvals, loads } = await connectedClient({ offline: true });

    const error = (await client.decide('c1', true).catch((thrown: unknown) => thrown)) as Core.ToolwireError;
    expect(error).toBeInstanceOf(core.ToolwireError);
    expect({ name: error.name, code: error.code }).toEqual({ name: 'ToolwireError', code: 'load_failed' });
    expect(error.message).toBe(
      `toolwire could not load its decision code: ${(error.cause as Error).message}`,
    );
    expect(approvals).toEqual([]);

    loads.offline = false;
    await client.decide('c1', true);
    expect(approvals).toEqual([{ type: 'approval', callId: 'c1', approved: true, requestId: 'd1' }]);
    expect(loads.begun).toBe(2);
    await client.close();
  });

  it('keeps the frames that come while the code loads, and sends the decision once it arrives', async () => {
    const { client, approvals, send, errors, loads } = await connectedClient({ held: true });
    const decided = client.decide('c1', { approved: false, reason: 'not now' });
    // An error frame about something else comes meanwhile: still an error event, not taken for the decision's.
    send({ type: 'error', code: 'internal', message: 'busy', requestId: 'd1' });
    await vi.waitFor(() => expect(errors).toEqual(['ConnectionError service_internal']));
    expect(approvals).toEqual([]);
    loads.arrive();
    await decided;
    expect(approvals).toEqual([
      { type: 'approval', callId: 'c1', approved: false, reason: 'not now', requestId: 'd1' },
    ]);
    await client.close();
  });

  it('gives up on code that does not come within the time a decision has for its answer, and keeps it when it comes', async () => {
    const { core, client, approvals, loads } = await connectedClient({ held: true });
    vi.useFakeTimers();
    try {
      const timers = vi.getTimerCount();
      const decided = client.decide('c1', true).catch((thrown: unknown) => thrown);
      expect(vi.getTimerCount()).toBe(timers + 1);
      await vi.advanceTimersByTimeAsync(DECISION_ANSWER_TIMEOUT_MS - 1);
      expect(loads.done).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      const error = (await decided) as Core.ApprovalError;
      expect(error).toBeInstanceOf(core.ApprovalError);
      expect({ code: error.code, message: error.message }).toEqual({
        code: 'timeout',
        message: `decide(): toolwire's decision code did not load within ${DECISION_ANSWER_TIMEOUT_MS}ms`,
      });
      expect(vi.getTimerCount()).toBe(timers);
      expect(approvals).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
    // The code that arrives late is kept: the next decision goes out without another load.
    loads.arrive();
    await vi.waitFor(() => expect(loads.done).toBe(1));
    await client.decide('c2', true);
    expect(approvals).toEqual([{ type: 'approval', callId: 'c2', approved: true, requestId: 'd1' }]);
    expect(loads.begun).toBe(1);
    await client.close();
  });

  it('ends decisions still waiting for the code when the client closes, not when the code arrives', async () => {
    const { core, client, approvals, loads } = await connectedClient({ held: true });
    const decided = client.decide('c1', true).catch((thrown: unknown) => thrown);
    await client.close();
    const error = (await decided) as Core.ConnectionError;
    expect(error).toBeInstanceOf(core.ConnectionError);
    // Pending at close() it "was closed" (as a run is); a decide() after close() is told the client "is closed".
    expect({ code: error.code, message: error.message }).toEqual({
      code: 'closed',
      message: 'decide(): the client was closed before the decision was sent',
    });
    const late = (await client.decide('c2', true).catch((thrown: unknown) => thrown)) as Core.ConnectionError;
    expect({ code: late.code, message: late.message }).toEqual({
      code: 'closed',
      message: 'decide(): the client is closed',
    });
    loads.arrive();
    await vi.waitFor(() => expect(loads.done).toBe(1));
    expect(approvals).toEqual([]);
  });

  it('refuses arguments that are no decision with invalid_decision at once, loading nothing', async () => {
    // The code could not load anyway: the refusal says what is wrong with the arguments, not load_failed.
    const { core, client, approvals, loads } = await connectedClient({ offline: true });
    const refusals = await Promise.all(
      [
        () => client.decide('c1', 'yes' as never),
        () => client.decide('', true),
        () => client.decide('c1', { approved: true, reasn: 'fine' } as never),
        () => client.decide('c1', { approved: false, arguments: { a: 1 } }),
      ].map((decide) =>
        decide().then(
          () => {
            throw new Error('decided');
          },
          (thrown: unknown) => thrown as Core.ApprovalError,
        ),
      ),
    );
    for (const error of refusals) expect(error).toBeInstanceOf(core.ApprovalError);
    expect(refusals.map(({ code, message }) => ({ code, message }))).toEqual([
      {
        code: 'invalid_decision',
        message: 'decide(): the decision is "yes" instead of true, false or { approved: boolean }',
      },
      { code: 'invalid_decision', message: 'decide(): callId must be a non-empty string' },
      {
        code: 'invalid_decision',
        message: 'decide(): unknown option "reasn" (did you mean "reason"?)',
      },
      {
        code: 'invalid_decision',
        message: 'decide(): the decision edits the arguments of a call it rejects (approved: false)',
      },
    ]);
    expect({ loads: loads.begun, approvals }).toEqual({ loads: 0, approvals: [] });
    await client.close();
  });

  it('answers not_connected at once on a socket that is not open, loading nothing', async () => {
    // A page offline: the code could not load, and the decision could not be sent anyway.
    const { core, loads } = await freshCore({ offline: true });
    const { pair, approvals } = service();
    const client = new core.Client({
      url: 'ws://service',
      apiKey: 'key-1',
      WebSocket: pair.WebSocket,
      tools: [],
    });
    const error = (await client
      .decide('c1', true)
      .catch((thrown: unknown) => thrown)) as Core.ConnectionError;
    expect(error).toBeInstanceOf(core.ConnectionError);
    expect({ code: error.code, message: error.message }).toEqual({
      code: 'not_connected',
      message: 'decide(): the client is not connected',
    });
    expect({ loads: loads.begun, approvals }).toEqual({ loads: 0, approvals: [] });
    // Connected, the same decision loads its code (which fails here, as the page is offline).
    await client.connect();
    const failed = (await client.decide('c1', true).catch((thrown: unknown) => thrown)) as Core.ToolwireError;
    expect({ code: failed.code, loads: loads.begun }).toEqual({ code: 'load_failed', loads: 1 });
    await client.close();
  });

  it('gives the answer what the wait for the code left of DECISION_ANSWER_TIMEOUT_MS, one timer at a time', async () => {
    const { core, client, approvals, state, loads } = await connectedClient({ held: true });
    state.answering = false;
    vi.useFakeTimers();
    try {
      const timers = vi.getTimerCount();
      const decided = client.decide('c1', true).catch((thrown: unknown) => thrown);
      await loads.imported;
      await vi.advanceTimersByTimeAsync(20_000);
      loads.arrive();
      await vi.advanceTimersByTimeAsync(0);
      expect(approvals).toEqual([{ type: 'approval', callId: 'c1', approved: true, requestId: 'd1' }]);
      expect(vi.getTimerCount()).toBe(timers + 1);
      await vi.advanceTimersByTimeAsync(DECISION_ANSWER_TIMEOUT_MS - 20_000 - 1);
      let settled = false;
      void decided.then(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(0);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const error = (await decided) as Core.ApprovalError;
      expect(error).toBeInstanceOf(core.ApprovalError);
      expect({ code: error.code, message: error.message }).toEqual({
        code: 'timeout',
        message: `decide(): the service did not answer within ${DECISION_ANSWER_TIMEOUT_MS} ms, so whether the decision was applied is unknown`,
      });
      expect(vi.getTimerCount()).toBe(timers);
    } finally {
      vi.useRealTimers();
    }
    await client.close();
  });
});
