/**
 * `Incoming`: the `tool_call` and `cancel` frames the service sends, and the calls held by id.
 *
 * Guarantee: within one process a call id is executed at most once. A re-delivered `tool_call` joins the
 * execution in flight (it may carry the service's approval decision), or is answered from the outbox while its
 * result waits for the `ack` (with a `warn` when its arguments differ); a service never sends a call again once
 * it acked its result (PROTOCOL.md §11), and one that does anyway is ignored while the id is remembered (the
 * last 10,000 to 20,000 finished calls).
 *
 * @module
 */
import { abortReason } from '../call/signal';
import type { Logger } from '../logger';
import { busyText, cancelledText, shuttingDownText, unreadableCallText } from '../tool/model-text';
import type { Approvals } from './approvals';
import type { Deadlines } from './deadlines';
import { Execution, type ExecutionOwner, type ToolCallFrame } from './execution';
import type { CallSocket, Outbox } from './outbox';
import type { Slots } from './slots';
import type { CallTraces } from './tracing';

/** Dependencies of {@link Incoming}. */
export interface IncomingOptions {
  /**
   * Calls held at once, results waiting for their ack included (`maxConcurrency + maxQueue`): more are refused
   * with a retryable busy result.
   */
  capacity: number;
  /** Where new calls deliver their results. */
  owner: ExecutionOwner;
  socket: Pick<CallSocket, 'send'>;
  outbox: Pick<Outbox, 'resend' | 'size' | 'full' | 'callOf'>;
  approvals: Pick<Approvals, 'redelivered'>;
  deadlines: Pick<Deadlines, 'arm'>;
  slots: Pick<Slots, 'admit' | 'leaveLine'>;
  /** The client's tracing, if any: a call's trace starts when it is accepted. */
  traces?: Pick<CallTraces, 'received' | 'admitted'> | undefined;
  logger: Logger;
}

/**
 * Finished call ids are remembered, to refuse a re-delivery after the `ack`, in two generations of this many: at
 * least the last 10,000 and at most the last 20,000.
 */
const REMEMBERED_CALL_IDS = 10_000;

/** Runs whose caller aborted them, remembered so that their calls still on the way abort on arrival. */
const REMEMBERED_ABORTED_RUNS = 256;

export class Incoming {
  readonly #options: IncomingOptions;
  /** Calls received and not finished: queued, running or parked. */
  readonly #held = new Map<string, Execution>();
  /**
   * Ids of finished calls, newest generation first. When it is full it becomes the older one and the older is
   * dropped whole: no deletion per call (each one, in a large set, costs a few cache misses).
   */
  #finished = new Set<string>();
  #finishedBefore = new Set<string>();
  /** Runs aborted by their caller (`client.run({ signal })`), oldest first, with the abort reason. */
  readonly #abortedRuns = new Map<string, unknown>();
  #accepting = true;

  constructor(options: IncomingOptions) {
    this.#options = options;
  }

  /** Calls held: queued, running or parked. */
  get size(): number {
    return this.#held.size;
  }

  /** The call of that id, while it is held. */
  get(callId: string): Execution | undefined {
    return this.#held.get(callId);
  }

  /** Every call held. */
  values(): IterableIterator<Execution> {
    return this.#held.values();
  }

  /** Handles a `tool_call` frame: new, re-delivered, or carrying the service's approval decision. */
  receive(frame: ToolCallFrame): void {
    const { callId } = frame;
    const options = this.#options;
    const answered = options.outbox.callOf(callId);
    if (answered !== undefined) {
      this.#joined(answered, frame);
      options.outbox.resend(callId);
      return;
    }
    const held = this.#held.get(callId);
    if (held !== undefined) {
      this.#joined(held, frame);
      options.approvals.redelivered(held, frame);
      return;
    }
    if (this.#finished.has(callId) || this.#finishedBefore.has(callId)) {
      options.logger.debug({ callId }, 'tool_call for a finished call ignored');
      return;
    }
    if (this.#refusedNew(callId, frame.toolName)) return;
    const execution = new Execution(frame, options.owner);
    options.deadlines.arm(execution, frame.deadlineMs);
    this.#held.set(callId, execution);
    options.traces?.received(execution, frame);
    // A call of a run its caller aborted (the service has not heard yet): it ends cancelled, never started.
    if (this.#abortedRuns.has(frame.runId)) this.cancel(callId, this.#abortedRuns.get(frame.runId));
    else {
      options.slots.admit(execution);
      options.traces?.admitted(execution);
    }
  }

  /**
   * A `tool_call` the service got wrong (refused with `error invalid_frame`, PROTOCOL.md §12) names a call id: the
   * call is answered rather than left to its deadline. A new call is not run (its fields cannot be trusted: a
   * decision, a deadline) and ends with an `error` result saying why; a call held or answered here keeps its
   * course (its result is sent again, if any).
   */
  unreadable(callId: string, toolName: string | undefined, runId: string | undefined, message: string): void {
    const options = this.#options;
    if (options.outbox.callOf(callId) !== undefined) {
      options.outbox.resend(callId);
      return;
    }
    if (this.#held.has(callId) || this.#finished.has(callId) || this.#finishedBefore.has(callId)) return;
    // Its error result is held until the ack, as any result: within the same limits as a call that runs.
    if (this.#refusedNew(callId, toolName ?? 'the tool')) return;
    const frame: ToolCallFrame = {
      type: 'tool_call',
      callId,
      runId: runId ?? '',
      toolName: toolName ?? 'the tool',
    };
    const execution = new Execution(frame, options.owner);
    this.#held.set(callId, execution);
    options.owner.finished(execution, {
      status: 'error',
      output: unreadableCallText(frame.toolName, message),
      durationMs: 0,
    });
  }

  /**
   * A new call is refused with a retryable result when the client stops taking calls or has no room for it. Calls
   * running, queued, and results waiting for their ack all hold memory: together they stay within
   * maxConcurrency + maxQueue, so a service that floods calls, or never acks, cannot grow this process; results
   * waiting for their ack also stay within maxOutboxBytes (plus those of the calls already taken). Every new call
   * passes here, whether it is run or only answered (an unreadable one).
   */
  #refusedNew(callId: string, toolName: string): boolean {
    const options = this.#options;
    if (this.#accepting && this.#held.size + options.outbox.size < options.capacity && !options.outbox.full)
      return false;
    options.socket.send({
      type: 'tool_result',
      callId,
      status: 'error',
      output: this.#accepting ? busyText(toolName) : shuttingDownText(toolName),
      retryable: true,
    });
    return true;
  }

  /**
   * The caller of run `runId` aborted it: every call of that run held here aborts now, whether or not the socket
   * is up (the service's `cancel` may be far off), and so does each call of it that arrives later.
   */
  cancelRun(runId: string, reason: unknown): void {
    this.#abortedRuns.delete(runId);
    this.#abortedRuns.set(runId, reason);
    if (this.#abortedRuns.size > REMEMBERED_ABORTED_RUNS) {
      for (const oldest of this.#abortedRuns.keys()) {
        this.#abortedRuns.delete(oldest);
        break;
      }
    }
    for (const execution of [...this.#held.values()]) {
      if (execution.runId === runId) this.cancel(execution.callId, reason);
    }
  }

  /**
   * A re-delivered `tool_call` joins the call of its id, whatever its arguments: a call id is executed at most
   * once. Different arguments mean a confused service; the operator is told which call (never the arguments,
   * which may hold secrets).
   */
  #joined(first: Pick<ToolCallFrame, 'callId' | 'toolName' | 'arguments'>, again: ToolCallFrame): void {
    if (sameArguments(first.arguments, again.arguments)) return;
    this.#options.logger.warn(
      { callId: first.callId, toolName: first.toolName },
      'a re-delivered tool_call has arguments different from the call of that id; it joins the call as first received, and its arguments are ignored',
    );
  }

  /** Handles a `cancel` frame (or a deadline, or `close()`): aborts `ctx.signal` of the call, or drops it from the queue. */
  cancel(callId: string, reason: unknown): void {
    const execution = this.#held.get(callId);
    if (execution === undefined) return;
    // Decided, waiting for a slot: it ends cancelled where it waits (for the approval), without one.
    this.#options.slots.leaveLine(execution);
    execution.abort(reason);
    if (execution.state === 'queued') {
      // Never started: it ends here, without a slot, a `tool_call` event or its context.
      this.#options.owner.finished(execution, {
        status: 'cancelled',
        output: cancelledText(execution.toolName),
        durationMs: 0,
      });
    }
  }

  /**
   * The service answered `error code` about the call (PROTOCOL.md §5.2, §7): one still waiting for the service's
   * decision will never get it (its session is gone, e.g. after a new session): it ends `cancelled` rather than
   * hold its place for ever.
   */
  refused(callId: string, code: string): void {
    if (this.#held.get(callId)?.decide === undefined) return;
    this.cancel(callId, abortReason(`the service refused the call (${code})`, 'AbortError', code));
  }

  /** Cancels every call held. */
  cancelAll(reason: unknown): void {
    for (const execution of [...this.#held.values()]) this.cancel(execution.callId, reason);
  }

  /** Stops taking new calls; they are answered with a retryable shutting-down result. */
  stopAccepting(): void {
    this.#accepting = false;
  }

  /** The call has finished: it is no longer held, and its id is remembered. */
  ended(execution: Execution): void {
    const { callId } = execution;
    this.#held.delete(callId);
    if (this.#finished.size >= REMEMBERED_CALL_IDS) {
      this.#finishedBefore = this.#finished;
      this.#finished = new Set();
    }
    this.#finished.add(callId);
  }
}

/** Whether two `tool_call.arguments` are the same JSON (arguments too deep to compare count as different). */
function sameArguments(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}
