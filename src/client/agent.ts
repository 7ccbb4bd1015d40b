/**
 * Agents: a name, instructions and tools, run by the service's model. `asTool` turns an agent into a tool that
 * another agent can call: the call becomes a nested run whose final output is the tool's result.
 *
 * @module
 */
import type { StandardJSONSchemaV1, StandardSchemaV1 } from '@standard-schema/spec';
import type { ToolRegistry } from '../call/registry';
import { ToolDefinitionError } from '../errors';
import {
  aDuration,
  aFunction,
  anInteger,
  anything,
  aString,
  checkOptions,
  describeValue,
  isRecord,
  type OptionsSpec,
  type Rule,
} from '../tool/check-options';
import { resolveSchema, type SchemaAdapter } from '../tool/schema';
import {
  aToolSet,
  renameAdviceFor,
  type ToolSetOf,
  type ToolsContext,
  type ToolsGiven,
  toTools,
  twoToolsNamed,
  uniqueTools,
} from '../tool/shapes';
import {
  type DefaultContext,
  type InferParameters,
  TOOL_NAME_PATTERN,
  type Tool,
  type ToolContext,
  type ToolParameters,
  tool,
  toolInternals,
} from '../tool/tool';
import { type AgentDefinition, TOOL_CHOICE_MODES, type ToolChoice, toolChoiceSchema } from '../wire/protocol';
import type { RunResult } from './runs';

/** Options of `new Agent(...)`. */
export interface AgentOptions<O extends ToolParameters | undefined = undefined, T = ToolsGiven> {
  /** Shown in transcripts and used for scripted models' per-agent scripts. 1–128 characters. */
  name: string;
  /** The system prompt. @default '' (none: the model gets only the run's input) */
  instructions?: string | undefined;
  /**
   * Tools the agent may call; they run in the client that starts the run. An array or a record keyed by name,
   * of any shape a client's `tools` accepts (`ToolSet`; `T` types it entry by entry, inferred). The run context
   * its `tool()` results declare (`ToolsContext`) is what `client.run()` takes for this agent. @default []
   */
  // biome-ignore lint/suspicious/noExplicitAny: an agent's tools run with the context of the run that uses it.
  tools?: ToolSetOf<T, any> | undefined;
  /** Model name passed to the service. @default the service's default model */
  model?: string | undefined;
  /**
   * Shape of the final answer: any schema `tool()` accepts as parameters (zod, valibot, arktype, Standard Schema,
   * JSON Schema). It is announced as `outputSchema`, the model must answer with JSON matching it, and `run()`
   * validates and parses the answer (a mismatch rejects with `RunError` `invalid_output`). @default a string answer
   */
  outputType?: O | undefined;
  /**
   * Which tools the model may call in this agent's runs: `'auto'`, `'none'`, `'required'` or
   * `{ type: 'tool', name }` (one of `tools`). A run's own `toolChoice` overrides it. Absent: `'auto'`.
   */
  toolChoice?: ToolChoice | undefined;
}

/**
 * The run context an agent's tools need ({@link ToolsContext} of its `tools`, those of the agents it uses as tools
 * included): what `client.run()` checks its `context` against. `unknown` when no tool declares one.
 */
// biome-ignore lint/suspicious/noExplicitAny: any agent.
export type AgentContext<A extends Agent<any>> = A extends Agent<any, infer T> ? ToolsContext<T> : unknown;

/** The final output type of an agent: a string, or what its `outputType` parses to. */
export type AgentOutput<O> = 0 extends 1 & O
  ? unknown // `Agent<any>`: stop here instead of expanding every schema type
  : [O] extends [undefined]
    ? string
    : InferParameters<O>;

/** Options of {@link Agent.asTool}. */
export interface AsToolOptions {
  /** Tool name. @default the agent's name with characters outside `[a-zA-Z0-9_-]` replaced by `_` */
  toolName?: string | undefined;
  /**
   * What the calling model reads to decide when to use this agent: say what the agent knows or does. Without it
   * the description only names the agent.
   * @default Runs the agent "<name>" with the input as its request and returns its final answer.
   */
  toolDescription?: string | undefined;
  /** Turns the nested run's result into what the calling model reads. @default the final output (JSON if not a string) */
  outputExtractor?: ((result: RunResult) => string | Promise<string>) | undefined;
  /** Model turns of the nested run. @default the service's default */
  maxTurns?: number | undefined;
  /** Deepest nesting allowed: a call from a run at this depth or deeper fails cleanly. @default 5 */
  maxDepth?: number | undefined;
  /**
   * The call's time limit in milliseconds, the nested run and `outputExtractor` included, as a tool's `timeoutMs`:
   * past it the call ends `timeout` (the model reads that it timed out) and the nested run is cancelled.
   * @default none: the call waits for the nested run as long as the service's deadline lets it
   */
  timeoutMs?: number | undefined;
}

/** The option rule of a `toolChoice` (`client.run()`, `new Agent()`). */
export const aToolChoice: Rule = {
  expected: `${TOOL_CHOICE_MODES.map((mode) => `'${mode}'`).join(', ')} or { type: 'tool', name }`,
  test: (value) => toolChoiceSchema().safeParse(value).success,
};

/** Default nesting bound of agents used as tools. */
export const DEFAULT_MAX_DEPTH = 5;

/** What `new Agent()` accepts: one rule per option of {@link AgentOptions}. */
const AGENT_OPTIONS: OptionsSpec<AgentOptions<ToolParameters | undefined>> = {
  rules: {
    name: { ...aString('a string of 1 to 128 characters', { minLength: 1, maxLength: 128 }), required: true },
    instructions: aString(),
    tools: aToolSet,
    model: aString(),
    outputType: anything, // resolveSchema checks it
    toolChoice: aToolChoice,
  },
  aliases: {
    systemPrompt: 'instructions',
    system: 'instructions',
    prompt: 'instructions',
    outputSchema: 'outputType',
    output: 'outputType',
  },
};

/** What `agent.asTool()` accepts: one rule per option of {@link AsToolOptions}. */
const AS_TOOL_OPTIONS: OptionsSpec<AsToolOptions> = {
  rules: {
    toolName: {
      ...aString('1 to 64 letters, digits, _ or -', { pattern: TOOL_NAME_PATTERN }),
      code: 'invalid_name',
    },
    toolDescription: {
      expected: 'a non-empty string',
      test: (value) => typeof value === 'string' && value.trim() !== '',
    },
    outputExtractor: aFunction,
    maxTurns: anInteger({ min: 1 }),
    maxDepth: anInteger({ min: 1 }),
    timeoutMs: { ...aDuration(1), code: 'invalid_timeout' },
  },
  aliases: {
    name: 'toolName',
    description: 'toolDescription',
    customOutputExtractor: 'outputExtractor',
  },
};

/**
 * @internal Key under which the client gives a tool call the ability to start a nested run. `Symbol.for`, so that
 * an agent's `asTool()` made by one copy of toolwire (ESM and CJS both loaded) runs nested in the other's client.
 */
export const NESTED_RUN: unique symbol = Symbol.for('toolwire.nestedRun.v1');

/** Marks {@link Agent}'s prototype: `Symbol.for`, so that an agent made by one copy of toolwire runs in the other. */
const AGENT: unique symbol = Symbol.for('toolwire.agent.v1');

/** `true` for an {@link Agent}, made by this copy of toolwire or another (its ESM and CJS builds both loaded). */
// biome-ignore lint/suspicious/noExplicitAny: any agent, whatever its output type.
export function isAgent(value: unknown): value is Agent<any> {
  return value instanceof Agent || (isRecord(value) && (value as { [AGENT]?: unknown })[AGENT] === true);
}

/** Starts `agent` as a nested run of the call `ctx` belongs to (sharing its context, ended by its signal). */
export type NestedRun = (
  // biome-ignore lint/suspicious/noExplicitAny: any agent, whatever its output type.
  agent: Agent<any>,
  input: string,
  maxTurns: number | undefined,
  ctx: ToolContext,
) => Promise<RunResult>;

/**
 * An agent: what the model is told to be, and which tools it may call.
 *
 * @example
 * ```ts
 * import { Agent } from 'toolwire';
 *
 * const researcher = new Agent({ name: 'Researcher', instructions: 'Answer from the database.' });
 * const lookUp = researcher.asTool({ toolDescription: 'Look up facts about customers and orders.' });
 * const writer = new Agent({ name: 'Writer', instructions: 'Write replies.', tools: [lookUp] });
 * ```
 * @throws ToolDefinitionError naming the agent, the option and the value: `invalid_options` (not an object),
 *   `unknown_option` (with "did you mean": `tool` → `tools`, `systemPrompt` → `instructions`), `invalid_agent` (a
 *   name not of 1 to 128 characters, instructions or model not a string, tools not an array or record),
 *   `not_a_tool` (an entry of `tools` of no accepted shape, named by its index or key), `duplicate_tool` (two
 *   different tools of one name; the same tool listed twice is kept once); what
 *   `tool()` throws for an object of `tools` it refuses;
 *   `invalid_output_schema` / `unsupported_schema` for an `outputType` of no accepted kind.
 */
export class Agent<O extends ToolParameters | undefined = undefined, T = ToolsGiven> {
  /** Type-only: the final output type (`AgentOutput<O>`). */
  declare readonly '~output'?: AgentOutput<O>;
  readonly name: string;
  readonly instructions: string;
  // biome-ignore lint/suspicious/noExplicitAny: see AgentOptions.tools.
  readonly tools: ReadonlyArray<Tool<any, any, any>>;
  readonly model: string | undefined;
  /** Which tools the model may call in this agent's runs (`undefined`: `'auto'`). */
  readonly toolChoice: ToolChoice | undefined;
  /** The validator and JSON Schema of `outputType`, when given. */
  readonly #output: SchemaAdapter | undefined;

  constructor(options: AgentOptions<O, T>) {
    const given: unknown = options;
    const name = isRecord(given) ? given.name : undefined;
    const valid = typeof name === 'string' && name.length >= 1 && name.length <= 128;
    checkOptions(given, AGENT_OPTIONS, {
      name: valid ? `Agent ${describeValue(name)}` : 'new Agent(options)',
      error: ToolDefinitionError,
      invalidCode: 'invalid_agent',
    });
    const listed = options.tools ?? [];
    // An array of tool() results is kept as it is (an agent may add itself to it later, as a tool that recurses).
    const tools =
      Array.isArray(listed) && listed.every((item) => toolInternals(item) !== undefined)
        ? (listed as Agent['tools'])
        : toTools(listed, `Agent ${describeValue(options.name)}`);
    // The same tool listed twice is kept once (in a copy of the list); two different tools may not share a name.
    const unique = uniqueTools(tools, (name, both) => {
      throw new ToolDefinitionError(
        'duplicate_tool',
        `Agent "${options.name}": ${twoToolsNamed(name, both)}`,
      );
    });
    this.name = options.name;
    this.instructions = options.instructions ?? '';
    this.tools = unique;
    this.model = options.model;
    this.toolChoice = options.toolChoice;
    const forced = options.toolChoice;
    if (typeof forced === 'object' && !unique.some((item) => item.name === forced.name)) {
      throw new ToolDefinitionError(
        'invalid_agent',
        `Agent "${options.name}": toolChoice names the tool "${forced.name}", which is not one of its tools`,
      );
    }
    this.#output =
      options.outputType === undefined
        ? undefined
        : resolveSchema(options.outputType, {
            owner: `Agent "${options.name}"`,
            field: 'outputType',
            requireObject: false,
          });
  }

  /** JSON Schema of the final output (`outputType`), or `undefined` for a string answer. */
  get outputSchema(): Record<string, unknown> | undefined {
    return this.#output?.jsonSchema;
  }

  /**
   * Validates a final output against `outputType`: the parsed value, or the issues as one message.
   * Without `outputType` the output must be a string (the model's text), as `RunResult.finalOutput` promises.
   */
  async parseOutput(
    value: unknown,
  ): Promise<{ ok: true; value: AgentOutput<O> } | { ok: false; message: string }> {
    if (!this.#output) {
      if (typeof value === 'string') return { ok: true, value: value as AgentOutput<O> };
      const got = value === undefined ? 'none' : value === null ? 'null' : typeof value;
      return { ok: false, message: `expected the model's text (a string), got ${got}` };
    }
    const result = await this.#output.validate(value);
    if (result.ok) return { ok: true, value: result.value as AgentOutput<O> };
    return { ok: false, message: result.issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ') };
  }

  /**
   * This agent as a tool with parameters `{ input: string }`. Its `execute` runs the agent as a nested run (the
   * parent run and call are recorded on the service) and returns the final output. A failed or cancelled nested
   * run, or one past `maxDepth`, comes back to the calling model as this tool's error text.
   * Every option may be left out, as in the OpenAI Agents SDK; give `toolDescription` all the same, since the
   * default only names the agent.
   * @example
   * ```ts
   * import { Agent } from 'toolwire';
   *
   * const researcher = new Agent({ name: 'Researcher', instructions: 'Look facts up.' });
   * const ask = researcher.asTool({ toolName: 'ask_researcher', toolDescription: 'Ask a factual question.' });
   * ```
   * @throws ToolDefinitionError `invalid_options` (not an object, e.g. `null`), `unknown_option` (e.g.
   *   `description` for `toolDescription`), `invalid_option` (`toolDescription` empty, `maxTurns` or `maxDepth`
   *   not a positive integer, `outputExtractor` not a function), `invalid_timeout` (`timeoutMs` not a positive
   *   integer of milliseconds), `invalid_name` (a `toolName` outside
   *   `^[a-zA-Z0-9_-]{1,64}$`, or none can be derived from the agent's name).
   */
  // biome-ignore lint/suspicious/noExplicitAny: any agent; `this` types the tool's context (see AgentToolContext).
  asTool<A extends Agent<any>>(
    this: A,
    options: AsToolOptions = {},
  ): Tool<{ input: string }, string, AgentToolContext<A>> {
    const where = `Agent "${this.name}".asTool()`;
    checkOptions(options, AS_TOOL_OPTIONS, { name: where, error: ToolDefinitionError });
    const { maxDepth = DEFAULT_MAX_DEPTH } = options;
    const derived = this.name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
    if (options.toolName === undefined && !/[a-zA-Z0-9]/.test(derived)) {
      throw new ToolDefinitionError(
        'invalid_name',
        `${where}: cannot derive a tool name from the agent's name (tool names are [a-zA-Z0-9_-]); pass toolName`,
      );
    }
    // biome-ignore lint/suspicious/noExplicitAny: erases O, which the nested run does not need.
    const agent = this as unknown as Agent<any>;
    return tool({
      name: options.toolName ?? derived,
      description: options.toolDescription ?? defaultToolDescription(this.name),
      parameters: agentToolParameters(this.name),
      timeoutMs: options.timeoutMs,
      async execute({ input }, ctx: ToolContext) {
        const run = (ctx as unknown as Record<symbol, NestedRun | undefined>)[NESTED_RUN];
        if (!run) throw new Error(`agent ${agent.name} can only run as a tool inside a toolwire Client`);
        if (ctx.depth >= maxDepth) {
          throw new Error(
            `agents are nested ${ctx.depth} deep, at the limit of ${maxDepth}; not starting ${agent.name}`,
          );
        }
        const result = await run(agent, input, options.maxTurns, ctx);
        if (options.outputExtractor) return options.outputExtractor(result);
        return typeof result.finalOutput === 'string'
          ? result.finalOutput
          : JSON.stringify(result.finalOutput ?? null);
      },
    });
  }
}

/**
 * The context of an agent used as a tool: the one its tools need (its nested run gets the calling run's), else
 * a tool's default ({@link DefaultContext}).
 */
// biome-ignore lint/suspicious/noExplicitAny: any agent.
type AgentToolContext<A extends Agent<any>> =
  unknown extends AgentContext<A> ? DefaultContext : AgentContext<A>;

/** The description of an agent used as a tool when `asTool()` is given none ({@link AsToolOptions.toolDescription}). */
function defaultToolDescription(agentName: string): string {
  return `Runs the agent ${JSON.stringify(agentName)} with the input as its request and returns its final answer.`;
}

/**
 * The parameters of an agent used as a tool, `{ input: string }`, as a Standard Schema that announces them
 * itself (Standard JSON Schema) rather than a plain JSON Schema, which the core reads only after
 * `toolwire/json-schema`: `asTool()` works in a browser without that import. Its `validate` takes any input: the
 * announcement is the check (src/tool/schema/announced.ts), made by the JSON Schema validator, so the model reads
 * what it read of the plain JSON Schema.
 */
function agentToolParameters(
  agentName: string,
): StandardSchemaV1<{ input: string }> & StandardJSONSchemaV1<{ input: string }> {
  const schema = {
    type: 'object',
    properties: { input: { type: 'string', description: `What to ask ${agentName}` } },
    required: ['input'],
    additionalProperties: false,
  };
  return {
    '~standard': {
      version: 1,
      vendor: 'toolwire',
      validate: (value) => ({ value: value as { input: string } }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}

/** The wire definition of an agent: its tools by name; nothing executable. */
// biome-ignore lint/suspicious/noExplicitAny: any agent, whatever its output type.
export function agentDefinition(agent: Agent<any>): AgentDefinition {
  const definition: AgentDefinition = {
    name: agent.name,
    instructions: agent.instructions,
    tools: agent.tools.map((item) => item.name),
  };
  if (agent.model !== undefined) definition.model = agent.model;
  if (agent.outputSchema !== undefined) definition.outputSchema = agent.outputSchema;
  return definition;
}

/*
 * The tools of an agent about to run, added to the client's registry.
 */
/**
 * The tools of `agent` that `registry` does not run yet (for the client to add, as `addTool()` adds one), or a
 * `ToolDefinitionError` `duplicate_tool` when the agent has a different tool under a name the registry already runs.
 */
export function missingAgentTools(
  registry: ToolRegistry,
  // biome-ignore lint/suspicious/noExplicitAny: any agent, whatever its output type.
  agent: Agent<any>,
): Agent['tools'] | ToolDefinitionError {
  for (const item of agent.tools) {
    const registered = registry.get(item.name);
    if (registered !== undefined && registered !== item) {
      const advice = renameAdviceFor([registered, item]);
      return new ToolDefinitionError(
        'duplicate_tool',
        `agent "${agent.name}" has a tool "${item.name}", but this client already runs a different tool with that name; ` +
          (advice === undefined
            ? 'give the agent and the client the same tool object (tools are compared by identity: two tool() calls ' +
              'make two tools, even with the same options), or rename one of them'
            : `${advice}, or give the agent and the client the same tool object`),
      );
    }
  }
  return agent.tools.filter((item) => !registry.has(item.name));
}

Object.defineProperty(Agent.prototype, AGENT, { value: true });
