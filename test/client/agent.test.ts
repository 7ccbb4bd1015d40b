import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentDefinition } from '../../src/client/agent';
import { Agent, tool } from '../../src/index';

describe('Agent options', () => {
  it('refuses an unknown option, naming it', () => {
    expect(() => new Agent({ name: 'A', instructions: '', tool: [] } as never)).toThrowError(
      'Agent "A": unknown option(s) ["tool"]; known: name, instructions, tools, model, outputType',
    );
  });

  it('refuses two tools with one name', () => {
    const t = tool({ name: 't', description: 'T.', execute: () => '' });
    expect(() => new Agent({ name: 'A', instructions: '', tools: [t, t] })).toThrowError(
      'Agent "A": two tools are named "t"',
    );
  });

  it('announces outputType as the JSON Schema of its input side', () => {
    const agent = new Agent({ name: 'A', instructions: '', outputType: z.object({ score: z.number() }) });
    expect(agentDefinition(agent).outputSchema).toEqual({
      type: 'object',
      properties: { score: { type: 'number' } },
      required: ['score'],
    });
  });

  it('fails at definition time for an outputType JSON Schema cannot express', () => {
    expect(
      () => new Agent({ name: 'A', instructions: '', outputType: z.object({ when: z.date() }) }),
    ).toThrowError(/Agent "A": outputType/);
  });
});

describe('asTool options', () => {
  const agent = new Agent({ name: 'Researcher', instructions: '' });

  it.each([
    [
      { description: 'x' },
      'Agent "Researcher".asTool(): unknown option(s) ["description"]; known: toolName, toolDescription, outputExtractor, maxTurns, maxDepth',
    ],
    [{ toolDescription: '' }, 'Agent "Researcher".asTool(): toolDescription must be a non-empty string'],
    [
      { toolDescription: 'x', maxTurns: 0 },
      'Agent "Researcher".asTool(): maxTurns must be a positive integer, got 0',
    ],
    [
      { toolDescription: 'x', maxDepth: -1 },
      'Agent "Researcher".asTool(): maxDepth must be a positive integer, got -1',
    ],
  ])('refuses %j', (options, message) => {
    expect(() => agent.asTool(options as never)).toThrowError(message);
  });

  it('asks for a toolName when none can be derived from the agent name', () => {
    expect(() =>
      new Agent({ name: '研究员', instructions: '' }).asTool({ toolDescription: 'x' }),
    ).toThrowError(
      `Agent "研究员".asTool(): cannot derive a tool name from the agent's name (tool names are [a-zA-Z0-9_-]); pass toolName`,
    );
  });

  it('derives the tool name from the agent name', () => {
    expect(new Agent({ name: 'Research team', instructions: '' }).asTool({ toolDescription: 'x' }).name).toBe(
      'Research_team',
    );
  });
});
