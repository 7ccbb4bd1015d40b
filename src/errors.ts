/**
 * toolwire's error hierarchy, by fault. A tool failure is never one of these: it becomes a
 * {@link ToolCallResult} with a non-`ok` status. These are thrown for usage, protocol and network faults.
 *
 * Every error has a stable string `code` and keeps the original failure in the standard `cause`. Every class and
 * code, with what raises it, is listed in docs/reference/errors.md.
 *
 * @module
 */

/** Options accepted by every toolwire error constructor. */
export interface ToolwireErrorOptions {
  /** The underlying failure, kept in the standard `Error.cause`. */
  cause?: unknown;
}

/**
 * Base class of every error toolwire throws. `name` is the subclass name, given as a string so that it survives a
 * minifier (a class of your own that extends one of these gets its class's name, as a minifier left it); `code` is a stable string.
 */
export class ToolwireError extends Error {
  /** Stable machine-readable code, e.g. `'invalid_name'` or `'unauthorized'`. */
  readonly code: string;

  constructor(code: string, message: string, options?: ToolwireErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = nameOf(new.target);
    this.code = code;
  }

  /**
   * `instanceof` across copies of toolwire in one process (its ES module and CommonJS builds both loaded: a
   * CommonJS tools module used from an ES module app): an error of another copy's class of the same name is an
   * instance, as it is of its own copy's. A class of your own that extends one of these keeps plain `instanceof`.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // `this` is the class `instanceof` asks about (a subclass inherits this method), not ToolwireError.
    // biome-ignore lint/complexity/noThisInStatic lint/complexity/noUselessThisAlias: the class asked about
    const cls = this;
    // Never throws: a value whose prototype chain cannot be read (a hostile Proxy a tool threw) is no instance.
    try {
      if (Function.prototype[Symbol.hasInstance].call(cls, value)) return true;
      const brand = Object.hasOwn(cls.prototype, ERROR_CLASS)
        ? cls.prototype[ERROR_CLASS as never]
        : undefined;
      if (brand === undefined || typeof value !== 'object' || value === null) return false;
      for (let proto = Object.getPrototypeOf(value); proto !== null; proto = Object.getPrototypeOf(proto))
        if (Object.hasOwn(proto, ERROR_CLASS) && proto[ERROR_CLASS] === brand) return true;
      return false;
    } catch {
      return false;
    }
  }
}

/**
 * `value instanceof Error`, never throwing: a value whose prototype chain cannot be read (a Proxy whose
 * `getPrototypeOf` trap throws, a revoked Proxy) is no `Error`. For the values a user's code throws or returns.
 * @internal
 */
export function isError(value: unknown): value is Error {
  if (typeof value !== 'object' || value === null) return false;
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}

/** The key under which each error class of toolwire's names itself on its prototype, the same in every copy. */
const ERROR_CLASS = Symbol.for('toolwire.errorClass');

/**
 * Names `cls` on its prototype for {@link ToolwireError}'s `instanceof` across copies of toolwire. Called once per
 * class, beside it. @internal
 */
export function brandErrorClass(cls: abstract new (...args: never[]) => Error, name: string): void {
  Object.defineProperty(cls.prototype, ERROR_CLASS, { value: name });
}
brandErrorClass(ToolwireError, 'ToolwireError');

/**
 * The `name` of an error made by `target`: each class below names itself with a string; a subclass of your own gets
 * its class's name. Outside the class, so that its body never names itself (a bundler would then rename the class).
 */
function nameOf(target: abstract new (...args: never[]) => unknown): string {
  return target === ToolwireError ? 'ToolwireError' : target.name;
}

/**
 * A definition is wrong: a tool (`tool()`, `agent.asTool()`), an agent (`new Agent()`), or a tool that conflicts
 * with another of the same name. Thrown synchronously where the definition is given, never later mid-call.
 */
export class ToolDefinitionError extends ToolwireError {
  override name = 'ToolDefinitionError';
}
brandErrorClass(ToolDefinitionError, 'ToolDefinitionError');

/**
 * Options or arguments given to the client or to a call are wrong: a key the function does not have, a value of
 * the wrong kind or out of range. Thrown by `new Client()`, and as the rejection of `client.run()`,
 * `client.close()`, `invokeTool()` and `ToolRegistry.invoke()`, before anything runs, is sent or is closed; and
 * emitted as the client's `error` event with the code `context_failed` when its `context` function throws for a
 * call (the original in `cause`). Not a {@link ToolDefinitionError}: no tool or agent definition
 * is at fault. The message names the function and the option, e.g.
 * `new Client(options): maxQueue must be a non-negative integer, got -1`.
 *
 * @example
 * ```ts
 * import { Client, OptionsError } from 'toolwire';
 *
 * try {
 *   new Client({ url: 'ws://127.0.0.1:8787', apiKey: 'dev-key', tools: [], maxQueue: -1 });
 * } catch (error) {
 *   if (error instanceof OptionsError) console.error(error.code, error.message); // invalid_option …
 * }
 * ```
 * @see docs/reference/errors.md for every code.
 */
export class OptionsError extends ToolwireError {
  override name = 'OptionsError';
}
brandErrorClass(OptionsError, 'OptionsError');

/** The peer sent something that breaks protocol v1 (see docs/protocol/index.md). */
export class ProtocolError extends ToolwireError {
  override name = 'ProtocolError';
}
brandErrorClass(ProtocolError, 'ProtocolError');

/** The network failed, the service refused the connection, or the client is closed. */
export class ConnectionError extends ToolwireError {
  override name = 'ConnectionError';
}
brandErrorClass(ConnectionError, 'ConnectionError');

/** Something took longer than its `timeoutMs`. */
export class TimeoutError extends ToolwireError {
  override name = 'TimeoutError';
}
brandErrorClass(TimeoutError, 'TimeoutError');

/** An operation was aborted through an `AbortSignal` or a `cancel` from the service. */
export class AbortError extends ToolwireError {
  override name = 'AbortError';
}
brandErrorClass(AbortError, 'AbortError');

/** A run started with `client.run()` failed or was cancelled on the service. */
export class RunError extends ToolwireError {
  override name = 'RunError';
}
brandErrorClass(RunError, 'RunError');

/**
 * `ctx.askQuestion()` got no answer the tool can use. `code` says why: `declined` (the user chose not to answer;
 * `reason` may say why), `cancelled` (the call was cancelled or timed out, or the service closed the question),
 * `timeout` (the question's own `timeoutMs` passed), `unsupported` (nobody can answer: no `onQuestion`, and the
 * service does not take questions), `invalid_answer` (the answer does not match the choices or the schema),
 * `failed` (the local `onQuestion` threw). The tool decides what to do: the call goes on either way.
 */
export class QuestionError extends ToolwireError {
  override name = 'QuestionError';
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
brandErrorClass(QuestionError, 'QuestionError');

/** The refusal of a question nobody can answer: no `onQuestion`, and a service that does not take questions. */
export function nobodyAnswers(): QuestionError {
  return new QuestionError(
    'unsupported',
    'nobody can answer: the client has no onQuestion and the service does not take questions',
  );
}

/**
 * `client.decide()` could not apply a decision. `code`: `unknown_call` (the service has no such call, or it is not
 * in a run this decision may reach), `not_pending` (the call is not waiting for a decision: already decided,
 * cancelled or finished), `invalid_decision` (not `true`, `false` or `{ approved: boolean, … }`), `unsupported`
 * (edited `arguments` or `always` while the service did not take the feature `decisions`, docs/protocol/decisions.md),
 * `too_large` (the decision makes an `approval` frame over the service's `maxPayloadBytes`; the message names
 * both sizes in bytes), `too_deep` (edited `arguments` nest deeper than `MAX_ARGUMENT_DEPTH`, 64 levels),
 * `invalid_frame` (the service's answer could not be read, docs/protocol/errors.md: whether it applied the decision is
 * unknown), or the service's own code for any other `error` it answered with (`internal`, a code added later).
 * A decision that is not JSON (a `BigInt`) is `invalid_decision`. None of these sends anything.
 */
export class ApprovalError extends ToolwireError {
  override name = 'ApprovalError';
}
brandErrorClass(ApprovalError, 'ApprovalError');
