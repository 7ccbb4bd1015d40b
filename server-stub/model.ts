/**
 * The model seam: what the stub's turn loop asks of a model, and what a model answers. Implementations:
 * {@link scriptedModel} (deterministic, for tests and demos) and {@link openAIChatModel} (any
 * OpenAI-compatible chat-completions endpoint).
 *
 * @module
 */
import { ToolwireError } from '../src/errors';
import type { AgentDefinition, ContentPart, ToolChoice, ToolDefinition } from '../src/wire/protocol';

/** One tool call requested by the model, as it appears in an assistant message. */
export interface ChatToolCall {
  /** The model's id for the call, referenced by the tool message that answers it. */
  id: string;
  /** Tool name, as the model wrote it (it may name a tool that does not exist). */
  name: string;
  /** Arguments as the model produced them: usually a JSON string, sometimes an object, `''` or `null`. */
  arguments: unknown;
}

/**
 * A chat-style message of a run. Tool messages carry the result's `output` string only: widgets never reach the
 * model (they stay in the transcript).
 */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** Assistant messages only: the tool calls of that turn. */
  toolCalls?: ChatToolCall[];
  /** Tool messages only: the {@link ChatToolCall.id} this message answers. */
  toolCallId?: string;
  /**
   * Tool messages only: the result's content parts, when it had some (docs/protocol/call-context.md). `content` is
   * still the
   * whole text (with a note per image or file); a model that takes images gets them from here.
   */
  parts?: ContentPart[];
  /** Assistant messages only: the {@link ModelInfo.kind} of the model that wrote it, when it says. */
  model?: string;
}

/** What a model gets for one turn. */
export interface ModelRequest {
  /** The conversation so far: system instructions, user input, then assistant and tool messages. */
  messages: readonly ChatMessage[];
  /**
   * Definitions of the agent's tools that some client currently announces, and that `toolChoice` lets the model
   * call this turn (none for `none`, only the named one for `{ type: 'tool', name }`).
   */
  tools: readonly ToolDefinition[];
  /**
   * Which tools the model may call this turn (`run_start.toolChoice`, docs/protocol/ runs): a model that can be told
   * passes it on; the turn loop fails a run whose model answers against it. `required` and a named tool hold until
   * the model has called a tool in the run, then the turns are `auto`.
   */
  toolChoice?: ToolChoice | undefined;
  agent: AgentDefinition;
  runId: string;
  /** Nesting depth of the run: 0 for a top-level run. */
  depth: number;
  /** Model turns already taken in this run (0 for the first turn). */
  turn: number;
  /** Aborts when the run is cancelled or the server closes. */
  signal: AbortSignal;
  /**
   * A model that streams calls this with each piece of the turn's text as it arrives, in order (the pieces
   * joined are the turn's `text`); the stub sends them on as `text_delta` run events. Optional to call.
   */
  onText?: (delta: string) => void;
  /**
   * A model that sends its request again after a failure calls this before each new attempt (`attempt`: the one
   * starting, from 2; `status`: the HTTP status of the one that failed, when it had one); the stub logs it and
   * emits `model_retry`. Optional to call.
   */
  onRetry?: (info: { attempt: number; status?: number }) => void;
}

/** A tool call in a {@link ModelTurn}. `id` is generated when absent. */
export interface ModelToolCall {
  name: string;
  arguments?: unknown;
  id?: string;
}

/**
 * One model turn: a final text answer (the run ends), or tool calls (dispatched in parallel; the run continues
 * when every result is in) with optional text alongside.
 */
export type ModelTurn =
  | { text: string; toolCalls?: undefined }
  | { toolCalls: ModelToolCall[]; text?: string };

/**
 * A model the stub can run agents with. `nextTurn` may reject: the run then fails with the error's message.
 *
 * @example
 * ```ts
 * const echo: Model = { nextTurn: async ({ messages }) => ({ text: messages.at(-1)?.content ?? '' }) };
 * ```
 */
export interface Model {
  nextTurn(request: ModelRequest): Promise<ModelTurn>;
  /** What the model is, for people: the agent UI, the CLI and the `model` of messages and run results show it. */
  readonly info?: ModelInfo;
}

/** What a {@link Model} says it is. */
export interface ModelInfo {
  /** `'scripted'` ({@link scriptedModel}), `'openai-compatible'` ({@link openAIChatModel}), or your own word. */
  kind: string;
  /** One line for people, e.g. `scripted (2 agents)` or `llama3.1 at http://localhost:11434/v1`. */
  name: string;
  /**
   * The model's own name, as its API knows it (`llama3.1`, `gpt-4.1-mini`): the `model` of run results. Absent
   * for a model without one (a script); run results then carry `kind`.
   */
  model?: string;
}

/**
 * A model could not answer: the request failed, or the answer was not understood, or a scripted model has no
 * turn for the run. The run that asked fails with this error's message. Codes: `model_unreachable`,
 * `model_timeout`, `model_http_error`, `model_malformed_response`, `model_invalid_tool` ({@link openAIChatModel}); `no_script`,
 * `script_exhausted` ({@link scriptedModel}).
 */
export class ModelError extends ToolwireError {
  override name = 'ModelError';
}
