/**
 * A deterministic model for tests and demos: it plays a script, one entry per model turn. It is not a language
 * model, and says so: its `info.kind` is `scripted`, and a run it has no turn for fails instead of completing.
 *
 * @module
 */

import { decodeArguments } from '../src/call/arguments';
import { OptionsError } from '../src/errors';
import { describeValue, unknownKeysText } from '../src/tool/check-options';
import { type Model, ModelError, type ModelInfo, type ModelRequest, type ModelTurn } from './model';

/** What a scripted turn function receives: the {@link ModelRequest} without its abort signal and text callback. */
export type ScriptInput = Omit<ModelRequest, 'signal' | 'onText'>;

/** One scripted turn: a fixed answer, or a function of the conversation that computes one. */
export type ScriptedTurn = ModelTurn | ((input: ScriptInput) => ModelTurn | Promise<ModelTurn>);

/** A script: the same turns for every agent, or turns per agent name (for nested agents). */
export type Script = readonly ScriptedTurn[] | Readonly<Record<string, readonly ScriptedTurn[]>>;

/**
 * Builds a model that answers turn `n` of a run with entry `n` of the script, where `n` is the number of model
 * turns already taken *in that run*, so concurrent runs stay deterministic. It answers every input with the same
 * turns; its `info.kind` is `'scripted'`, which the stub passes on (the `model` of messages and run results, the
 * agent UI, the CLI), so nobody takes its answers for a real model's.
 *
 * A run the script has no turn for fails (never a made-up final answer): `nextTurn` rejects with a
 * {@link ModelError} `no_script` when the script has no turns for the agent (an empty script: the stub's default
 * model), or `script_exhausted` when the run asks for more turns than the script has.
 *
 * @param script - an array of turns, or a record from agent name to its turns.
 * @throws OptionsError `invalid_script` when an entry is neither a function, `{ text }` nor `{ toolCalls }`.
 * @example
 * ```ts
 * const model = scriptedModel([
 *   { toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] },
 *   ({ messages }) => ({ text: `the sum is ${messages.at(-1)?.content}` }),
 * ]);
 * ```
 */
export function scriptedModel(script: Script): Model {
  const problems = scriptProblems(script);
  if (problems.length > 0)
    throw new OptionsError('invalid_script', `scriptedModel: ${problemsText(problems, SCRIPT_ENTRIES)}`);
  const perAgent = !Array.isArray(script);
  const entries: Array<[string, readonly ScriptedTurn[]]> = perAgent
    ? Object.entries(script as Record<string, readonly ScriptedTurn[]>)
    : [['', script as readonly ScriptedTurn[]]];
  const total = entries.reduce((sum, [, turns]) => sum + turns.length, 0);
  const info: ModelInfo = {
    kind: 'scripted',
    name:
      total === 0
        ? 'scripted, with no script (every run fails)'
        : perAgent
          ? `scripted (turns for ${entries.map(([agent]) => agent).join(', ')})`
          : `scripted (${total} turn${total === 1 ? '' : 's'})`,
  };
  return {
    info,
    async nextTurn(request) {
      const { signal: _signal, onText: _onText, ...input } = request;
      const name = request.agent.name;
      // The script's own key only: an agent named `constructor` or `__proto__` has no turns it did not give.
      const turns = perAgent
        ? Object.hasOwn(script, name)
          ? (script as Record<string, readonly ScriptedTurn[] | undefined>)[name]
          : undefined
        : (script as readonly ScriptedTurn[]);
      if (turns === undefined || turns.length === 0) {
        const known = perAgent ? ` (it has turns for: ${agentsWithTurns(entries) || 'none'})` : '';
        throw new ModelError(
          'no_script',
          `scriptedModel: no script for agent "${name}"${known}, so the run cannot go on. The stub plays a scripted model, not a language model: give it turns (startStubServer({ model: scriptedModel([...]) }), toolwire-stub --script turns.json) or a real model (openAIChatModel, --openai-base-url)`,
        );
      }
      const entry = turns[request.turn];
      if (entry === undefined) {
        throw new ModelError(
          'script_exhausted',
          `scriptedModel: the script for agent "${name}" has no turn ${request.turn + 1} (it has ${turns.length}), so the run cannot go on`,
        );
      }
      const turn = typeof entry === 'function' ? await entry(input) : entry;
      checkTurn(turn, `scriptedModel: ${turnPlace(request.turn, name)} returned`);
      return turn;
    },
  };
}

/** What a script's problems are, in {@link problemsText}'s `<count> <what> are invalid`. */
export const SCRIPT_ENTRIES = 'entries of the script';

/**
 * Every problem of a script (`scriptedModel()`'s, a `--script` file's) at once, each at its place (`turn 2 of agent
 * "Support": …`): one who fixes a script file fixes them all in one go; {@link problemsText} makes the refusal. A
 * script that is neither an array nor a record is one problem. Functions (turns computed at run time) are not
 * looked into.
 */
export function scriptProblems(script: unknown): string[] {
  if (typeof script !== 'object' || script === null)
    return ['the script must be an array or a record of arrays'];
  const perAgent = !Array.isArray(script);
  const entries: Array<[string, unknown]> = perAgent ? Object.entries(script) : [['', script]];
  const problems: string[] = [];
  for (const [agent, turns] of entries) {
    if (!Array.isArray(turns)) {
      problems.push(`the turns of agent "${agent}" must be an array`);
      continue;
    }
    turns.forEach((turn: unknown, index) => {
      if (typeof turn === 'function') return;
      const problem = turnProblem(turn);
      if (problem !== undefined) problems.push(`${turnPlace(index, perAgent ? agent : undefined)}${problem}`);
    });
  }
  return problems;
}

/**
 * Where a turn is, counted from 1 as the run-time errors count (`has no turn 3`): `turn 2 of agent "Support"`, or
 * `turn 2` in a script of one list for every agent.
 */
function turnPlace(index: number, agent: string | undefined): string {
  return agent === undefined ? `turn ${index + 1}` : `turn ${index + 1} of agent "${agent}"`;
}

function agentsWithTurns(entries: ReadonlyArray<[string, readonly ScriptedTurn[]]>): string {
  return entries
    .filter(([, turns]) => turns.length > 0)
    .map(([agent]) => agent)
    .join(', ');
}

/** The keys of a scripted turn, and other APIs' names for them (OpenAI's chat messages, the AI SDK). */
const TURN_KEYS = ['text', 'toolCalls'];
const TURN_ALIASES = { tool_calls: 'toolCalls', content: 'text', message: 'text' };
/** The keys of a scripted tool call, and other APIs' names for them. */
const CALL_KEYS = ['name', 'arguments', 'id'];
const CALL_ALIASES = { args: 'arguments', input: 'arguments', parameters: 'arguments', function: 'name' };

/** Most bad entries a refusal lists ({@link problemsText}); the others are counted. */
const MAX_LISTED_PROBLEMS = 20;

/**
 * The refusal of a file's bad entries (`problems`, each at its place: `turn 1 of agent "a": …`, `agents[3] …`): the
 * one problem as it is, several as `<count> <what> are invalid:` and one a line, at most {@link MAX_LISTED_PROBLEMS}
 * of them and the rest counted. Scripts and agent lists are refused alike (./options.ts).
 */
export function problemsText(problems: readonly string[], what: string): string {
  if (problems.length === 1) return problems[0] as string;
  const listed = problems.slice(0, MAX_LISTED_PROBLEMS).map((problem) => `\n- ${problem}`);
  const more = problems.length - MAX_LISTED_PROBLEMS;
  return `${problems.length} ${what} are invalid:${listed.join('')}${more > 0 ? `\n- and ${more} more` : ''}`;
}

/** What a key the script does not know says (a misspelt one would be dropped, or read as a missing `text`). */
function unknownKeys(
  value: object,
  known: readonly string[],
  aliases: Readonly<Record<string, string>>,
): string | undefined {
  const unknown = Object.keys(value).filter((key) => !known.includes(key));
  return unknown.length === 0 ? undefined : unknownKeysText(unknown, known, { aliases, noun: 'key' });
}

/**
 * What is wrong with a scripted turn, said after its place (` must be …`, `: text must be a string`), its tool
 * calls' problems each; `undefined` when it is a turn. A turn with keys the script does not know is told only
 * those: what else looks wrong (a missing `text`) follows from them.
 */
function turnProblem(turn: unknown): string | undefined {
  if (typeof turn !== 'object' || turn === null)
    return ` must be { text } or { toolCalls }, got ${turn === null ? 'null' : typeof turn}`;
  const unknown = unknownKeys(turn, TURN_KEYS, TURN_ALIASES);
  if (unknown !== undefined) return `: ${unknown}`;
  const { text, toolCalls } = turn as { text?: unknown; toolCalls?: unknown };
  if (toolCalls === undefined) return typeof text === 'string' ? undefined : ': text must be a string';
  if (!Array.isArray(toolCalls)) return ': toolCalls must be an array';
  const problems: string[] = [];
  if (text !== undefined && typeof text !== 'string') problems.push('text must be a string when given');
  toolCalls.forEach((call: unknown, index) => {
    const at = `toolCalls[${index}]`;
    const unknownOfCall =
      typeof call === 'object' && call !== null ? unknownKeys(call, CALL_KEYS, CALL_ALIASES) : undefined;
    if (unknownOfCall !== undefined) {
      problems.push(`${at}: ${unknownOfCall}`);
      return;
    }
    const { name, id } = (call ?? {}) as { name?: unknown; id?: unknown };
    if (typeof name !== 'string' || name.length === 0) problems.push(`${at}.name must be a non-empty string`);
    const args = argumentsProblem((call as { arguments?: unknown } | null | undefined)?.arguments);
    if (args !== undefined) problems.push(`${at}.arguments must be ${args}`);
    if (id !== undefined && (typeof id !== 'string' || id.length === 0))
      problems.push(`${at}.id must be a non-empty string`);
  });
  return problems.length === 0 ? undefined : `: ${problems.join('; ')}`;
}

/**
 * What is wrong with a tool call's `arguments`, completing "arguments must be …", or `undefined` when the client
 * decodes them to an object as it would at run time ({@link decodeArguments}: absent, `null`, an object, or a JSON
 * string of one); the others would reach the tool only as `invalid_arguments`.
 */
function argumentsProblem(raw: unknown): string | undefined {
  const decoded = decodeArguments(raw);
  if (decoded.ok) return undefined;
  const got =
    typeof raw !== 'string'
      ? describeValue(raw)
      : decoded.reason === 'not_json'
        ? `text that is not JSON (${decoded.detail})`
        : `a JSON string of ${decoded.type === 'array' ? 'an array' : `a ${decoded.type}`}`;
  return `an object or a JSON string of one, got ${got}`;
}

/** Refuses a turn a scripted turn function returned that is not one. */
function checkTurn(turn: unknown, where: string): asserts turn is ModelTurn {
  const problem = turnProblem(turn);
  if (problem !== undefined) throw new OptionsError('invalid_script', `${where}${problem}`);
}
