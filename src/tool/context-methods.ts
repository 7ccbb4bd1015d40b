/**
 * The methods `ctx` gives a tool for talking while it runs (PROTOCOL.md §18): how far it got, and questions to
 * the user, events for the run's record. Declared here, on their own, so that `ToolContext` (src/tool/tool.ts) stays a list of fields.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';

/** What `ctx.progress()` takes. */
export interface ProgressInput {
  /** How far the call has got: a finite number ≥ 0 (a count, bytes, a percentage: your unit). */
  progress: number;
  /** What `progress` counts towards, when known: a finite number > 0. */
  total?: number | undefined;
  /** A line for a human, e.g. `exported 40 of 100 tables` (cut at 1,000 characters). */
  message?: string | undefined;
}

/** What `ctx.askQuestion()` takes besides the question. */
export interface AskOptions<S = undefined> {
  /** The answer must be one of these (1 to 50 strings of 1 to 200 characters); the UI shows a button each. */
  choices?: readonly string[] | undefined;
  /**
   * The answer must match this: any Standard Schema (zod, valibot, arktype, …) or a JSON Schema object. The
   * promise then resolves with the schema's output. Without `choices` or `schema` the answer is a string.
   */
  schema?: S | undefined;
  /** Stop waiting after this many milliseconds (rejects with `QuestionError` `timeout`). @default none */
  timeoutMs?: number | undefined;
}

/** The methods of `ctx` a tool talks through. Read them from `ctx` (destructuring works); a spread copy lacks them. */
export interface ContextMethods {
  /**
   * Tells how far the call has got. Goes to the service as a progress frame (at most four per second per call,
   * the last one always), which shows it in the UI and to the code that started the run; over a service that
   * does not take progress, and after the call has ended, it does nothing. With `invokeTool`, each one goes to
   * `options.onProgress`. Progress also renews the call's lease (PROTOCOL.md §18.4), as the client does anyway
   * for every running call.
   *
   * @throws ToolDefinitionError `invalid_progress` when `progress` is not a finite number ≥ 0, `total` not a
   *   finite number > 0, or `message` not a string (inside `execute`, the call then ends with that error).
   * @example
   * ```ts
   * ctx.progress({ progress: done, total: tables.length, message: `exported ${name}` });
   * ```
   */
  progress(update: ProgressInput): void;
  /**
   * Asks the user something and waits for the answer, while the call goes on (it gives up its concurrency slot
   * meanwhile, as a call waiting for an approval does). Answered by the client's `onQuestion` when it has one,
   * else by a person through the service (the agent UI shows the question with its choices, or a text box; the
   * HTTP API answers it), or by `invokeTool`'s `onQuestion`. The wait counts towards the call's `timeoutMs`.
   *
   * @returns the answer: a string, one of `choices`, or the output of `schema`.
   * @throws QuestionError (as a rejection) `declined`, `cancelled`, `timeout`, `unsupported`, `invalid_answer` or
   *   `failed`: unlike systems whose question ends the call, here the tool decides what to do next.
   *   ToolDefinitionError `invalid_question` for a malformed question (an empty text, a bad choice or schema, an
   *   option it does not have).
   * @example
   * ```ts
   * const warehouse = await ctx.askQuestion('Which warehouse?', { choices: ['Berlin', 'Lyon'] });
   * ```
   */
  /**
   * Records something that happened in the run, e.g. `ctx.emit('rows.exported', { table, rows })`: the service
   * keeps it in the run's transcript, `client.run()`'s `onEvent` gets it (a `tool_event`), and the agent UI lists
   * it under the call. Every event counts (none is coalesced) and survives a dropped connection. `data` is written
   * as JSON by the rules of a result (BigInt as a string, a cycle as `"[Circular]"`) and redacted; over 16,384
   * bytes it is recorded as `{ truncated: true, bytes }`. Over a service without events, after the call has
   * ended, and past 256 events in one call, it does nothing. With `invokeTool`, each one goes to
   * `options.onEmit`.
   *
   * @throws ToolDefinitionError `invalid_event` when `type` is not 1 to 128 letters, digits or `_ . : / -`.
   */
  emit(type: string, data?: unknown): void;
  askQuestion<S = undefined>(
    question: string,
    options?: AskOptions<S>,
  ): Promise<
    S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : S extends undefined ? string : unknown
  >;
}
