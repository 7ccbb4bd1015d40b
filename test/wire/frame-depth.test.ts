/**
 * Frames nested deeper than `MAX_FRAME_DEPTH` are refused when decoded (`invalid_frame`), on both
 * sides: whatever reads them later (a JSON Schema check, `JSON.stringify`, `structuredClone`) recurses and would
 * overflow the stack. A `tool_call`'s arguments are the exception: the client answers them `invalid_arguments`.
 */
import { describe, expect, it } from 'vitest';
import { MAX_FRAME_DEPTH } from '../../src/limits';
import { decodeClientFrame, decodeServiceFrame } from '../../src/wire/codec';

/** A JSON text of `levels` nested arrays (`[[…]]`); `levels` 1 is `[]`. */
const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

describe('frame nesting', () => {
  const max = MAX_FRAME_DEPTH;

  it('is at most 128 levels, the frame object included', () => {
    expect(max).toBe(128);
  });

  it.each([
    [
      'tool_event data',
      (data: string) => `{"type":"tool_event","callId":"c1","seq":1,"event":"e","data":${data}}`,
    ],
    [
      'tool_preliminary widget',
      (data: string) => `{"type":"tool_preliminary","callId":"c1","seq":1,"output":"","widget":${data}}`,
    ],
    [
      'question schema',
      (data: string) =>
        `{"type":"question","callId":"c1","questionId":"q1","question":"?","schema":{"a":${data}}}`,
    ],
  ])('a client frame: %s one level too deep is refused, at the limit accepted', (_, frame) => {
    // The frame object is level 1 and the field's value starts at level 2 (the schema's value at 3).
    const extra = frame('[]').includes('"schema"') ? 2 : 1;
    expect(decodeClientFrame(frame(nested(max - extra))).ok).toBe(true);
    expect(decodeClientFrame(frame(nested(max - extra + 1)))).toEqual({
      ok: false,
      code: 'invalid_frame',
      message: `frame nests deeper than ${max} levels`,
      // What is readable is named, so that what waits on the frame can be ended (docs/protocol/errors.md).
      about: {
        type: JSON.parse(frame('[]')).type,
        callId: 'c1',
        ...(extra === 2 ? { questionId: 'q1' } : {}),
      },
    });
  });

  it('refuses a service frame nested too deep: an answer a schema would recurse into', () => {
    const raw = `{"type":"answer","callId":"c1","questionId":"q1","status":"answered","answer":${nested(300_000)}}`;
    expect(decodeServiceFrame(raw, 10_000_000)).toEqual({
      ok: false,
      code: 'invalid_frame',
      message: `frame nests deeper than ${max} levels`,
      about: { type: 'answer', callId: 'c1', questionId: 'q1' },
    });
  });

  it.each([
    [
      'a tool_call unknown field',
      (data: string) => `{"type":"tool_call","callId":"c1","runId":"r1","toolName":"t","x":${data}}`,
    ],
    [
      'a tool_call acks item',
      (data: string) => `{"type":"tool_call","callId":"c1","runId":"r1","toolName":"t","acks":["a",${data}]}`,
    ],
    ['an ack callIds item', (data: string) => `{"type":"ack","callIds":["a",${data}]}`],
    ['an ack arguments field', (data: string) => `{"type":"ack","callId":"c1","arguments":${data}}`],
  ])('a service frame: %s one level too deep is refused, at the limit accepted', (_, frame) => {
    // The frame object is level 1; a list's item starts at level 3, any other field's value at level 2.
    const extra = frame('[]').includes('["a",') ? 2 : 1;
    const decoded = (levels: number) => decodeServiceFrame(frame(nested(levels)), 10_000_000);
    // At the limit the depth is not what refuses it (a list of ids with an item of another kind still is refused).
    expect(decoded(max - extra)).not.toMatchObject({ message: `frame nests deeper than ${max} levels` });
    expect(decoded(max - extra + 1)).toMatchObject({
      ok: false,
      code: 'invalid_frame',
      message: `frame nests deeper than ${max} levels`,
    });
  });

  it('lets through the lists of ids of every call, one level deep', () => {
    expect(decodeServiceFrame('{"type":"ack","callIds":["a","b"]}').ok).toBe(true);
    const call = '{"type":"tool_call","callId":"c1","runId":"r1","toolName":"t","acks":["a"],"arguments":{}}';
    expect(decodeServiceFrame(call).ok).toBe(true);
  });

  it('lets a tool_call through whatever its arguments nest (the client answers invalid_arguments)', () => {
    const raw = `{"type":"tool_call","callId":"c1","runId":"r1","toolName":"t","arguments":${nested(10_000)}}`;
    const decoded = decodeServiceFrame(raw);
    expect(decoded.ok).toBe(true);
  });
});
