/**
 * `ctx.context` for a call the service sends: the context given to `client.run()` when the call belongs to a
 * run this client started (nested runs share their parent's), else the client's `context` option, a value or a
 * function of the call.
 *
 * @module
 */
import { OptionsError } from '../errors';
import { isThenable } from '../maybe';
import type { CallInfo, ClientOptions } from './client-options';
import type { Runs } from './runs';

/**
 * The `contextFor` of a client's call runner. A `context` function that throws or rejects is reported with
 * `report` (a `OptionsError` `context_failed` naming the tool, the original as its `cause`), and its error
 * goes on to the call runner, which fails the call without running the tool.
 */
export function contextSource(
  runs: Pick<Runs, 'contextOf'>,
  options: Pick<ClientOptions, 'context'>,
  report: (error: OptionsError) => void,
): (call: CallInfo) => unknown {
  return (call) => {
    const run = runs.contextOf(call.runId);
    if (run.found) return run.context;
    const { context } = options;
    if (typeof context !== 'function') return context;
    const failed = (error: unknown) => {
      report(
        new OptionsError('context_failed', `the context function failed for ${call.toolName}`, {
          cause: error,
        }),
      );
      throw error;
    };
    try {
      const value = (context as (info: CallInfo) => unknown)({
        callId: call.callId,
        runId: call.runId,
        toolName: call.toolName,
      });
      // An async context function is awaited by the call runner; a rejection is reported the same way.
      return isThenable(value) ? Promise.resolve(value).catch(failed) : value;
    } catch (error) {
      return failed(error);
    }
  };
}
