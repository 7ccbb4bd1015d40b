/**
 * `Redactor.error` (src/redact.ts) on the other fields of an error: an `errors` field of an error that is no
 * `AggregateError`, an error held in a field, a plain-object cause or a `code`, symbol keys, keys that hold the
 * secret, an error whose keys cannot be read, and an error of many fields. The secret must be in no field of the
 * copy, as `console.error` prints it, and the original unchanged.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REDACTED, Redactor } from '../src/redact';

const SECRET = 'sk-live-Ab3dEf9hIjKl';
const redactor = new Redactor([SECRET]);
const printed = (value: unknown) => inspect(value, { depth: 40 }).toLowerCase();
const host = (error: Error) => Object.assign(error, { hostname: `${SECRET.toLowerCase()}.invalid` });

describe('Redactor.error: the other fields of an error', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([
    [
      'an `errors` field of an error that is no AggregateError',
      () => Object.assign(new Error('m'), { errors: [SECRET] }),
    ],
    ['an error in a field', () => Object.assign(new Error('m'), { inner: host(new Error('x')) })],
    ['an error in a plain-object cause', () => new Error('m', { cause: { error: host(new Error('x')) } })],
    [
      'an error in a field of a cause',
      () => new Error('m', { cause: Object.assign(new Error('c'), { inner: host(new Error('x')) }) }),
    ],
    ['an error in a `code`', () => Object.assign(new Error('m'), { code: { error: host(new Error('x')) } })],
    [
      'an error that holds itself',
      () => {
        const error = new Error('m') as Error & Record<string, unknown>;
        Object.assign(error, { self: error, about: { error, token: SECRET } });
        return error;
      },
    ],
    ['a symbol-keyed field', () => Object.assign(new Error('m'), { [Symbol('token')]: SECRET })],
    ['a symbol key that names the secret', () => Object.assign(new Error('m'), { [Symbol(SECRET)]: 1 })],
    ['a key that holds the secret', () => Object.assign(new Error('m'), { [`for ${SECRET}`]: 1 })],
  ])('leaves no secret in %s', (_, make) => {
    const original = make();
    const before = inspect(original, { depth: 10, showHidden: true });
    const copy = redactor.error(original);
    expect(printed(copy)).not.toContain(SECRET.toLowerCase());
    expect(inspect(original, { depth: 10, showHidden: true })).toBe(before);
    if (printed(original).includes(SECRET.toLowerCase())) {
      expect(copy).not.toBe(original);
      expect(copy).toBeInstanceOf(Error);
      expect(copy.name).toBe(original.name);
    }
  });

  it('keeps an `errors` field redacted, and leaves off a field whose key holds the secret', () => {
    const original = Object.assign(new Error('m'), { [`for ${SECRET}`]: 1, errors: [`k ${SECRET}`] });
    const copy = redactor.error(original) as unknown as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(['errors']);
    expect(copy.errors).toEqual([`k ${REDACTED}`]);
  });

  it('gives "[Unreadable]" for an error whose keys cannot be read, though its message is clean', () => {
    const error = new Proxy(Object.assign(new Error('m'), { hostname: SECRET }), {
      ownKeys(): never {
        throw new Error('no keys');
      },
    });
    expect(redactor.error(error)).toBe('[Unreadable]');
    expect(redactor.error(new Error('m', { cause: error }))).toBe('[Unreadable]');
  });

  it("reads an error's 20,000 own fields in work that grows with their number", () => {
    const error = new Error('m') as Error & Record<string, unknown>;
    for (let i = 0; i < 20_000; i++) error[`f${i}`] = i;
    error.f19999 = SECRET;
    // The work of looking a field up in a list of the fields read so far (quadratic in them).
    let searched = 0;
    const includes = Array.prototype.includes;
    vi.spyOn(Array.prototype, 'includes').mockImplementation(function (this: unknown[], ...args) {
      searched += this.length;
      return includes.apply(this, args as [unknown, number?]);
    });
    const copy = redactor.error(error) as unknown as Record<string, unknown>;
    vi.restoreAllMocks();
    expect(copy.f19999).toBe(REDACTED);
    expect(copy.f0).toBe(0);
    expect(searched).toBeLessThan(20_000);
  });
});

describe('Redactor.error: a chain longer than the errors it copies', () => {
  const chain = (last: Error, length: number) => {
    let error = last;
    for (let i = 1; i < length; i++) error = new Error(`e${i}`, { cause: error });
    return error;
  };

  it.each([
    ['its message', () => new Error(`last ${SECRET}`)],
    ['its hostname', () => host(new Error('last'))],
  ])('leaves no secret in the 18th error of a chain, in %s', (_, last) => {
    const original = chain(last(), 18);
    const copy = redactor.error(original);
    expect(copy).not.toBe(original);
    expect(copy).toBeInstanceOf(Error);
    expect(printed(copy)).not.toContain(SECRET.toLowerCase());
    expect(printed(original)).toContain(SECRET.toLowerCase());
  });

  it('gives back a long chain with no secret as it is', () => {
    const original = chain(new Error('last'), 30);
    expect(redactor.error(original)).toBe(original);
  });
});

describe("Redactor.error: an AggregateError's `errors` set to no array", () => {
  it.each([
    ['a string', SECRET],
    ['an object', { token: SECRET }],
    ['a Set of errors', new Set([new Error(SECRET)])],
    ['an error', host(new Error('x'))],
  ])('leaves no secret in %s', (_, errors) => {
    for (const enumerable of [false, true]) {
      const original = new AggregateError([], 'all failed');
      Object.defineProperty(original, 'errors', {
        value: errors,
        enumerable,
        writable: true,
        configurable: true,
      });
      const copy = redactor.error(original);
      expect(copy).not.toBe(original);
      expect(copy).toBeInstanceOf(AggregateError);
      expect(printed((copy as unknown as { errors: unknown }).errors)).not.toContain(SECRET.toLowerCase());
      expect(printed(copy)).not.toContain(SECRET.toLowerCase());
      expect((original as unknown as { errors: unknown }).errors).toBe(errors);
    }
  });
});

describe('Redactor.error: an error held in a field stays an error', () => {
  const inner = () => new TypeError(`inner ${SECRET}`);
  it.each([
    ['a field', () => Object.assign(new Error('m'), { inner: inner() }), ['inner']],
    [
      'a plain object in a field',
      () => Object.assign(new Error('m'), { details: { inner: inner() } }),
      ['details', 'inner'],
    ],
    ['an array in a field', () => Object.assign(new Error('m'), { list: [1, inner()] }), ['list', 1]],
    ['a plain-object cause', () => new Error('m', { cause: { inner: inner() } }), ['cause', 'inner']],
    [
      'a field of an error in a field',
      () => Object.assign(new Error('m'), { a: Object.assign(new Error('a'), { b: { inner: inner() } }) }),
      ['a', 'b', 'inner'],
    ],
  ] as const)('keeps the class, name and stack of an error in %s, redacted', (_, make, path) => {
    const original = make();
    const before = inspect(original, { depth: 10, showHidden: true });
    const copy = redactor.error(original);
    const at = (root: unknown) =>
      path.reduce<unknown>((value, key) => (value as Record<PropertyKey, unknown>)[key], root);
    const held = at(copy) as Error;
    expect(held).toBeInstanceOf(TypeError);
    expect([held.name, held.message]).toEqual(['TypeError', `inner ${REDACTED}`]);
    expect(held.stack?.startsWith(`TypeError: inner ${REDACTED}\n`)).toBe(true);
    expect(inspect(held).startsWith(`TypeError: inner ${REDACTED}\n`)).toBe(true);
    expect(printed(copy)).not.toContain(SECRET.toLowerCase());
    expect(inspect(original, { depth: 10, showHidden: true })).toBe(before);
    expect(at(original)).not.toBe(held);
  });

  it('writes a field that leads back to the error as [Circular]', () => {
    const original = new Error('m') as Error & Record<string, unknown>;
    original.about = { again: original, inner: inner() };
    const copy = redactor.error(original) as unknown as { about: { again: unknown; inner: Error } };
    expect(copy.about.again).toBe('[Circular]');
    expect(copy.about.inner).toBeInstanceOf(TypeError);
    expect(printed(copy)).not.toContain(SECRET.toLowerCase());
  });
});

describe('Redactor.error: fields no printer shows by default', () => {
  const hidden = (error: Error, key: string, descriptor: PropertyDescriptor) =>
    Object.defineProperty(error, key, { enumerable: false, configurable: true, ...descriptor });
  /** What pino's error serializer reads: every enumerable key, own or inherited (`for…in`). */
  const forIn = (error: object) => {
    const out: Record<string, unknown> = {};
    for (const key in error) out[key] = (error as Record<string, unknown>)[key];
    return inspect(out, { depth: 10 }).toLowerCase();
  };
  class Inherited extends Error {}
  (Inherited.prototype as unknown as Record<string, unknown>).hint = `inherited ${SECRET}`;

  it.each([
    ['a non-enumerable field', () => hidden(new Error('m'), 'secret', { value: SECRET, writable: true })],
    [
      'a non-enumerable object field',
      () => hidden(new Error('m'), 'config', { value: { headers: { authorization: `Bearer ${SECRET}` } } }),
    ],
    ['a non-enumerable getter', () => hidden(new Error('m'), 'token', { get: () => SECRET })],
    ['an enumerable field of its class', () => new Inherited('m')],
  ])('leaves no secret in %s, its enumerability kept', (_, make) => {
    const original = make();
    const enumerable = (error: object) => {
      const keys: string[] = [];
      for (const key in error) keys.push(key);
      return keys;
    };
    const keys = enumerable(original);
    const copy = redactor.error(original);
    expect(copy).not.toBe(original);
    expect(copy).toBeInstanceOf(original.constructor as typeof Error);
    expect(inspect(copy, { showHidden: true, depth: 10 }).toLowerCase()).not.toContain(SECRET.toLowerCase());
    expect(forIn(copy)).not.toContain(SECRET.toLowerCase());
    for (const key of [...Object.getOwnPropertyNames(copy), 'hint'])
      expect(printed((copy as unknown as Record<string, unknown>)[key])).not.toContain(SECRET.toLowerCase());
    expect(enumerable(copy)).toEqual(keys);
  });
});

/** Every string `value` holds in its own properties (enumerable or not, symbol-keyed too), at any depth. */
function ownStrings(value: unknown, seen = new Set<unknown>()): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null || seen.has(value)) return [];
  seen.add(value);
  return Reflect.ownKeys(value).flatMap((key) => {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    return descriptor !== undefined && 'value' in descriptor ? ownStrings(descriptor.value, seen) : [];
  });
}

describe("Redactor.error: the secret's encodings in an error's fields", () => {
  // The forms docs/guide/secrets.md promises: escaped, percent-encoded, case-folded, and a long secret's bytes.
  const forms: Array<[string, string]> = [
    ['JSON-escaped twice', JSON.stringify(JSON.stringify(SECRET))],
    ['\\u-escaped', [...SECRET].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
    ['percent-encoded twice', encodeURIComponent(encodeURIComponent(SECRET.replaceAll('-', '%2D')))],
    ['uppercased', SECRET.toUpperCase()],
    ['in base64 after other bytes', Buffer.from(`user:${SECRET}`).toString('base64')],
    ['in base64url', Buffer.from(`xy${SECRET}`).toString('base64url')],
    ['in hex', Buffer.from(SECRET).toString('hex')],
    ['as UTF-16LE hex', Buffer.from(SECRET, 'utf16le').toString('hex')],
    ['in base64 twice', Buffer.from(Buffer.from(SECRET).toString('base64')).toString('base64')],
  ];
  const places: Array<[string, (text: string) => Error]> = [
    ['its message', (text) => new Error(`m ${text}`)],
    ['an own field', (text) => Object.assign(new Error('m'), { url: `https://x.test/?k=${text}` })],
    [
      'a non-enumerable field',
      (text) => Object.defineProperty(new Error('m'), 'request', { value: { text }, enumerable: false }),
    ],
    ['an error in a field', (text) => Object.assign(new Error('m'), { details: { inner: new Error(text) } })],
    ['a plain-object cause', (text) => new Error('m', { cause: { text } })],
    ['an inner error of an AggregateError', (text) => new AggregateError([new Error(text)], 'm')],
  ];
  it.each(forms.flatMap(([form, text]) => places.map(([place, make]) => [form, place, text, make] as const)))(
    'leaves no secret %s in %s',
    (_form, _place, text, make) => {
      const original = make(text);
      expect(ownStrings(original).some((held) => held.includes(text))).toBe(true);
      const copy = redactor.error(original);
      expect(ownStrings(copy).filter((held) => held.includes(text))).toEqual([]);
      expect(ownStrings(redactor.value({ error: original })).filter((held) => held.includes(text))).toEqual(
        [],
      );
      expect(redactor.holds(copy)).toBe(false);
    },
  );
});
