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
      detail: 'invalid syntax at position 0',
    });
  });

  it.each([
    // Cut short after a value, a key, a literal's start, a number's sign, an escape: the model's output ended.
    ['{"name":"ab"', 'unexpected end of input'],
    ['{"name"', 'unexpected end of input'],
    ['{"a":[1,2', 'unexpected end of input'],
    ['{"a":tr', 'unexpected end of input'],
    ['{"a":-', 'unexpected end of input'],
    ['{"a":"b\\', 'unexpected end of input'],
    ['{', 'unexpected end of input'],
    // A fault inside the text, by its index, whether or not the runtime's parser gives one.
    ['garbage', 'invalid syntax at position 0'],
    ['{"a":tru}', 'invalid syntax at position 8'],
    ['{"a":1,}', 'invalid syntax at position 7'],
    ['{"a":01}', 'invalid syntax at position 6'],
    ['{"a":"\\u12x4"}', 'invalid syntax at position 10'],
    ['{"a":"x\ty"}', 'invalid syntax at position 7'],
    ['{a:1}', 'invalid syntax at position 1'],
    ['{"a":1}}', 'invalid syntax at position 7'],
  ])('says where %j stops being JSON, from the text, the same on every runtime', (raw, detail) => {
    expect(decodeArguments(raw)).toEqual({ ok: false, reason: 'not_json', detail });
  });

  it('finds the fault in text nested 100,000 levels deep', () => {
    expect(decodeArguments(`${'['.repeat(100_000)}x`)).toEqual({
      ok: false,
      reason: 'not_json',
      detail: 'invalid syntax at position 100000',
    });
  });
});
