/**
 * One rule for schemas whose input side is unknown, in zod 3 and zod 4 alike: `z.unknown()` / `z.any()` (and a
 * `.transform()` of them) accept any JSON value and are announced as `{}`, which is exact, so they are fine
 * wherever a value may be anything. A `z.preprocess()` or a pipe out of `z.unknown()` / `z.any()` into a
 * narrower schema accepts only what gets through, which no JSON Schema can announce: refused at definition time.
 * As the whole `parameters`, an unknown input does not describe an object: refused too.
 */
import { describe, expect, it } from 'vitest';
import { z as z4 } from 'zod';
import { z as z3 } from 'zod3';
import { invokeTool, type ToolParameters, tool } from '../../../src/index';
import { expectDefinitionError } from '../../fixtures/schema/definition-error';

const echo = (input: unknown) => input;
const define = (parameters: unknown) =>
  tool({ name: 't', description: 'd', parameters: parameters as ToolParameters, execute: echo });

const PREPROCESS =
  'tool "t": parameters cannot be expressed as JSON Schema: z.preprocess() accepts whatever its function turns into a valid value, which JSON Schema cannot describe; describe what the model sends and use .transform() instead';
const UNKNOWN_PIPE =
  'tool "t": parameters cannot be expressed as JSON Schema: a pipe from z.unknown() or z.any() into a narrower schema accepts only what that schema accepts, which JSON Schema cannot describe as its input; use the narrower schema itself';
const NOT_AN_OBJECT =
  'tool "t": parameters must describe a JSON object (JSON Schema "type": "object"), got no "type"';

// The same schema built with each zod, keyed by what it is.
const versions = { 'zod 3': z3, 'zod 4': z4 } as unknown as Record<string, typeof z4>;

describe.each(Object.entries(versions))('%s', (_, z) => {
  it.each([
    ['z.unknown()', () => z.unknown()],
    ['z.any()', () => z.any()],
    ['z.unknown().transform()', () => z.unknown().transform((v) => String(v))],
    ['z.any().transform()', () => z.any().transform((v) => String(v))],
    ['z.preprocess() into z.unknown()', () => z.preprocess((v) => v, z.unknown())],
  ])('accepts %s inside an object, announced as {} and accepting any JSON value', async (__, field) => {
    const made = define(z.object({ v: field() }));
    expect(made.definition.parameters.properties).toEqual({ v: {} });
    for (const v of ['text', 1, null, [1], { a: 1 }]) {
      expect((await invokeTool(made, { v })).status).toBe('ok');
    }
  });

  it.each([
    ['into a string', () => z.preprocess((v) => String(v), z.string())],
    ['into an object', () => z.preprocess((v) => v, z.object({ a: z.number() }))],
    ['inside an array', () => z.array(z.preprocess((v) => Number(v), z.number()))],
    ['inside a union', () => z.union([z.boolean(), z.preprocess((v) => Number(v), z.number())])],
    ['made optional', () => z.preprocess((v) => String(v), z.string()).optional()],
  ])('refuses z.preprocess() %s', (__, field) => {
    expectDefinitionError(() => define(z.object({ v: field() })), 'unsupported_schema', PREPROCESS);
  });

  it('refuses z.preprocess() as the whole parameters', () => {
    const parameters = z.preprocess((v) => v, z.object({ a: z.number() }));
    expectDefinitionError(() => define(parameters), 'unsupported_schema', PREPROCESS);
  });

  it.each([
    ['z.unknown().pipe(z.string())', () => z.unknown().pipe(z.string())],
    ['z.any().pipe(z.number())', () => z.any().pipe(z.number())],
    [
      'z.unknown().transform().pipe(z.string())',
      () =>
        z
          .unknown()
          .transform((v) => String(v))
          .pipe(z.string()),
    ],
  ])('refuses %s', (__, field) => {
    expectDefinitionError(() => define(z.object({ v: field() })), 'unsupported_schema', UNKNOWN_PIPE);
  });

  it.each([
    ['z.unknown()', () => z.unknown()],
    ['z.any()', () => z.any()],
    ['z.unknown().transform()', () => z.unknown().transform((v) => ({ v }))],
  ])('refuses %s as the whole parameters: it does not describe an object', (__, parameters) => {
    expectDefinitionError(() => define(parameters()), 'invalid_parameters', NOT_AN_OBJECT);
  });

  it('still announces the input side of an ordinary transform and pipe', () => {
    const made = define(
      z.object({
        n: z.string().transform((s) => s.length),
        p: z.string().pipe(z.string().min(2)),
      }),
    );
    expect(made.definition.parameters.properties).toEqual({ n: { type: 'string' }, p: { type: 'string' } });
  });
});
