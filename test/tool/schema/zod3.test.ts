import { describe, expect, it } from 'vitest';
import { z } from 'zod3';
import { invokeTool, ToolwireError, tool } from '../../../src/index';
import { definitionRefusal, expectDefinitionError } from '../../fixtures/schema/definition-error';

const echo = (input: unknown) => input;

// What every kind does alike (announcement, messages, transforms, refusals) is in adapters.test.ts.
describe('zod 3 parameters', () => {
  it('announces no additionalProperties for a stripping object and false for .strict()', () => {
    const strict = tool({
      name: 'strict',
      description: 'd',
      parameters: z.object({ a: z.string() }).strict(),
      execute: echo,
    });
    const stripping = tool({
      name: 'stripping',
      description: 'd',
      parameters: z.object({ a: z.string() }),
      execute: echo,
    });
    expect(stripping.definition.parameters).not.toHaveProperty('additionalProperties');
    expect(strict.definition.parameters.additionalProperties).toBe(false);
  });

  it('announces tuples with prefixItems (JSON Schema 2020-12)', () => {
    const pair = tool({
      name: 'pair',
      description: 'd',
      parameters: z.object({ p: z.tuple([z.string(), z.number()]).rest(z.boolean()) }),
      execute: echo,
    });
    expect(pair.definition.parameters.properties).toEqual({
      p: {
        type: 'array',
        minItems: 2,
        prefixItems: [{ type: 'string' }, { type: 'number' }],
        items: { type: 'boolean' },
      },
    });
  });

  it('announces a recursive schema with a $ref to its first occurrence', async () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    const tree = tool({
      name: 'tree',
      description: 'd',
      parameters: z.object({ root: node }),
      execute: echo,
    });
    expect(tree.definition.parameters.properties).toEqual({
      root: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/properties/root' } },
        },
        required: ['name', 'children'],
      },
    });
    const bad = { root: { name: 'a', children: [{ name: 1, children: [] }] } };
    expect((await invokeTool(tree, bad)).output).toBe(
      'Invalid arguments for tree: root.children[0].name: expected a string, received 1',
    );
  });

  it('refuses z.preprocess(), whose accepted input JSON Schema cannot describe', () => {
    expectDefinitionError(
      () =>
        tool({
          name: 'pre',
          description: 'd',
          parameters: z.object({ v: z.preprocess((x) => String(x), z.string()) }),
          execute: echo,
        }),
      'unsupported_schema',
      'tool "pre": parameters cannot be expressed as JSON Schema: z.preprocess() accepts whatever its function turns into a valid value, which JSON Schema cannot describe; describe what the model sends and use .transform() instead',
    );
  });
});

describe('the zod 3 part an entry registers (zod3Part)', () => {
  it('asks for its converter at the first conversion, once, and not before', async () => {
    const { zod3Part } = await import('../../../src/tool/schema/zod3');
    const converter = await import('zod-to-json-schema');
    let asked = 0;
    const part = zod3Part(() => {
      asked += 1;
      return converter;
    });
    expect(asked).toBe(0);
    expect(part.inputJsonSchema(z.object({ a: z.string() }) as never)).toMatchObject({ required: ['a'] });
    part.adapter(z.object({ b: z.number() }) as never);
    expect(asked).toBe(1);
  });

  it('refuses the tool with the reason when its converter cannot be loaded, and tries again at the next', async () => {
    const { registerPart } = await import('../../../src/tool/schema/optional-parts');
    const { zod3Part } = await import('../../../src/tool/schema/zod3');
    const converter = await import('zod-to-json-schema');
    let fails = true;
    registerPart(
      'zod3',
      zod3Part(() => {
        if (fails)
          throw new ToolwireError('load_failed', 'toolwire could not load its zod 3 converter: gone');
        return converter;
      }),
    );
    try {
      const define = () =>
        tool({ name: 'echo', description: 'd', parameters: z.object({ a: z.string() }), execute: echo });
      expect(definitionRefusal(define)).toEqual({
        code: 'unsupported_schema',
        message:
          'tool "echo": parameters could not be read: toolwire could not load its zod 3 converter: gone',
      });
      fails = false;
      expect(define().definition.parameters).toMatchObject({ required: ['a'] });
    } finally {
      registerPart(
        'zod3',
        zod3Part(() => converter),
      );
    }
  });
});
