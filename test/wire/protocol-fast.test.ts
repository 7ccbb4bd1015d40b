import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeServiceFrame, encodeFrame, fastServiceFrame } from '../../src/wire/codec';
import {
  type ClientFrame,
  type FrameOf,
  RESULT_PART_TYPES,
  serviceFrameSchema,
  TOOL_CALL_STATUSES,
} from '../../src/wire/protocol';

const anyValue = fc.oneof(
  fc.string({ maxLength: 300 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constant(-1),
  fc.constant(2 ** 53),
  fc.constant(''),
  fc.jsonValue({ maxDepth: 2 }),
);
// Mostly valid fields, so that the fast path accepts often; anything else often enough to be refused.
const validId = fc.string({ minLength: 1, maxLength: 8 });
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: anyValue, weight: 1 });
const idList = fc.oneof(anyValue, fc.array(anyValue, { maxLength: 3 }), fc.array(validId, { maxLength: 3 }));
const candidate = fc.record(
  {
    type: fc.constantFrom('tool_call', 'ack', 'ping', 'pong'),
    id: mostly(fc.string({ maxLength: 8 })),
    callId: mostly(validId),
    runId: mostly(validId),
    toolName: mostly(fc.string({ maxLength: 8 })),
    arguments: fc.jsonValue({ maxDepth: 3 }),
    approved: mostly(fc.boolean()),
    reason: mostly(fc.string({ maxLength: 8 })),
    deadlineMs: mostly(fc.nat()),
    depth: mostly(fc.nat(5)),
    callIds: mostly(fc.array(validId, { minLength: 1, maxLength: 3 })),
    acks: fc.oneof(
      { arbitrary: fc.array(validId, { maxLength: 3 }), weight: 4 },
      { arbitrary: idList, weight: 1 },
    ),
    extra: anyValue,
  },
  { requiredKeys: ['type'] },
);

describe('fastServiceFrame', () => {
  it('accepts only frames the schema accepts, and returns exactly what the schema returns', () => {
    const accepted = {
      tool_call: 0,
      toolCallWithAcks: 0,
      ack: 0,
      ackWithCallIds: 0,
      ping: 0,
      pong: 0,
      pongWithId: 0,
      refused: 0,
    };
    fc.assert(
      fc.property(candidate, (value) => {
        const fast = fastServiceFrame(value.type, value as Record<string, unknown>);
        const parsed = serviceFrameSchema().safeParse(value);
        if (fast === undefined) {
          accepted.refused += 1;
          return;
        }
        accepted[fast.type as 'tool_call' | 'ack' | 'ping' | 'pong'] += 1;
        if (fast.type === 'pong' && fast.id !== undefined) accepted.pongWithId += 1;
        if (fast.type === 'tool_call' && fast.acks !== undefined) accepted.toolCallWithAcks += 1;
        if (fast.type === 'ack' && fast.callIds !== undefined) accepted.ackWithCallIds += 1;
        expect(parsed.success).toBe(true);
        expect(fast).toEqual(parsed.data);
      }),
      { numRuns: 5_000 },
    );
    // The generator reaches every frame, their lists of acks and ids, and refusals.
    for (const count of Object.values(accepted)) expect(count).toBeGreaterThan(50);
  });

  it("takes the heartbeat's frames, and leaves one with an id that is not a string to the schema", () => {
    expect(fastServiceFrame('ping', { type: 'ping' })).toEqual({ type: 'ping' });
    expect(fastServiceFrame('pong', { type: 'pong', id: '3', extra: 1 })).toEqual({ type: 'pong', id: '3' });
    expect(fastServiceFrame('pong', { type: 'pong', id: 3 })).toBeUndefined();
    expect(decodeServiceFrame('{"type":"pong","id":3}')).toMatchObject({
      ok: false,
      code: 'invalid_frame',
      message: 'invalid pong frame: id: must be a string',
    });
  });

  it('takes the common frames of a call', () => {
    expect(fastServiceFrame('ack', { type: 'ack', callId: 'c1' })).toEqual({ type: 'ack', callId: 'c1' });
    expect(fastServiceFrame('ack', { type: 'ack', callIds: ['c1', 'c2'] })).toEqual({
      type: 'ack',
      callIds: ['c1', 'c2'],
    });
    const call = {
      type: 'tool_call',
      callId: 'c1',
      runId: 'r1',
      toolName: 'add',
      arguments: '{"a":1}',
      deadlineMs: 120_000,
      depth: 0,
    } as const;
    expect(fastServiceFrame('tool_call', { ...call, unknownField: true })).toEqual(call);
  });
});

describe('encodeFrame', () => {
  it('writes a tool_result exactly as JSON.stringify does, whatever its text holds', () => {
    const inherited = fc.constantFrom(...Object.getOwnPropertyNames(Object.prototype));
    const result = fc.record(
      {
        type: fc.constant('tool_result' as const),
        callId: fc.string({ unit: 'grapheme-composite', minLength: 1, maxLength: 20 }),
        // The protocol's statuses and result kinds are written from a table; any other text as JSON writes it, the
        // names of what every object inherits too.
        status: fc.oneof(fc.constantFrom(...TOOL_CALL_STATUSES), fc.string(), inherited),
        output: fc.oneof(fc.string({ unit: 'binary' }), fc.string()),
        durationMs: fc.oneof(
          fc.nat(),
          fc.double({ min: 0, noNaN: true }),
          fc.constantFrom(undefined, -0, Number.NaN, Number.POSITIVE_INFINITY),
        ),
        result: fc.oneof(
          fc.constant(undefined),
          fc.record({ type: fc.oneof(fc.constantFrom(...RESULT_PART_TYPES), fc.string(), inherited) }),
        ),
        widget: fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 2 })),
        retryable: fc.oneof(fc.constant(undefined), fc.boolean()),
      },
      { requiredKeys: ['type', 'callId', 'status', 'output'] },
    );
    fc.assert(
      fc.property(result, (value) => {
        // Typed as the protocol's frame: a peer's code may still hand any text (a status of a later version).
        const frame = value as FrameOf<ClientFrame, 'tool_result'>;
        expect(encodeFrame(frame)).toBe(JSON.stringify(frame));
      }),
      { numRuns: 2000 },
    );
  });

  it('writes the end of a plain result as JSON.stringify does, of 0 ms (kept) or not', () => {
    const kinds = [undefined, ...RESULT_PART_TYPES, 'later_kind'];
    const durations = [0, -0, 1, 2.5, 63, 63.5, 64, 65, 1_000, undefined];
    for (let round = 0; round < 2; round++)
      for (const kind of kinds)
        for (const durationMs of durations) {
          const frame = {
            type: 'tool_result',
            callId: 'c1',
            status: 'ok',
            output: '42',
            durationMs,
            result: kind === undefined ? undefined : { type: kind },
          } as unknown as FrameOf<ClientFrame, 'tool_result'>;
          expect(encodeFrame(frame)).toBe(JSON.stringify(frame));
        }
  });

  it('writes a status or result kind it has no word for as JSON does, whatever Object.prototype holds', () => {
    // A library that sets strings on Object.prototype under such names must not get them into a frame.
    const polluted = Object.prototype as Record<string, unknown>;
    polluted.later_status = ',"status":"ok","output":';
    polluted.later_kind = '}';
    try {
      const frame = {
        type: 'tool_result',
        callId: 'c1',
        status: 'later_status',
        output: 'done',
        result: { type: 'later_kind' },
      } as unknown as FrameOf<ClientFrame, 'tool_result'>;
      expect(encodeFrame(frame)).toBe(
        '{"type":"tool_result","callId":"c1","status":"later_status","output":"done","result":{"type":"later_kind"}}',
      );
      expect(encodeFrame(frame)).toBe(JSON.stringify(frame));
    } finally {
      delete polluted.later_status;
      delete polluted.later_kind;
    }
  });
});
