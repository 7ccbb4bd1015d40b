/**
 * `approvalNeeded()`: whether a call would need approval, asked without running the tool (for an adapter whose
 * host asks a human itself, e.g. the AI SDK's `needsApproval(input, options)`).
 *
 * @module
 */
import { dryRunOf, toolInternals } from '../tool/tool';
import type { Tool } from '../tool/tool-types';
import { invokeTool } from './invoke';

const DRY_RUN = Symbol('dry run');

/** Options of {@link approvalNeeded}: those of `invokeTool` that the checks before `execute` read. */
export interface ApprovalNeededOptions<C = unknown> {
  /** `ctx.callId` of the check. @default a fresh id */
  callId?: string | undefined;
  /** `ctx.context` of the check. @default undefined */
  context?: C | undefined;
  /** Ends the check (then the answer is `undefined`). @default none */
  signal?: AbortSignal | undefined;
}

/**
 * Whether the tool's `needsApproval` (`true`, `approvalRequired(…)` or a predicate, run as `invokeTool` runs it:
 * on the validated input, under the tool's `timeoutMs`) asks for approval of a call with `input`. `execute`
 * never runs.
 *
 * @returns `true` or `false`; `undefined` when the check could not decide (the input is invalid, the predicate
 *   threw, timed out or was cancelled, the tool is not a `tool()` result): the call itself then reports why.
 */
export async function approvalNeeded<C = unknown>(
  // biome-ignore lint/suspicious/noExplicitAny: a tool of any input and output type.
  tool: Tool<any, any, C>,
  input: unknown,
  options: ApprovalNeededOptions<C> = {},
): Promise<boolean | undefined> {
  if (toolInternals(tool) === undefined) return undefined;
  let asked = false;
  const result = await invokeTool(dryRunOf(tool as Tool, DRY_RUN), input, {
    ...options,
    approve: () => {
      asked = true;
      return false;
    },
  } as never);
  if (asked) return true;
  return result.status === 'ok' ? false : undefined;
}
