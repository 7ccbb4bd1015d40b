import { describe, expect, it } from 'vitest';
import { ModelError, type ModelRequest, scriptedModel } from '../../server-stub/index';
import { OptionsError, ToolDefinitionError } from '../../src/errors';
import { agent } from './helpers';

function request(turn: number, overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    messages: [{ role: 'user', content: 'hi' }],
    tools: [],
    agent: agent('a', []),
    runId: 'run_1',
    depth: 0,
    turn,
    signal: new AbortController().signal,
    ...overrides,
  };
}

describe('scriptedModel', () => {
  it('plays turn n of the script for the n-th turn of each run, so runs do not interfere', async () => {
    const model = scriptedModel([{ toolCalls: [{ name: 'x' }] }, { text: 'second' }]);
    expect(await model.nextTurn(request(1, { runId: 'run_a' }))).toEqual({ text: 'second' });
    expect(await model.nextTurn(request(0, { runId: 'run_b' }))).toEqual({ toolCalls: [{ name: 'x' }] });
    expect(await model.nextTurn(request(1, { runId: 'run_b' }))).toEqual({ text: 'second' });
  });

  it('calls a function turn with the conversation, without the abort signal', async () => {
    const seen: unknown[] = [];
    const model = scriptedModel([
      (input) => {
        seen.push(input);
        return { text: `depth ${input.depth}` };
      },
    ]);
    expect(await model.nextTurn(request(0, { depth: 2 }))).toEqual({ text: 'depth 2' });
    expect(seen).toEqual([
      {
        messages: [{ role: 'user', content: 'hi' }],
        tools: [],
        agent: agent('a', []),
        runId: 'run_1',
        depth: 2,
        turn: 0,
      },
    ]);
  });

  it('picks the turns of the agent by name', async () => {
    const model = scriptedModel({ a: [{ text: 'from a' }], b: [{ text: 'from b' }] });
    expect(await model.nextTurn(request(0, { agent: agent('b', []) }))).toEqual({ text: 'from b' });
  });

  it('refuses a malformed script when it is built with an OptionsError (no tool is at fault), naming the entry', () => {
    const malformed = () => scriptedModel([{ text: 'ok' }, { nope: true } as never]);
    expect(malformed).toThrow(OptionsError);
    expect(malformed).not.toThrow(ToolDefinitionError);
    expect(malformed).toThrow(
      new OptionsError(
        'invalid_script',
        'scriptedModel: turn 2: unknown key "nope"; known keys: text, toolCalls',
      ),
    );
    expect(() => scriptedModel([{ text: 'ok' }, {} as never])).toThrow(
      'scriptedModel: turn 2: text must be a string',
    );
    expect(() => scriptedModel({ a: [{ toolCalls: [{ name: '' }] }] })).toThrow(
      'scriptedModel: turn 1 of agent "a": toolCalls[0].name must be a non-empty string',
    );
    expect(() => scriptedModel({ a: 'nope' as never })).toThrow(
      'scriptedModel: the turns of agent "a" must be an array',
    );
  });

  it('names every bad entry of a script at once, each at its place, one a line', () => {
    const script = {
      Support: [
        { text: 'ok' },
        { txt: 'hi' },
        { toolCalls: [{ name: 'a' }, { name: '' }, { name: 'b', id: 7 }], text: 3 },
      ],
      Researcher: 'nope',
      Writer: [null, { text: 'fine' }, { toolCalls: {} }],
    };
    expect(() => scriptedModel(script as never)).toThrow(
      new OptionsError(
        'invalid_script',
        [
          'scriptedModel: 5 entries of the script are invalid:',
          '- turn 2 of agent "Support": unknown key "txt" (did you mean "text"?)',
          '- turn 3 of agent "Support": text must be a string when given; toolCalls[1].name must be a non-empty string; toolCalls[2].id must be a non-empty string',
          '- the turns of agent "Researcher" must be an array',
          '- turn 1 of agent "Writer" must be { text } or { toolCalls }, got null',
          '- turn 3 of agent "Writer": toolCalls must be an array',
        ].join('\n'),
      ),
    );
  });

  it('refuses at start tool-call arguments the client could not decode to an object, naming the place', () => {
    const script = {
      Support: [
        { text: 'ok' },
        {
          toolCalls: [
            { name: 'a', arguments: 5 },
            { name: 'b', arguments: [1] },
            { name: 'c', arguments: '[1]' },
            { name: 'd', arguments: '{"x":' },
          ],
        },
      ],
    };
    expect(() => scriptedModel(script as never)).toThrow(
      new OptionsError(
        'invalid_script',
        'scriptedModel: turn 2 of agent "Support": toolCalls[0].arguments must be an object or a JSON string of one, got 5; toolCalls[1].arguments must be an object or a JSON string of one, got an array of 1 item; toolCalls[2].arguments must be an object or a JSON string of one, got a JSON string of an array; toolCalls[3].arguments must be an object or a JSON string of one, got text that is not JSON (unexpected end of input)',
      ),
    );
    // What the client decodes to an object passes, as at run time: absent, null, '', an object, JSON of one.
    for (const args of [undefined, null, '', ' ', { a: 1 }, '{"a":1}', '"{\\"a\\":1}"', 'null'])
      expect(() => scriptedModel([{ toolCalls: [{ name: 'a', arguments: args }] }])).not.toThrow();
  });

  it('lists at most 20 bad entries of a script, and counts the others', () => {
    const message = (() => {
      try {
        scriptedModel(Array.from({ length: 25 }, () => ({})) as never);
      } catch (error) {
        return (error as Error).message;
      }
    })();
    const lines = message?.split('\n') ?? [];
    expect(lines[0]).toBe('scriptedModel: 25 entries of the script are invalid:');
    expect(lines.slice(1, 3)).toEqual(['- turn 1: text must be a string', '- turn 2: text must be a string']);
    expect(lines.length).toBe(22);
    expect(lines.at(-1)).toBe('- and 5 more');
  });

  it.each([
    [{ tool_calls: [{ name: 'a' }] }, 'unknown key "tool_calls" (did you mean "toolCalls"?)'],
    [{ content: 'hi' }, 'unknown key "content" (did you mean "text"?)'],
    [
      { toolCalls: [{ name: 'a', args: { q: 1 } }] },
      'toolCalls[0]: unknown key "args" (did you mean "arguments"?)',
    ],
    [{ toolCalls: [{ function: 'a' }] }, 'toolCalls[0]: unknown key "function" (did you mean "name"?)'],
    [{ toolcalls: [] }, 'unknown key "toolcalls" (did you mean "toolCalls"?)'],
    [{ text: 'a', pause: 1 }, 'unknown key "pause"; known keys: text, toolCalls'],
    [
      { text: 'a', tool_calls: [], pause: 1 },
      'unknown keys "tool_calls" (did you mean "toolCalls"?) and "pause"; known keys: text, toolCalls',
    ],
  ])('refuses the script turn %j naming the key it means, instead of dropping it', (turn, message) => {
    expect(() => scriptedModel({ Support: [turn as never] })).toThrow(
      new OptionsError('invalid_script', `scriptedModel: turn 1 of agent "Support": ${message}`),
    );
  });

  it('says it is scripted, and how much script it has', () => {
    expect(scriptedModel([]).info).toEqual({
      kind: 'scripted',
      name: 'scripted, with no script (every run fails)',
    });
    expect(scriptedModel([{ text: 'a' }, { text: 'b' }]).info).toEqual({
      kind: 'scripted',
      name: 'scripted (2 turns)',
    });
    expect(scriptedModel({ a: [{ text: 'a' }], b: [] }).info).toEqual({
      kind: 'scripted',
      name: 'scripted (turns for a, b)',
    });
  });

  it('rejects with a ModelError instead of answering when it has no turn for the run', async () => {
    await expect(scriptedModel([]).nextTurn(request(0))).rejects.toMatchObject({
      name: 'ModelError',
      code: 'no_script',
      message: expect.stringMatching(/^scriptedModel: no script for agent "a", so the run cannot go on\. /),
    });
    await expect(scriptedModel({ b: [{ text: 'b' }] }).nextTurn(request(0))).rejects.toMatchObject({
      code: 'no_script',
      message: expect.stringMatching(/^scriptedModel: no script for agent "a" \(it has turns for: b\), so /),
    });
    await expect(scriptedModel([{ text: 'one' }]).nextTurn(request(1))).rejects.toThrow(
      new ModelError(
        'script_exhausted',
        'scriptedModel: the script for agent "a" has no turn 2 (it has 1), so the run cannot go on',
      ),
    );
  });

  it('has no script for an agent named as a property every object inherits (constructor, __proto__)', async () => {
    const model = scriptedModel({ b: [{ text: 'b' }] });
    for (const name of ['constructor', '__proto__', 'hasOwnProperty', 'toString']) {
      await expect(model.nextTurn(request(0, { agent: agent(name, []) }))).rejects.toMatchObject({
        name: 'ModelError',
        code: 'no_script',
        message: expect.stringMatching(
          new RegExp(`^scriptedModel: no script for agent "${name}" \\(it has turns for: b\\), so `),
        ),
      });
    }
    // A script may still name such an agent: its own key is read.
    const own = scriptedModel(JSON.parse('{"constructor":[{"text":"c"}],"__proto__":[{"text":"p"}]}'));
    expect(await own.nextTurn(request(0, { agent: agent('constructor', []) }))).toEqual({ text: 'c' });
    expect(await own.nextTurn(request(0, { agent: agent('__proto__', []) }))).toEqual({ text: 'p' });
  });

  it('rejects when a function turn returns something that is not a turn', async () => {
    const model = scriptedModel([() => ({ toolCalls: 'x' }) as never]);
    await expect(model.nextTurn(request(0))).rejects.toMatchObject({
      name: 'OptionsError',
      code: 'invalid_script',
      message: 'scriptedModel: turn 1 of agent "a" returned: toolCalls must be an array',
    });
  });
});
