/**
 * The log line of a call that did not end `ok`.
 *
 * @module
 */
import type { ToolCallResult } from '../call/types';
import type { Logger } from '../logger';
import type { ToolCallFrame } from './execution';

/**
 * Logs a result that is not `ok` at `warn`: the model reads its text; the operator sees it too (already
 * redacted), with what was thrown: its stack and cause chain, which the model never reads (the logger redacts
 * them).
 */
export function logFailure(
  logger: Logger,
  call: Pick<ToolCallFrame, 'callId' | 'runId' | 'toolName'>,
  result: ToolCallResult,
  output: string,
): void {
  const { callId, runId, toolName } = call;
  const fields: Record<string, unknown> = { callId, runId, toolName, status: result.status };
  if (result.error !== undefined) fields.error = result.error;
  logger.warn(fields, output);
}
