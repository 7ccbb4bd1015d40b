/**
 * Every kind of value a tool may return comes out as the model should read it: a property test over value kinds
 * (each with the JSON it must read as), nested at random in arrays, objects, Maps and Sets, and thrown.
 * README.md's "What the model reads" pins the same texts.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { invokeTool } from '../../src/call/invoke';
import { MAX_OUTPUT_NODES, serializeOutput, thrownMessage } from '../../src/tool/output';
import { tool } from '../../src/tool/tool';

/** A value and what `JSON.parse` of its text must give; `ABSENT` where JSON leaves it out (or `null` in arrays). */
type Kind = { value: () => unknown; reads: unknown; name: string };
const ABSENT = Symbol('absent');

const bytes = new Uint8Array([0, 1, 2, 250, 255, 104, 105]);
const BASE64 = `data:application/octet-stream;base64,${Buffer.from(bytes).toString('base64')}`;

class Temperature {
  #celsius = 21;
  get celsius(): number {
    return this.#celsius;
  }
}
class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}
function* generator(): Generator<number> {
  yield 1;
}

const KINDS: Kind[] = [
  { name: 'string', value: () => 'plain "quoted"\n', reads: 'plain "quoted"\n' },
  { name: 'number', value: () => 1.5, reads: 1.5 },
  { name: '-0', value: () => -0, reads: 0 },
  { name: 'NaN', value: () => Number.NaN, reads: 'NaN' },
  { name: 'Infinity', value: () => Number.POSITIVE_INFINITY, reads: 'Infinity' },
  { name: '-Infinity', value: () => Number.NEGATIVE_INFINITY, reads: '-Infinity' },
  { name: 'BigInt', value: () => 12345678901234567890n, reads: '12345678901234567890' },
  { name: 'boolean', value: () => true, reads: true },
  { name: 'null', value: () => null, reads: null },
  { name: 'undefined', value: () => undefined, reads: ABSENT },
  { name: 'function', value: () => () => 1, reads: ABSENT },
  { name: 'symbol', value: () => Symbol('s'), reads: ABSENT },
  { name: 'Uint8Array', value: () => bytes.slice(), reads: BASE64 },
  { name: 'Buffer', value: () => Buffer.from(bytes), reads: BASE64 },
  { name: 'ArrayBuffer', value: () => bytes.slice().buffer, reads: BASE64 },
  {
    name: 'DataView (a window)',
    value: () => {
      const backing = new Uint8Array([9, ...bytes, 9]);
      return new DataView(backing.buffer, 1, bytes.length);
    },
    reads: BASE64,
  },
  {
    name: 'Uint8Array (a window)',
    value: () => new Uint8Array([9, ...bytes, 9]).subarray(1, bytes.length + 1),
    reads: BASE64,
  },
  { name: 'Int16Array', value: () => new Int16Array([-1, 2]), reads: [-1, 2] },
  { name: 'Float64Array', value: () => new Float64Array([0.5, Number.NaN]), reads: [0.5, 'NaN'] },
  { name: 'BigInt64Array', value: () => new BigInt64Array([-5n]), reads: ['-5'] },
  {
    name: 'Blob',
    value: () => new Blob(['abc'], { type: 'text/plain' }),
    reads: '[Blob: 3 bytes, text/plain]',
  },
  { name: 'Date', value: () => new Date(0), reads: '1970-01-01T00:00:00.000Z' },
  { name: 'invalid Date', value: () => new Date(Number.NaN), reads: '[Invalid Date]' },
  { name: 'URL', value: () => new URL('https://x.test/a?b=1'), reads: 'https://x.test/a?b=1' },
  { name: 'URLSearchParams', value: () => new URLSearchParams('a=1&b=2'), reads: 'a=1&b=2' },
  { name: 'RegExp', value: () => /a+b/gi, reads: '/a+b/gi' },
  { name: 'String object', value: () => new String('boxed'), reads: 'boxed' },
  { name: 'Number object', value: () => new Number(7), reads: 7 },
  { name: 'Boolean object', value: () => new Boolean(false), reads: false },
  { name: 'BigInt object', value: () => Object(3n), reads: '3' },
  { name: 'Symbol object', value: () => Object(Symbol('s')), reads: ABSENT },
  {
    name: 'Map',
    value: () =>
      new Map<unknown, unknown>([
        ['a', 1],
        [2, 'b'],
      ]),
    reads: { a: 1, '2': 'b' },
  },
  { name: 'Set', value: () => new Set(['a', 1]), reads: ['a', 1] },
  {
    name: 'sparse array',
    value: () => {
      const sparse = [1, 2, 3];
      delete sparse[1];
      return sparse;
    },
    reads: [1, null, 3],
  },
  { name: 'symbol keys', value: () => ({ [Symbol('hidden')]: 1, shown: 2 }), reads: { shown: 2 } },
  { name: 'Error', value: () => new TypeError('bad'), reads: { name: 'TypeError', message: 'bad' } },
  {
    name: 'Error with a cause and a code',
    value: () => Object.assign(new Error('outer', { cause: new RangeError('inner') }), { code: 'E_OUT' }),
    reads: {
      name: 'Error',
      message: 'outer',
      code: 'E_OUT',
      cause: { name: 'RangeError', message: 'inner' },
    },
  },
  {
    name: 'AggregateError',
    value: () => new AggregateError([new Error('a'), 'b'], 'all failed'),
    reads: {
      name: 'AggregateError',
      message: 'all failed',
      errors: [{ name: 'Error', message: 'a' }, 'b'],
    },
  },
  { name: 'Promise', value: () => Promise.resolve(1), reads: '[Promise]' },
  { name: 'WeakMap', value: () => new WeakMap(), reads: '[WeakMap]' },
  { name: 'generator', value: () => generator(), reads: '[Generator]' },
  { name: 'class with getters only', value: () => new Temperature(), reads: '[Temperature]' },
  { name: 'class with fields', value: () => new Point(1, 2), reads: { x: 1, y: 2 } },
  { name: 'Proxy', value: () => new Proxy({ a: 1 }, {}), reads: { a: 1 } },
  {
    name: 'revoked Proxy',
    value: () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    },
    reads: "[Unserializable Object: Cannot perform 'getPrototypeOf' on a proxy that has been revoked]",
  },
  {
    name: 'Proxy whose get trap throws',
    value: () =>
      new Proxy(
        { id: 7 },
        {
          get(): never {
            throw new Error('no access');
          },
        },
      ),
    reads: { id: '[Unreadable: no access]' },
  },
  {
    name: 'Proxy whose ownKeys trap throws',
    value: () =>
      new Proxy(
        { id: 7 },
        {
          ownKeys(): never {
            throw new Error('no keys');
          },
        },
      ),
    reads: '[Unserializable Object: no keys]',
  },
  {
    name: 'getter that throws',
    value: () => ({
      ok: 1,
      get broken(): never {
        throw new Error('no access');
      },
    }),
    reads: { ok: 1, broken: '[Unreadable: no access]' },
  },
  {
    name: 'null prototype',
    value: () => Object.assign(Object.create(null) as object, { a: 1 }),
    reads: { a: 1 },
  },
];

/** A kind, or a container of kinds, with what it reads as. */
type Built = { value: unknown; reads: unknown };
const kindArb = fc.constantFrom(...KINDS).map((kind): Built => ({ value: kind.value(), reads: kind.reads }));
const builtArb: fc.Arbitrary<Built> = fc.letrec((tie) => ({
  built: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    kindArb,
    kindArb,
    fc.array(tie('built') as fc.Arbitrary<Built>, { maxLength: 3 }).map((items) => ({
      value: items.map((item) => item.value),
      reads: items.map((item) => (item.reads === ABSENT ? null : item.reads)),
    })),
    fc
      .uniqueArray(fc.tuple(fc.string({ maxLength: 4 }), tie('built') as fc.Arbitrary<Built>), {
        maxLength: 3,
        selector: ([key]) => key,
      })
      .chain((entries) =>
        fc.boolean().map((asMap) => {
          const reads: Record<string, unknown> = {};
          for (const [key, item] of entries) {
            if (item.reads !== ABSENT)
              Object.defineProperty(reads, key, { value: item.reads, enumerable: true });
          }
          const value = asMap
            ? new Map(entries.map(([key, item]) => [key, item.value]))
            : Object.fromEntries(entries.map(([key, item]) => [key, item.value]));
          return { value, reads };
        }),
      ),
  ),
})).built as fc.Arbitrary<Built>;

describe('values out', () => {
  it.each(KINDS)('a returned $name reads as pinned', (kind) => {
    const text = serializeOutput(kind.value());
    const expected = kind.reads === ABSENT ? null : kind.reads;
    expect(
      typeof kind.reads === 'string' && typeof kind.value() === 'string' ? text : JSON.parse(text),
    ).toEqual(expected);
  });

  it('reads every kind as pinned, nested at random in arrays, objects and Maps', () => {
    fc.assert(
      fc.property(builtArb, ({ value, reads }) => {
        fc.pre(typeof value !== 'string');
        const text = serializeOutput(value);
        expect(JSON.parse(text)).toEqual(reads === ABSENT ? null : reads);
      }),
      { numRuns: 1_000 },
    );
  });

  it(`writes at most ${MAX_OUTPUT_NODES.toLocaleString('en')} values, then says how many more there were`, () => {
    const huge: unknown[] = [];
    huge.length = 2 ** 32 - 1;
    const text = serializeOutput({ huge });
    const parsed = JSON.parse(text) as { huge: unknown[] };
    expect(parsed.huge.at(-1)).toBe(
      `[${2 ** 32 - 1 - (parsed.huge.length - 1)} more items: the output is too large]`,
    );
    let shared: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 60; i++) shared = { a: shared, b: shared };
    expect(serializeOutput(shared).length).toBeLessThan(50 * MAX_OUTPUT_NODES);
  });

  it('gives the same text through invokeTool for a returned value', async () => {
    const made = tool({ name: 'values', description: 'd', execute: () => KINDS.map((kind) => kind.value()) });
    const result = await invokeTool(made, {});
    expect(JSON.parse(result.output)).toEqual(
      KINDS.map((kind) => (kind.reads === ABSENT ? null : kind.reads)),
    );
  });
});

describe('values in', () => {
  it('gives back every JSON object the model sends, as JSON reads it (-0 as 0, lone surrogates escaped)', async () => {
    const echo = tool({
      name: 'echo',
      description: 'd',
      parameters: { type: 'object' },
      execute: (input: unknown) => input,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.string({ unit: 'binary', maxLength: 6 }),
          fc.jsonValue({ maxDepth: 8, stringUnit: 'binary' }),
        ),
        fc.boolean(),
        async (args, asText) => {
          const expected = JSON.parse(JSON.stringify(args)) as unknown;
          const result = await invokeTool(echo, asText ? JSON.stringify(args) : args);
          expect(result.status).toBe('ok');
          expect(JSON.parse(result.output)).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('thrown values', () => {
  it('read as their message; a cause stays out, an AggregateError lists its errors', () => {
    expect(
      thrownMessage(new Error('Could not load the order', { cause: new Error('ECONNREFUSED 10.0.0.5') })),
    ).toBe('Could not load the order');
    expect(
      thrownMessage(new AggregateError([new Error('a down'), 'b down'], 'All promises were rejected')),
    ).toBe('All promises were rejected (2 errors: a down; b down)');
    expect(thrownMessage(new AggregateError([]))).toBe('AggregateError (0 errors)');
    const many = new AggregateError(
      Array.from({ length: 7 }, (_, i) => new Error(`e${i}`)),
      'many',
    );
    expect(thrownMessage(many)).toBe('many (7 errors: e0; e1; e2; e3; e4; and 2 more)');
  });
});
