/**
 * Every `tool_call`, `ack`, `ping` and `pong` the decoder gives has one shape: the same keys in the same order, whatever optional
 * fields the frame carried and whichever path decoded it (the fast path, the schema, the schema after dropping a
 * faulty informative field). Code that reads frames then meets one hidden class, and V8 keeps its optimised code
 * when a frame of another mix first arrives.
 */
import { describe, expect, it } from 'vitest';
import { decodeServiceFrame } from '../../src/wire/codec';

const KEYS = [
  'type',
  'callId',
  'callIds',
  'runId',
  'toolName',
  'arguments',
  'approved',
  'reason',
  'deadlineMs',
  'depth',
  'acks',
  'traceparent',
  'tracestate',
  'argumentsEdited',
  'sessionId',
  'agentName',
  'agentRevision',
  'tenantId',
  'userId',
  'steps',
  'id',
];

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

/** Raw frames, each with the fields the decoded frame has besides `undefined` ones. */
const FRAMES: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
  ['a plain call', { callId: 'c1', runId: 'r1', toolName: 'add' }, {}],
  [
    'a call with acks, arguments and a deadline (fast path)',
    {
      callId: 'c1',
      runId: 'r1',
      toolName: 'add',
      arguments: { a: 1 },
      deadlineMs: 5,
      depth: 0,
      acks: ['c0'],
    },
    {},
  ],
  [
    'a call of a run with its scope, decided and traced',
    {
      tenantId: 't1',
      callId: 'c1',
      runId: 'r1',
      toolName: 'add',
      approved: false,
      reason: 'no',
      argumentsEdited: true,
      sessionId: 's1',
      agentName: 'Assistant',
      agentRevision: 'rev1',
      userId: 'u1',
      traceparent: TRACEPARENT,
      tracestate: 'a=b',
    },
    {},
  ],
  [
    'a call with kept steps (the schema decodes it)',
    { callId: 'c1', runId: 'r1', toolName: 'add', steps: { s: 1 } },
    {},
  ],
  [
    'a call whose traceparent is dropped (the schema, leniently)',
    { callId: 'c1', runId: 'r1', toolName: 'add', traceparent: 7 },
    { traceparent: undefined },
  ],
  ['an ack of one call', { type: 'ack', callId: 'c1' }, {}],
  ['an ack of several calls', { type: 'ack', callIds: ['c1', 'c2'] }, {}],
  ['an ack of both', { type: 'ack', callId: 'c0', callIds: ['c1'] }, {}],
  ['a ping', { type: 'ping' }, {}],
  ['a pong naming its ping', { type: 'pong', id: '7' }, {}],
];

describe('decoded call frames', () => {
  it.each(FRAMES)('%s: the same keys in the same order, and the values it carried', (_, fields, changed) => {
    const sent = { type: 'tool_call', ...fields };
    const decoded = decodeServiceFrame(JSON.stringify(sent));
    expect(decoded.ok).toBe(true);
    const frame = (decoded as { frame: Record<string, unknown> }).frame;
    expect(Object.keys(frame)).toEqual(KEYS);
    const carried = Object.fromEntries(Object.entries(frame).filter(([, value]) => value !== undefined));
    expect(carried).toEqual(
      Object.fromEntries(Object.entries({ ...sent, ...changed }).filter(([, v]) => v !== undefined)),
    );
  });

  it('leaves the shape of other frames as the schema gives them', () => {
    const decoded = decodeServiceFrame('{"type":"cancel","callId":"c1","reason":"user"}');
    expect(decoded).toEqual({ ok: true, frame: { type: 'cancel', callId: 'c1', reason: 'user' } });
    expect(Object.keys((decoded as { frame: object }).frame)).toEqual(['type', 'callId', 'reason']);
  });
});
