import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  base64Bytes,
  serializeOutput,
  thrownMessage,
  toWellFormed,
  truncateJsonString,
  truncateUtf8,
  truncationMarker,
  wellFormedJson,
} from '../../src/tool/output';
import { jsonStringBytes } from '../../src/utf8';
import { utf8Length } from '../../src/wire/protocol';

describe('serializeOutput', () => {
  it('returns a string unchanged, the empty string included', () => {
    expect(serializeOutput('plain text, "quoted"')).toBe('plain text, "quoted"');
    expect(serializeOutput('')).toBe('');
  });

  it('writes anything else as compact JSON', () => {
    expect(serializeOutput({ a: 1, b: [true, null, 'x'] })).toBe('{"a":1,"b":[true,null,"x"]}');
    expect(serializeOutput(42)).toBe('42');
    expect(serializeOutput(false)).toBe('false');
    expect(serializeOutput(null)).toBe('null');
  });

  it('writes every finite number and boolean exactly as JSON.stringify does, and NaN and ±Infinity as their names', () => {
    for (const special of [0, -0, -1e21, 1e21, 5e-324, 0.1 + 0.2, true]) {
      expect(serializeOutput(special)).toBe(JSON.stringify(special));
    }
    expect([Number.NaN, Infinity, -Infinity].map((value) => serializeOutput(value))).toEqual([
      '"NaN"',
      '"Infinity"',
      '"-Infinity"',
    ]);
    fc.assert(
      fc.property(
        fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean()),
        (value) => {
          expect(serializeOutput(value)).toBe(JSON.stringify(value));
        },
      ),
    );
  });

  it('writes undefined as null at the top, leaves it out of objects and writes null in arrays', () => {
    expect(serializeOutput(undefined)).toBe('null');
    expect(serializeOutput({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(serializeOutput([undefined, 1])).toBe('[null,1]');
  });

  it('writes a BigInt as its decimal string', () => {
    expect(serializeOutput(9007199254740993n)).toBe('"9007199254740993"');
    expect(serializeOutput({ id: 9007199254740993n })).toBe('{"id":"9007199254740993"}');
  });

  it('writes a Map as an object and a Set as an array', () => {
    expect(
      serializeOutput(
        new Map<unknown, unknown>([
          ['a', 1],
          [true, new Set(['x', 'y'])],
        ]),
      ),
    ).toBe('{"a":1,"true":["x","y"]}');
    expect(serializeOutput(new Map([[{ id: 1 }, 'object key']]))).toBe('{"{\\"id\\":1}":"object key"}');
  });

  it('writes an Error as { name, message }', () => {
    expect(serializeOutput(new TypeError('bad input'))).toBe('{"name":"TypeError","message":"bad input"}');
    expect(serializeOutput({ error: new RangeError('too far') })).toBe(
      '{"error":{"name":"RangeError","message":"too far"}}',
    );
  });

  it('writes a true cycle as "[Circular]" and a shared, non-cyclic object in full each time', () => {
    const cyclic: Record<string, unknown> = { name: 'root' };
    cyclic.self = cyclic;
    expect(serializeOutput(cyclic)).toBe('{"name":"root","self":"[Circular]"}');
    const shared = { id: 1 };
    expect(serializeOutput({ a: shared, b: shared, list: [shared, shared] })).toBe(
      '{"a":{"id":1},"b":{"id":1},"list":[{"id":1},{"id":1}]}',
    );
  });

  it('honours toJSON (a Date, a class) and writes NaN and Infinity as their names', () => {
    class Money {
      constructor(readonly cents: number) {}
      toJSON() {
        return `${(this.cents / 100).toFixed(2)} EUR`;
      }
    }
    expect(serializeOutput({ at: new Date(0), price: new Money(1250), n: Number.NaN, inf: -Infinity })).toBe(
      '{"at":"1970-01-01T00:00:00.000Z","price":"12.50 EUR","n":"NaN","inf":"-Infinity"}',
    );
  });

  it('never writes a silent {} for an object without own keys that is not a plain object', () => {
    expect(serializeOutput({ pending: Promise.resolve(1), weak: new WeakMap() })).toBe(
      '{"pending":"[Promise]","weak":"[WeakMap]"}',
    );
    expect(serializeOutput({})).toBe('{}');
    expect(serializeOutput(Object.create(null))).toBe('{}');
  });

  it('writes a RegExp as its text, bytes as a base64 data: URL and other typed arrays as arrays', () => {
    expect(
      serializeOutput({ re: /a+b/gi, bytes: new Uint8Array([1, 2]), shorts: new Int16Array([-1, 2]) }),
    ).toBe('{"re":"/a+b/gi","bytes":"data:application/octet-stream;base64,AQI=","shorts":[-1,2]}');
  });

  it('follows JSON for functions and symbols: left out of objects, null in arrays and at the top', () => {
    expect(serializeOutput({ f: () => 1, s: Symbol('x'), k: 1 })).toBe('{"k":1}');
    expect(serializeOutput([() => 1, Symbol('x')])).toBe('[null,null]');
    expect(serializeOutput(() => 1)).toBe('null');
  });

  it('writes a getter that throws as a marker in place of that property only', () => {
    const tricky = {
      ok: 1,
      get broken(): never {
        throw new Error('no access');
      },
    };
    expect(serializeOutput({ tricky })).toBe('{"tricky":{"ok":1,"broken":"[Unreadable: no access]"}}');
  });

  it('says what a getter threw when it threw something without a message', () => {
    const tricky = {
      get secret() {
        throw undefined;
      },
    };
    expect(serializeOutput({ tricky })).toBe(
      '{"tricky":{"secret":"[Unreadable: reading it threw undefined]"}}',
    );
  });

  it('stops at a nesting depth of 200', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 250; i++) deep = [deep];
    const text = serializeOutput(deep);
    expect(text.startsWith('['.repeat(200))).toBe(true);
    expect(text).toContain('"[Too deep]"');
  });

  it('writes a lone surrogate as U+FFFD inside JSON (strings, keys, Map keys, errors), never as \\ud83d', () => {
    const half = 'x😀'.slice(0, 2);
    expect(serializeOutput({ name: half })).toBe('{"name":"x\uFFFD"}');
    expect(serializeOutput({ [half]: [half, '\uDE00y'] })).toBe('{"x\uFFFD":["x\uFFFD","\uFFFDy"]}');
    expect(serializeOutput(new Map([[half, 1]]))).toBe('{"x\uFFFD":1}');
    expect(serializeOutput(new Error(half))).toBe('{"name":"Error","message":"x\uFFFD"}');
    // A pair stays a pair; a backslash followed by "ud800" is text, not an escape; controls stay escaped.
    expect(serializeOutput({ a: '😀', b: '\\ud800', c: '\u0001' })).toBe(
      JSON.stringify({ a: '😀', b: '\\ud800', c: '\u0001' }),
    );
  });

  it('writes JSON as JSON.stringify does, with every string and key made well-formed first', () => {
    // Strings of code units around the surrogates: pairs, lone halves and their neighbours.
    const unit = fc.integer({ min: 0xd7f0, max: 0xe010 }).map((code) => String.fromCharCode(code));
    // JSON.stringify's text of `value` with each string and key made well-formed (two keys that differ only in
    // their lone surrogates stay two keys, as they were in the object).
    const expected = (value: unknown): string => {
      if (typeof value === 'string') return JSON.stringify(toWellFormed(value));
      if (Array.isArray(value)) return `[${value.map(expected).join(',')}]`;
      if (typeof value !== 'object' || value === null) return JSON.stringify(value);
      const entries = Object.entries(value).map(([key, item]) => `${expected(key)}:${expected(item)}`);
      return `{${entries.join(',')}}`;
    };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3, stringUnit: unit }), (value) => {
        expect(serializeOutput([value])).toBe(expected([value]));
      }),
      { numRuns: 500 },
    );
    expect(wellFormedJson('{"a":"b"}')).toBe('{"a":"b"}');
  });

  it('never throws and always returns a string', () => {
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withMap: true, withSet: true, withDate: true, withTypedArray: true }),
        (value) => {
          expect(typeof serializeOutput(value)).toBe('string');
        },
      ),
    );
  });
});

describe('thrownMessage', () => {
  it('uses an Error’s message, never its stack', () => {
    expect(thrownMessage(new Error('Card declined'))).toBe('Card declined');
  });

  it('uses the error’s name when its message is empty', () => {
    expect(thrownMessage(new TypeError(''))).toBe('TypeError');
    expect(thrownMessage({ name: 'QuotaError', message: '' })).toBe('QuotaError');
    expect(thrownMessage({ message: '' })).toBe('Error');
  });

  it('uses a thrown string as the message, and says so for an empty one', () => {
    expect(thrownMessage('out of stock')).toBe('out of stock');
    expect(thrownMessage('')).toBe('the tool threw an empty string');
  });

  it('uses the message of an object that has one', () => {
    expect(thrownMessage({ code: 'E1', message: 'Quota exceeded' })).toBe('Quota exceeded');
  });

  it('uses the JSON of anything else, never undefined or [object Object]', () => {
    expect(thrownMessage({ code: 'E1' })).toBe('{"code":"E1"}');
    expect(thrownMessage(42)).toBe('42');
  });

  it('says what was thrown when it has no message and no useful JSON', () => {
    expect(thrownMessage(undefined)).toBe('the tool threw undefined');
    expect(thrownMessage(null)).toBe('the tool threw null');
    expect(thrownMessage(Symbol())).toBe('the tool threw a symbol');
    expect(thrownMessage(Symbol('payment'))).toBe('the tool threw a symbol: payment');
    expect(thrownMessage(() => {})).toBe('the tool threw a function');
  });

  it('says so when the message of what was thrown cannot be read, rather than writing its JSON', () => {
    const error = new Error('x');
    Object.defineProperty(error, 'message', {
      get() {
        throw new Error('getter failed');
      },
    });
    expect(thrownMessage(error)).toBe(
      'the tool threw an Error whose message could not be read: getter failed',
    );
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap failed');
        },
      },
    );
    expect(thrownMessage(hostile, 'the approver')).toBe(
      'the approver threw an object whose message could not be read: trap failed',
    );
    class QuotaError {
      get message(): string {
        throw 'no quota';
      }
    }
    expect(thrownMessage(new QuotaError())).toBe(
      'the tool threw an instance of QuotaError whose message could not be read: no quota',
    );
    // No article guessed from the name's first letter.
    class UserError {
      get message(): string {
        throw 'unreadable';
      }
    }
    expect(thrownMessage(new UserError())).toBe(
      'the tool threw an instance of UserError whose message could not be read: unreadable',
    );
  });

  it('names who threw when told', () => {
    expect(thrownMessage(undefined, 'the approver')).toBe('the approver threw undefined');
    expect(thrownMessage('', 'the approver')).toBe('the approver threw an empty string');
    expect(thrownMessage(new Error('down'), 'the approver')).toBe('down');
  });
});

describe('truncateUtf8', () => {
  it('returns text within the cap unchanged', () => {
    expect(truncateUtf8('héllo', 6)).toBe('héllo');
  });

  it('cuts at the cap, marker included, and states the original size', () => {
    const text = 'a'.repeat(100);
    const marker = '\n[truncated: the full output was 100 bytes]';
    expect(truncateUtf8(text, 60)).toBe(`${'a'.repeat(60 - marker.length)}${marker}`);
    expect(utf8Length(truncateUtf8(text, 60))).toBe(60);
  });

  it('never splits a surrogate pair or a multi-byte character', () => {
    const text = `${'😀'.repeat(30)}`; // 4 bytes each, 120 bytes
    const cut = truncateUtf8(text, 61); // 61 − 43 (marker) = 18 bytes of room: 4 emoji (16 bytes)
    expect(cut).toBe(`${'😀'.repeat(4)}\n[truncated: the full output was 120 bytes]`);
  });

  it('cuts the marker alone when even it does not fit', () => {
    expect(truncateUtf8('x'.repeat(50), 10)).toBe('\n[truncate');
  });

  it('cut again, keeps the size the first cut stated (the full output), cut once in effect', () => {
    const first = truncateUtf8('x'.repeat(3000), 1000);
    expect(first.endsWith('\n[truncated: the full output was 3000 bytes]')).toBe(true);
    const marker = '\n[truncated: the full output was 3000 bytes]';
    expect(truncateUtf8(first, 500)).toBe(`${'x'.repeat(500 - marker.length)}${marker}`);
    const again = truncateJsonString(first, 502);
    expect(again).toBe(`${'x'.repeat(again.length - marker.length)}${marker}`);
    expect(jsonStringBytes(again)).toBe(502);
  });

  it('reads a marker that states no more than the text holds as text of the tool', () => {
    const text = `${'x'.repeat(100)}\n[truncated: the full output was 5 bytes]`;
    expect(truncateUtf8(text, 60)).toBe(
      `${'x'.repeat(60 - truncationMarker(utf8Length(text)).length)}${truncationMarker(utf8Length(text))}`,
    );
  });

  it('keeps every result within the cap, a prefix of the text plus the marker, never cutting a pair', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.integer({ min: 1, max: 400 }),
        (text, cap) => {
          const cut = truncateUtf8(text, cap);
          const size = utf8Length(text);
          expect(utf8Length(cut)).toBeLessThanOrEqual(cap);
          if (size <= cap) {
            expect(cut).toBe(text);
            return;
          }
          const marker = truncationMarker(size);
          if (utf8Length(marker) > cap) {
            expect(marker.startsWith(cut)).toBe(true);
            return;
          }
          expect(cut.endsWith(marker)).toBe(true);
          const body = cut.slice(0, cut.length - marker.length);
          expect(text.startsWith(body)).toBe(true);
          const splitsPair =
            /[\uD800-\uDBFF]$/.test(body) && /^[\uDC00-\uDFFF]/.test(text.slice(body.length));
          expect(splitsPair).toBe(false);
        },
      ),
    );
  });
});

describe('base64Bytes', () => {
  it('agrees with Buffer on every padding, and without padding or with line breaks', () => {
    for (const bytes of ['', 'a', 'ab', 'abc', 'abcd', 'hello, world']) {
      const encoded = Buffer.from(bytes).toString('base64');
      expect(base64Bytes(encoded)).toBe(Buffer.byteLength(bytes));
      expect(base64Bytes(encoded.replace(/=+$/, ''))).toBe(Buffer.byteLength(bytes));
    }
    expect(base64Bytes('aGVs\r\nbG8s\nIHdv cmxk')).toBe(12);
  });
});
