/**
 * The methods `ctx` gives a tool for talking while it runs (PROTOCOL.md §18): how far it got. Declared here, on
 * their own, so that `ToolContext` (src/tool/tool.ts) stays a list of fields.
 *
 * @module
 */

/** What `ctx.progress()` takes. */
export interface ProgressInput {
  /** How far the call has got: a finite number ≥ 0 (a count, bytes, a percentage: your unit). */
  progress: number;
  /** What `progress` counts towards, when known: a finite number > 0. */
  total?: number;
  /** A line for a human, e.g. `exported 40 of 100 tables` (cut at 1,000 characters). */
  message?: string;
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
}
