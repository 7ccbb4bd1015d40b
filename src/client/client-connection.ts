/**
 * A client's {@link Connection}: the `hello` it announces, and where each of the connection's events goes among
 * the client's parts (the decisions, the calls, the runs, the signal hooks, the public events).
 *
 * @module
 */

import type { ToolRegistry } from '../call/registry';
import { ConnectionError } from '../errors';
import type { Logger } from '../logger';
import type { Redactor } from '../redact';
import { VERSION } from '../version';
import { Connection } from '../wire/connection';
import {
  ERROR_CODES,
  FEATURES,
  type FrameOf,
  NEGOTIATED_RUN_EVENT_KINDS,
  PROTOCOL_VERSION,
  type ServiceFrame,
} from '../wire/protocol';
import type { CallRunner } from './call-runner';
import type { ClientEvents } from './client-events';
import type { ClientOptions } from './client-options';
import type { Decisions } from './decisions';
import type { ResolvedClientOptions } from './resolve-client-options';
import type { Runs } from './runs';
import type { SignalHooks } from './signals';

/** The parts of a client its connection's events go to; read when an event comes (some are made after it). */
export interface ClientParts {
  readonly registry: ToolRegistry;
  /** The client's redactor (a tool definition's `approvalReason` is announced redacted). */
  readonly redactor: Redactor;
  readonly decisions: Decisions;
  readonly calls: CallRunner;
  readonly runs: Runs;
  readonly signals: SignalHooks;
  /** Emits a public event of the client (a listener's throw is caught there). */
  emit<E extends keyof ClientEvents>(event: E, ...args: ClientEvents[E]): void;
}

/** The connection of a client with these options, its events routed to `parts`. */
export function clientConnection(
  resolved: ResolvedClientOptions,
  options: ClientOptions,
  logger: Logger,
  parts: ClientParts,
): Connection {
  return new Connection({
    url: resolved.url,
    apiKey: resolved.apiKey,
    WebSocket: options.WebSocket,
    reconnect: resolved.reconnect,
    heartbeatIntervalMs: options.heartbeatIntervalMs,
    connectTimeoutMs: resolved.connectTimeoutMs,
    ready: () => parts.calls.tracingReady(), // the browser build's tracer code may be loading
    highWaterMarkBytes: resolved.highWaterMarkBytes,
    maxBufferedBytes: resolved.maxBufferedBytes,
    logger,
    hello: () => ({
      protocol: PROTOCOL_VERSION,
      sdk: { name: 'toolwire', version: VERSION },
      tools: parts.registry.definitions(parts.redactor),
      localApprovals: options.onApproval !== undefined,
      maxConcurrency: resolved.maxConcurrency,
      maxQueue: resolved.maxQueue,
      runEventKinds: [...NEGOTIATED_RUN_EVENT_KINDS],
      // Every addition this SDK knows (PROTOCOL.md §2), the trace context with a tracer; the service picks.
      features: options.tracing ? [...FEATURES] : FEATURES.filter((name) => name !== 'trace_context'),
    }),
    onWelcome: (welcome) => {
      parts.decisions.welcomed(welcome.features);
      parts.calls.welcomed(welcome);
      parts.runs.reconnected(welcome.resumed);
      parts.signals.connected();
      parts.emit('connected', { sessionId: welcome.sessionId, resumed: welcome.resumed });
    },
    onFrame: (frame) => routeFrame(parts, frame),
    onDisconnected: (code, reason) => {
      parts.decisions.disconnected();
      parts.calls.disconnected();
      parts.emit('disconnected', { code, reason });
    },
    onReconnecting: (attempt, delayMs) => parts.emit('reconnecting', { attempt, delayMs }),
    onError: (error) => parts.emit('error', error),
    // A frame that will never go out as it is (already reported through onError).
    onUnsendable: (frame, error) => {
      if (frame.type === 'run_start') parts.runs.unsendable(frame, error);
      else parts.calls.unsendable(frame, error);
    },
    onRefused: (about, message) => {
      const { type, callId, questionId } = about;
      if (type === 'tool_call' && callId !== undefined) parts.calls.unreadable(callId, about, message);
      // An answer that cannot be read ends its question as cancelled (PROTOCOL.md §12), as any other status would.
      else if (type === 'answer' && callId !== undefined && questionId !== undefined) {
        const reason = `the service's answer could not be read (${message})`;
        parts.calls.handle({ type: 'answer', callId, questionId, status: 'cancelled', reason });
      } else if (!parts.decisions.refused(about, message)) parts.runs.refused(about, message);
    },
    onClosed: (error) => {
      parts.decisions.disconnected();
      parts.calls.abortAll('client closed');
      parts.calls.dispose();
      parts.runs.failAll(error ?? new ConnectionError('closed', 'the client was closed'));
      parts.signals.closed();
      parts.emit('closed', error);
    },
  });
}

/** A frame after `welcome`: to the part it is about; an `error` frame no part takes becomes an `error` event. */
function routeFrame(
  parts: ClientParts,
  frame: Exclude<ServiceFrame, FrameOf<ServiceFrame, 'welcome'>>,
): void {
  if (parts.decisions.handle(frame) || parts.calls.handle(frame) || parts.runs.handle(frame)) return;
  if (frame.type !== 'error') return;
  if (frame.callId !== undefined && dropsResult(frame.code)) {
    // The service will never record this result (PROTOCOL.md §5.2, §13): drop it from the outbox.
    parts.calls.ack(frame.callId, frame.code);
  }
  const error = new ConnectionError(`service_${frame.code}`, `the service reported: ${frame.message}`);
  parts.emit('error', error);
}

/**
 * Whether an `error` naming a `callId` drops that call's result (PROTOCOL.md §13): `unknown_call`,
 * `duplicate_result`, `not_allowed`, and any code this protocol version does not list (a newer service's). The
 * other listed codes keep it: `internal` says the frame may be re-sent; the others answer frames that are not
 * results.
 */
function dropsResult(code: string): boolean {
  return (
    code === 'unknown_call' ||
    code === 'duplicate_result' ||
    code === 'not_allowed' ||
    !(ERROR_CODES as readonly string[]).includes(code)
  );
}
