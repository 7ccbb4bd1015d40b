/**
 * The optional call code as a browser gets it (src/call/parts.ts): the core entry (src/index.ts) loads the gate
 * (policies and approval), attempts, per-key concurrency, steps, questions and the widget check with `import()`
 * (the Node entry and the tests' setup register them up front). What a tool's definition or a client's options
 * need is loaded by `connect()` before `hello`, within `connectTimeoutMs`, and by `invokeTool` before the call;
 * steps, questions and widgets at their first use; a call that finds a part missing (a tool added while
 * connected) waits for it. A load that fails is `load_failed`, and the next need loads again. The source is
 * loaded afresh (`vi.resetModules()`) so that no registration is there; a held or failing load is set with the
 * code's own test seam (`setCodeLoader`, test/helpers/code-loads.ts), for the parts and the tracing code alike.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import type * as Parts from '../../src/call/parts';
import { PART_NAMES } from '../../src/call/parts';
import type { ClientOptions } from '../../src/client/client-options';
import type * as OnDemand from '../../src/code-on-demand';
import type * as Core from '../../src/index';
import * as nodeEntry from '../../src/node';
import { controlLoads } from '../helpers/code-loads';
import {
  type MemoryPeer,
  type MemorySocketPair,
  memorySocketPair,
  welcomeFrame,
} from '../helpers/memory-socket';
import { runScenario, SCENARIO_ANSWER, SCENARIO_TRACE, scenarioScript } from '../runtimes/optional-parts.mjs';

/** The core with nothing registered, its parts' code, and the seam that sets how code loads. */
async function freshCore(): Promise<{
  core: typeof Core;
  parts: typeof Parts.callParts;
  setCodeLoader: typeof OnDemand.setCodeLoader;
}> {
  vi.resetModules();
  const core = await import('../../src/index');
  const { callParts } = await import('../../src/call/parts');
  const { setCodeLoader } = await import('../../src/code-on-demand');
  return { core, parts: callParts, setCodeLoader };
}

/** Part `name`'s loads held until `arrive()` (see {@link controlLoads}). */
const heldPart = (setCodeLoader: typeof OnDemand.setCodeLoader, name: Parts.PartName) =>
  controlLoads(setCodeLoader, name, { held: true });

/** Part `name`'s loads failing while `offline` (as a page offline does), counted. */
const offlinePart = (setCodeLoader: typeof OnDemand.setCodeLoader, name: Parts.PartName) =>
  controlLoads(setCodeLoader, name, { offline: true });

/** A client of `core` whose socket is one of `pair`'s, with `options` beside the URL and the key. */
function clientOf(
  core: typeof Core,
  pair: MemorySocketPair,
  options: Omit<ClientOptions, 'url' | 'apiKey' | 'WebSocket'>,
): Core.Client {
  return new core.Client({ url: 'ws://service', apiKey: 'key-1', WebSocket: pair.WebSocket, ...options });
}

/** A tool that needs approval: its calls need the gate. */
const gatedTool = (core: typeof Core) =>
  core.tool({ name: 'gated', description: 'Asks.', needsApproval: true, execute: () => 'ran' });

/** The parts whose code is here now, by name. */
const loaded = (parts: typeof Parts.callParts | undefined) =>
  parts === undefined ? [] : PART_NAMES.filter((name) => parts[name].code !== undefined).sort();

/** A service that welcomes the client, records what `hello` found loaded, and collects `tool_result` frames. */
function service(parts?: typeof Parts.callParts) {
  const atHello: string[][] = [];
  const results: Array<{ callId: string; status: string; output: string }> = [];
  let peer: MemoryPeer | undefined;
  const pair = memorySocketPair({
    onConnection(connected: MemoryPeer) {
      peer = connected;
      connected.onMessage = (text) => {
        const frame = JSON.parse(text) as { type: string; callId: string; status: string; output: string };
        if (frame.type === 'hello') {
          atHello.push(loaded(parts));
          connected.send(welcomeFrame());
        } else if (frame.type === 'tool_result') {
          results.push({ callId: frame.callId, status: frame.status, output: frame.output });
        }
      };
    },
  });
  const call = (callId: string, toolName: string, args: object = {}) =>
    peer!.send({ type: 'tool_call', callId, runId: 'r1', toolName, arguments: args });
  const cancel = (callId: string) => peer!.send({ type: 'cancel', callId });
  return { pair, atHello, results, call, cancel };
}

afterEach(() => {
  vi.useRealTimers();
  vi.resetModules();
});

describe('the optional call code, loaded with import()', () => {
  it('is not loaded by defining tools; invokeTool loads what the tool needs before the call', async () => {
    const { core, parts } = await freshCore();
    let failures = 1;
    const gated = core.tool({
      name: 'gated',
      description: 'Asks.',
      needsApproval: true,
      execute: () => 'ran',
    });
    const flaky = core.tool({
      name: 'flaky',
      description: 'Fails once.',
      sideEffect: 'none',
      retry: { maxAttempts: 2, initialDelayMs: 0 },
      execute: () => {
        if (failures-- > 0) throw new Error('once');
        return 'second';
      },
    });
    expect(loaded(parts)).toEqual([]);

    await expect(core.invokeTool(gated, {}, { approve: () => true })).resolves.toMatchObject({
      status: 'ok',
      output: 'ran',
    });
    await expect(core.invokeTool(flaky, {})).resolves.toMatchObject({ status: 'ok', output: 'second' });
    expect(loaded(parts)).toEqual(['gate', 'retry']);
  });

  it('loads steps, questions and the widget check at their first use', async () => {
    const { core, parts } = await freshCore();
    const asking = core.tool({
      name: 'asking',
      description: 'Steps, asks, shows.',
      execute: async (_input: unknown, ctx) => {
        const step = await ctx.step('one', () => 1);
        const answer = await ctx.askQuestion('Go?');
        return { said: `${step} ${String(answer)}`, widget: { type: 'Text', value: 'shown' } };
      },
    });
    const result = await core.invokeTool(asking, {}, { onQuestion: () => 'yes' });
    expect(result).toMatchObject({
      status: 'ok',
      output: '{"said":"1 yes"}',
      widget: { type: 'Text', value: 'shown' },
    });
    expect(loaded(parts)).toEqual(['questions', 'steps', 'widget']);
  });

  it('loads the widget check before reading what a tool yields', async () => {
    const { core, parts } = await freshCore();
    const yielding = core.tool({
      name: 'yielding',
      description: 'Yields a widget.',
      async *execute() {
        yield { widget: { type: 'Text', value: 'first' } };
        return 'done';
      },
    });
    const preliminary: unknown[] = [];
    const result = await core.invokeTool(
      yielding,
      {},
      { onPreliminary: (update) => preliminary.push(update.widget) },
    );
    expect(result).toMatchObject({ status: 'ok', output: 'done' });
    expect(preliminary).toEqual([{ type: 'Text', value: 'first' }]);
    expect(loaded(parts)).toEqual(['widget']);
  });

  it("has the code of a client's tools and policies loaded before hello", async () => {
    const { core, parts } = await freshCore();
    const { pair, atHello } = service(parts);
    const gated = core.tool({
      name: 'gated',
      description: 'Asks.',
      needsApproval: true,
      execute: () => 'ran',
    });
    const keyed = core.tool({
      name: 'keyed',
      description: 'One at a time.',
      concurrency: { limit: 1 },
      execute: () => 'ok',
    });
    const client = clientOf(core, pair, { tools: [gated, keyed], policies: [() => undefined] });
    await client.connect();
    expect(atHello).toEqual([['concurrency', 'gate', 'redaction']]);
    await client.close();
  });

  it('traces the calls of a client with tracing once connect() has loaded the tracing code', async () => {
    const { core, parts } = await freshCore();
    const { pair, results, call } = service(parts);
    const started: string[] = [];
    const ping = core.tool({ name: 'ping', description: 'Pong.', execute: () => 'pong' });
    const client = clientOf(core, pair, {
      tools: [ping],
      tracing: {
        startCall: (traced) => {
          started.push(`${traced.callId} ${traced.toolName}`);
          return undefined;
        },
      },
    });
    await client.connect();
    call('c1', 'ping');
    await vi.waitFor(() => expect(results).toEqual([{ callId: 'c1', status: 'ok', output: 'pong' }]));
    expect(started).toEqual(['c1 ping']);
    await client.close({ drain: false });
  });

  it('runs a call of a tool added while connected once the code it needs arrives', async () => {
    const { core, parts, setCodeLoader } = await freshCore();
    const { arrive } = heldPart(setCodeLoader, 'concurrency');
    const { pair, atHello, results, call } = service(parts);
    const client = clientOf(core, pair, { tools: [] });
    await client.connect();
    expect(atHello).toEqual([[]]);

    client.addTool(
      core.tool({
        name: 'keyed',
        description: 'One at a time.',
        concurrency: { limit: 1 },
        execute: () => 'ran',
      }),
    );
    call('c1', 'keyed');
    await new Promise((resolve) => setImmediate(resolve));
    expect(results).toEqual([]);
    arrive();
    await vi.waitFor(() => expect(results).toEqual([{ callId: 'c1', status: 'ok', output: 'ran' }]));
    expect(loaded(parts)).toEqual(['concurrency']);
    // The result is not acknowledged by this service: nothing to wait for.
    await client.close({ drain: false });
  });

  it('fails connect() with load_failed when the code cannot load, and loads again at the next connect()', async () => {
    const { core, parts, setCodeLoader } = await freshCore();
    const network = offlinePart(setCodeLoader, 'gate');
    const { pair, atHello } = service(parts);
    const gated = core.tool({
      name: 'gated',
      description: 'Asks.',
      needsApproval: true,
      execute: () => 'ran',
    });
    const client = clientOf(core, pair, { tools: [gated] });

    const error = (await client.connect().catch((thrown: unknown) => thrown)) as Core.ToolwireError;
    expect(error).toBeInstanceOf(core.ToolwireError);
    expect({ name: error.name, code: error.code }).toEqual({ name: 'ToolwireError', code: 'load_failed' });
    expect(error.message).toBe(`toolwire could not load its gate code: ${(error.cause as Error).message}`);
    expect(atHello).toEqual([]);

    network.offline = false;
    await client.connect();
    expect(atHello).toEqual([['gate']]);
    // The registry's preload failed once, connect() failed once, the second connect() loaded.
    expect(network.begun).toBe(2);
    await client.close();
  });

  it('ends a call whose code cannot load with status error saying so; the next call loads again', async () => {
    const { core, setCodeLoader } = await freshCore();
    const network = offlinePart(setCodeLoader, 'gate');
    const gated = core.tool({
      name: 'gated',
      description: 'Asks.',
      needsApproval: true,
      execute: () => 'ran',
    });
    const failed = await core.invokeTool(gated, {}, { approve: () => true });
    const error = failed.error as Core.ToolwireError;
    expect({ name: error.name, code: error.code }).toEqual({ name: 'ToolwireError', code: 'load_failed' });
    expect(failed).toMatchObject({
      status: 'error',
      output: `Error running gated: toolwire could not load its gate code: ${(error.cause as Error).message}`,
    });
    network.offline = false;
    await expect(core.invokeTool(gated, {}, { approve: () => true })).resolves.toMatchObject({
      status: 'ok',
      output: 'ran',
    });
  });

  it("redacts a tool's sensitive fields once the code arrives, the call waiting for it", async () => {
    const { core, parts, setCodeLoader } = await freshCore();
    const { arrive, imported } = heldPart(setCodeLoader, 'redaction');
    const { pair, results, call } = service(parts);
    const client = clientOf(core, pair, { tools: [] });
    await client.connect();
    client.addTool(
      core.tool({
        name: 'echo',
        description: 'Says the PIN back.',
        parameters: z.object({ pin: z.string() }),
        sensitiveFieldNames: ['pin'],
        execute: (input) => `pin ${input.pin}`,
      }),
    );
    call('c1', 'echo', { pin: '987654' });
    // Its code is here but held: the call must wait for arrive(), not merely for a slow import.
    await imported;
    await new Promise((resolve) => setImmediate(resolve));
    expect(results).toEqual([]);
    arrive();
    await vi.waitFor(() =>
      expect(results).toEqual([{ callId: 'c1', status: 'ok', output: 'pin [redacted]' }]),
    );
    expect(loaded(parts)).toEqual(['redaction']);
    await client.close({ drain: false });
  });

  it('ends a call whose redaction code cannot load with status error saying so; invokeTool loads it first', async () => {
    const { core, parts, setCodeLoader } = await freshCore();
    const network = offlinePart(setCodeLoader, 'redaction');
    const { pair, results, call } = service(parts);
    const echo = core.tool({
      name: 'echo',
      description: 'Says the PIN back.',
      parameters: z.object({ pin: z.string() }),
      sensitiveFieldNames: ['pin'],
      execute: (input) => `pin ${input.pin}`,
    });
    const client = clientOf(core, pair, { tools: [] });
    await client.connect();
    client.addTool(echo);
    call('c1', 'echo', { pin: '987654' });
    await vi.waitFor(() =>
      expect(results).toEqual([
        {
          callId: 'c1',
          status: 'error',
          output: 'Error running echo: toolwire could not load its redaction code: the network is down',
        },
      ]),
    );
    network.offline = false;
    await expect(core.invokeTool(echo, { pin: '987654' })).resolves.toMatchObject({
      status: 'ok',
      output: 'pin [redacted]',
    });
    await client.close({ drain: false });
  });

  it('ends an invokeTool call waiting for its code at its signal, and at its timeoutMs', async () => {
    const { core, setCodeLoader } = await freshCore();
    const { arrive } = heldPart(setCodeLoader, 'retry');
    const flaky = core.tool({
      name: 'flaky',
      description: 'Retries.',
      sideEffect: 'none',
      retry: { maxAttempts: 2, initialDelayMs: 0 },
      execute: () => 'ran',
    });
    const controller = new AbortController();
    const cancelled = core.invokeTool(flaky, {}, { signal: controller.signal });
    controller.abort();
    await expect(cancelled).resolves.toMatchObject({
      status: 'cancelled',
      output: 'Error running flaky: the call was cancelled',
    });

    vi.useFakeTimers();
    const timedOut = core.invokeTool(flaky, {}, { timeoutMs: 50 });
    await vi.advanceTimersByTimeAsync(50);
    await expect(timedOut).resolves.toMatchObject({
      status: 'timeout',
      output: 'Error running flaky: timed out after 50ms',
    });
    vi.useRealTimers();
    arrive();
    await expect(core.invokeTool(flaky, {})).resolves.toMatchObject({ status: 'ok', output: 'ran' });
  });

  it('ends a client call waiting for its code when the service cancels it', async () => {
    const { core, setCodeLoader } = await freshCore();
    const { arrive } = heldPart(setCodeLoader, 'gate');
    const { pair, results, call, cancel } = service();
    const client = clientOf(core, pair, { tools: [], onApproval: () => true });
    await client.connect();
    client.addTool(
      core.tool({ name: 'gated', description: 'Asks.', needsApproval: true, execute: () => 'ran' }),
    );
    call('c1', 'gated');
    cancel('c1');
    await vi.waitFor(() =>
      expect(results).toEqual([
        { callId: 'c1', status: 'cancelled', output: 'Error running gated: the call was cancelled' },
      ]),
    );
    arrive();
    await client.close({ drain: false });
  });

  /** A tool of each part a call may wait for before its `execute` begins, the part it waits for, and its arguments. */
  const waitingTools: Array<[Parts.PartName, (core: typeof Core) => Core.Tool, object]> = [
    ['gate', (core) => gatedTool(core), {}],
    [
      'retry',
      (core) =>
        core.tool({
          name: 'flaky',
          description: 'Retries.',
          sideEffect: 'none',
          retry: { maxAttempts: 2, initialDelayMs: 0 },
          execute: () => 'ran',
        }),
      {},
    ],
    [
      'concurrency',
      (core) =>
        core.tool({
          name: 'keyed',
          description: 'One at a time.',
          concurrency: { limit: 1 },
          execute: () => 'ran',
        }),
      {},
    ],
    [
      'redaction',
      (core) =>
        core.tool({
          name: 'echo',
          description: 'Says the PIN back.',
          parameters: z.object({ pin: z.string() }),
          sensitiveFieldNames: ['pin'],
          execute: (input) => `pin ${input.pin}`,
        }),
      { pin: '987654' },
    ],
  ];

  it.each(waitingTools)(
    'hands a call waiting for the %s code back at close(), without waiting for it to arrive',
    async (name, make, args) => {
      const { core, setCodeLoader } = await freshCore();
      const loads = heldPart(setCodeLoader, name);
      const { pair, results, call } = service();
      const ran: string[] = [];
      const client = clientOf(core, pair, { tools: [], onApproval: () => true });
      client.on('tool_result', (info) => ran.push(info.status));
      await client.connect();
      const made = make(core);
      client.addTool(made);
      await loads.imported;
      vi.useFakeTimers();
      call('c1', made.name, args);
      await vi.advanceTimersByTimeAsync(0);
      expect(results).toEqual([]);
      let closed = false;
      const closing = client.close().then(() => {
        closed = true;
      });
      // The page's chunk never comes (a network that hangs): the call never ran, and another worker takes it.
      await vi.advanceTimersByTimeAsync(0);
      expect({ closed, results }).toEqual({
        closed: true,
        results: [
          {
            callId: 'c1',
            status: 'error',
            output: `Error running ${made.name}: the client is shutting down; try again later`,
          },
        ],
      });
      loads.arrive();
      await closing;
      await vi.advanceTimersByTimeAsync(0);
      expect(ran).toEqual(['error']);
    },
  );

  it('keeps a call its onApproval approved through a promise while it waits for code at close(), as at its gate', async () => {
    const { core, parts, setCodeLoader } = await freshCore();
    const retry = heldPart(setCodeLoader, 'retry');
    const { pair, results, call } = service();
    let decide: (approved: boolean) => void = () => {};
    const client = clientOf(core, pair, {
      tools: [],
      onApproval: () =>
        new Promise<boolean>((resolve) => {
          decide = resolve;
        }),
    });
    await client.connect();
    client.addTool(
      core.tool({
        name: 'careful',
        description: 'Asks, then retries.',
        needsApproval: true,
        sideEffect: 'none',
        retry: { maxAttempts: 2, initialDelayMs: 0 },
        execute: () => 'ran',
      }),
    );
    await retry.imported;
    await vi.waitFor(() => expect(parts.gate.code).toBeDefined());
    vi.useFakeTimers();
    call('c1', 'careful');
    await vi.advanceTimersByTimeAsync(0);
    // A person approved it: on another worker they would be asked again.
    decide(true);
    await vi.advanceTimersByTimeAsync(0);
    let closed = false;
    const closing = client.close({ timeoutMs: 5_000 }).then(() => {
      closed = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect({ closed, results }).toEqual({ closed: false, results: [] });
    retry.arrive();
    await vi.advanceTimersByTimeAsync(0);
    expect(results).toEqual([{ callId: 'c1', status: 'ok', output: 'ran' }]);
    // This service never acknowledges: the drain ends at its timeoutMs.
    await vi.advanceTimersByTimeAsync(5_000);
    await closing;
    expect(closed).toBe(true);
  });

  /**
   * A call to `name` whose validation waits for the JSON Schema validator's chunk, which never comes: `close()` hands
   * it back at once (another worker takes it), and its tool never runs, not even when the chunk arrives later.
   */
  async function validatorWaitHandedBack(
    strict: boolean,
    define: (core: typeof Core, count: () => number) => Core.Tool,
    args: Record<string, unknown>,
  ) {
    const { core, setCodeLoader } = await freshCore();
    if (strict) await import('../../src/strict');
    const loads = controlLoads(setCodeLoader, 'JSON Schema validator', { held: true });
    const { pair, results, call } = service();
    let ran = 0;
    const waiting = define(core, () => {
      ran += 1;
      return 1;
    });
    const client = clientOf(core, pair, { tools: [waiting] });
    await client.connect();
    vi.useFakeTimers();
    call('c1', waiting.name, args);
    await vi.advanceTimersByTimeAsync(0);
    expect({ begun: loads.begun, results }).toEqual({ begun: 1, results: [] });
    let closed = false;
    const closing = client.close().then(() => {
      closed = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect({ closed, results }).toEqual({
      closed: true,
      results: [
        {
          callId: 'c1',
          status: 'error',
          output: `Error running ${waiting.name}: the client is shutting down; try again later`,
        },
      ],
    });
    loads.arrive();
    await closing;
    await vi.advanceTimersByTimeAsync(0);
    expect({ ran, results: results.length }).toEqual({ ran: 0, results: 1 });
  }

  it('hands a call waiting for the JSON Schema validator its validation needs back at close()', async () => {
    // `z.coerce.number()` accepts "3", which the announced "type": "number" refuses: the guard needs the validator.
    await validatorWaitHandedBack(
      false,
      (core, count) =>
        core.tool({
          name: 'double',
          description: 'Doubles n.',
          parameters: z.object({ n: z.coerce.number() }),
          execute: count,
        }),
      { n: 3 },
    );
  });

  it('hands back at close() a call whose strict: true arguments wait for the validator to be restored', async () => {
    // An `anyOf` whose branches restore differently (`r` optional in one): the way back asks the validator which.
    await validatorWaitHandedBack(
      true,
      (core, count) =>
        core.tool({
          name: 'area',
          description: 'Measures a shape.',
          strict: true,
          parameters: z.object({
            shape: z.union([
              z.object({ kind: z.literal('circle'), r: z.number().optional() }),
              z.object({ kind: z.literal('square'), side: z.number() }),
            ]),
          }),
          execute: count,
        }),
      { shape: { kind: 'circle', r: null } },
    );
  });

  it('hands back at once a call that reaches its wait for code after close() began', async () => {
    const { core, setCodeLoader } = await freshCore();
    const loads = heldPart(setCodeLoader, 'redaction');
    const { pair, results, call } = service();
    let giveContext: (context: object) => void = () => {};
    const client = clientOf(core, pair, {
      tools: [],
      context: () =>
        new Promise<object>((resolve) => {
          giveContext = resolve;
        }),
    });
    await client.connect();
    const echo = waitingTools[3]![1](core);
    client.addTool(echo);
    await loads.imported;
    vi.useFakeTimers();
    call('c1', 'echo', { pin: '987654' });
    await vi.advanceTimersByTimeAsync(0);
    let closed = false;
    const closing = client.close().then(() => {
      closed = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    // Its context comes during the drain: the call then finds the redaction code missing, and goes back.
    giveContext({ tenant: 't1' });
    await vi.advanceTimersByTimeAsync(0);
    expect({ closed, results }).toEqual({
      closed: true,
      results: [
        {
          callId: 'c1',
          status: 'error',
          output: 'Error running echo: the client is shutting down; try again later',
        },
      ],
    });
    loads.arrive();
    await closing;
  });

  it('refuses connect() after close() as closed for good, without waiting for code still loading', async () => {
    const { core, parts, setCodeLoader } = await freshCore();
    heldPart(setCodeLoader, 'gate');
    const { pair, atHello } = service(parts);
    const client = clientOf(core, pair, { tools: [gatedTool(core)] });
    await client.close();
    const error = (await client.connect().catch((thrown: unknown) => thrown)) as Core.ConnectionError;
    expect(error).toBeInstanceOf(core.ConnectionError);
    expect({ code: error.code, message: error.message }).toEqual({
      code: 'closed',
      message: 'this client is closed; create a new Client to connect again',
    });
    expect(atHello).toEqual([]);
  });

  it('refuses connect() as closed for good right after close() ended a connect() waiting for code', async () => {
    const { core, parts, setCodeLoader } = await freshCore();
    heldPart(setCodeLoader, 'gate');
    const { pair, atHello } = service(parts);
    const client = clientOf(core, pair, { tools: [gatedTool(core)] });
    const first = client.connect().catch((thrown: unknown) => thrown);
    const closing = client.close();
    // In the same turn: the first connect() has not yet seen its wait end.
    const error = (await client.connect().catch((thrown: unknown) => thrown)) as Core.ConnectionError;
    expect({ code: error.code, message: error.message }).toEqual({
      code: 'closed',
      message: 'this client is closed; create a new Client to connect again',
    });
    expect(((await first) as Core.ConnectionError).code).toBe('closed');
    await closing;
    expect(atHello).toEqual([]);
  });

  it('ends connect() at close() while the code is still loading; a second connect() meanwhile is refused', async () => {
    const { core, parts, setCodeLoader } = await freshCore();
    const { arrive } = heldPart(setCodeLoader, 'gate');
    const { pair, atHello } = service(parts);
    const client = clientOf(core, pair, { tools: [gatedTool(core)] });
    const connecting = client.connect().catch((thrown: unknown) => thrown);
    let again: unknown;
    client.connect().catch((thrown: unknown) => {
      again = thrown;
    });
    // Refused at once, as while the socket opens: not left to wait for the code and then for close().
    await new Promise((resolve) => setImmediate(resolve));
    expect((again as Core.ConnectionError | undefined)?.code).toBe('already_connecting');
    await client.close();
    const error = (await connecting) as Core.ConnectionError;
    expect(error).toBeInstanceOf(core.ConnectionError);
    expect({ code: error.code, message: error.message }).toEqual({
      code: 'closed',
      message: 'the client was closed before it connected',
    });
    arrive();
    expect(atHello).toEqual([]);
    expect(client.state).toBe('closed');
  });

  it('says hello once when connect() is called twice while the code loads', async () => {
    const { core, parts, setCodeLoader } = await freshCore();
    const { arrive } = heldPart(setCodeLoader, 'gate');
    const { pair, atHello } = service(parts);
    const client = clientOf(core, pair, { tools: [gatedTool(core)] });
    expect(client.state).toBe('idle');
    const first = client.connect();
    expect(client.state).toBe('connecting');
    let second: unknown;
    client.connect().catch((thrown: unknown) => {
      second = thrown;
    });
    // Refused before the code arrives, in the words it is refused with while the socket opens.
    await new Promise((resolve) => setImmediate(resolve));
    const error = second as Core.ConnectionError;
    expect({ code: error?.code, message: error?.message }).toEqual({
      code: 'already_connecting',
      message: 'connect() is already connecting; await the first call instead of calling it again',
    });
    expect(atHello).toEqual([]);
    arrive();
    await first;
    expect(atHello).toEqual([['gate']]);
    await client.close();
  });

  it('gives the model the same text with the code loaded on need as with the Node entry, every part in use', async () => {
    const stub = await startStubServer({
      apiKeys: ['scenario-key'],
      logger: silentLogger,
      model: scriptedModel(scenarioScript(2) as Parameters<typeof scriptedModel>[0]),
    });
    try {
      const node = await runScenario(nodeEntry, stub.url, 'scenario-key');
      const { core, parts } = await freshCore();
      const browser = await runScenario(core, stub.url, 'scenario-key');
      for (const run of [node, browser]) {
        expect(run.answer).toBe(SCENARIO_ANSWER);
        expect(run.traced).toEqual(SCENARIO_TRACE);
        expect(run.answered).toEqual([200]);
      }
      expect(loaded(parts)).toEqual([
        'concurrency',
        'gate',
        'questions',
        'redaction',
        'retry',
        'steps',
        'widget',
      ]);
    } finally {
      await stub.close();
    }
  });

  it('keeps the result of a tool that ran when its widget check cannot load, dropping the widget as invalid', async () => {
    const { core, setCodeLoader } = await freshCore();
    const network = offlinePart(setCodeLoader, 'widget');
    let runs = 0;
    const showing = core.tool({
      name: 'showing',
      description: 'Shows.',
      execute: () => {
        runs += 1;
        return { shown: runs, widget: { type: 'Text', value: 'shown' } };
      },
    });
    const invalid: unknown[] = [];
    const options = { onWidgetInvalid: (info: unknown) => invalid.push(info) };
    const first = await core.invokeTool(showing, {}, options);
    expect(first).toMatchObject({ status: 'ok', output: '{"shown":1}' });
    expect(first.widget).toBeUndefined();
    expect(invalid).toEqual([
      {
        toolName: 'showing',
        callId: expect.any(String),
        path: '(root)',
        message: 'could not be checked: toolwire could not load its widget code: the network is down',
      },
    ]);
    network.offline = false;
    await expect(core.invokeTool(showing, {}, options)).resolves.toMatchObject({
      status: 'ok',
      output: '{"shown":2}',
      widget: { type: 'Text', value: 'shown' },
    });
    expect(invalid).toHaveLength(1);
  });
});

describe('connect() waiting for the code within connectTimeoutMs', () => {
  /** A fresh core with the gate held, a service, and a client of a gated tool, its code import done. */
  async function heldGateClient(options: Omit<ClientOptions, 'url' | 'apiKey' | 'WebSocket' | 'tools'> = {}) {
    const { core, parts, setCodeLoader } = await freshCore();
    const gate = heldPart(setCodeLoader, 'gate');
    const served = service(parts);
    const client = clientOf(core, served.pair, {
      tools: [gatedTool(core)],
      connectTimeoutMs: 1_000,
      ...options,
    });
    // The registry started the load when the client was made; the rest is held.
    await gate.imported;
    vi.useFakeTimers();
    return { core, parts, setCodeLoader, arrive: gate.arrive, client, ...served };
  }

  /** `promise`'s outcome once settled, `'pending'` until then. */
  function outcome(promise: Promise<unknown>): { current: unknown } {
    const seen: { current: unknown } = { current: 'pending' };
    promise.then(
      () => {
        seen.current = 'connected';
      },
      (error: unknown) => {
        seen.current = error;
      },
    );
    return seen;
  }

  it('rejects with connect_timeout naming the code after connectTimeoutMs, and keeps the code that comes later', async () => {
    const { core, parts, arrive, client, pair, atHello } = await heldGateClient();
    const connecting = outcome(client.connect());
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(connecting.current).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    const error = connecting.current as Core.ConnectionError;
    expect(error).toBeInstanceOf(core.ConnectionError);
    expect({ name: error.name, code: error.code, message: error.message }).toEqual({
      name: 'ConnectionError',
      code: 'connect_timeout',
      message: "toolwire's gate code did not load within 1000ms",
    });
    // No attempt was made, no timer is left, and the client may connect again.
    expect({ sockets: pair.peers.length, atHello, state: client.state, timers: vi.getTimerCount() }).toEqual({
      sockets: 0,
      atHello: [],
      state: 'idle',
      timers: 0,
    });

    arrive();
    await vi.advanceTimersByTimeAsync(0);
    expect(loaded(parts)).toEqual(['gate']);
    const again = client.connect();
    // Straight to the socket: the connection's own deadline is the only timer.
    expect({ state: client.state, timers: vi.getTimerCount() }).toEqual({ state: 'connecting', timers: 1 });
    await again;
    expect(atHello).toEqual([['gate']]);
    await client.close();
  });

  it('names every part still missing when the time is up, and only those', async () => {
    const { core, parts, setCodeLoader } = await freshCore();
    const gate = heldPart(setCodeLoader, 'gate');
    const retry = heldPart(setCodeLoader, 'retry');
    const concurrency = heldPart(setCodeLoader, 'concurrency');
    const { pair } = service(parts);
    const tools = [
      gatedTool(core),
      core.tool({
        name: 'flaky',
        description: 'Retries.',
        sideEffect: 'none',
        retry: { maxAttempts: 2 },
        execute: () => 'ran',
      }),
      core.tool({
        name: 'keyed',
        description: 'One at a time.',
        concurrency: { limit: 1 },
        execute: () => 'ok',
      }),
    ];
    const client = clientOf(core, pair, { tools, connectTimeoutMs: 1_000 });
    await Promise.all([gate.imported, retry.imported, concurrency.imported]);
    vi.useFakeTimers();
    const connecting = outcome(client.connect());
    await vi.advanceTimersByTimeAsync(500);
    retry.arrive();
    await vi.advanceTimersByTimeAsync(500);
    expect((connecting.current as Core.ConnectionError).message).toBe(
      "toolwire's gate and concurrency code did not load within 1000ms",
    );
    expect(loaded(parts)).toEqual(['retry']);
    gate.arrive();
    concurrency.arrive();
    await client.close();
  });

  it('ends the wait at once at close(), with no timer left', async () => {
    const { core, arrive, client, atHello } = await heldGateClient();
    const connecting = outcome(client.connect());
    await vi.advanceTimersByTimeAsync(500);
    await client.close();
    await vi.advanceTimersByTimeAsync(0);
    const error = connecting.current as Core.ConnectionError;
    expect(error).toBeInstanceOf(core.ConnectionError);
    expect({ code: error.code, message: error.message }).toEqual({
      code: 'closed',
      message: 'the client was closed before it connected',
    });
    expect(vi.getTimerCount()).toBe(0);
    arrive();
    await vi.advanceTimersByTimeAsync(0);
    expect(atHello).toEqual([]);
  });

  it('connects when the code arrives just before the time is up', async () => {
    const { arrive, client, atHello } = await heldGateClient();
    const connecting = outcome(client.connect());
    await vi.advanceTimersByTimeAsync(999);
    arrive();
    await vi.advanceTimersByTimeAsync(0);
    expect({ connecting: connecting.current, state: client.state, atHello }).toEqual({
      connecting: 'connected',
      state: 'open',
      atHello: [['gate']],
    });
    await client.close();
  });

  it('gives the socket what the wait for code left of connectTimeoutMs', async () => {
    // The service never welcomes: the connection's deadline decides.
    const { core, parts, setCodeLoader } = await freshCore();
    const gate = heldPart(setCodeLoader, 'gate');
    const pair = memorySocketPair({ open: 'manual' });
    const client = clientOf(core, pair, { tools: [gatedTool(core)], connectTimeoutMs: 1_000 });
    await gate.imported;
    vi.useFakeTimers();
    const connecting = outcome(client.connect());
    await vi.advanceTimersByTimeAsync(600);
    gate.arrive();
    await vi.advanceTimersByTimeAsync(0);
    expect({ loaded: loaded(parts), state: client.state, sockets: pair.peers.length }).toEqual({
      loaded: ['gate'],
      state: 'connecting',
      sockets: 1,
    });
    await vi.advanceTimersByTimeAsync(399);
    expect(connecting.current).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    const error = connecting.current as Core.ConnectionError;
    expect({ code: error.code, message: error.message }).toEqual({
      code: 'connect_timeout',
      message: 'no welcome from ws://service within 1000ms',
    });
  });

  it('starts no timer for code when the code is there (the Node entry registers it)', async () => {
    vi.useFakeTimers();
    const { pair, atHello } = service();
    const client = new nodeEntry.Client({
      url: 'ws://service',
      apiKey: 'key-1',
      WebSocket: pair.WebSocket,
      tools: [
        nodeEntry.tool({ name: 'gated', description: 'Asks.', needsApproval: true, execute: () => 'ran' }),
      ],
      policies: [() => undefined],
      tracing: { startCall: () => undefined },
      connectTimeoutMs: 1_000,
    });
    const connecting = client.connect();
    // Already connecting, and the connection's own deadline is the only timer.
    expect({ state: client.state, timers: vi.getTimerCount() }).toEqual({ state: 'connecting', timers: 1 });
    await connecting;
    expect(atHello).toEqual([[]]);
    await client.close();
  });

  it('rejects with connect_timeout naming the tracing code when it does not arrive, and keeps it when it does', async () => {
    const { core, parts, setCodeLoader } = await freshCore();
    const loads = controlLoads(setCodeLoader, 'tracing', { held: true });
    const { pair, atHello } = service(parts);
    const tracing = { startCall: () => undefined };
    const client = clientOf(core, pair, { tools: [], tracing, connectTimeoutMs: 1_000 });
    vi.useFakeTimers();
    const connecting = outcome(client.connect());
    await vi.advanceTimersByTimeAsync(1_000);
    expect((connecting.current as Core.ConnectionError).message).toBe(
      "toolwire's tracing code did not load within 1000ms",
    );
    vi.useRealTimers();
    loads.arrive();
    // The next connect() finds the load begun before, and loads nothing again.
    await client.connect();
    expect({ atHello, loads: loads.begun }).toEqual({ atHello: [[]], loads: 1 });
    // Kept: another client with tracing goes straight to its socket.
    const other = clientOf(core, service(parts).pair, { tools: [], tracing });
    const otherConnecting = other.connect();
    expect(other.state).toBe('connecting');
    await otherConnecting;
    await Promise.all([client.close(), other.close()]);
  });
});

describe('run() while connect() is under way, waiting for code or for the socket alike', () => {
  /**
   * A fresh core with the run code registered and the gate's load held until `arrive()`, a client of a gated tool
   * (`connectTimeoutMs` 1,000), and a service that welcomes when `welcome()` is called (at once when `welcomes`),
   * counts `run_start` frames and completes each run at once.
   */
  async function setUp(welcomes: boolean) {
    const { core, setCodeLoader } = await freshCore();
    const { registerRuns } = await import('../../src/client/client');
    registerRuns((await import('../../src/client/runs')).Runs);
    const gate = heldPart(setCodeLoader, 'gate');
    const runStarts: string[] = [];
    let welcome = () => {};
    const pair = memorySocketPair({
      onConnection(peer: MemoryPeer) {
        peer.onMessage = (text) => {
          const frame = JSON.parse(text) as {
            type: string;
            requestId: string;
            input: string;
            metadata?: object;
          };
          if (frame.type === 'hello') {
            welcome = () => peer.send(welcomeFrame({ features: ['run_options'] }));
            if (welcomes) welcome();
          } else if (frame.type === 'run_start') {
            runStarts.push(`${frame.input} ${JSON.stringify(frame.metadata)}`);
            peer.send({ type: 'run_started', requestId: frame.requestId, runId: 'r1' });
            peer.send({
              type: 'run_result',
              runId: 'r1',
              status: 'completed',
              finalOutput: 'done',
              toolCalls: [],
              turns: 1,
            });
          }
        };
      },
    });
    const client = clientOf(core, pair, { tools: [gatedTool(core)], connectTimeoutMs: 1_000 });
    await gate.imported;
    vi.useFakeTimers();
    const agent = new core.Agent({ name: 'A', instructions: '', tools: [] });
    return { core, client, agent, runStarts, arrive: gate.arrive, welcome: () => welcome() };
  }

  /**
   * What `promise` ended with: `'connected'` (connect()), `{ output }` (run()) or the error's name, code and
   * message; `'pending'` until then.
   */
  function ending(promise: Promise<unknown>): { current: unknown } {
    const seen: { current: unknown } = { current: 'pending' };
    promise.then(
      (result) => {
        seen.current =
          result === undefined ? 'connected' : { output: (result as { finalOutput: unknown }).finalOutput };
      },
      (error: Core.ToolwireError) => {
        seen.current = { name: error.name, code: error.code, message: error.message };
      },
    );
    return seen;
  }

  /**
   * A client whose `connect()` is under way (`code`: waiting for the gate's code; `socket`: the code here, the
   * socket opened, no welcome yet), then a `run()`.
   */
  async function runWhileConnecting(phase: 'code' | 'socket') {
    const made = await setUp(phase === 'code');
    if (phase === 'socket') made.arrive();
    const connecting = ending(made.client.connect());
    await vi.advanceTimersByTimeAsync(0);
    const state = made.client.state;
    const metadata = { page: 'a' };
    const running = ending(made.client.run(made.agent, 'hi', { metadata }));
    // What is sent is what run() was given, whatever the caller changes while it waits.
    metadata.page = 'b';
    await vi.advanceTimersByTimeAsync(0);
    return { ...made, state, connecting, running };
  }

  it.each(['code', 'socket'] as const)(
    'sends a run made while connect() waits for the %s once, after welcome',
    async (phase) => {
      const { client, runStarts, arrive, welcome, state, connecting, running } =
        await runWhileConnecting(phase);
      expect({ state, running: running.current, runStarts }).toEqual({
        state: 'connecting',
        running: 'pending',
        runStarts: [],
      });
      if (phase === 'code') arrive();
      else welcome();
      await vi.advanceTimersByTimeAsync(0);
      expect({ connecting: connecting.current, running: running.current, runStarts }).toEqual({
        connecting: 'connected',
        running: { output: 'done' },
        runStarts: ['hi {"page":"a"}'],
      });
      await client.close({ drain: false });
    },
  );

  it.each(['code', 'socket'] as const)(
    "rejects a run made while connect() waits for the %s with connect()'s error when connect() fails",
    async (phase) => {
      const { runStarts, state, connecting, running, arrive, welcome } = await runWhileConnecting(phase);
      expect({ state, running: running.current }).toEqual({ state: 'connecting', running: 'pending' });
      await vi.advanceTimersByTimeAsync(1_000);
      expect(connecting.current).toMatchObject({ name: 'ConnectionError', code: 'connect_timeout' });
      expect(running.current).toEqual(connecting.current);
      // Nothing later sends it: not when the code comes, nor a welcome.
      arrive();
      welcome();
      await vi.advanceTimersByTimeAsync(0);
      expect(runStarts).toEqual([]);
    },
  );

  it.each(['code', 'socket'] as const)(
    'rejects a run made while connect() waits for the %s with closed at close(), and never sends it',
    async (phase) => {
      const { client, runStarts, state, running, arrive } = await runWhileConnecting(phase);
      expect({ state, running: running.current }).toEqual({ state: 'connecting', running: 'pending' });
      await client.close();
      await vi.advanceTimersByTimeAsync(0);
      expect(running.current).toMatchObject({ name: 'ConnectionError', code: 'closed' });
      arrive();
      await vi.advanceTimersByTimeAsync(0);
      expect(runStarts).toEqual([]);
    },
  );

  it('rejects a run made while connect() waits for code with load_failed when the code cannot load', async () => {
    const { core, setCodeLoader } = await freshCore();
    const gate = offlinePart(setCodeLoader, 'gate');
    const { pair } = service();
    const client = clientOf(core, pair, { tools: [gatedTool(core)] });
    const connecting = ending(client.connect());
    const running = ending(client.run(new core.Agent({ name: 'A', instructions: '', tools: [] }), 'hi'));
    await gate.imported;
    await vi.waitFor(() => expect(connecting.current).not.toBe('pending'));
    await vi.waitFor(() => expect(running.current).not.toBe('pending'));
    expect(connecting.current).toMatchObject({ name: 'ToolwireError', code: 'load_failed' });
    expect(running.current).toEqual(connecting.current);
    expect(client.state).toBe('idle');
    await client.close();
  });

  it('ends a run made while connect() waits for code at once when its signal aborts', async () => {
    const { client, runStarts, agent, arrive } = await setUp(true);
    const connecting = client.connect();
    const controller = new AbortController();
    const running = ending(client.run(agent, 'hi', { signal: controller.signal }));
    controller.abort(new Error('the user left'));
    await vi.advanceTimersByTimeAsync(0);
    expect(running.current).toEqual({
      name: 'AbortError',
      code: 'aborted',
      message: 'the run was aborted before it started',
    });
    arrive();
    await connecting;
    await vi.advanceTimersByTimeAsync(0);
    expect(runStarts).toEqual([]);
    await client.close({ drain: false });
  });
});
