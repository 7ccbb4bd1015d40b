/**
 * A deterministic model for tests and demos: it plays a script, one entry per model turn.
 *
 * @module
 */
import { ToolDefinitionError } from '../src/errors';
import type { Model, ModelRequest, ModelTurn } from './model';

/** What a scripted turn function receives: the {@link ModelRequest} without its abort signal. */
export type ScriptInput = Omit<ModelRequest, 'signal'>;

/** One scripted turn: a fixed answer, or a function of the conversation that computes one. */
export type ScriptedTurn = ModelTurn | ((input: ScriptInput) => ModelTurn | Promise<ModelTurn>);

/** A script: the same turns for every agent, or turns per agent name (for nested agents). */
export type Script = readonly ScriptedTurn[] | Readonly<Record<string, readonly ScriptedTurn[]>>;

/**
 * Builds a model that answers turn `n` of a run with entry `n` of the script, where `n` is the number of model
 * turns already taken *in that run*, so concurrent runs stay deterministic. A script that runs out answers a
 * final text saying so (the run completes with that text rather than hanging).
 *
 * @param script - an array of turns, or a record from agent name to its turns.
 * @throws ToolDefinitionError `invalid_script` when an entry is neither a function, `{ text }` nor `{ toolCalls }`.
 * @example
 * ```ts
 * const model = scriptedModel([
 *   { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
 *   ({ messages }) => ({ text: `the sum is ${messages.at(-1)?.content}` }),
 * ]);
 * ```
 */
export function scriptedModel(script: Script): Model {
  const perAgent = !Array.isArray(script);
  if (typeof script !== 'object' || script === null) {
    throw new ToolDefinitionError(
      'invalid_script',
      'scriptedModel: the script must be an array or a record of arrays',
    );
  }
  const entries: Array<[string, readonly ScriptedTurn[]]> = perAgent
    ? Object.entries(script as Record<string, readonly ScriptedTurn[]>)
    : [['(all agents)', script as readonly ScriptedTurn[]]];
  for (const [agent, turns] of entries) {
    if (!Array.isArray(turns)) {
      throw new ToolDefinitionError(
        'invalid_script',
        `scriptedModel: the turns of agent "${agent}" must be an array`,
      );
    }
    turns.forEach((turn, index) => {
      if (typeof turn !== 'function') checkTurn(turn, `scriptedModel: turn ${index} of agent "${agent}"`);
    });
  }
  return {
    async nextTurn(request) {
      const { signal: _signal, ...input } = request;
      const name = request.agent.name;
      const turns = perAgent
        ? (script as Record<string, readonly ScriptedTurn[] | undefined>)[name]
        : (script as readonly ScriptedTurn[]);
      if (turns === undefined) {
        const known = Object.keys(script).join(', ') || 'none';
        return { text: `scriptedModel: the script has no turns for agent "${name}" (it has: ${known})` };
      }
      const entry = turns[request.turn];
      if (entry === undefined) {
        return {
          text: `scriptedModel: the script for agent "${name}" has no turn ${request.turn + 1} (it has ${turns.length})`,
        };
      }
      const turn = typeof entry === 'function' ? await entry(input) : entry;
      checkTurn(turn, `scriptedModel: turn ${request.turn} of agent "${name}" returned`);
      return turn;
    },
  };
}

function checkTurn(turn: unknown, where: string): asserts turn is ModelTurn {
  if (typeof turn !== 'object' || turn === null) {
    throw new ToolDefinitionError(
      'invalid_script',
      `${where} must be { text } or { toolCalls }, got ${typeof turn}`,
    );
  }
  const { text, toolCalls } = turn as { text?: unknown; toolCalls?: unknown };
  if (toolCalls === undefined) {
    if (typeof text !== 'string')
      throw new ToolDefinitionError('invalid_script', `${where}: text must be a string`);
    return;
  }
  if (!Array.isArray(toolCalls)) {
    throw new ToolDefinitionError('invalid_script', `${where}: toolCalls must be an array`);
  }
  if (text !== undefined && typeof text !== 'string') {
    throw new ToolDefinitionError('invalid_script', `${where}: text must be a string when given`);
  }
  toolCalls.forEach((call: unknown, index) => {
    const { name, id } = (call ?? {}) as { name?: unknown; id?: unknown };
    if (typeof name !== 'string' || name.length === 0) {
      throw new ToolDefinitionError(
        'invalid_script',
        `${where}: toolCalls[${index}].name must be a non-empty string`,
      );
    }
    if (id !== undefined && (typeof id !== 'string' || id.length === 0)) {
      throw new ToolDefinitionError(
        'invalid_script',
        `${where}: toolCalls[${index}].id must be a non-empty string`,
      );
    }
  });
}
