/**
 * The `warn` line of each call whose result is not `ok`: the model reads its text, the operator sees it too
 * (already redacted), with what was thrown (its stack and cause chain, which the model never reads).
 *
 * A failure the service caused, by what it sent rather than by what a tool did, is logged at most
 * {@link SERVICE_FAILURE_LINES_PER_INTERVAL} times per {@link SERVICE_FAILURE_INTERVAL_MS}, as invalid frames are
 * (src/wire/backpressure.ts `ERROR_FRAMES_PER_INTERVAL`): a service that sends 20,000 calls of a tool this client
 * does not offer writes 10 lines a second, not 20,000. The rest are counted, and the count is told at the end of
 * that second (a timer, armed only while a count waits, that holds no process open), or sooner with the next such
 * line or when the socket or the client closes. Those failures are (see {@link causedByService}):
 * - `unknown_tool`: a call of a tool this client does not offer;
 * - `invalid_arguments`: arguments the tool's schema refused;
 * - `rejected` for `not_allowed`: a call for an agent the tool does not allow (`allowedAgentNames`);
 * - `cancelled`: the service cancelled the call (or the caller of its run aborted: counted alike);
 * - a call the service sent that could not be read (an `error` result, its frame already logged as invalid).
 *
 * A tool's own failure (`error`, `timeout`, a person's or a policy's `rejected`) is logged every time: it is about
 * the operator's own code, each line carries its own error and stack, and a call that ran its tool took a slot.
 *
 * Within the same bound go the other lines a confused or hostile service could repeat at will, that are no failed
 * call ({@link FailureLog.serviceLine}): a re-delivered `tool_call` whose arguments differ from the call of its id
 * (`arguments_differ`). They count by that kind, and the line telling a count of them says `lines`.
 *
 * @module
 */
import type { ToolCallResult } from '../call/types';
import type { Logger } from '../logger';
import { ERROR_FRAME_INTERVAL_MS, ERROR_FRAMES_PER_INTERVAL, IntervalBudget } from '../wire/backpressure';

/** Lines of failures the service caused logged at most this many times per {@link SERVICE_FAILURE_INTERVAL_MS}. */
export const SERVICE_FAILURE_LINES_PER_INTERVAL = ERROR_FRAMES_PER_INTERVAL;
/** The interval of {@link SERVICE_FAILURE_LINES_PER_INTERVAL}, in milliseconds. */
export const SERVICE_FAILURE_INTERVAL_MS = ERROR_FRAME_INTERVAL_MS;

/** `true` when the result says the service caused the failure by what it sent (see the module comment). */
export function causedByService(result: Pick<ToolCallResult, 'status' | 'reason'>): boolean {
  const { status } = result;
  return (
    status === 'unknown_tool' ||
    status === 'invalid_arguments' ||
    status === 'cancelled' ||
    (status === 'rejected' && result.reason === 'not_allowed')
  );
}

/** One client's failure log (see the module comment): one object for the client's life, none per call. */
export class FailureLog {
  readonly #logger: Logger;
  readonly #lines = new IntervalBudget(SERVICE_FAILURE_LINES_PER_INTERVAL, SERVICE_FAILURE_INTERVAL_MS);
  /** Failures the service caused that were not logged since the last line told them, by status. */
  #unlogged = new Map<string, number>();
  #unloggedCount = 0;
  /** Whether lines that are no failed call ({@link FailureLog.serviceLine}) are among those counted. */
  #unloggedOther = false;
  /** Tells the count at the end of the interval in which it began, while one waits ({@link FailureLog.failed}). */
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /**
   * Logs the failed call's line at `warn` (`output`: what the model reads), or counts it when the service caused
   * it (`fromService`, or {@link causedByService}) and more than the bound were logged within the interval.
   */
  failed(
    call: { readonly callId: string; readonly runId: string; readonly toolName: string },
    result: ToolCallResult,
    output: string,
    fromService: boolean,
  ): void {
    const { callId, runId, toolName } = call;
    const { status } = result;
    const fields: Record<string, unknown> = { callId, runId, toolName, status };
    if (result.error !== undefined) fields.error = result.error;
    if (!fromService && !causedByService(result)) {
      this.#logger.warn(fields, output);
      return;
    }
    this.#bounded(fields, output, status, false);
  }

  /**
   * Logs at `warn` a line the service caused that is no failed call (see the module comment), within the bound of
   * the failures it caused; past it, counted as `kind` (e.g. `arguments_differ`).
   */
  serviceLine(fields: Record<string, unknown>, message: string, kind: string): void {
    this.#bounded(fields, message, kind, true);
  }

  /** Logs the line, or counts it as `kind` past the bound ({@link SERVICE_FAILURE_LINES_PER_INTERVAL}). */
  #bounded(fields: Record<string, unknown>, output: string, kind: string, other: boolean): void {
    const now = performance.now();
    if (!this.#lines.admit(now)) {
      this.#unlogged.set(kind, (this.#unlogged.get(kind) ?? 0) + 1);
      this.#unloggedCount += 1;
      if (other) this.#unloggedOther = true;
      // Told when the interval ends, unless a line or a close tells it first: a flood followed by quiet is not
      // left untold until the socket closes (perhaps days later, or never if the process dies first).
      if (this.#timer === undefined) {
        this.#timer = setTimeout(tellUnlogged, this.#lines.start + SERVICE_FAILURE_INTERVAL_MS - now, this);
        (this.#timer as { unref?: () => void }).unref?.();
      }
      return;
    }
    if (this.#unloggedCount === 0) {
      this.#logger.warn(fields, output);
      return;
    }
    const { count, statuses, calls, were, each } = this.#take();
    this.#logger.warn(
      { ...fields, unlogged: count, unloggedStatuses: statuses },
      `${output} (before it, ${count} more ${calls} the service caused ${were} not logged, over ${SERVICE_FAILURE_LINES_PER_INTERVAL} a second: ${each})`,
    );
  }

  /** Failures not logged since the last line: told with the next one, or by {@link FailureLog.flush}. */
  get unlogged(): number {
    return this.#unloggedCount;
  }

  /**
   * A count not told yet is told now, in one line: the socket (`'socket'`) or the client (`'client'`) closed, or
   * (none) the interval in which it began ended.
   */
  flush(closed?: 'socket' | 'client'): void {
    if (this.#unloggedCount === 0) return;
    const { count, statuses, calls, were, each } = this.#take();
    const when = closed === undefined ? '' : ` before the ${closed} closed`;
    this.#logger.warn(
      { unlogged: count, unloggedStatuses: statuses },
      `${count} more ${calls} the service caused ${were} not logged (over ${SERVICE_FAILURE_LINES_PER_INTERVAL} a second)${when}: ${each}`,
    );
  }

  /**
   * The count not told yet, then 0: by status (or kind) as fields, and in words (`unknown_tool 19990, cancelled 2`).
   */
  #take(): { count: number; statuses: Record<string, number>; calls: string; were: string; each: string } {
    const count = this.#unloggedCount;
    const statuses = Object.fromEntries(this.#unlogged);
    const each = [...this.#unlogged].map(([status, n]) => `${status} ${n}`).join(', ');
    const noun = this.#unloggedOther ? 'line' : 'failed call';
    this.#unlogged = new Map();
    this.#unloggedCount = 0;
    this.#unloggedOther = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const one = count === 1;
    return { count, statuses, calls: one ? noun : `${noun}s`, were: one ? 'was' : 'were', each };
  }
}

/** The interval in which a count began ended (one function for every log's timer). */
function tellUnlogged(log: FailureLog): void {
  log.flush();
}
