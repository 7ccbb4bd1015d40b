import { describe, expect, it } from 'vitest';
import * as zod4 from 'zod/v4/core';
import * as zod325 from 'zod3/v4/core';
import { announcedSchema, DRAFT_2020_12 } from '../../src/mcp/register-tools';

const parameters = {
  type: 'object',
  properties: { id: { type: 'string', pattern: '^o_\\d+$' }, pair: { type: 'array', prefixItems: [{}, {}] } },
  required: ['id'],
  additionalProperties: false,
} as const;

describe('announcedSchema', () => {
  // The MCP SDK accepts zod ^3.25 || ^4 and converts with whichever copy it resolves, asking for draft-07.
  type Convert = (schema: unknown, params?: object) => unknown;
  it.each([
    ['zod 4', zod4.toJSONSchema as Convert],
    ['zod 3.25 (zod/v4)', zod325.toJSONSchema as Convert],
  ])('converts to the announced JSON Schema, as draft 2020-12, with %s', (_name, toJSONSchema) => {
    const schema = announcedSchema(parameters);
    const converted = toJSONSchema(schema, { target: 'draft-7', io: 'input' });
    expect(converted).toEqual({ $schema: DRAFT_2020_12, ...parameters });
    // Each conversion gets its own copy: nothing the caller does to one reaches the next.
    expect(toJSONSchema(schema)).not.toBe(converted);
  });

  it('lets every object through unchanged, for invokeTool to validate', () => {
    const schema = announcedSchema(parameters);
    const input = { id: 42, extra: { nested: [1, 2] } };
    const parsed = zod4.safeParse(schema, input);
    expect(parsed).toEqual({ success: true, data: input });
    expect(parsed.data?.extra).toBe(input.extra);
  });
});
