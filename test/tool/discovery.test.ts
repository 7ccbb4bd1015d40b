/**
 * Discovery metadata (`defaultEnabled`, `capability`): accepted, checked when the tool is made, and announced in
 * the definition as given; refused with a message naming the field and the value.
 */
import { describe, expect, it } from 'vitest';
import { ToolDefinitionError, tool } from '../../src/index';
import { decodeClientFrame } from '../../src/wire/codec';

const base = { name: 'record_note', description: 'Records a note.', execute: () => 'ok' };

describe('discovery metadata', () => {
  it('announces defaultEnabled and capability as given, and nothing when not given', () => {
    const made = tool({
      ...base,
      defaultEnabled: true,
      capability: {
        visibility: 'deferred',
        execution: 'direct',
        namespace: 'notes',
        tags: ['notes', 'crm'],
        aliases: ['save_note'],
      },
    });
    expect(made.definition).toEqual({
      name: 'record_note',
      description: 'Records a note.',
      parameters: { type: 'object', properties: {} },
      needsApproval: false,
      sideEffect: 'external',
      defaultEnabled: true,
      capability: {
        visibility: 'deferred',
        execution: 'direct',
        namespace: 'notes',
        tags: ['notes', 'crm'],
        aliases: ['save_note'],
      },
    });
    expect(tool(base).definition).not.toHaveProperty('capability');
    expect(tool(base).definition).not.toHaveProperty('defaultEnabled');
  });

  it('is carried in hello and read back by the service', () => {
    const made = tool({ ...base, defaultEnabled: false, capability: { visibility: 'hidden', tags: ['x'] } });
    const hello = {
      type: 'hello',
      protocol: 1,
      sdk: { name: 'toolwire', version: '0' },
      tools: [made.definition],
    };
    const decoded = decodeClientFrame(JSON.stringify(hello));
    expect(decoded).toMatchObject({
      ok: true,
      frame: { tools: [{ defaultEnabled: false, capability: { visibility: 'hidden', tags: ['x'] } }] },
    });
  });

  it.each([
    [{ defaultEnabled: 'yes' }, 'tool "record_note": defaultEnabled must be a boolean, got "yes"'],
    [
      { capability: { visibility: 'sometimes' } },
      `tool "record_note": capability.visibility must be 'auto', 'always', 'deferred', 'skill', 'hidden', got "sometimes"`,
    ],
    [
      { capability: { aliases: ['save note'] } },
      'tool "record_note": capability.aliases[0] must be 1 to 64 letters, digits, _ or -, got "save note"',
    ],
    [
      { capability: { tags: Array.from({ length: 33 }, (_, i) => `t${i}`) } },
      'tool "record_note": capability.tags must be an array of at most 32 tags, got an array of 33 items',
    ],
  ])('refuses %j, naming the field and the value', (extra, message) => {
    expect(() => tool({ ...base, ...extra } as never)).toThrowError(
      new ToolDefinitionError('invalid_option', message),
    );
  });

  it('suggests capability for capabilities', () => {
    expect(() => tool({ ...base, capabilities: {} } as never)).toThrowError(
      new ToolDefinitionError(
        'unknown_option',
        'tool "record_note": unknown option "capabilities" (did you mean "capability"?)',
      ),
    );
  });
});
