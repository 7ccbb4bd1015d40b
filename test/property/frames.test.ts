/**
 * Property tests of the frame decoders over hostile input: arbitrary text and JSON, deep nesting, huge strings,
 * lone surrogates, `__proto__`/`constructor` keys, numbers out of range, and valid frames with fields mutated.
 * Whatever arrives: no throw, no prototype pollution, and either one frame that re-encodes to itself or one
 * protocol error with a known code and a message.
 */
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type DecodeResult, decodeClientFrame, decodeServiceFrame, encodeFrame } from '../../src/wire/codec';
import { utf8Length } from '../../src/wire/protocol';

const DECODERS = { client: decodeClientFrame, service: decodeServiceFrame } as const;
const ERROR_CODES = ['invalid_json', 'invalid_frame', 'unknown_type', 'frame_too_large'];
const CLIENT_TYPES = [
  'hello',
  'tool_result',
  'approval_request',
  'approval',
  'tools_update',
  'run_start',
  'run_cancel',
];
const SERVICE_TYPES = ['welcome', 'tool_call', 'cancel', 'ack', 'run_started', 'run_event', 'run_result'];
const SHARED_TYPES = ['ping', 'pong', 'error'];

const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
afterEach(() => {
  // Nothing a peer sends may reach Object.prototype.
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

/** The decoder's contract for one input: one of two shapes, never a throw. */
function checkResult(
  result: DecodeResult<{ type: string }>,
  decode: (raw: string) => DecodeResult<{ type: string }>,
) {
  if (result.ok) {
    expect(typeof result.frame.type).toBe('string');
    // Informative fields it dropped (src/wire/codec.ts) are named, one string each.
    expect(
      Object.keys(result)
        .filter((key) => key !== 'dropped')
        .sort(),
    ).toEqual(['frame', 'ok']);
    if (result.dropped !== undefined)
      for (const problem of result.dropped) expect(typeof problem).toBe('string');
    // A decoded frame is a plain JSON value that decodes to itself again.
    const again = decode(encodeFrame(result.frame as never));
    expect(again).toEqual({ ok: true, frame: result.frame });
    return;
  }
  expect(ERROR_CODES).toContain(result.code);
  expect(typeof result.message).toBe('string');
  expect(result.message.length).toBeGreaterThan(0);
  expect(
    Object.keys(result)
      .filter((key) => key !== 'about' && key !== 'fields' && key !== 'shapeless')
      .sort(),
  ).toEqual(['code', 'message', 'ok']);
  if (result.shapeless !== undefined)
    expect(result).toMatchObject({ code: 'invalid_frame', shapeless: true });
  // What of the refused frame is readable: its type and well-formed ids, strings only.
  for (const value of Object.values(result.about ?? {})) expect(typeof value).toBe('string');
  // The paths of the fields at fault, for a known frame type with wrong fields; named in the message too.
  for (const field of result.fields ?? []) expect(result.message).toContain(`${field}: `);
}

/** Strings with lone surrogates, astral characters and controls, not only ASCII. */
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\uD800',
    '\uDC00x',
    '😀'.slice(0, 1),
    '{',
    '[]',
    'null',
    '"x"',
    '1e999',
  ),
);
/** Awkward keys for objects a peer might send. */
const awkwardKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'type', 'callId'),
  fc.string({ unit: 'binary', maxLength: 10 }),
);
/** Numbers out of range and at the edges. */
const awkwardNumber = fc.oneof(
  fc.constantFrom(0, -0, -1, 1.5, 2 ** 31, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 1e21, 1e308, -1e308, 5e-324),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
/** JSON values, deep and wide, with awkward keys, strings and numbers. */
const jsonish: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    awkwardNumber,
    anyText,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(awkwardKey, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** `JSON.stringify` that writes `__proto__` as an own key, as a peer's JSON can. */
function toJsonText(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => {
    if (item && typeof item === 'object' && !Array.isArray(item)) {
      const out: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(item))
        Object.defineProperty(out, key, { value: inner, enumerable: true });
      return out;
    }
    return item;
  });
}

const fixtures = (kind: 'valid') =>
  readdirSync(new URL(`../fixtures/frames/${kind}/`, import.meta.url)).map(
    (name) =>
      JSON.parse(
        readFileSync(new URL(`../fixtures/frames/${kind}/${name}`, import.meta.url), 'utf8'),
      ) as Record<string, unknown>,
  );

describe.each(Object.entries(DECODERS))('decode%sFrame', (_side, decode) => {
  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(anyText, (raw) => checkResult(decode(raw), decode)),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary JSON, and never lets __proto__ reach a prototype', () => {
    fc.assert(
      fc.property(jsonish, (value) => checkResult(decode(toJsonText(value)), decode)),
      { numRuns: 500 },
    );
  });

  it('never throws on objects of every frame type with arbitrary fields', () => {
    const type = fc.constantFrom(...CLIENT_TYPES, ...SERVICE_TYPES, ...SHARED_TYPES, 'nope', '');
    fc.assert(
      fc.property(type, fc.dictionary(awkwardKey, jsonish, { maxKeys: 6 }), (frameType, fields) => {
        const raw = toJsonText({ ...fields, type: frameType });
        checkResult(decode(raw), decode);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on a valid frame with one field replaced, removed, or a __proto__ added', () => {
    const frames = fixtures('valid');
    fc.assert(
      fc.property(
        fc.constantFrom(...frames),
        fc.nat(),
        fc.oneof(jsonish, fc.constant(undefined)),
        fc.boolean(),
        (frame, pick, replacement, addProto) => {
          const keys = Object.keys(frame).filter((key) => key !== 'type');
          const mutated: Record<string, unknown> = { ...frame };
          const key = keys[pick % Math.max(1, keys.length)];
          if (key !== undefined) mutated[key] = replacement;
          let raw = toJsonText(mutated);
          if (addProto) raw = raw.replace(/^\{/, '{"__proto__":{"polluted":"yes"},');
          const result = decode(raw);
          checkResult(result, decode);
          if (result.ok) expect(Object.getPrototypeOf(result.frame)).toBe(Object.prototype);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('refuses exactly the frames over the size limit, counting UTF-8 bytes (lone surrogates as 3)', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.integer({ min: 1, max: 1_200 }),
        (text, max) => {
          const raw = JSON.stringify({ type: 'ping', id: text });
          const result = decode(raw, max);
          const over = Buffer.byteLength(raw) > max;
          expect(utf8Length(raw)).toBe(Buffer.byteLength(raw));
          expect(!result.ok && result.code === 'frame_too_large').toBe(over);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('deep and huge input', () => {
  it.each([1_000, 100_000, 1_000_000])(
    'decodes or refuses arguments nested %i deep without throwing',
    (depth) => {
      const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const raw = `{"type":"tool_call","callId":"c","runId":"r","toolName":"t","arguments":${nested}}`;
      const result = decodeServiceFrame(raw, 10_000_000);
      if (result.ok) expect(result.frame.type).toBe('tool_call');
      else expect(result.code).toBe('invalid_json');
    },
  );

  it('refuses a 5 MB frame by size, before parsing it', () => {
    const raw = JSON.stringify({
      type: 'tool_result',
      callId: 'c',
      status: 'ok',
      output: 'x'.repeat(5_000_000),
    });
    expect(decodeClientFrame(raw)).toEqual({
      ok: false,
      code: 'frame_too_large',
      message: 'frame exceeds 1048576 bytes',
    });
  });

  it('keeps numbers out of range out of integer fields', () => {
    for (const value of [2 ** 53, 1e21, 1e308, -1, 1.5]) {
      const raw = `{"type":"tool_call","callId":"c","runId":"r","toolName":"t","deadlineMs":${value}}`;
      expect(decodeServiceFrame(raw)).toMatchObject({ ok: false, code: 'invalid_frame' });
    }
  });
});
