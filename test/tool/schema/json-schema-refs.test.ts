import { describe, expect, it } from 'vitest';
import { invokeTool, tool } from '../../../src/index';
import { expectDefinitionError } from '../../fixtures/schema/definition-error';

const make = (parameters: Record<string, unknown>) =>
  tool({ name: 'c', description: 'd', parameters, execute: () => 'ran' });

describe('$ref cycles in JSON Schema parameters', () => {
  it.each([
    [
      { type: 'object', properties: { a: { $ref: '#/$defs/x' } }, $defs: { x: { $ref: '#/$defs/x' } } },
      '#/$defs/x/$ref',
    ],
    [
      {
        type: 'object',
        $defs: { x: { allOf: [{ $ref: '#/$defs/y' }] }, y: { anyOf: [{ $ref: '#/$defs/x' }] } },
      },
      '#/$defs/y/anyOf/0/$ref',
    ],
    [{ type: 'object', not: { $ref: '#' } }, '#/not/$ref'],
  ])(
    'are refused when they never move into the value (every call overflowed the stack): %j',
    (parameters, where) => {
      expectDefinitionError(
        () => make(parameters),
        'invalid_parameters',
        `tool "c": parameters is not a valid JSON Schema: ${where}: this $ref leads back to itself without moving into the value`,
      );
    },
  );

  it('are fine through a property or an item, which moves into the value', async () => {
    const tree = make({
      type: 'object',
      properties: { v: { type: 'number' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['v'],
    });
    expect((await invokeTool(tree, { v: 1, children: [{ v: 2, children: [] }] })).status).toBe('ok');
    expect((await invokeTool(tree, { v: 1, children: [{}] })).status).toBe('invalid_arguments');
  });
});

describe('$ref: "" (a same-document reference)', () => {
  it('points at the whole schema, as "#" does, and is announced as "#"', async () => {
    const tree = make({
      type: 'object',
      properties: { v: { type: 'number' }, children: { type: 'array', items: { $ref: '' } } },
      required: ['v'],
    });
    expect(tree.definition.parameters).toMatchObject({
      properties: { children: { items: { $ref: '#' } } },
    });
    expect((await invokeTool(tree, { v: 1, children: [{ v: 2, children: [] }] })).status).toBe('ok');
    expect((await invokeTool(tree, { v: 1, children: [{}] })).output).toBe(
      'Invalid arguments for c: children[0].v: expected a number, received nothing',
    );
  });

  it('is refused, as "#" is, where it leads back to itself without moving into the value', () => {
    expectDefinitionError(
      () => make({ type: 'object', not: { $ref: '' } }),
      'invalid_parameters',
      'tool "c": parameters is not a valid JSON Schema: #/not/$ref: this $ref leads back to itself without moving into the value',
    );
  });
});
