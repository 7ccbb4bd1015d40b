/**
 * The options of one call the client runs (`CallOptions` for src/call/): what differs per call is read from its
 * {@link Execution} (the `tool_call` frame) and its context; what every call of a client shares (the hooks, the
 * policies, the logger, the redactor, `extend`) sits on the prototype. A held call thus keeps one object of two
 * fields, not one of twenty.
 *
 * @module
 */
import type { CallOptions } from '../call/types';
import type { Execution } from './execution';

/** What every call of one client shares. */
export type SharedCallOptions = Pick<
  CallOptions,
  | 'policies'
  | 'approve'
  | 'onWidgetInvalid'
  | 'onProgress'
  | 'onPreliminary'
  | 'onEmit'
  | 'onQuestion'
  | 'waits'
  | 'onStep'
  | 'logger'
  | 'extend'
  | 'redactor'
>;

/** Per-call options, read from the call's frame (PROTOCOL.md §5, §18.8, §18.9, §18.11, §18.12). */
class ClientCallOptions {
  /** The call itself: its cancellation is the call's signal. */
  readonly signal: Execution;
  readonly context: unknown;

  constructor(execution: Execution, context: unknown) {
    this.signal = execution;
    this.context = context;
  }

  get callId(): string {
    return this.signal.callId;
  }

  get runId(): string {
    return this.signal.runId;
  }

  get depth(): number {
    return this.signal.extras?.depth ?? 0;
  }

  get approved(): boolean | undefined {
    return this.signal.extras?.approved;
  }

  get rejectionReason(): string | undefined {
    return this.signal.extras?.reason;
  }

  get argumentsEdited(): boolean | undefined {
    return this.signal.extras?.argumentsEdited;
  }

  get agentName(): string | undefined {
    return this.signal.extras?.agentName;
  }

  get sessionId(): string | undefined {
    return this.signal.extras?.sessionId;
  }

  get steps(): Readonly<Record<string, unknown>> | undefined {
    return this.signal.extras?.steps;
  }
}

/** The options class of one client's calls: `new (callOptionsClass(shared))(execution, context)`. */
export function callOptionsClass(
  shared: SharedCallOptions,
): new (
  execution: Execution,
  context: unknown,
) => CallOptions {
  const OfThisClient = class extends ClientCallOptions {};
  for (const [key, value] of Object.entries(shared)) {
    Object.defineProperty(OfThisClient.prototype, key, { value, enumerable: true });
  }
  return OfThisClient as unknown as new (
    execution: Execution,
    context: unknown,
  ) => CallOptions;
}
