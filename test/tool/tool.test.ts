import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { tool } from '../../src/tool/tool';
import { clientFrames } from '../../src/wire/protocol';
import { expectDefinitionError } from '../fixtures/schema/definition-error';
import { unknownOptionMessage } from '../support/known-options';

const { toolDefinitionSchema } = clientFrames();

const execute = () => 'ok';

describe('tool()', () => {
  it('announces an object with no properties when parameters are omitted', () => {
    const ping = tool({ name: 'ping', description: 'Answers pong.', execute });
    expect(ping.definition).toEqual({
      name: 'ping',
      description: 'Answers pong.',
      parameters: { type: 'object', properties: {} },
      needsApproval: false,
      sideEffect: 'external',
    });
  });

  it('exposes name, description and definition, and nothing else enumerable', () => {
    const ping = tool({ name: 'ping', description: 'Answers pong.', execute });
    expect(Object.keys(ping)).toEqual(['name', 'description', 'definition']);
    expect(ping.name).toBe('ping');
    expect(ping.description).toBe('Answers pong.');
    expect(JSON.parse(JSON.stringify(ping))).toEqual({
      name: 'ping',
      description: 'Answers pong.',
      definition: ping.definition,
    });
  });

  it('makes a frozen definition that is plain JSON and a valid protocol frame entry', () => {
    const search = tool({
      name: 'search_orders',
      description: 'Find orders.',
      parameters: z.object({ email: z.string(), status: z.enum(['open', 'shipped']).optional() }),
      execute,
    });
    expect(Object.isFrozen(search)).toBe(true);
    expect(Object.isFrozen(search.definition)).toBe(true);
    expect(Object.isFrozen(search.definition.parameters.properties)).toBe(true);
    expect(JSON.parse(JSON.stringify(search.definition))).toEqual(search.definition);
    expect(toolDefinitionSchema.safeParse(search.definition).success).toBe(true);
  });

  it('announces slots other than 1 in its definition, for the service to route by free slots', () => {
    const heavy = tool({ name: 'heavy', description: 'Takes four slots.', slots: 4, execute });
    expect(heavy.definition.slots).toBe(4);
    expect(toolDefinitionSchema.safeParse(heavy.definition).success).toBe(true);
    expect(
      tool({ name: 'light', description: 'One slot.', slots: 1, execute }).definition,
    ).not.toHaveProperty('slots');
  });

  it.each([
    [true, true],
    [false, false],
    [() => true, false],
  ])(
    'announces needsApproval %s as %s (a predicate is evaluated by the client, not the service)',
    (needsApproval, announced) => {
      expect(tool({ name: 't', description: 'd', needsApproval, execute }).definition.needsApproval).toBe(
        announced,
      );
    },
  );

  it('accepts any Standard Schema as outputSchema, even one JSON Schema cannot express', () => {
    expect(() =>
      tool({
        name: 'when',
        description: 'd',
        outputSchema: z.object({ at: z.date() }),
        execute: () => ({ at: new Date() }),
      }),
    ).not.toThrow();
  });

  describe('refuses a bad configuration with a ToolDefinitionError naming the tool and the field', () => {
    it.each([
      ['has space', '"has space"'],
      ['', '""'],
      ['x'.repeat(65), `"${'x'.repeat(65)}"`],
      ['dots.not.allowed', '"dots.not.allowed"'],
    ])('invalid_name for %j', (name, shown) => {
      expectDefinitionError(
        () => tool({ name, description: 'd', execute }),
        'invalid_name',
        `tool ${JSON.stringify(name)}: name must be 1 to 64 letters, digits, _ or -, got ${shown}`,
      );
    });

    it('invalid_name for a name that is not a string', () => {
      expectDefinitionError(
        () => tool({ name: 42 as never, description: 'd', execute }),
        'invalid_name',
        'tool (unnamed): name must be 1 to 64 letters, digits, _ or -, got 42',
      );
    });

    it.each([
      ['', '""'],
      ['   ', '"   "'],
      [undefined, 'undefined'],
    ])('invalid_description for %j', (description, shown) => {
      expectDefinitionError(
        () => tool({ name: 'lookup', description: description as string, execute }),
        'invalid_description',
        `tool "lookup": description must be a non-empty string, got ${shown}`,
      );
    });

    it.each([
      [0, '0'],
      [-5, '-5'],
      [1.5, '1.5'],
      [Number.NaN, 'NaN'],
      [2 ** 31, '2147483648'],
      ['100', '"100"'],
    ])('invalid_timeout for %j', (timeoutMs, shown) => {
      expectDefinitionError(
        () => tool({ name: 'slow', description: 'd', timeoutMs: timeoutMs as number, execute }),
        'invalid_timeout',
        `tool "slow": timeoutMs must be a positive integer of milliseconds up to 2147483647 (the longest timer), got ${shown}`,
      );
    });

    it('invalid_execute when execute is missing', () => {
      expectDefinitionError(
        () => tool({ name: 'noop', description: 'd' } as never),
        'invalid_execute',
        'tool "noop": execute must be a function, got undefined',
      );
    });

    it.each([
      ['errorFunction', 'text', 'errorFunction must be a function or null, got "text"'],
      ['toModelOutput', 1, 'toModelOutput must be a function, got 1'],
      [
        'needsApproval',
        'yes',
        'needsApproval must be a boolean, a function or approvalRequired(reason, sideEffect?) (a reason of 1 to 1000 characters; none, idempotent or external), got "yes"',
      ],
    ])('invalid_option for %s', (key, value, message) => {
      expectDefinitionError(
        () => tool({ name: 'opt', description: 'd', execute, [key]: value } as never),
        'invalid_option',
        `tool "opt": ${message}`,
      );
    });

    it('unknown_option for a misspelt option, with a hint where one is likely', () => {
      expectDefinitionError(
        () => tool({ name: 'typo', description: 'd', execute, argsSchema: z.object({}) } as never),
        'unknown_option',
        'tool "typo": unknown option "argsSchema" (did you mean "parameters"?)',
      );
      expectDefinitionError(
        () => tool({ name: 'typo', description: 'd', execute, attempts: 3 } as never),
        'unknown_option',
        'tool "typo": unknown option "attempts" (did you mean "retry.maxAttempts"?)',
      );
      expectDefinitionError(
        () => tool({ name: 'typo', description: 'd', execute, colour: 'red' } as never),
        'unknown_option',
        unknownOptionMessage('tool "typo": unknown option "colour"', 'name', 'parameters', 'execute'),
      );
      expectDefinitionError(
        () => tool({ name: 'typo', description: 'd', execute, timeoutMS: 5, need_approval: true } as never),
        'unknown_option',
        'tool "typo": unknown options "timeoutMS" (did you mean "timeoutMs"?) and "need_approval" (did you mean "needsApproval"?)',
      );
    });

    it('invalid_output_schema for an outputSchema of no accepted kind', () => {
      expectDefinitionError(
        () => tool({ name: 'out', description: 'd', execute, outputSchema: 'string' as never }),
        'invalid_output_schema',
        'tool "out": outputSchema must be a Standard Schema (zod, valibot, arktype, …), a JSON Schema object or undefined, got a string',
      );
    });

    it('invalid_options when the options are not an object', () => {
      expectDefinitionError(
        () => tool(null as never),
        'invalid_options',
        'tool(): options must be an object, got null',
      );
      expectDefinitionError(
        () => tool([] as never),
        'invalid_options',
        'tool(): options must be an object, got an array of 0 items',
      );
    });
  });
});
