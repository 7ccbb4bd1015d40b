import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { metadataOnlyAnnotates, NO_METADATA, zod4InputJsonSchema } from '../../../src/tool/schema/zod4';

// zod's own converter, which every zod 4 has (Standard JSON Schema, `~standard.jsonSchema`, came in 4.2).
const annotates = (schema: z.ZodType) =>
  metadataOnlyAnnotates(zod4InputJsonSchema(schema), () =>
    z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12', metadata: NO_METADATA as never }),
  );

describe('metadataOnlyAnnotates', () => {
  it('is true without metadata', () => {
    expect(annotates(z.object({ a: z.string().min(1), b: z.number().nullable() }))).toBe(true);
  });

  it('is true for descriptions, titles, examples and deprecation, at any depth', () => {
    const schema = z
      .object({
        a: z.string().describe('A'),
        b: z.array(z.number().meta({ title: 'B', examples: [1, 2], deprecated: true })).describe('Bs'),
        c: z.object({ d: z.boolean().meta({ description: 'D', $comment: 'internal' }) }),
      })
      .describe('Everything');
    expect(annotates(schema)).toBe(true);
  });

  it('is true for a described schema made nullable, which zod announces with anyOf instead of a type list', () => {
    const schema = z.object({ a: z.string().describe('A').nullable() });
    expect(zod4InputJsonSchema(schema).properties).toEqual({
      a: { anyOf: [{ type: 'string', description: 'A' }, { type: 'null' }] },
    });
    expect(annotates(schema)).toBe(true);
  });

  it('is true for a property named after an annotation', () => {
    expect(annotates(z.object({ description: z.string(), default: z.number().describe('n') }))).toBe(true);
  });

  it.each([
    ['adds a constraint', z.string().meta({ minLength: 3 })],
    ['changes the type', z.number().meta({ type: 'integer' })],
    ['adds a pattern', z.string().meta({ pattern: '^a' })],
    ['moves the schema to $defs (an id)', z.string().meta({ id: 'zod4-metadata-test-id' })],
    ['adds a keyword it does not know (x-…)', z.string().meta({ 'x-unit': 'ms' })],
  ])('is false when metadata %s', (_, field) => {
    expect(annotates(z.object({ field }))).toBe(false);
  });
});
