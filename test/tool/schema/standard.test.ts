import { runInNewContext } from 'node:vm';
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { invokeTool, tool } from '../../../src/index';
import { expectDefinitionError } from '../../fixtures/schema/definition-error';

const echo = (input: unknown) => input;

type AcmeProps = StandardSchemaV1.Props & Partial<StandardJSONSchemaV1.Props>;

/** A minimal Standard Schema of `{ n: number }` from a made-up library, optionally with Standard JSON Schema. */
function acme(options: { jsonSchema?: boolean; validate?: StandardSchemaV1.Props['validate'] } = {}) {
  const props: { -readonly [K in keyof AcmeProps]: AcmeProps[K] } = {
    version: 1,
    vendor: 'acme',
    validate:
      options.validate ??
      (async (value) => {
        const n = (value as { n?: unknown }).n;
        return typeof n === 'number'
          ? { value: { n } }
          : { issues: [{ message: 'must be a number', path: [{ key: 'n' }] }] };
      }),
  };
  if (options.jsonSchema !== false) {
    props.jsonSchema = {
      input: () => ({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { n: { type: 'number' } },
        required: ['n'],
      }),
      output: () => ({}),
    };
  }
  return { '~standard': props } as StandardSchemaV1<{ n: number }>;
}

describe('any other Standard Schema', () => {
  it('is announced through Standard JSON Schema, without $schema', () => {
    const t = tool({ name: 'acme', description: 'd', parameters: acme(), execute: echo });
    expect(t.definition.parameters).toEqual({
      type: 'object',
      properties: { n: { type: 'number' } },
      required: ['n'],
    });
  });

  it('is validated through ~standard.validate, awaited', async () => {
    const t = tool({ name: 'acme', description: 'd', parameters: acme(), execute: ({ n }) => n + 1 });
    expect(await invokeTool(t, { n: 1 })).toMatchObject({ status: 'ok', output: '2' });
    expect((await invokeTool(t, { n: 'x' })).output).toBe(
      'Invalid arguments for acme: n: expected a number, received "x"',
    );
  });

  it('reports a validator that throws as an issue at the root', async () => {
    const t = tool({
      name: 'acme',
      description: 'd',
      parameters: acme({
        validate: () => {
          throw new Error('boom');
        },
      }),
      execute: echo,
    });
    expect(await invokeTool(t, {})).toMatchObject({
      status: 'invalid_arguments',
      output: 'Invalid arguments for acme: (root): validation failed: boom',
    });
  });

  it('reports a validator whose promise rejects the same way as one that throws', async () => {
    const t = tool({
      name: 'acme',
      description: 'd',
      parameters: acme({ validate: () => Promise.reject(new Error('boom later')) }),
      execute: echo,
    });
    expect(await invokeTool(t, {})).toMatchObject({
      status: 'invalid_arguments',
      output: 'Invalid arguments for acme: (root): validation failed: boom later',
    });
  });

  it('waits for a promise from another realm (any thenable the spec allows), resolved or rejected', async () => {
    const OtherPromise = runInNewContext('Promise') as PromiseConstructor;
    const run = async (answer: () => Promise<unknown>) => {
      let got: unknown = 'not called';
      const t = tool({
        name: 'acme',
        description: 'd',
        parameters: acme({ validate: answer as never }),
        execute: (input) => {
          got = input;
          return 'ran';
        },
      });
      return { result: await invokeTool(t, { n: 1 }), got };
    };
    expect(await run(() => OtherPromise.resolve({ value: { n: 2 } }))).toMatchObject({
      result: { status: 'ok' },
      got: { n: 2 },
    });
    expect(
      await run(() => OtherPromise.resolve({ issues: [{ message: 'too big', path: [{ key: 'n' }] }] })),
    ).toMatchObject({
      result: { status: 'invalid_arguments', output: 'Invalid arguments for acme: n: too big' },
      got: 'not called',
    });
    expect(await run(() => OtherPromise.reject(new Error('exploded')))).toMatchObject({
      result: {
        status: 'invalid_arguments',
        output: 'Invalid arguments for acme: (root): validation failed: exploded',
      },
      got: 'not called',
    });
  });

  it('says "is invalid" for an issue without a message', async () => {
    const t = tool({
      name: 'acme',
      description: 'd',
      parameters: acme({ validate: () => ({ issues: [{ message: '', path: ['a', 0, Symbol.for('s')] }] }) }),
      execute: echo,
    });
    // Arguments the announcement accepts: the library's issue is the only one.
    expect((await invokeTool(t, { n: 1 })).output).toBe(
      'Invalid arguments for acme: a[0][Symbol(s)]: is invalid',
    );
  });

  it('is refused at definition time when it cannot describe itself as JSON Schema', () => {
    expectDefinitionError(
      () => tool({ name: 'acme', description: 'd', parameters: acme({ jsonSchema: false }), execute: echo }),
      'unsupported_schema',
      'tool "acme": parameters cannot be expressed as JSON Schema: the "acme" Standard Schema does not implement ' +
        'Standard JSON Schema (`~standard.jsonSchema`); pass a JSON Schema object instead, or a zod, valibot or arktype schema',
    );
  });

  it('is refused at definition time, not with a raw TypeError, when its JSON Schema is cyclic', () => {
    const schema = acme();
    const cyclic: Record<string, unknown> = { type: 'object', properties: {} };
    (cyclic.properties as Record<string, unknown>).self = cyclic;
    (schema['~standard'] as unknown as { jsonSchema: { input: () => unknown } }).jsonSchema.input = () =>
      cyclic;
    expect(() => tool({ name: 'acme', description: 'd', parameters: schema, execute: echo })).toThrow(
      expect.objectContaining({
        name: 'ToolDefinitionError',
        code: 'unsupported_schema',
        message: expect.stringMatching(
          /^tool "acme": parameters cannot be expressed as JSON Schema: Converting circular structure to JSON/,
        ),
      }),
    );
  });
});

describe('parameters of no accepted kind', () => {
  const expected = (name: string, got: string) =>
    `tool "${name}": parameters must be a Standard Schema (zod, valibot, arktype, …), a JSON Schema object or undefined, got ${got}`;

  it.each([
    ['a string', 'object'],
    ['a number', 42],
    ['null', null],
    ['an array', [{ type: 'object' }]],
    ['an instance of Date', new Date(0)],
    ['a function', () => ({})],
  ])('refuses %s', (got, parameters) => {
    expectDefinitionError(
      () => tool({ name: 'bad', description: 'd', parameters: parameters as never, execute: echo }),
      'invalid_parameters',
      expected('bad', got),
    );
  });
});

describe('an object of schemas (a shape) as parameters', () => {
  it.each([
    ['zod 4', { email: z.email(), limit: z.number() }, 'zod', 'z.object({ … })'],
    ['zod 3', { email: z3.string() }, 'zod', 'z.object({ … })'],
    ['valibot', { email: v.string() }, 'valibot', 'v.object({ … })'],
    ['arktype', { email: type('string') }, 'arktype', 'type({ … })'],
  ])('refuses a %s shape, naming the object schema to wrap it in', (_, parameters, vendor, wrapper) => {
    expectDefinitionError(
      () => tool({ name: 'find', description: 'd', parameters: parameters as never, execute: echo }),
      'invalid_parameters',
      `tool "find": parameters is an object of ${vendor} schemas (a shape), not a schema: wrap it in ${wrapper}`,
    );
  });
});
