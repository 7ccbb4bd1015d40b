/**
 * Every path by which a call's data leaves the client, over the real stub: a value under a redacted field name
 * (`sensitiveFieldNames`, or a policy's `{ redact }`) is sent by the tool through one path per row, and must
 * appear in none of the frames the stub received (every text frame the client wrote, as written), the log
 * lines, the client's events, nor what the client hands its tracer (arguments, output, error).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scriptedModel } from '../../server-stub/index';
import { Agent, type CallPolicy, content, type ToolContext, tool } from '../../src/index';
import { client, recordingWebSocket, stub } from '../fault/harness';
import { recordingTracer } from '../support/recording-tracer';

/** The model's value of the field (`pin`), and the one an approver types in (row `edited note`). */
const SECRET = 'pin-QXzK-wvyu-secret';
const EDITED = 'pin-edit-5k2m-secret';

type Row = {
  path: string;
  /** What the tool does with its `pin`. */
  execute: (pin: string, ctx: ToolContext) => unknown;
  /** A frame of this type was sent (the path was taken), unless the row checks elsewhere. */
  frame?: string;
  /** The tool needs approval and the client's approver answers with this. */
  approve?: (input: unknown) => unknown;
  retry?: boolean;
};

const ROWS: Row[] = [
  {
    path: 'tool_result output (JSON)',
    frame: 'tool_result',
    execute: (pin) => ({ pin, said: `got ${pin}` }),
  },
  { path: 'tool_result output (text)', frame: 'tool_result', execute: (pin) => `using ${pin}` },
  {
    path: 'tool_result widget',
    frame: 'tool_result',
    execute: (pin) => ({ ok: 1, widget: { type: 'Text', value: `pin ${pin}` } }),
  },
  {
    path: 'tool_result content parts',
    frame: 'tool_result',
    execute: (pin) =>
      content([
        { type: 'text', text: `pin ${pin}` },
        { type: 'json', value: { pin } },
      ]),
  },
  {
    path: "a file content part's filename and media type",
    frame: 'tool_result',
    execute: (pin) =>
      content([
        { type: 'file', data: new Uint8Array([1, 2, 3]), mediaType: `text/x-${pin}`, filename: `${pin}.txt` },
      ]),
  },
  {
    path: 'error message (tool_result, log line, tracer)',
    frame: 'tool_result',
    execute: (pin) => {
      throw new Error(`refused ${pin}`, { cause: new Error(`because ${pin}`) });
    },
  },
  {
    path: 'a thrown string (tool_result, log line)',
    frame: 'tool_result',
    execute: (pin) => {
      throw `refused ${pin}`;
    },
  },
  {
    path: 'a thrown plain object (log line)',
    frame: 'tool_result',
    execute: (pin) => {
      throw { message: `refused ${pin}`, pin, nested: { text: `with ${pin}` } };
    },
  },
  {
    path: 'a thrown DOMException (its message is a getter)',
    frame: 'tool_result',
    execute: (pin) => {
      throw new DOMException(`aborted ${pin}`, 'AbortError');
    },
  },
  {
    path: 'tool_progress message',
    frame: 'tool_progress',
    execute: (pin, ctx) => {
      ctx.progress({ progress: 1, total: 2, message: `checking ${pin}` });
      return 'ok';
    },
  },
  {
    path: 'tool_progress message, the value across its 1,000-character cut',
    frame: 'tool_progress',
    execute: (pin, ctx) => {
      ctx.progress({ progress: 1, message: `${'.'.repeat(992)}${pin}` });
      return 'ok';
    },
  },
  {
    path: 'tool_preliminary output and widget',
    frame: 'tool_preliminary',
    execute: async function* (pin) {
      yield { draft: pin, widget: { type: 'Badge', label: pin } };
      return 'ok';
    },
  },
  {
    path: 'tool_event data',
    frame: 'tool_event',
    execute: (pin, ctx) => {
      ctx.emit('pin.seen', { pin, nested: { pin }, text: `seen ${pin}` });
      return 'ok';
    },
  },
  {
    path: 'tool_event name (refused to the tool)',
    frame: 'tool_event',
    execute: (pin, ctx) => {
      try {
        ctx.emit(`seen.${pin}`);
      } catch (error) {
        ctx.emit('refused', { message: (error as Error).message });
      }
      return 'ok';
    },
  },
  {
    path: 'question text',
    frame: 'question',
    execute: async (pin, ctx) => {
      await ctx.askQuestion(`Is ${pin} right?`, { timeoutMs: 50 }).catch(() => undefined);
      return 'asked';
    },
  },
  {
    path: 'step_result',
    frame: 'step_result',
    execute: async (pin, ctx) => {
      await ctx.step('lookup', () => ({ pin, text: `step ${pin}` }));
      return 'stepped';
    },
  },
  {
    path: 'ctx.logger line',
    execute: (pin, ctx) => {
      ctx.logger.info({ pin, text: `log ${pin}` }, `logging ${pin}`);
      return 'logged';
    },
  },
  {
    path: 'retry log line (the failed attempt)',
    retry: true,
    execute: (pin, ctx) => {
      if (ctx.attempt === 1) throw new Error(`attempt with ${pin} failed`);
      return 'retried';
    },
  },
  {
    path: 'approval request (onApproval, approval_requested event)',
    approve: () => true,
    execute: () => 'approved',
  },
  {
    path: 'edited note (approver introduced a value)',
    frame: 'tool_result',
    approve: (input) => ({ approved: true, arguments: { ...(input as object), pin: EDITED } }),
    execute: (pin) => `ran with ${pin}`,
  },
];

describe.each([
  ['sensitiveFieldNames', true],
  ['a policy redact', false],
] as const)('a field redacted by %s', (_by, byTool) => {
  it.each(ROWS)('never leaves the client through $path', async (row) => {
    const probe = tool({
      name: 'probe',
      description: 'Probes.',
      parameters: z.object({ pin: z.string(), door: z.string() }),
      ...(byTool ? { sensitiveFieldNames: ['pin'] } : {}),
      ...(row.approve === undefined ? {} : { needsApproval: true }),
      ...(row.retry === true
        ? { sideEffect: 'idempotent' as const, retry: { maxAttempts: 2, initialDelayMs: 0 } }
        : {}),
      execute: ({ pin }, ctx) => row.execute(pin, ctx),
    });
    const policies: CallPolicy[] = byTool ? [] : [() => ({ redact: ['pin'] })];
    const server = await stub({
      model: scriptedModel([
        { toolCalls: [{ name: 'probe', arguments: { pin: SECRET, door: 'front' } }] },
        { text: 'done' },
      ]),
    });
    const socket = recordingWebSocket();
    const lines: unknown[] = [];
    const log = (fields: unknown, message: string) => lines.push({ fields, message });
    const { tracing, seen } = recordingTracer();
    const approvals: unknown[] = [];
    const worker = client(server.url, {
      tools: [probe],
      policies,
      WebSocket: socket.WebSocket,
      logger: { debug: log, info: log, warn: log, error: log },
      tracing,
      ...(row.approve === undefined
        ? {}
        : {
            onApproval: (request) => {
              approvals.push(request);
              return row.approve?.(request.input) as boolean;
            },
          }),
    });
    const events: unknown[] = [];
    for (const name of ['tool_call', 'tool_result', 'approval_requested', 'widget_invalid', 'error'] as const)
      worker.on(name, (info: unknown) => events.push({ name, info }));
    await worker.connect();
    const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [probe] }), 'go');
    expect(result.toolCalls).toHaveLength(1);

    if (row.frame !== undefined) expect(socket.sent.map((frame) => frame.type)).toContain(row.frame);
    if (row.approve !== undefined)
      expect(approvals).toEqual([expect.objectContaining({ input: { pin: '[redacted]', door: 'front' } })]);
    const everything = JSON.stringify([socket.sentRaw, lines, events, approvals, seen]);
    expect(everything).toContain('[redacted]');
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(EDITED);
    expect(everything).not.toContain('QXzK');
  });
});

describe('an approver deciding over the socket (client.decide)', () => {
  it.each([
    ['sensitiveFieldNames', true],
    ['a policy redact', false],
  ] as const)(
    'sees [redacted] for a field redacted by %s, and an edit of another field keeps its value',
    async (_by, byTool) => {
      const got: unknown[] = [];
      const probe = tool({
        name: 'probe',
        description: 'Probes.',
        parameters: z.object({ pin: z.string(), door: z.string() }),
        ...(byTool ? { sensitiveFieldNames: ['pin'] } : {}),
        needsApproval: () => true,
        execute: (input) => {
          got.push(input);
          return `opened ${input.door} with ${input.pin}`;
        },
      });
      const server = await stub({
        model: scriptedModel([
          { toolCalls: [{ name: 'probe', arguments: { pin: SECRET, door: 'front' } }] },
          { text: 'done' },
        ]),
      });
      const socket = recordingWebSocket();
      const worker = client(server.url, {
        tools: [probe],
        policies: byTool ? [] : [() => ({ redact: ['pin'] })],
        WebSocket: socket.WebSocket,
      });
      const requests: unknown[] = [];
      const decided: Promise<void>[] = [];
      worker.on('approval_requested', (request) => {
        requests.push(request);
        decided.push(
          worker.decide(request.callId, {
            approved: true,
            arguments: { ...(request.input as object), door: 'side' },
          }),
        );
      });
      await worker.connect();
      const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [probe] }), 'go');
      await Promise.all(decided);
      expect(requests).toEqual([expect.objectContaining({ input: { pin: '[redacted]', door: 'front' } })]);
      expect(got).toEqual([{ pin: SECRET, door: 'side' }]);
      expect(result.toolCalls[0]?.output).toBe(
        'The approver edited the arguments of probe to {"pin":"[redacted]","door":"side"}.\nopened side with [redacted]',
      );
      expect(JSON.stringify(socket.sentRaw)).not.toContain(SECRET);
    },
  );
});

describe('the approver of every path, editing with the guide pattern { ...request.input, door }', () => {
  /** A field the client's `redact` rule matches inside a longer text. */
  const WORD = 'hunter2-TOPSECRET';
  const NOTE = `ship to vault ${WORD} asap`;

  it.each([
    ['the service holds the call (needsApproval: true, client.decide)', 'held'],
    ['the client asks (a predicate, client.decide)', 'predicate'],
    ['onApproval decides', 'local'],
  ] as const)(
    'when %s: sees a deep-frozen redacted input, and what it left as shown keeps its value',
    async (_how, path) => {
      const got: unknown[] = [];
      const probe = tool({
        name: 'probe',
        description: 'Probes.',
        parameters: z.object({ pin: z.string(), door: z.string(), note: z.string() }),
        sensitiveFieldNames: ['pin'],
        needsApproval: path === 'predicate' ? () => true : true,
        execute: (input) => {
          got.push(input);
          return 'opened';
        },
      });
      const server = await stub({
        model: scriptedModel([
          { toolCalls: [{ name: 'probe', arguments: { pin: SECRET, door: 'front', note: NOTE } }] },
          { text: 'done' },
        ]),
      });
      const requests: Array<{ input: unknown }> = [];
      const edit = (request: { input: unknown }) => ({
        approved: true,
        arguments: { ...(request.input as object), door: 'side' },
      });
      const worker = client(server.url, {
        tools: [probe],
        redact: [WORD],
        ...(path === 'local'
          ? {
              onApproval: (request) => {
                requests.push(request);
                return edit(request);
              },
            }
          : {}),
      });
      const decided: Promise<void>[] = [];
      worker.on('approval_requested', (request) => {
        if (path === 'local') return;
        requests.push(request);
        decided.push(worker.decide(request.callId, edit(request)));
      });
      await worker.connect();
      const result = await worker.run(new Agent({ name: 'A', instructions: '', tools: [probe] }), 'go');
      await Promise.all(decided);
      expect(requests).toHaveLength(1);
      const input = requests[0]?.input as Record<string, unknown>;
      expect(input).toEqual({ pin: '[redacted]', door: 'front', note: 'ship to vault [redacted] asap' });
      expect(Object.isFrozen(input)).toBe(true);
      expect(() => {
        input.door = 'back';
      }).toThrow(TypeError);
      expect(got).toEqual([{ pin: SECRET, door: 'side', note: NOTE }]);
      expect(result.toolCalls[0]?.output).toBe(
        'The approver edited the arguments of probe to {"pin":"[redacted]","door":"side","note":"ship to vault [redacted] asap"}.\nopened',
      );
    },
  );
});

describe('an error a tool throws', () => {
  it('reaches the tracer and the log redacted, and stays as the tool threw it', async () => {
    const thrown: Error[] = [];
    const probe = tool({
      name: 'probe',
      description: 'Probes.',
      execute: () => {
        const error = new Error(`refused ${SECRET}`, { cause: new Error(`because ${SECRET}`) });
        thrown.push(error);
        throw error;
      },
    });
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'probe', arguments: {} }] }, { text: 'done' }]),
    });
    const lines: unknown[] = [];
    const log = (fields: unknown, message: string) => lines.push({ fields, message });
    const { tracing, seen } = recordingTracer();
    const worker = client(server.url, {
      tools: [probe],
      redact: [SECRET],
      logger: { debug: log, info: log, warn: log, error: log },
      tracing,
    });
    await worker.connect();
    await worker.run(new Agent({ name: 'A', instructions: '', tools: [probe] }), 'go');
    expect(seen).toContainEqual(
      expect.objectContaining({ error: expect.objectContaining({ message: 'refused [redacted]' }) }),
    );
    expect(JSON.stringify([lines, seen])).not.toContain(SECRET);
    const [error] = thrown as [Error];
    expect([error.message, (error.cause as Error).message]).toEqual([
      `refused ${SECRET}`,
      `because ${SECRET}`,
    ]);
    expect(error.stack).toContain(SECRET);
  });
});
