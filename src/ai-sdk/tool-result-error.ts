/**
 * `ToolResultError`: how a call that did not end `ok` reaches the AI SDK.
 *
 * @module
 */
import { type ToolCallResult, ToolwireError, type ToolwireErrorOptions } from 'toolwire';

/**
 * Thrown by a tool from `toAiSdkTools()` when its call ends with any status but `ok`: the AI SDK turns a
 * throw into a `tool-error` part whose text the model reads, and that text is `message`, exactly what the hosted
 * model would read (`Invalid arguments for <name>: …`, `Error running <name>: …`, …). `code` is the status.
 */
export class ToolResultError extends ToolwireError {
  override name = 'ToolResultError';
  /** The call's full result: `status`, `output`, `durationMs`. */
  readonly result: ToolCallResult;

  constructor(result: ToolCallResult, options?: ToolwireErrorOptions) {
    super(result.status, result.output, options);
    this.result = result;
  }
}
