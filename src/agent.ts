/**
 * Agents: a name, instructions and tools, run by the service's model. `asTool` turns an agent into a tool that
 * another agent can call: the call becomes a nested run whose final output is the tool's result.
 *
 * @module
 */
import { ToolDefinitionError } from './errors';
import type { AgentDefinition } from './protocol';
import type { RunResult } from './runs';
import { type Tool, type ToolContext, tool } from './tool';

/** Options of `new Agent(...)`. */
export interface AgentOptions {
  /** Shown in transcripts and used for scripted models' per-agent scripts. 1–128 characters. */
  name: string;
  /** The system prompt. */
  instructions: string;
  /** Tools the agent may call; they run in the client that starts the run. @default [] */
  // biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list of tools; each keeps its own types.
  tools?: ReadonlyArray<Tool<any, any, any>>;
  /** Model name passed to the service. @default the service's default model */
  model?: string;
}

/** Options of {@link Agent.asTool}. */
export interface AsToolOptions {
  /** Tool name. @default the agent's name with characters outside `[a-zA-Z0-9_-]` replaced by `_` */
  toolName?: string;
  /** What the calling model reads to decide when to use this agent. Required. */
  toolDescription: string;
  /** Turns the nested run's result into what the calling model reads. @default the final output (JSON if not a string) */
  outputExtractor?: (result: RunResult) => string | Promise<string>;
  /** Model turns of the nested run. @default the service's default */
  maxTurns?: number;
  /** Deepest nesting allowed: a call from a run at this depth or deeper fails cleanly. @default 5 */
  maxDepth?: number;
}

/** Default nesting bound of agents used as tools. */
export const DEFAULT_MAX_DEPTH = 5;

/** @internal Key under which the client gives a tool call the ability to start a nested run. */
export const NESTED_RUN: unique symbol = Symbol('toolwire.nestedRun');

type NestedRun = (
  agent: Agent,
  input: string,
  maxTurns: number | undefined,
  signal: AbortSignal,
  context: unknown,
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
 * @throws ToolDefinitionError `invalid_agent` when the name is empty or longer than 128 characters.
 */
export class Agent {
  readonly name: string;
  readonly instructions: string;
  // biome-ignore lint/suspicious/noExplicitAny: see AgentOptions.tools.
  readonly tools: ReadonlyArray<Tool<any, any, any>>;
  readonly model: string | undefined;

  constructor(options: AgentOptions) {
    if (typeof options?.name !== 'string' || options.name.length === 0 || options.name.length > 128) {
      throw new ToolDefinitionError(
        'invalid_agent',
        'Agent option "name" must be a string of 1–128 characters',
      );
    }
    if (typeof options.instructions !== 'string') {
      throw new ToolDefinitionError(
        'invalid_agent',
        `Agent "${options.name}": option "instructions" must be a string`,
      );
    }
    this.name = options.name;
    this.instructions = options.instructions;
    this.tools = options.tools ?? [];
    this.model = options.model;
  }

  /**
   * This agent as a tool with parameters `{ input: string }`. Its `execute` runs the agent as a nested run (the
   * parent run and call are recorded on the service) and returns the final output. A failed or cancelled nested
   * run, or one past `maxDepth`, comes back to the calling model as this tool's error text.
   * @throws ToolDefinitionError when `toolDescription` is missing or the tool name is invalid.
   */
  asTool(options: AsToolOptions): Tool<{ input: string }, string> {
    const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    const agent = this;
    return tool({
      name: options.toolName ?? this.name.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64),
      description: options.toolDescription,
      parameters: {
        type: 'object',
        properties: { input: { type: 'string', description: `What to ask ${this.name}` } },
        required: ['input'],
        additionalProperties: false,
      } as const,
      async execute({ input }, ctx: ToolContext) {
        const run = (ctx as unknown as Record<symbol, NestedRun | undefined>)[NESTED_RUN];
        if (!run) throw new Error(`agent ${agent.name} can only run as a tool inside a toolwire Client`);
        if (ctx.depth >= maxDepth) {
          throw new Error(
            `agents are nested ${ctx.depth} deep, at the limit of ${maxDepth}; not starting ${agent.name}`,
          );
        }
        const result = await run(agent, input, options.maxTurns, ctx.signal, ctx.context);
        if (options.outputExtractor) return options.outputExtractor(result);
        return typeof result.finalOutput === 'string'
          ? result.finalOutput
          : JSON.stringify(result.finalOutput ?? null);
      },
    });
  }
}

/** The wire definition of an agent: its tools by name; nothing executable. */
export function agentDefinition(agent: Agent): AgentDefinition {
  const definition: AgentDefinition = {
    name: agent.name,
    instructions: agent.instructions,
    tools: agent.tools.map((item) => item.name),
  };
  if (agent.model !== undefined) definition.model = agent.model;
  return definition;
}
