/**
 * Property tests of `invokeTool` over hostile arguments and hostile tools: arbitrary values and JSON text,
 * double-encoded JSON, deep nesting, huge strings, lone surrogates, `__proto__`/`constructor` keys, numbers out
 * of range; tools that return or throw anything. Always: no rejection, no prototype pollution, exactly one
 * result whose status is known and whose output is well-formed text within `maxOutputBytes`; `execute` runs
 * only when the arguments are valid.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invokeTool, tool } from '../../src/index';
import { Redactor } from '../../src/logger';
import { serializeOutput, truncateJsonString, truncationMarker } from '../../src/tool/output';
import { jsonStringBytes } from '../../src/utf8';
import { TOOL_CALL_STATUSES, utf8Length } from '../../src/wire/protocol';

const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();
afterEach(() => {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeKeys);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
});

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const awkwardKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'a', 'n'),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const awkwardNumber = fc.oneof(
  fc.constantFrom(0, -0, 2 ** 53 + 2, 1e21, 1e308, -1e308, 5e-324, Number.NaN, Infinity, -Infinity),
  fc.double(),
);
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 100 }),
  fc.constantFrom(
    '',
    '  ',
    'null',
    '[]',
    '42',
    '"{\\"a\\":1}"',
    '{"__proto__":{"polluted":"yes"}}',
    '\uD800',
  ),
);
/** Values as a model, or a hostile service, might send them; objects built so `__proto__` is an own key. */
const hostile: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, undefined, true, false),
    awkwardNumber,
    anyText,
    fc.bigInt(),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(awkwardKey, tie('value')), { maxLength: 4 }).map((entries) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of entries)
        Object.defineProperty(out, key, { value, enumerable: true, writable: true });
      return out;
    }),
  ),
})).value;
/** Raw arguments: a hostile value, its JSON text, or its JSON text encoded twice. */
const rawArguments = fc.oneof(
  hostile,
  hostile.map((value) => safeJson(value)),
  hostile.map((value) => JSON.stringify(safeJson(value))),
  fc.constantFrom('{"__proto__":{"polluted":"yes"}}', '{"constructor":{"prototype":{"polluted":"yes"}}}'),
);

function safeJson(value: unknown): string {
  try {
    return (
      JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? String(item) : item)) ??
      'null'
    );
  } catch {
    return 'null';
  }
}

function deeply(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = { next: value, list: [i] };
  return value;
}

let executions = 0;
const tools = [
  // No parameters: every object is accepted.
  tool({
    name: 'echo',
    description: 'Returns its input.',
    execute: (input) => {
      executions += 1;
      return input;
    },
  }),
  // A zod schema.
  tool({
    name: 'typed',
    description: 'Typed input.',
    parameters: z.object({ a: z.number(), note: z.string().optional() }),
    execute: ({ a, note }) => {
      executions += 1;
      return { a, note, merged: Object.assign({}, { a }, JSON.parse('{"__proto__":{"polluted":"yes"}}')) };
    },
  }),
  // A plain JSON Schema.
  tool({
    name: 'schema',
    description: 'JSON Schema input.',
    parameters: {
      type: 'object',
      properties: { n: { type: 'number' } },
      additionalProperties: true,
    } as const,
    execute: (input) => {
      executions += 1;
      return JSON.stringify(input);
    },
  }),
  // Throws whatever it was given.
  tool({
    name: 'thrower',
    description: 'Throws its input.',
    execute: (input) => {
      executions += 1;
      throw (input as { value?: unknown }).value ?? input;
    },
  }),
];
const returning = (value: unknown) =>
  tool({ name: 'returns', description: 'Returns a value.', execute: () => value });
const throwing = (value: unknown) =>
  tool({
    name: 'throws',
    description: 'Throws a value.',
    execute: () => {
      throw value;
    },
  });

function checkResult(result: Awaited<ReturnType<typeof invokeTool>>, maxOutputBytes?: number) {
  expect(TOOL_CALL_STATUSES).toContain(result.status);
  expect(typeof result.output).toBe('string');
  expect(LONE_SURROGATE.test(result.output)).toBe(false);
  expect(result.output).not.toContain('[object Object]');
  expect(result.output).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack trace
  if (maxOutputBytes !== undefined) expect(utf8Length(result.output)).toBeLessThanOrEqual(maxOutputBytes);
  expect(Number.isInteger(result.durationMs) && result.durationMs >= 0).toBe(true);
}

describe('invokeTool with hostile arguments', () => {
  it('always resolves with one well-formed result, and runs execute only for valid arguments', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...tools),
        rawArguments,
        fc.option(fc.integer({ min: 64, max: 300 }), { nil: undefined }),
        async (target, raw, maxOutputBytes) => {
          const before = executions;
          const result = await invokeTool(
            target,
            raw,
            maxOutputBytes === undefined ? {} : { maxOutputBytes },
          );
          checkResult(result, maxOutputBytes);
          const ran = executions - before;
          expect(ran).toBeLessThanOrEqual(1);
          if (result.status === 'invalid_arguments') expect(ran).toBe(0);
          if (result.status === 'ok' || result.status === 'error') expect(ran).toBe(1);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('calls values JSON cannot hold invalid arguments, not a tool error, under a JSON Schema', async () => {
    const schema = tools[2]!;
    expect(await invokeTool(schema, { n: 10n })).toMatchObject({
      status: 'invalid_arguments',
      output: 'Invalid arguments for schema: n: expected a JSON value, received bigint',
    });
    expect(await invokeTool(schema, { list: [1, () => 2] })).toMatchObject({
      status: 'invalid_arguments',
      output: 'Invalid arguments for schema: list[1]: expected a JSON value, received function',
    });
    // A property set to undefined is an absent one, as in JSON.
    expect(await invokeTool(schema, { n: undefined })).toMatchObject({ status: 'ok', output: '{}' });
    expect(await invokeTool(schema, { n: 1, extra: undefined })).toMatchObject({
      status: 'ok',
      output: '{"n":1}',
    });
  });

  it('handles arguments nested 10,000 deep, and 1 MB strings', async () => {
    for (const target of tools) {
      checkResult(await invokeTool(target, deeply(10_000)));
      checkResult(await invokeTool(target, { a: 1, note: 'x'.repeat(1_000_000) }));
      checkResult(await invokeTool(target, `${'['.repeat(100_000)}${']'.repeat(100_000)}`));
    }
  });
});

describe('invokeTool with hostile tools', () => {
  it('turns anything a tool returns or throws into one well-formed result', async () => {
    await fc.assert(
      fc.asyncProperty(
        hostile,
        fc.boolean(),
        fc.option(fc.integer({ min: 64, max: 200 }), { nil: undefined }),
        async (value, throws, maxOutputBytes) => {
          const target = throws ? throwing(value) : returning(value);
          const result = await invokeTool(target, {}, maxOutputBytes === undefined ? {} : { maxOutputBytes });
          checkResult(result, maxOutputBytes);
          expect(result.status).toBe(throws ? 'error' : 'ok');
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('survives values that fight serialisation: throwing getters, cycles, proxies, deep nesting', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const trap = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('no keys for you');
        },
      },
    );
    const getter = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get() {
        throw new Error('getter');
      },
    });
    for (const value of [
      cyclic,
      trap,
      getter,
      deeply(10_000),
      { toJSON: () => cyclic },
      Object.create(null),
    ]) {
      checkResult(await invokeTool(returning(value), {}));
      checkResult(await invokeTool(throwing(value), {}));
    }
  });
});

/** JSON values only (what JSON.parse can give), with awkward keys, `__proto__` as an own key. */
const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(null, true, false, 0, -1.5, 1e21),
    fc.string({ unit: 'grapheme', maxLength: 10 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.array(fc.tuple(awkwardKey, tie('value')), { maxLength: 4 }).map((entries) => {
      const out: Record<string, unknown> = {};
      for (const [key, value] of entries)
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      return out;
    }),
  ),
})).value;

describe('what the model reads of a JSON value', () => {
  it('is what JSON.stringify writes, every key kept (__proto__ and constructor included)', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        const expected = typeof value === 'string' ? value : JSON.stringify(value);
        expect(serializeOutput(value)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
    expect(serializeOutput(JSON.parse('{"__proto__":{"a":1},"b":2}'))).toBe('{"__proto__":{"a":1},"b":2}');
    expect(serializeOutput(new Map([['__proto__', 1]]))).toBe('{"__proto__":1}');
  });

  it('keeps every key through redaction (widgets and log fields)', () => {
    const redactor = new Redactor(['secret-value']);
    fc.assert(
      fc.property(jsonValue, (value) => {
        expect(JSON.stringify(redactor.value(value))).toBe(JSON.stringify(value));
      }),
      { numRuns: 1_000 },
    );
    expect(JSON.stringify(redactor.value(JSON.parse('{"__proto__":{"k":"secret-value"}}')))).toBe(
      '{"__proto__":{"k":"[redacted]"}}',
    );
  });
});

describe('the JSON size of outputs', () => {
  it('counts JSON.stringify bytes exactly, lone surrogates and controls included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(jsonStringBytes(text)).toBe(Buffer.byteLength(JSON.stringify(text)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('cuts to fit the JSON cap: a prefix on a character boundary, then the marker', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.integer({ min: 2, max: 600 }),
        (text, cap) => {
          const cut = truncateJsonString(text, cap);
          expect(jsonStringBytes(cut)).toBeLessThanOrEqual(cap);
          if (jsonStringBytes(text) <= cap) {
            expect(cut).toBe(text);
            return;
          }
          const marker = truncationMarker(utf8Length(text));
          if (jsonStringBytes(marker) > cap) {
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
      { numRuns: 2_000 },
    );
  });
});
