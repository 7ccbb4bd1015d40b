/**
 * The types of what a {@link Client} emits and returns: its events, its state and a run's output type.
 *
 * @module
 */
import type { ApprovalRequest } from '../call/types';
import type { ConnectionError } from '../errors';
import type { ConnectionState } from '../wire/connection';
import type { RunEvent } from './runs';

/** Payload of `tool_call` and the base of `tool_result` events. */
export interface ToolCallEvent {
  callId: string;
  runId: string;
  toolName: string;
}

/** Events a {@link Client} emits (`client.on(name, listener)`; see src/client/emitter.ts). */
export interface ClientEvents {
  /** A `welcome` arrived: the first connection, or a reconnect (`resumed` says whether the session survived). */
  connected: [info: { sessionId: string; resumed: boolean }];
  /** The socket closed; the client reconnects unless it was closed or refused. */
  disconnected: [info: { code: number; reason: string }];
  /** A reconnect attempt is scheduled in `delayMs` milliseconds. */
  reconnecting: [info: { attempt: number; delayMs: number }];
  /** A call started executing. */
  tool_call: [info: ToolCallEvent];
  /**
   * A call finished; its result is in the outbox until the service acks it. `output` is what the model reads
   * (redacted); a result that is not `ok` is also logged at `warn`.
   */
  tool_result: [info: ToolCallEvent & { status: string; durationMs: number; output: string }];
  /** A call needs a human decision; nothing runs until it arrives. */
  approval_requested: [request: ApprovalRequest];
  /** A widget failed validation or was too large, and was dropped (the model still got the data). */
  widget_invalid: [info: { toolName: string; callId: string; path: string; message: string }];
  /**
   * Progress of a run this client started: `turn`, `message`, `tool_call`, `tool_result`, `approval_requested`,
   * `approval_decided`, and `text_delta` (`{ turn, delta }`: the model's text as it streams, before the turn's
   * `message`) when the service's model streams (PROTOCOL.md §10.2).
   */
  run_event: [event: RunEvent];
  /**
   * Something went wrong that did not end the client by itself: a connection attempt that failed (each one, with
   * its cause), a protocol error from the service, a frame that could not be sent, a 4009.
   */
  error: [error: Error];
  /** The client closed for good; `error` says why when it was not `close()`. */
  closed: [error: ConnectionError | undefined];
}

/** The final output type of a run of agent `A`: a string, or what the agent's `outputType` parses to. */
export type RunOutput<A> = A extends { readonly '~output'?: infer T } ? Exclude<T, undefined> : unknown;

/** Client state, as an explicit union. */
export type ClientState = ConnectionState;
