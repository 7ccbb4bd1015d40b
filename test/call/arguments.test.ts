import { describe, expect, it } from 'vitest';
import { decodeArguments } from '../../src/call/arguments';

describe('decodeArguments', () => {
  it.each([
    [undefined, {}],
    [null, {}],
    ['', {}],
    ['  ', {}],
    ['null', {}],
    ['""', {}],
    ['{"a":1}', { a: 1 }],
    [JSON.stringify('{"a":1}'), { a: 1 }],
    [{ a: 1 }, { a: 1 }],
    ['\uFEFF{"a":1}', { a: 1 }],
    ['\u00A0{"a":1}\u2028', { a: 1 }],
    ['\uFEFF', {}],
  ])('decodes %j to an object', (raw, value) => {
    expect(decodeArguments(raw)).toEqual({ ok: true, value });
  });

  it('passes an object through as the same object', () => {
    const raw = { a: 1 };
    expect(decodeArguments(raw)).toEqual({ ok: true, value: raw });
    expect((decodeArguments(raw) as { value: unknown }).value).toBe(raw);
  });

  it.each([
    ['[1]', 'array'],
    ['1', 'number'],
    ['false', 'boolean'],
    ['"text"', 'string'],
    [JSON.stringify('[1]'), 'array'],
    [JSON.stringify(JSON.stringify('{"a":1}')), 'string'],
  ])('refuses %j as not an object (%s)', (raw, type) => {
    expect(decodeArguments(raw)).toEqual({ ok: false, reason: 'not_object', type });
  });

  it('refuses a value of another JavaScript type by its type name', () => {
    expect(decodeArguments(10n)).toEqual({ ok: false, reason: 'not_object', type: 'bigint' });
  });

  it('refuses text that is not JSON saying why in fixed words, never quoting the text (a secret may be in it)', () => {
    expect(decodeArguments('{"a":')).toEqual({
      ok: false,
      reason: 'not_json',
      detail: 'unexpected end of input',
    });
    expect(decodeArguments('{"a":1}x')).toEqual({
      ok: false,
      reason: 'not_json',
      detail: 'invalid syntax at position 7',
    });
    // Counted in the text the model sent, blanks JSON does not allow included.
    expect(decodeArguments('\uFEFF{"a":1}x')).toEqual({
      ok: false,
      reason: 'not_json',
      detail: 'invalid syntax at position 8',
    });
    expect(decodeArguments('sk-live-0123456789abcdef')).toEqual({
      ok: false,
      reason: 'not_json',
      detail: 'invalid syntax',
    });
  });
});
