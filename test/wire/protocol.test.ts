import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeClientFrame, decodeServiceFrame, encodeFrame } from '../../src/wire/codec';
import { clientFrames, serviceFrameSchema, utf8Length } from '../../src/wire/protocol';

const { clientFrameSchema } = clientFrames();

/** The frame types a union of frames declares. */
const typesOf = (schema: typeof clientFrameSchema | ReturnType<typeof serviceFrameSchema>): string[] =>
  (
    schema._zod.def.options as Array<{
      _zod: { def: { shape: { type: { _zod: { def: { values: string[] } } } } } };
    }>
  ).map((option) => option._zod.def.shape.type._zod.def.values[0] ?? '');

describe('decodeServiceFrame', () => {
  it('decodes a tool_call whose arguments are a JSON string', () => {
    const raw = '{"type":"tool_call","callId":"c1","runId":"r1","toolName":"add","arguments":"{\\"a\\":1}"}';
    expect(decodeServiceFrame(raw)).toEqual({
      ok: true,
      frame: { type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'add', arguments: '{"a":1}' },
    });
  });

  it('names an unknown frame type', () => {
    expect(decodeServiceFrame('{"type":"nope"}')).toEqual({
      ok: false,
      code: 'unknown_type',
      message: 'unknown frame type "nope"',
    });
  });

  it('refuses text that is not JSON', () => {
    const result = decodeServiceFrame('{');
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.code).toBe('invalid_json');
  });

  it('says why a frame is not JSON without quoting it: no cut of a secret reaches a log or an error frame', () => {
    expect(decodeServiceFrame('sk-live-0123456789abcdef')).toEqual({
      ok: false,
      code: 'invalid_json',
      message: 'frame is not JSON: invalid syntax at position 0',
    });
    expect(decodeServiceFrame('{"type":"ping"} sk-live-0123456789abcdef')).toEqual({
      ok: false,
      code: 'invalid_json',
      message: 'frame is not JSON: invalid syntax at position 16',
    });
  });

  it('refuses a frame over the size limit before parsing it', () => {
    const raw = JSON.stringify({ type: 'ping', id: 'x'.repeat(2000) });
    expect(decodeServiceFrame(raw, 1024)).toEqual({
      ok: false,
      code: 'frame_too_large',
      message: 'frame exceeds 1024 bytes',
    });
  });
});

describe('decodeClientFrame', () => {
  it('names each field that is wrong', () => {
    expect(decodeClientFrame('{"type":"tool_result","callId":"","status":"ok","output":1}')).toEqual({
      ok: false,
      code: 'invalid_frame',
      message: 'invalid tool_result frame: callId: must be at least 1 character; output: must be a string',
      fields: ['callId', 'output'],
    });
  });

  it('refuses a JSON value that is not an object', () => {
    expect(decodeClientFrame('[1]')).toEqual({
      ok: false,
      code: 'invalid_frame',
      message: 'frame must be a JSON object',
      shapeless: true,
    });
    expect(decodeServiceFrame('{"callId":"c1"}')).toMatchObject({ shapeless: true });
    expect(decodeServiceFrame('{"type":"cancel"}')).not.toHaveProperty('shapeless');
  });

  it('round-trips a frame through encodeFrame', () => {
    const frame = { type: 'tool_result', callId: '0', status: 'ok', output: '' } as const;
    expect(decodeClientFrame(encodeFrame(frame))).toEqual({ ok: true, frame });
  });
});

describe('utf8Length', () => {
  it('counts UTF-8 bytes, with a lone surrogate as three', () => {
    expect(utf8Length('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect(utf8Length('\ud800x')).toBe(4);
  });
});

describe('frame fixtures (test/fixtures/frames)', () => {
  const root = fileURLToPath(new URL('../fixtures/frames/', import.meta.url));
  const read = (dir: string) =>
    readdirSync(join(root, dir))
      .filter((file) => file.endsWith('.json'))
      .sort()
      .map((file) => [file, JSON.parse(readFileSync(join(root, dir, file), 'utf8')) as unknown] as const);
  const clientTypes = new Set(typesOf(clientFrameSchema));
  const serviceTypes = new Set(typesOf(serviceFrameSchema()));
  const valid = read('valid');
  const invalid = read('invalid') as ReadonlyArray<
    readonly [
      string,
      {
        direction: 'client' | 'service';
        maxPayloadBytes?: number;
        expect: { code: string; message: string; about?: Record<string, string> };
        raw?: string;
        frame?: unknown;
      },
    ]
  >;

  it.each(valid)('decodes valid/%s in every direction its type travels, unchanged', (_file, frame) => {
    const type = (frame as { type: string }).type;
    const directions = [
      ...(clientTypes.has(type) ? [decodeClientFrame] : []),
      ...(serviceTypes.has(type) ? [decodeServiceFrame] : []),
    ];
    expect(directions.length).toBeGreaterThan(0);
    for (const decode of directions) {
      expect(decode(JSON.stringify(frame))).toEqual({ ok: true, frame });
      expect(decode(encodeFrame(frame as Parameters<typeof encodeFrame>[0]))).toEqual({ ok: true, frame });
    }
  });

  it.each(invalid)('refuses invalid/%s with its code and message', (_file, spec) => {
    const decode = spec.direction === 'client' ? decodeClientFrame : decodeServiceFrame;
    const raw = spec.raw ?? JSON.stringify(spec.frame);
    // `fields` (the paths at fault) and `shapeless` are pinned above and by test/fault/invalid-welcome.test.ts.
    const {
      fields: _,
      shapeless: __,
      ...decoded
    } = decode(raw, spec.maxPayloadBytes) as {
      fields?: unknown;
      shapeless?: unknown;
    };
    expect(decoded).toEqual({ ok: false, ...spec.expect });
  });

  // Frames whose only faults are in informative fields (src/wire/codec.ts): used without those fields.
  const informative = read('informative') as ReadonlyArray<
    readonly [
      string,
      {
        direction: 'client' | 'service';
        frame: unknown;
        expect: { frame: unknown; dropped?: string[] };
      },
    ]
  >;

  it.each(informative)('accepts informative/%s without its faulty informative fields', (_file, spec) => {
    const decode = spec.direction === 'client' ? decodeClientFrame : decodeServiceFrame;
    expect(decode(JSON.stringify(spec.frame))).toEqual({ ok: true, ...spec.expect });
  });

  it('has a valid and an invalid fixture for every frame type', () => {
    const all = [...new Set([...clientTypes, ...serviceTypes])].sort();
    expect(all).toHaveLength(29);
    const validTypes = new Set(valid.map(([, frame]) => (frame as { type: string }).type));
    const invalidTypes = new Set(invalid.map(([file]) => file.split('-')[0]?.replace(/\.json$/, '')));
    expect(all.filter((type) => !validTypes.has(type))).toEqual([]);
    expect(all.filter((type) => !invalidTypes.has(type))).toEqual([]);
  });
});

describe('refusals state each rule in words (src/wire/issue-text.ts)', () => {
  const SECRET = 'sk-live-0123456789abcdef';
  const MAX_SAFE = Number.MAX_SAFE_INTEGER;
  const long = (n: number) => 'x'.repeat(n);
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);
  const tool = { name: 'add', description: 'Adds', parameters: { type: 'object' }, needsApproval: false };
  const agent = { name: 'helper', instructions: '', tools: [] };
  const NAME_RULE = 'must be 1 to 64 letters, digits, _ or -';
  const TOOL_CHOICE_RULE = 'must be "auto", "none", "required" or { "type": "tool", "name": <tool name> }';

  const service: Record<string, Record<string, unknown>> = {
    welcome: { sessionId: 's', resumed: false, heartbeatIntervalMs: 15_000, maxPayloadBytes: 1_048_576 },
    tool_call: { callId: 'c', runId: 'r', toolName: 'add' },
    cancel: { callId: 'c' },
    hand_back: { callIds: ['c'] },
    ack: { callId: 'c' },
    run_started: { requestId: 'q', runId: 'r' },
    run_event: { runId: 'r', event: { kind: 'turn' } },
    run_result: { runId: 'r', status: 'completed', toolCalls: [], turns: 1 },
    answer: { callId: 'c', questionId: 'q' },
    approval_applied: { requestId: 'q', callId: 'c', approved: true },
    ping: {},
    pong: {},
    error: { code: 'internal', message: 'm' },
  };
  const client: Record<string, Record<string, unknown>> = {
    hello: { protocol: 1, sdk: { name: 'toolwire', version: '1.0.0' }, tools: [tool] },
    tool_result: { callId: 'c', status: 'ok', output: '' },
    approval_request: { callId: 'c' },
    approval: { callId: 'c', approved: true },
    tools_update: { tools: [tool] },
    run_start: { requestId: 'q', agent, input: '' },
    run_cancel: { runId: 'r' },
    tool_progress: { callId: 'c', seq: 1, progress: 0 },
    tool_preliminary: { callId: 'c', seq: 1, output: '' },
    lease: { callIds: ['c'] },
    key_waits: { waiting: ['c'] },
    approval_waits: { waiting: ['c'] },
    question: { callId: 'c', questionId: 'q', question: 'Which?' },
    question_cancel: { callId: 'c', questionId: 'q' },
    tool_event: { callId: 'c', seq: 1, event: 'step' },
    step_result: { callId: 'c', key: 'k', result: 1 },
    ping: {},
    pong: {},
    error: { code: 'internal', message: 'm' },
  };
  const call = { callId: 'c', toolName: 'add', arguments: {}, status: 'ok', output: '', durationMs: 1 };

  // [direction, type, fields changed (undefined: removed), what the refusal says after "invalid <type> frame: "]
  const rows: Array<['service' | 'client', string, Record<string, unknown>, string]> = [
    ['service', 'welcome', { sessionId: long(257) }, 'sessionId: must be at most 256 characters'],
    ['service', 'welcome', { resumed: 'yes' }, 'resumed: must be a boolean'],
    ['service', 'welcome', { heartbeatIntervalMs: 1.5 }, 'heartbeatIntervalMs: must be an integer'],
    ['service', 'welcome', { heartbeatIntervalMs: 0 }, 'heartbeatIntervalMs: must be at least 1'],
    ['service', 'welcome', { maxPayloadBytes: 2 ** 53 }, `maxPayloadBytes: must be at most ${MAX_SAFE}`],
    ['service', 'tool_call', { callId: '' }, 'callId: must be at least 1 character'],
    ['service', 'tool_call', { runId: 7 }, 'runId: must be a string'],
    ['service', 'tool_call', { deadlineMs: 1.5 }, 'deadlineMs: must be an integer'],
    ['service', 'tool_call', { depth: 1e300 }, `depth: must be at most ${MAX_SAFE}`],
    ['service', 'tool_call', { acks: ids(1001) }, 'acks: must have at most 1000 items'],
    ['service', 'tool_call', { argumentsEdited: false }, 'argumentsEdited: must be true'],
    ['service', 'tool_call', { agentName: long(129) }, 'agentName: must be at most 128 characters'],
    ['service', 'tool_call', { steps: [] }, 'steps: must be an object'],
    ['service', 'tool_call', { steps: { '': 1 } }, 'steps: every key must be at least 1 character'],
    ['service', 'cancel', { callId: null }, 'callId: must be a string'],
    ['service', 'hand_back', { callIds: [] }, 'callIds: must have at least 1 item'],
    ['service', 'hand_back', { callIds: 'c' }, 'callIds: must be an array'],
    ['service', 'hand_back', { callIds: ids(1001) }, 'callIds: must have at most 1000 items'],
    ['service', 'ack', { callId: undefined }, 'callId: an ack names callId or callIds'],
    ['service', 'ack', { callIds: [''] }, 'callIds.0: must be at least 1 character'],
    ['service', 'run_started', { requestId: '' }, 'requestId: must be at least 1 character'],
    ['service', 'run_started', { runId: long(257) }, 'runId: must be at most 256 characters'],
    ['service', 'run_event', { event: 'turn' }, 'event: must be an object'],
    ['service', 'run_event', { event: { kind: 1 } }, 'event.kind: must be a string'],
    ['service', 'run_result', { turns: -1 }, 'turns: must be at least 0'],
    ['service', 'run_result', { turns: 0.5 }, 'turns: must be an integer'],
    ['service', 'run_result', { status: 1 }, 'status: must be a string'],
    ['service', 'run_result', { toolCalls: {} }, 'toolCalls: must be an array'],
    [
      'service',
      'run_result',
      { toolCalls: [{ ...call, durationMs: -1 }] },
      'toolCalls.0.durationMs: must be at least 0',
    ],
    [
      'service',
      'run_result',
      { toolCalls: [{ ...call, callId: '' }] },
      'toolCalls.0.callId: must be at least 1 character',
    ],
    ['service', 'answer', { questionId: '' }, 'questionId: must be at least 1 character'],
    ['service', 'answer', { callId: 5 }, 'callId: must be a string'],
    ['service', 'approval_applied', { approved: 'true' }, 'approved: must be a boolean'],
    ['service', 'ping', { id: 1 }, 'id: must be a string'],
    ['service', 'pong', { id: {} }, 'id: must be a string'],
    ['service', 'error', { code: 1 }, 'code: must be a string'],
    [
      'service',
      'error',
      { tools: [{ name: 'x', fleet: { concurrency: 'many' } }] },
      'tools.0.fleet.concurrency: must be a number',
    ],
    ['client', 'hello', { protocol: '1' }, 'protocol: must be a number'],
    ['client', 'hello', { sdk: { name: 'x' } }, 'sdk.version: must be a string'],
    ['client', 'hello', { tools: [{ ...tool, name: 'two words' }] }, `tools.0.name: ${NAME_RULE}`],
    [
      'client',
      'hello',
      { tools: [{ ...tool, description: '' }] },
      'tools.0.description: must be at least 1 character',
    ],
    ['client', 'hello', { tools: [{ ...tool, parameters: [] }] }, 'tools.0.parameters: must be an object'],
    ['client', 'hello', { tools: [{ ...tool, slots: 0 }] }, 'tools.0.slots: must be at least 1'],
    [
      'client',
      'hello',
      { tools: [{ ...tool, fleet: { perSecond: 0 } }] },
      'tools.0.fleet.perSecond: must be greater than 0',
    ],
    [
      'client',
      'hello',
      { tools: [{ ...tool, capability: { visibility: 'sometimes' } }] },
      'tools.0.capability.visibility: must be "auto", "always", "deferred", "skill" or "hidden"',
    ],
    [
      'client',
      'hello',
      { tools: [{ ...tool, capability: { namespace: 'a b' } }] },
      'tools.0.capability.namespace: must be 1 to 64 letters, digits or _ . : / -',
    ],
    [
      'client',
      'hello',
      { tools: [{ ...tool, capability: { tags: Array(33).fill('t') } }] },
      'tools.0.capability.tags: must have at most 32 items',
    ],
    [
      'client',
      'hello',
      { tools: [{ ...tool, capability: { aliases: ['a b'] } }] },
      `tools.0.capability.aliases.0: ${NAME_RULE}`,
    ],
    ['client', 'hello', { buildId: long(129) }, 'buildId: must be at most 128 characters'],
    ['client', 'hello', { maxConcurrency: -1 }, 'maxConcurrency: must be at least 0'],
    ['client', 'hello', { apiKey: 42 }, 'apiKey: must be a string'],
    [
      'client',
      'tool_result',
      { status: 'fine' },
      'status: must be "ok", "error", "invalid_arguments", "unknown_tool", "rejected", "timeout" or "cancelled"',
    ],
    ['client', 'tool_result', { output: 7 }, 'output: must be a string'],
    ['client', 'tool_result', { retryable: 'no' }, 'retryable: must be a boolean'],
    ['client', 'tool_result', { content: 'text' }, 'content: must be an array'],
    [
      'client',
      'tool_result',
      { content: Array(65).fill({ type: 'text', text: '' }) },
      'content: must have at most 64 items',
    ],
    [
      'client',
      'tool_result',
      { content: [{ type: 'video' }] },
      'content.0.type: must be "text", "image", "file" or "json"',
    ],
    [
      'client',
      'tool_result',
      { content: [{ type: 'image', data: '***', mediaType: 'image/png' }] },
      'content.0.data: must be base64 (letters, digits, + and /, then up to two =)',
    ],
    [
      'client',
      'tool_result',
      { content: [{ type: 'file', data: '', mediaType: '' }] },
      'content.0.mediaType: must be at least 1 character',
    ],
    [
      'client',
      'tool_result',
      { content: [{ type: 'file', data: '', mediaType: 'a/b', filename: long(256) }] },
      'content.0.filename: must be at most 255 characters',
    ],
    ['client', 'approval_request', { callId: long(257) }, 'callId: must be at most 256 characters'],
    ['client', 'approval_request', { reason: 1 }, 'reason: must be a string'],
    [
      'client',
      'approval',
      { approved: false, arguments: {} },
      'arguments: arguments may only be edited when approving',
    ],
    ['client', 'approval', { arguments: 'x' }, 'arguments: must be an object'],
    ['client', 'approval', { requestId: '' }, 'requestId: must be at least 1 character'],
    ['client', 'tools_update', { tools: 'add' }, 'tools: must be an array'],
    [
      'client',
      'tools_update',
      { tools: [{ ...tool, needsApproval: 'no' }] },
      'tools.0.needsApproval: must be a boolean',
    ],
    ['client', 'run_start', { maxTurns: 1e308 }, `maxTurns: must be at most ${MAX_SAFE}`],
    ['client', 'run_start', { maxTurns: 1.5 }, 'maxTurns: must be an integer'],
    ['client', 'run_start', { maxTurns: 0 }, 'maxTurns: must be at least 1'],
    [
      'client',
      'run_start',
      { agent: { ...agent, name: long(129) } },
      'agent.name: must be at most 128 characters',
    ],
    ['client', 'run_start', { agent: { ...agent, tools: [1] } }, 'agent.tools.0: must be a string'],
    ['client', 'run_start', { toolChoice: 'sometimes' }, `toolChoice: ${TOOL_CHOICE_RULE}`],
    ['client', 'run_start', { toolChoice: { type: 'tool' } }, 'toolChoice.name: must be a string'],
    [
      'client',
      'run_start',
      { toolChoice: { type: 'tool', name: 'two words' } },
      `toolChoice.name: ${NAME_RULE}`,
    ],
    [
      'client',
      'run_start',
      { toolChoice: { type: 'function', name: 'add' } },
      'toolChoice.type: must be "tool"',
    ],
    [
      'client',
      'run_start',
      { metadata: { big: long(16_384) } },
      'metadata: must be at most 16384 bytes of JSON',
    ],
    ['client', 'run_start', { metadata: [] }, 'metadata: must be an object'],
    ['client', 'run_cancel', { runId: '' }, 'runId: must be at least 1 character'],
    ['client', 'tool_progress', { seq: 0 }, 'seq: must be at least 1'],
    ['client', 'tool_progress', { seq: 1.5 }, 'seq: must be an integer'],
    ['client', 'tool_progress', { progress: -1 }, 'progress: must be at least 0'],
    ['client', 'tool_progress', { total: 0 }, 'total: must be greater than 0'],
    ['client', 'tool_progress', { message: long(1001) }, 'message: must be at most 1000 characters'],
    ['client', 'tool_preliminary', { seq: 'one' }, 'seq: must be a number'],
    ['client', 'tool_preliminary', { output: null }, 'output: must be a string'],
    ['client', 'lease', { callIds: [] }, 'callIds: must have at least 1 item'],
    ['client', 'lease', { callIds: ids(1001) }, 'callIds: must have at most 1000 items'],
    ['client', 'key_waits', { waiting: undefined }, 'waiting: waiting or running is required'],
    ['client', 'key_waits', { waiting: [] }, 'waiting: must have at least 1 item'],
    ['client', 'approval_waits', { running: ids(1001) }, 'running: must have at most 1000 items'],
    ['client', 'question', { question: '' }, 'question: must be at least 1 character'],
    ['client', 'question', { question: long(4001) }, 'question: must be at most 4000 characters'],
    ['client', 'question', { choices: [] }, 'choices: must have at least 1 item'],
    ['client', 'question', { choices: Array(51).fill('c') }, 'choices: must have at most 50 items'],
    ['client', 'question', { choices: [long(201)] }, 'choices.0: must be at most 200 characters'],
    ['client', 'question', { schema: 'string' }, 'schema: must be an object'],
    ['client', 'question_cancel', { questionId: 5 }, 'questionId: must be a string'],
    ['client', 'tool_event', { event: 'has space' }, 'event: must be 1 to 128 letters, digits or _ . : / -'],
    ['client', 'tool_event', { seq: 0 }, 'seq: must be at least 1'],
    ['client', 'step_result', { key: long(257) }, 'key: must be at most 256 characters'],
    ['client', 'step_result', { key: 1 }, 'key: must be a string'],
    ['client', 'ping', { id: true }, 'id: must be a string'],
    ['client', 'pong', { id: [] }, 'id: must be a string'],
    ['client', 'error', { message: undefined }, 'message: must be a string'],
  ];
  const frameOf = (direction: 'service' | 'client', type: string, fields: Record<string, unknown>) => ({
    type,
    ...(direction === 'service' ? service : client)[type],
    ...fields,
  });

  const table = rows.map(([direction, type, fields, detail]) => ({ direction, type, fields, detail }));
  it.each(table)('$direction $type: $detail', ({ direction, type, fields, detail }) => {
    const decode = direction === 'service' ? decodeServiceFrame : decodeClientFrame;
    const base = frameOf(direction, type, {});
    expect(decode(JSON.stringify(base))).toMatchObject({ ok: true });
    expect(decode(JSON.stringify(frameOf(direction, type, fields)))).toMatchObject({
      ok: false,
      code: 'invalid_frame',
      message: `invalid ${type} frame: ${detail}`,
      fields: [detail.slice(0, detail.indexOf(': '))],
    });
  });

  it('has rows for every frame type of both directions', () => {
    expect(Object.keys(service).sort()).toEqual(typesOf(serviceFrameSchema()).sort());
    expect(Object.keys(client).sort()).toEqual(typesOf(clientFrameSchema).sort());
    const covered = (direction: string) =>
      new Set(rows.filter((row) => row[0] === direction).map((row) => row[1]));
    expect(Object.keys(service).filter((type) => !covered('service').has(type))).toEqual([]);
    expect(Object.keys(client).filter((type) => !covered('client').has(type))).toEqual([]);
  });

  it('quotes no value and no key the peer sent, in the message, the fields or what it dropped', () => {
    const frames: Array<['service' | 'client', Record<string, unknown>]> = [
      ['client', frameOf('client', 'hello', { apiKey: [SECRET], tools: [{ ...tool, name: `${SECRET} x` }] })],
      [
        'client',
        frameOf('client', 'tool_result', {
          status: SECRET,
          content: [{ type: 'image', data: SECRET, mediaType: 'image/png' }],
        }),
      ],
      [
        'client',
        frameOf('client', 'run_start', { toolChoice: SECRET, metadata: { [SECRET]: long(16_384) } }),
      ],
      ['client', frameOf('client', 'tool_event', { event: `${SECRET} x` })],
      ['client', frameOf('client', 'step_result', { key: SECRET.repeat(20) })],
      [
        'service',
        frameOf('service', 'tool_call', { agentName: SECRET.repeat(10), steps: { [SECRET.repeat(20)]: 1 } }),
      ],
      ['service', frameOf('service', 'tool_call', { traceparent: SECRET.repeat(30) })],
      ['service', frameOf('service', 'welcome', { owed: [SECRET, 1], buildPolicy: SECRET.repeat(5) })],
    ];
    for (const [direction, frame] of frames) {
      const decoded = (direction === 'service' ? decodeServiceFrame : decodeClientFrame)(
        JSON.stringify(frame),
      );
      expect(decoded.ok === false || decoded.dropped !== undefined).toBe(true);
      expect(JSON.stringify(decoded.ok ? decoded.dropped : decoded)).not.toContain('sk-live');
    }
  });

  it('has no field whose fault zod would report at a key the peer chose', () => {
    // zod puts a record's key in the path of a fault in its value (and a map's key, in its entry's): the frames keep
    // every record's values `unknown` and have no maps, so that only a key's own fault names a key, and the codec
    // leaves it out (above).
    const found: string[] = [];
    const records: string[] = [];
    const seen = new Set<unknown>();
    const walk = (schema: { _zod: { def: Record<string, unknown> } }, at: string): void => {
      if (seen.has(schema)) return;
      seen.add(schema);
      const def = schema._zod.def;
      if (def.type === 'map' || def.type === 'set') found.push(`${at}: a ${def.type}`);
      if (def.type === 'record') records.push(at);
      if (def.type === 'record' && (def.valueType as typeof schema)._zod.def.type !== 'unknown')
        found.push(`${at}: a record whose values are checked`);
      for (const value of Object.values(def)) {
        const inner = Array.isArray(value)
          ? value
          : typeof value === 'object' && value !== null
            ? [value]
            : [];
        for (const item of inner) if (item?._zod?.def !== undefined) walk(item, at);
        if (typeof value === 'object' && value !== null && !Array.isArray(value) && !('_zod' in value))
          for (const [key, field] of Object.entries(value))
            if ((field as typeof schema)?._zod?.def !== undefined)
              walk(field as typeof schema, `${at}.${key}`);
      }
    };
    walk(serviceFrameSchema() as never, 'service');
    walk(clientFrameSchema as never, 'client');
    expect(records).toContain('service.steps');
    expect(records).toContain('client.metadata');
    expect(found).toEqual([]);
  });

  it('names at most five faults, each once, however many the frame has', () => {
    const steps = Object.fromEntries(ids(1000).map((id) => [long(300) + id, 1]));
    const decoded = decodeServiceFrame(
      JSON.stringify(frameOf('service', 'tool_call', { steps, acks: Array(1000).fill(''), depth: -1 })),
    );
    expect(decoded).toMatchObject({
      ok: false,
      message:
        'invalid tool_call frame: depth: must be at least 0; acks.0: must be at least 1 character; acks.1: must be at least 1 character; acks.2: must be at least 1 character; acks.3: must be at least 1 character',
    });
    const keys = decodeServiceFrame(JSON.stringify(frameOf('service', 'tool_call', { steps })));
    expect(keys).toMatchObject({
      ok: false,
      message: 'invalid tool_call frame: steps: every key must be at most 256 characters',
      fields: ['steps'],
    });
  });
});
