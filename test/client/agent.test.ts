import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { agentDefinition, isAgent } from '../../src/client/agent';
import { Agent, OptionsError, ToolDefinitionError, tool } from '../../src/index';

describe('Agent options', () => {
  it('refuses an unknown option, naming it', () => {
    expect(() => new Agent({ name: 'A', instructions: '', tool: [] } as never)).toThrowError(
      new ToolDefinitionError('unknown_option', 'Agent "A": unknown option "tool" (did you mean "tools"?)'),
    );
    expect(() => new Agent({ name: 'A', systemPrompt: 'Be brief.' } as never)).toThrowError(
      new ToolDefinitionError(
        'unknown_option',
        'Agent "A": unknown option "systemPrompt" (did you mean "instructions"?)',
      ),
    );
    expect(() => new Agent({ name: 'A', instructions: '', handoffs: [] } as never)).toThrowError(
      new ToolDefinitionError(
        'unknown_option',
        'Agent "A": unknown option "handoffs"; known options: name, instructions, tools, model, outputType, toolChoice',
      ),
    );
  });

  it('takes no instructions: the definition then has an empty system prompt', () => {
    const writer = new Agent({ name: 'Writer' });
    expect(writer.instructions).toBe('');
    expect(agentDefinition(writer)).toEqual({ name: 'Writer', instructions: '', tools: [] });
  });

  it.each([
    [null, 'invalid_options', 'new Agent(options): options must be an object, got null'],
    [
      { name: '', instructions: '' },
      'invalid_agent',
      'new Agent(options): name must be a string of 1 to 128 characters, got ""',
    ],
    [{ name: 'A', instructions: 42 }, 'invalid_agent', 'Agent "A": instructions must be a string, got 42'],
    [
      { name: 'A', instructions: '', tools: 'search' },
      'invalid_agent',
      'Agent "A": tools must be an array of tools or a record of tools keyed by name, got "search"',
    ],
    [{ name: 'A', instructions: '', model: 4 }, 'invalid_agent', 'Agent "A": model must be a string, got 4'],
  ])('refuses %j, naming the agent, the option and the value', (options, code, message) => {
    expect(() => new Agent(options as never)).toThrowError(new ToolDefinitionError(code, message));
  });

  it('refuses a tools entry of no accepted shape at construction, naming the agent, the index and the value', () => {
    const search = tool({ name: 'search', description: 'Searches.', execute: () => '' });
    const fake = { name: 'lookup', definition: {} };
    expect(() => new Agent({ name: 'Support', instructions: '', tools: [search, 42 as never] })).toThrowError(
      new ToolDefinitionError(
        'not_a_tool',
        'Agent "Support": tools[1] must be a tool (made with tool(), or an object with description and execute), got 42',
      ),
    );
    expect(() => new Agent({ name: 'Support', instructions: '', tools: [undefined as never] })).toThrowError(
      new ToolDefinitionError(
        'not_a_tool',
        'Agent "Support": tools[0] must be a tool (made with tool(), or an object with description and execute), got undefined',
      ),
    );
    expect(
      () => new Agent({ name: 'Support', instructions: '', tools: [Promise.resolve(search) as never] }),
    ).toThrowError(
      new ToolDefinitionError(
        'not_a_tool',
        'Agent "Support": tools[0] must be a tool (made with tool(), or an object with description and execute), got a Promise',
      ),
    );
    expect(() => new Agent({ name: 'Support', instructions: '', tools: [fake as never] })).toThrowError(
      new ToolDefinitionError(
        'not_a_tool',
        'Agent "Support": tools[0] must be a tool (made with tool(), or an object with description and execute), got an object named "lookup"',
      ),
    );
  });

  it('makes a plain object of tools a tool, checked as tool() checks it', () => {
    const plain = { name: 'lookup', description: 'Looks up.', execute: () => '' };
    const agent = new Agent({ name: 'Support', instructions: '', tools: [plain] });
    expect(agent.tools.map((item) => item.definition.name)).toEqual(['lookup']);
    expect(
      () => new Agent({ name: 'Support', instructions: '', tools: [{ ...plain, description: '' }] }),
    ).toThrowError(
      new ToolDefinitionError(
        'invalid_description',
        'tool "lookup": description must be a non-empty string, got ""',
      ),
    );
  });

  it('refuses two different tools with one name, and keeps the same tool listed twice once', () => {
    const t = tool({ name: 't', description: 'T.', execute: () => '' });
    const other = tool({ name: 't', description: 'Another T.', execute: () => '' });
    expect(() => new Agent({ name: 'A', instructions: '', tools: [t, other] })).toThrowError(
      'Agent "A": two different tools are named "t"; tools are compared by identity (two tool() calls make two tools, even with the same options): list one tool object, or rename one of them',
    );
    expect(new Agent({ name: 'A', instructions: '', tools: [t, t] }).tools).toEqual([t]);
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
      'Agent "Researcher".asTool(): unknown option "description" (did you mean "toolDescription"?)',
    ],
    [
      { toolDescription: 'x', max_turns: 2 },
      'Agent "Researcher".asTool(): unknown option "max_turns" (did you mean "maxTurns"?)',
    ],
    [null, 'Agent "Researcher".asTool(): options must be an object, got null'],
    [
      { toolDescription: '' },
      'Agent "Researcher".asTool(): toolDescription must be a non-empty string, got ""',
    ],
    [
      { toolDescription: 'x', toolName: 'has space' },
      'Agent "Researcher".asTool(): toolName must be 1 to 64 letters, digits, _ or -, got "has space"',
    ],
    [
      { toolDescription: 'x', outputExtractor: 'finalOutput' },
      'Agent "Researcher".asTool(): outputExtractor must be a function, got "finalOutput"',
    ],
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

  it('makes a tool with no options at all, and with a toolName alone, as the OpenAI Agents SDK does', () => {
    const bare = agent.asTool();
    expect(bare.definition).toMatchObject({
      name: 'Researcher',
      description: 'Runs the agent "Researcher" with the input as its request and returns its final answer.',
    });
    const named = agent.asTool({ toolName: 'ask_researcher' });
    expect([named.name, named.description]).toEqual([
      'ask_researcher',
      'Runs the agent "Researcher" with the input as its request and returns its final answer.',
    ]);
    expect(agent.asTool({ toolDescription: 'Look facts up.' }).description).toBe('Look facts up.');
  });

  it('derives the tool name from the agent name', () => {
    expect(new Agent({ name: 'Research team', instructions: '' }).asTool({ toolDescription: 'x' }).name).toBe(
      'Research_team',
    );
  });
});

describe('an agent made by another copy of toolwire (its ESM and CJS builds both loaded)', () => {
  it('is taken by run() as an agent; an object that only looks like one is not', async () => {
    const { checkRunArguments } = await import('../../src/client/client-options');
    vi.resetModules();
    const other = (await import('../../src/client/agent')) as typeof import('../../src/client/agent');
    vi.resetModules();
    const elsewhere = new other.Agent({ name: 'Elsewhere', instructions: '' });
    expect(elsewhere instanceof Agent).toBe(false);
    expect(isAgent(elsewhere)).toBe(true);
    expect(() => checkRunArguments(elsewhere, 'hi', {})).not.toThrow();
    const lookalike = { name: 'Fake', instructions: '', tools: [] };
    expect(isAgent(lookalike)).toBe(false);
    expect(() => checkRunArguments(lookalike, 'hi', {})).toThrowError(
      new OptionsError('invalid_agent', 'client.run(): agent must be made with new Agent(), got an object'),
    );
  });
});
