/**
 * The client accepts what docs/protocol/index.md says a receiver accepts, frame type by frame type, fed by a bare `ws`
 * service: unknown fields (docs/protocol/index.md), informative fields that are wrong (docs/protocol/errors.md,
 * src/wire/codec.ts), values a newer
 * peer may send (unknown statuses, kinds, codes, reasons, feature names), and, where a frame must be refused, a
 * refusal that names the call, run or request it is about and ends what waits on it.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/client/runs';
import { Agent, type Client, tool } from '../../src/index';
import { recordingLogger } from '../fault/gateway';
import { client, onCleanup, until } from '../fault/harness';
import { type RawService, type RawServiceOptions, startRawService } from '../fault/raw-service';

const FAST = { initialDelayMs: 1, maxDelayMs: 5 };
let executed = 0;
const echo = tool({
  name: 'echo',
  description: 'Says ok.',
  execute: () => {
    executed += 1;
    return 'ok';
  },
});
const wait = tool({
  name: 'wait',
  description: 'Waits until aborted.',
  execute: (_input, ctx) =>
    new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('x'))),
});

interface Setup {
  service: RawService;
  worker: Client;
  logger: ReturnType<typeof recordingLogger>;
  /** Sends a raw JSON frame (not checked by the service-side types). */
  raw(frame: Record<string, unknown>): void;
  /** A ping and its pong: everything the client sent before has arrived. */
  settle(): Promise<void>;
  /** `error` frames the client sent. */
  refusals(): Array<Record<string, unknown>>;
}

let pings = 0;
async function setup(options: RawServiceOptions = {}): Promise<Setup> {
  executed = 0;
  const service = await startRawService(options);
  onCleanup(() => service.close());
  const logger = recordingLogger();
  const worker = client(service.url, { tools: [echo, wait], reconnect: FAST, logger });
  await worker.connect();
  return {
    service,
    worker,
    logger,
    raw: (frame) => service.socket().send(JSON.stringify(frame)),
    settle: async () => {
      const id = `p${++pings}`;
      service.send({ type: 'ping', id });
      await until(() => service.frames.some((frame) => frame.type === 'pong' && frame.id === id), true);
    },
    refusals: () => service.frames.filter((frame) => frame.type === 'error') as never,
  };
}

const call = { type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'echo', arguments: {} };
const long = 'x'.repeat(600);

describe('tool_call: runs, dropping what is informative (docs/protocol/index.md, docs/protocol/trace-context.md)', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['an unknown field', { futureField: { nested: [1, 2] } }],
    ['a traceparent over 512 characters', { traceparent: long }],
    [
      'a tracestate over 512 characters',
      { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', tracestate: long },
    ],
    ['a traceparent that is a number', { traceparent: 42 }],
    ['a traceparent that is null', { traceparent: null }],
    ['a reason that is a number', { reason: 42 }],
    ['arguments null (docs/protocol/frames-service.md)', { arguments: null }],
    ['arguments absent (docs/protocol/frames-service.md)', { arguments: undefined }],
    ['an empty acks list', { acks: [] }],
  ];
  it.each(cases)('%s: the call runs, ok, and nothing is refused', async (_name, fields) => {
    const { service, raw, settle, refusals } = await setup();
    raw({ ...call, ...fields });
    await until(() => service.results().map((result) => [result.callId, result.status]), [['c1', 'ok']]);
    await settle();
    expect(refusals()).toEqual([]);
    expect(executed).toBe(1);
  });

  it('logs a dropped informative field once at warn (type, call id, field; never the value), then at debug', async () => {
    const { service, raw, logger } = await setup();
    raw({ ...call, traceparent: long });
    raw({ ...call, callId: 'c2', traceparent: long });
    await until(() => service.results().length, 2);
    const lines = logger.lines.filter((line) => line.message.includes('informative field'));
    expect(lines.map((line) => [line.level, line.object])).toEqual([
      ['warn', { type: 'tool_call', callId: 'c1' }],
      ['debug', { type: 'tool_call', callId: 'c2' }],
    ]);
    expect(lines[0]?.message).toBe(
      'an informative field of a tool_call frame from the service is invalid and was ignored: traceparent: must be at most 512 characters',
    );
    expect(JSON.stringify(logger.lines)).not.toContain('xxxxxxxxxx');
  });
});

describe('tool_call: refused, naming its call, and answered as its error result (docs/protocol/errors.md)', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['deadlineMs 1e300', { deadlineMs: 1e300 }, 'deadlineMs: must be at most 9007199254740991'],
    ['deadlineMs -5', { deadlineMs: -5 }, 'deadlineMs: must be at least 0'],
    ['deadlineMs 1.5', { deadlineMs: 1.5 }, 'deadlineMs: must be an integer'],
    ['deadlineMs "100"', { deadlineMs: '100' }, 'deadlineMs: must be a number'],
    ['deadlineMs null', { deadlineMs: null }, 'deadlineMs: must be a number'],
    ['approved "yes"', { approved: 'yes' }, 'approved: must be a boolean'],
    ['depth -1', { depth: -1 }, 'depth: must be at least 0'],
    ['an empty id in acks', { acks: [''] }, 'acks.0: must be at least 1 character'],
    ['steps not an object', { steps: 'x' }, 'steps: must be an object'],
    ['argumentsEdited false', { argumentsEdited: false }, 'argumentsEdited: must be true'],
  ];
  it.each(cases)(
    '%s: error invalid_frame with callId and runId, and an error result; never run',
    async (_name, fields, problem) => {
      const { service, raw, settle, refusals } = await setup();
      raw({ ...call, ...fields });
      await until(() => service.results().length, 1);
      await settle();
      const message = `invalid tool_call frame: ${problem}`;
      expect(refusals()).toEqual([
        { type: 'error', code: 'invalid_frame', message, callId: 'c1', runId: 'r1' },
      ]);
      expect(service.results()).toEqual([
        {
          type: 'tool_result',
          callId: 'c1',
          status: 'error',
          output: `echo was not run: the service sent a tool call this client cannot read (${message}).`,
          durationMs: 0,
        },
      ]);
      expect(executed).toBe(0);
    },
  );

  it('a refused re-delivery of a call that is running names it, and the call goes on (one result)', async () => {
    const { service, worker, raw, settle, refusals } = await setup();
    raw({ ...call, toolName: 'wait' });
    await until(() => worker.stats.running, 1);
    raw({ ...call, toolName: 'wait', deadlineMs: -5 });
    await settle();
    expect(refusals()).toMatchObject([{ code: 'invalid_frame', callId: 'c1' }]);
    expect(service.results()).toEqual([]);
    expect(worker.stats.running).toBe(1);
  });

  it('without a readable tool name or run id, the result still answers the call', async () => {
    const { service, raw } = await setup();
    raw({ type: 'tool_call', callId: 'c1', toolName: 7 });
    await until(() => service.results().map((result) => result.status), ['error']);
    expect(service.results()[0]?.output).toMatch(/^the tool was not run: /);
    expect(service.frames.find((frame) => frame.type === 'error')).toMatchObject({ callId: 'c1' });
  });
});

describe('cancel, ack, error, ping, pong, unknown types (docs/protocol/deadlines.md, docs/protocol/tool-calls.md, docs/protocol/errors.md, docs/protocol/lifecycle.md, docs/protocol/errors.md)', () => {
  const cancels: Array<[string, Record<string, unknown>]> = [
    ['a reason this version does not list', { reason: 'maintenance' }],
    ['a reason that is a number', { reason: 42 }],
    ['a reason that is null', { reason: null }],
    ['an unknown field', { futureField: true }],
  ];
  it.each(cancels)('cancel with %s: the call is cancelled, nothing refused', async (_name, fields) => {
    const { service, worker, raw, settle, refusals } = await setup();
    raw({ ...call, toolName: 'wait' });
    await until(() => worker.stats.running, 1);
    raw({ type: 'cancel', callId: 'c1', ...fields });
    await until(() => service.results().map((result) => result.status), ['cancelled']);
    await settle();
    expect(refusals()).toEqual([]);
  });

  const drops: Array<[string, Record<string, unknown>]> = [
    ['an ack with an unknown field', { type: 'ack', callId: 'c1', futureField: 1 }],
    [
      'an error with an unknown code naming the call',
      { type: 'error', code: 'result_expired', message: 'gone', callId: 'c1' },
    ],
    [
      'an error unknown_call with an unknown field',
      { type: 'error', code: 'unknown_call', message: 'no', callId: 'c1', extra: 1 },
    ],
  ];
  it.each(drops)('%s drops the result from the outbox', async (_name, frame) => {
    const { service, worker, raw, settle, refusals } = await setup({ ack: false });
    raw(call);
    await until(() => service.results().length, 1);
    expect(worker.stats.unacked).toBe(1);
    raw(frame);
    await settle();
    expect(worker.stats.unacked).toBe(0);
    expect(refusals()).toEqual([]);
  });

  it('an error internal naming the call keeps its result (the frame may be re-sent, docs/protocol/errors.md)', async () => {
    const { service, worker, raw, settle } = await setup({ ack: false });
    raw(call);
    await until(() => service.results().length, 1);
    raw({ type: 'error', code: 'internal', message: 'oops', callId: 'c1' });
    await settle();
    expect(worker.stats.unacked).toBe(1);
  });

  it('ping and pong with unknown fields: answered, nothing refused', async () => {
    const { service, raw, settle, refusals } = await setup();
    raw({ type: 'ping', id: 'x1', futureField: 1 });
    raw({ type: 'pong', id: 'nobody', futureField: 1 });
    await settle();
    expect(
      service.frames.filter((frame) => frame.type === 'pong').map((frame) => (frame as { id?: string }).id),
    ).toContain('x1');
    expect(refusals()).toEqual([]);
  });

  it('an unknown frame type is answered unknown_type and the connection stays up (docs/protocol/errors.md)', async () => {
    const { worker, raw, settle, refusals } = await setup();
    raw({ type: 'teleport', callId: 'c1' });
    await settle();
    expect(refusals()).toEqual([
      { type: 'error', code: 'unknown_type', message: 'unknown frame type "teleport"' },
    ]);
    expect(worker.state).toBe('open');
  });

  const others: Array<[string, Record<string, unknown>]> = [
    [
      'answer with an unknown status and a numeric reason',
      { type: 'answer', callId: 'c9', questionId: 'q1', status: 'expired', reason: 4 },
    ],
    [
      'answer with an unknown field',
      { type: 'answer', callId: 'c9', questionId: 'q1', status: 'answered', answer: 'x', extra: 1 },
    ],
    [
      'approval_applied with an unknown field',
      { type: 'approval_applied', requestId: 'd1', callId: 'c9', approved: true, extra: 1 },
    ],
    ['error with an unknown code and no id', { type: 'error', code: 'quota_exceeded', message: 'slow down' }],
  ];
  it.each(others)('%s: nothing refused', async (_name, frame) => {
    const { raw, settle, refusals } = await setup();
    raw(frame);
    await settle();
    expect(refusals()).toEqual([]);
  });
});

/** Starts a run and answers run_started; returns the run's promise and the events it saw. */
async function startRun(setupDone: Setup, runStarted: Record<string, unknown> = {}) {
  const { service, worker, raw } = setupDone;
  const events: RunEvent[] = [];
  const running = worker.run(new Agent({ name: 'A', instructions: '' }), 'go', {
    onEvent: (event) => events.push(event),
  });
  running.catch(() => {});
  await until(() => service.frames.filter((frame) => frame.type === 'run_start').length, 1);
  const start = service.frames.find((frame) => frame.type === 'run_start') as { requestId: string };
  raw({ type: 'run_started', requestId: start.requestId, runId: 'r1', ...runStarted });
  return { running, events, requestId: start.requestId };
}

const result = {
  type: 'run_result',
  runId: 'r1',
  status: 'completed',
  finalOutput: 'done',
  toolCalls: [],
  turns: 1,
};
const toolCall = { callId: 'c1', toolName: 'echo', arguments: {}, status: 'ok', output: 'ok', durationMs: 3 };

describe('runs: run_started, run_event, run_result (docs/protocol/runs.md)', () => {
  it('run_event: an unknown kind is ignored (not delivered), known kinds around it are; nothing refused', async () => {
    const s = await setup();
    const { running, events } = await startRun(s);
    s.raw({ type: 'run_event', runId: 'r1', seq: 1, event: { kind: 'turn', data: { turn: 1 } } });
    s.raw({ type: 'run_event', runId: 'r1', seq: 2, event: { kind: 'thought', data: { text: 'hm' } } });
    s.raw({
      type: 'run_event',
      runId: 'r1',
      seq: 3,
      event: { kind: 'turn', data: { turn: 2 }, extra: 1 },
      extra: 1,
    });
    s.raw(result);
    await running;
    await s.settle();
    expect(events.map((event) => [event.seq, event.kind])).toEqual([
      [1, 'turn'],
      [3, 'turn'],
    ]);
    expect(s.refusals()).toEqual([]);
  });

  it.each([0, 1.5, 'x', null])(
    'run_event with seq %j: delivered without it; nothing refused',
    async (seq) => {
      const s = await setup();
      const { running, events } = await startRun(s);
      s.raw({ type: 'run_event', runId: 'r1', seq, event: { kind: 'turn', data: { turn: 1 } } });
      s.raw(result);
      await running;
      await s.settle();
      expect(events.map((event) => [event.seq, event.kind])).toEqual([[undefined, 'turn']]);
      expect(s.refusals()).toEqual([]);
    },
  );

  const accepted: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
    [
      'an unknown tool call status',
      { toolCalls: [{ ...toolCall, status: 'skipped' }] },
      { toolCalls: [{ ...toolCall, status: 'skipped' }] },
    ],
    [
      'a content part of an unknown type',
      { toolCalls: [{ ...toolCall, content: [{ type: 'audio', data: 'AA==' }] }] },
      { toolCalls: [toolCall] },
    ],
    [
      'a tool call with an unknown field',
      { toolCalls: [{ ...toolCall, costUsd: 0.1 }] },
      { toolCalls: [toolCall] },
    ],
    ['a model that is a number', { model: 5 }, {}],
    ['unknown fields', { usage: { tokens: 10 } }, {}],
    ['run_started with unknown fields', {}, {}],
  ];
  it.each(accepted)('run_result with %s: run() resolves; nothing refused', async (name, fields, expected) => {
    const s = await setup();
    const { running } = await startRun(s, name.startsWith('run_started') ? { extra: 1 } : {});
    s.raw({ ...result, ...fields });
    await expect(running).resolves.toEqual({
      runId: 'r1',
      finalOutput: 'done',
      toolCalls: [],
      turns: 1,
      ...expected,
    });
    await s.settle();
    expect(s.refusals()).toEqual([]);
  });

  it('run_result failed with error null: run() rejects run_failed with its own words', async () => {
    const s = await setup();
    const { running } = await startRun(s);
    s.raw({ ...result, status: 'failed', error: null });
    await expect(running).rejects.toMatchObject({
      name: 'RunError',
      code: 'run_failed',
      message: 'run r1 failed',
    });
  });

  it('a run_result that cannot be read (no turns) is refused naming its run, and run() rejects at once', async () => {
    const s = await setup();
    const { running } = await startRun(s);
    s.raw({ ...result, turns: undefined });
    await expect(running).rejects.toMatchObject({
      name: 'RunError',
      code: 'invalid_frame',
      message:
        'the service sent a run_result this client cannot read: invalid run_result frame: turns: must be a number',
    });
    await s.settle();
    expect(s.refusals()).toMatchObject([{ code: 'invalid_frame', runId: 'r1' }]);
  });

  it('a run_started that cannot be read (empty runId) is refused naming its request, and run() rejects', async () => {
    const s = await setup();
    const { running, requestId } = await startRun(s, { runId: '' });
    await expect(running).rejects.toMatchObject({ name: 'RunError', code: 'invalid_frame' });
    await s.settle();
    expect(s.refusals()).toMatchObject([{ code: 'invalid_frame', requestId }]);
  });
});

describe('an error that cannot be read (docs/protocol/errors.md)', () => {
  it('is not answered, but the run whose request it names rejects invalid_frame at once', async () => {
    const s = await setup();
    const running = s.worker.run(new Agent({ name: 'A', instructions: '' }), 'go');
    running.catch(() => {});
    await until(() => s.service.frames.filter((frame) => frame.type === 'run_start').length, 1);
    const start = s.service.frames.find((frame) => frame.type === 'run_start') as { requestId: string };
    s.raw({ type: 'error', code: 'internal', requestId: start.requestId });
    await expect(running).rejects.toMatchObject({ name: 'RunError', code: 'invalid_frame' });
    await s.settle();
    expect(s.refusals()).toEqual([]);
  });
});

describe('welcome (docs/protocol/index.md, docs/protocol/updates.md)', () => {
  const welcomes: Array<[string, Record<string, unknown>]> = [
    [
      'unknown feature names, one of 100 characters, one not a string',
      { features: ['progress', 'x'.repeat(100), 7, 'teleport'] },
    ],
    ['lease with a leaseMs below 1000', { features: ['lease'], leaseMs: 5 }],
    ['lease with maxCallDurationMs 0', { features: ['lease'], leaseMs: 45_000, maxCallDurationMs: 0 }],
    ['sessionGraceMs null', { sessionGraceMs: null }],
    ['unknown fields', { region: 'eu', limits: { x: 1 } }],
  ];
  it.each(welcomes)('%s: the client connects and runs calls; nothing refused', async (_name, fields) => {
    const { service, raw, settle, refusals } = await setup({ welcome: fields });
    raw(call);
    await until(() => service.results().map((result) => result.status), ['ok']);
    await settle();
    expect(refusals()).toEqual([]);
    // A lease without a valid leaseMs is no lease (docs/protocol/lease.md): nothing is leased.
    expect(service.frames.filter((frame) => frame.type === 'lease')).toEqual([]);
  });
});
