/**
 * What a {@link CallRunner} (./call-runner.ts) needs from its client.
 *
 * @module
 */
import type { ToolRegistry } from '../call/registry';
import type { CallPolicy } from '../call/types';
import type { Logger, Redactor } from '../logger';
import type { Approver } from './approvals';
import type { CallUpdateHooks } from './call-updates';
import type { CallInfo } from './client-options';
import type { CallEvents } from './execution';
import type { CallSocket } from './outbox';
import type { Questioner } from './question-hooks';
import type { ToolTracing } from './trace-types';

/** Dependencies of a {@link CallRunner}. */
export interface CallRunnerOptions {
  registry: ToolRegistry;
  maxConcurrency: number;
  maxQueue: number;
  /** Results are held (not written) while the socket buffers more than this many bytes. */
  highWaterMarkBytes: number;
  /** A result is held while writing it would take the socket past this many bytes unread (none when absent). */
  maxBufferedBytes?: number;
  /** Bytes of results waiting for their ack past which no new call is taken. @default Infinity */
  maxOutboxBytes?: number;
  /** The client's connection. */
  socket: CallSocket;
  /** `ctx.context` for a call; may return a promise, and may throw (the call then fails without running). */
  contextFor(call: CallInfo): unknown;
  /** Local approver (`onApproval`); when absent, approval is asked of the service. */
  onApproval: Approver | undefined;
  policies?: readonly CallPolicy[] | undefined; // `Client({ policies })`, run before approval
  /** Extra fields for every call's `ctx` (e.g. the nested-run capability). */
  extend: Readonly<Record<PropertyKey, unknown>>;
  /** Local answerer of questions (`onQuestion`); when absent, questions go to the service. */
  onQuestion?: Questioner | undefined;
  /** Updates of running calls (progress, the lease, questions, …). @default a `CallUpdates` on `socket` */
  updates?: CallUpdateHooks;
  redactor: Redactor;
  logger: Logger;
  events: CallEvents;
  /** The client's tracer (`tracing`), if any. */
  tracing?: ToolTracing | undefined;
}
