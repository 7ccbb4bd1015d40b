/**
 * The members of `ctx` that say where a call runs and let it survive running again: the attempt, the run's
 * session and agent, a logger scoped to the call, durable steps (PROTOCOL.md §18.11, §18.12). Declared here, on
 * their own, so that `ToolContext` (src/tool/tool.ts) stays a short list of fields.
 *
 * @module
 */
import type { Logger } from '../logger';

/** The second argument of `ctx.idempotencyKey()`. */
export interface IdempotencyKeyOptions {
  /**
   * What the key is unique to. `'call'`: this call (`toolwire:<callId>[:<scope>]`): the same in every attempt and
   * every process the call is re-delivered to, different for the next call of the same tool. `'run'`: the run
   * (`toolwire-run:<runId>[:<scope>]`): the same for every call of the run with the same scope, as Assembly Line's
   * per-run key. Each part is URI-encoded. @default 'call'
   */
  per?: 'call' | 'run' | undefined;
}

/** The members of `ctx` about the call's place: attempt, session, agent, logger, steps. */
export interface ContextScope {
  /**
   * Which attempt this is, from 1. Above 1 only for a tool with `retry`, whose `execute` runs again after a
   * failure; every other member of `ctx` (the `callId`, the idempotency keys, the kept steps) stays the same.
   */
  readonly attempt: number;
  /**
   * The session that started the call's run (the client's that called `client.run()`, for its nested runs too),
   * as the service says (feature `call_context`); `undefined` for a run started over HTTP, over a service that
   * does not say, and with `invokeTool` unless given.
   */
  readonly sessionId: string | undefined;
  /**
   * Name of the agent whose run made the call, as the service says (feature `call_context`); `undefined` over a
   * service that does not say, and with `invokeTool` unless given.
   */
  readonly agentName: string | undefined;
  /**
   * The client's logger (or `invokeTool`'s `logger`), for this call: each line gets `callId`, `toolName` and
   * `attempt` among its fields, and every text and field is redacted (the client's `redact` rules, the API key,
   * the values of the tool's `sensitiveFieldNames`). Silent when there is no logger.
   */
  readonly logger: Logger;
  /**
   * A durable step: runs `fn` once for this call and keeps its result. When the same `key` is reached again in
   * this call (a retry, or the call re-dispatched to another process after this one died), `fn` does not run:
   * the kept result is returned. Over a service without the feature `steps`, or with `invokeTool`, steps are kept
   * for the retries of the call only.
   *
   * **What it returns** is the result as the service keeps it, every time, the first run included: its JSON
   * (written as a tool's output is: a `Date` becomes its ISO string, a `Map` an object, a `Set` an array,
   * `undefined` in an object is left out, `undefined` as the result is `null`), redacted like every value the
   * client sends (a secret in a step result comes back as `[redacted]`: fetch secrets outside steps), as a fresh
   * copy for each reader. So a tool behaves the same whether its process died or not. The type says `T`; for a
   * result that is not plain JSON it is that JSON form.
   *
   * **Bounds.** A result over 16,384 bytes of JSON (`STEP_LIMITS.maxResultBytes`) is returned and kept for this
   * process only, with a `warn` on `ctx.logger` (the work is done; refusing it would only make a retry redo it).
   * A call keeps at most 32 steps (`STEP_LIMITS.maxPerCall`, the ones the service gave back included): the next
   * new key is refused before its `fn` runs.
   *
   * A process that dies while `fn` runs left no result: the next one runs `fn` again (at least once). Give an
   * external write inside `fn` an idempotency key (`ctx.idempotencyKey(key)`) so that running twice does no harm.
   *
   * @returns the kept JSON value of the step's result, a copy per call of `ctx.step()`.
   * @throws (as the returned promise's rejection, never synchronously) what `fn` throws (nothing is kept: the
   *   next attempt runs it again); ToolDefinitionError `invalid_step` when `key` is not a string of 1 to 256
   *   characters or `fn` not a function, `too_many_steps` past 32 steps (`fn` does not run), and
   *   `invalid_step_result` when the result holds a BigInt, a function or a symbol anywhere, or a cycle (`fn` ran;
   *   nothing is kept); the call's abort reason once it was cancelled or timed out, and AbortError `call_ended`
   *   once it has its result (`fn` does not run).
   * @example
   * ```ts
   * const profile = await ctx.step('load-profile', () => loadProfile(input.customerId));
   * ```
   */
  step<T>(key: string, fn: () => T | Promise<T>, options?: StepOptions): Promise<T>;
}

/**
 * The third argument of `ctx.step()`, as Assembly Line writes it. Accepted so that its tools move over unchanged;
 * toolwire keeps and sends only the result, so `metadata` is not used.
 */
export interface StepOptions {
  /** Accepted and ignored. */
  metadata?: Record<string, unknown> | undefined;
}
