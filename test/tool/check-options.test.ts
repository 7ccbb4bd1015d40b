import { describe, expect, it } from 'vitest';
import { OptionsError } from '../../src/errors';
import {
  aDuration,
  anArrayOf,
  anInteger,
  anObject,
  aString,
  checkOptions,
  describeValue,
  isOptionsObject,
  type OptionsSpec,
  suggest,
} from '../../src/tool/check-options';

interface Demo {
  name?: string;
  limitMs?: number;
  items?: string[];
  nested?: { depth?: number };
}

const SPEC: OptionsSpec<Demo> = {
  rules: {
    name: { ...aString('a name'), required: true, whenMissing: '(or set NAME)' },
    limitMs: aDuration(1),
    items: anArrayOf(aString(), 'an array of strings'),
    nested: anObject<{ depth?: number }>({ rules: { depth: anInteger({ min: 0, max: 9 }) } }, 'an object'),
  },
  aliases: { timeout: 'limitMs' },
};
const OWNER = { name: 'demo()', error: OptionsError };
const check = (options: unknown) => () => checkOptions(options, SPEC, OWNER);

describe('checkOptions', () => {
  it('accepts valid options and absent optional ones', () => {
    expect(check({ name: 'x' })).not.toThrow();
    expect(check({ name: 'x', limitMs: undefined, items: ['a'], nested: { depth: 9 } })).not.toThrow();
  });

  it.each([
    [null, 'invalid_options', 'demo(): options must be an object, got null'],
    [[], 'invalid_options', 'demo(): options must be an object, got an array of 0 items'],
    ['x', 'invalid_options', 'demo(): options must be an object, got "x"'],
    [{}, 'invalid_option', 'demo(): name must be a name (or set NAME), got undefined'],
    [{ name: 1 }, 'invalid_option', 'demo(): name must be a name, got 1'],
    [
      { name: 'x', limitMs: 2 ** 31 },
      'invalid_option',
      'demo(): limitMs must be a positive integer of milliseconds up to 2147483647 (the longest timer), got 2147483648',
    ],
    [
      { name: 'x', nested: { depth: 1e308 } },
      'invalid_option',
      'demo(): nested.depth must be a non-negative integer up to 9, got 1e+308, past the largest integer a number holds exactly (9007199254740991)',
    ],
    [{ name: 'x', items: ['a', 2] }, 'invalid_option', 'demo(): items[1] must be a string, got 2'],
    [
      { name: 'x', items: ['a', undefined] },
      'invalid_option',
      'demo(): items[1] must be a string, got undefined',
    ],
    [
      { name: 'x', nested: { depth: 10 } },
      'invalid_option',
      'demo(): nested.depth must be a non-negative integer up to 9, got 10',
    ],
    [
      { name: 'x', nested: { dept: 1 } },
      'unknown_option',
      'demo(): unknown option "nested.dept" (did you mean "nested.depth"?)',
    ],
    [
      { name: 'x', timeout: 5 },
      'unknown_option',
      'demo(): unknown option "timeout" (did you mean "limitMs"?)',
    ],
    [
      { name: 'x', colour: 'red', Items: [] },
      'unknown_option',
      'demo(): unknown options "colour" and "Items" (did you mean "items"?); known options: name, limitMs, items, nested',
    ],
  ])('refuses %j', (options, code, message) => {
    expect(check(options)).toThrowError(new OptionsError(code, message));
  });

  it('throws the class the owner names', () => {
    class Custom extends Error {
      constructor(
        readonly code: string,
        message: string,
      ) {
        super(message);
      }
    }
    expect(() => checkOptions(null, SPEC, { name: 'x()', error: Custom })).toThrowError(Custom);
  });

  it('uses the codes the owner names for an unknown key and a refused value', () => {
    const owner = { name: 'x()', error: OptionsError, invalidCode: 'bad_value', unknownCode: 'bad_key' };
    expect(() => checkOptions({ name: 'a', timeout: 1 }, SPEC, owner)).toThrowError(
      new OptionsError('bad_key', 'x(): unknown option "timeout" (did you mean "limitMs"?)'),
    );
    expect(() => checkOptions({ name: 'a', timeout: 1 }, SPEC, owner)).toThrow(
      expect.objectContaining({ code: 'bad_key' }),
    );
    expect(() => checkOptions({ name: 'a', limitMs: 0 }, SPEC, owner)).toThrow(
      expect.objectContaining({ code: 'bad_value' }),
    );
  });
});

describe('suggest', () => {
  const known = ['maxConcurrency', 'maxQueue', 'timeoutMs', 'tools', 'url'];

  it.each([
    ['timeout', 'timeoutMs'], // alias
    ['Timeout', 'timeoutMs'], // alias, folded
    ['maxqueue', 'maxQueue'], // case
    ['max_queue', 'maxQueue'], // separators
    ['MAX-CONCURRENCY', 'maxConcurrency'],
    ['maxConcurency', 'maxConcurrency'], // one letter missing
    ['maxConcurrnecy', 'maxConcurrency'], // two letters swapped
    ['tool', 'tools'], // short: one edit
    ['uri', 'url'],
  ])('%s → %s', (key, hint) => {
    expect(suggest(key, known, { timeout: 'timeoutMs' })).toBe(hint);
  });

  it.each(['retries', 'tls', 'mq', 'to', 'maxCon'])('has no hint for %s', (key) => {
    expect(suggest(key, known, {})).toBeUndefined();
  });

  it("hints an option of an object option given a level up, by its name or another SDK's", () => {
    const nested = {
      retry: { rules: { maxAttempts: anInteger({ min: 1 }) }, aliases: { maxRetries: 'maxAttempts' } },
    };
    expect(suggest('maxRetries', known, {}, nested)).toBe('retry.maxAttempts');
    expect(suggest('max_attempts', known, {}, nested)).toBe('retry.maxAttempts');
    expect(suggest('MaxRetries', known, {}, nested)).toBe('retry.maxAttempts');
    // The owner's own names come first.
    expect(
      suggest('maxqueue', known, {}, { ...nested, q: { rules: { maxQueue: anInteger({ min: 1 }) } } }),
    ).toBe('maxQueue');
    expect(check({ name: 'x', depth: 1 })).toThrowError(
      new OptionsError('unknown_option', 'demo(): unknown option "depth" (did you mean "nested.depth"?)'),
    );
  });
});

describe('describeValue', () => {
  class Thing {}
  it.each([
    ['text', '"text"'],
    ['x'.repeat(81), `"${'x'.repeat(80)}…"`],
    ['😀'.repeat(81), `"${'😀'.repeat(80)}…"`],
    [42, '42'],
    [-0, '-0'],
    [Number.NaN, 'NaN'],
    [10n, '10n'],
    [true, 'true'],
    [null, 'null'],
    [undefined, 'undefined'],
    [Symbol('s'), 'Symbol(s)'],
    [() => 1, 'a function'],
    [[1], 'an array of 1 item'],
    [[1, 2], 'an array of 2 items'],
    [/a+/g, '/a+/g'],
    [{ secret: 'x' }, 'an object'],
    [Object.create(null), 'an object'],
    [new Map(), 'a Map'],
    [new Thing(), 'a Thing'],
    [new Error('x'), 'an Error'],
    [new URL('ws://x/'), 'a URL'],
    [new URLSearchParams(), 'a URLSearchParams'],
    [new Uint8Array(1), 'a Uint8Array'],
    [new Int8Array(1), 'an Int8Array'],
    [new ArrayBuffer(1), 'an ArrayBuffer'],
    [new (class HTMLThing {})(), 'an HTMLThing'],
    [new (class MCPServer {})(), 'an MCPServer'],
    [new (class UnknownThing {})(), 'an UnknownThing'],
    [new (class Usage {})(), 'a Usage'],
  ])('describes %s as %s', (value, shown) => {
    expect(describeValue(value)).toBe(shown);
  });
});

describe('a Proxy whose traps throw, given as options', () => {
  const hostile = new Proxy(
    {},
    {
      getPrototypeOf() {
        throw new Error('trap');
      },
    },
  );
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();

  it('is no options object, and is described by kind alone: neither throws', () => {
    for (const value of [hostile, revoked]) {
      expect(isOptionsObject(value)).toBe(false);
      expect(describeValue(value)).toBe('an unreadable object');
    }
  });

  it("is refused as options with the owner's error, not the trap's", () => {
    expect(check(hostile)).toThrow(
      new OptionsError('invalid_options', 'demo(): options must be an object, got an unreadable object'),
    );
  });
});
