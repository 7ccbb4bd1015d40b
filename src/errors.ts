/**
 * toolwire's error hierarchy, by fault. A tool failure is never one of these: it becomes a
 * {@link ToolCallResult} with a non-`ok` status. These are thrown for usage, protocol and network faults.
 *
 * Every error has a stable string `code` (listed in docs/PROTOCOL.md, "Error codes") and keeps the original
 * failure in the standard `cause`.
 *
 * @module
 */

/** Options accepted by every toolwire error constructor. */
export interface ToolwireErrorOptions {
  /** The underlying failure, kept in the standard `Error.cause`. */
  cause?: unknown;
}

/** Base class of every error toolwire throws. `name` is the subclass name; `code` is a stable string. */
export class ToolwireError extends Error {
  /** Stable machine-readable code, e.g. `'invalid_name'` or `'unauthorized'`. */
  readonly code: string;

  constructor(code: string, message: string, options?: ToolwireErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * The developer's configuration is wrong: a tool definition (`tool()`), client or agent options.
 * Thrown synchronously where the configuration is given, never later mid-call.
 */
export class ToolDefinitionError extends ToolwireError {}

/** The peer sent something that breaks protocol v1 (see docs/PROTOCOL.md). */
export class ProtocolError extends ToolwireError {}

/** The network failed, the service refused the connection, or the client is closed. */
export class ConnectionError extends ToolwireError {}

/** Something took longer than its `timeoutMs`. */
export class TimeoutError extends ToolwireError {}

/** An operation was aborted through an `AbortSignal` or a `cancel` from the service. */
export class AbortError extends ToolwireError {}

/** A run started with `client.run()` failed or was cancelled on the service. */
export class RunError extends ToolwireError {}

/**
 * `ctx.askQuestion()` got no answer the tool can use. `code` says why: `declined` (the user chose not to answer;
 * `reason` may say why), `cancelled` (the call was cancelled or timed out, or the service closed the question),
 * `timeout` (the question's own `timeoutMs` passed), `unsupported` (nobody can answer: no `onQuestion`, and the
 * service does not take questions), `invalid_answer` (the answer does not match the choices or the schema),
 * `failed` (the local `onQuestion` threw). The tool decides what to do: the call goes on either way.
 */
export class QuestionError extends ToolwireError {
  /** The user's reason, when they declined with one (or the service's, when it closed the question). */
  readonly reason: string | undefined;

  constructor(
    code: string,
    message: string,
    options?: ToolwireErrorOptions & { reason?: string | undefined },
  ) {
    super(code, message, options);
    this.reason = options?.reason;
  }
}
