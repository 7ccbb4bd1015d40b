/**
 * `Client` options: what each means, and their defaults (checked and applied by resolve-client-options.ts).
 *
 * @module
 */

import type { CallPolicy, QuestionReply } from '../call/types';
import type { Logger, RedactRule } from '../logger';
import type { ToolSetOf, ToolsGiven } from '../tool/structural-types';
import type { ReconnectOptions } from '../wire/connection';
import type { WebSocketConstructor } from '../wire/transport';
import type { Approver } from './approvals';
import type { Questioner } from './question-hooks';
import type { ToolTracing } from './trace-types';

/** Information about a call, given to a `context` function. */
export interface CallInfo {
  callId: string;
  runId: string;
  toolName: string;
}

/**
 * Options of `new Client(...)`; every duration is in milliseconds. `C` is the run context; `T` types `tools` entry by entry (inferred from the
 * value given, so that `execute`'s input is the schema's type: see `ToolSetOf`).
 */
export interface ClientOptions<C = unknown, T = ToolsGiven> {
  /** WebSocket URL of the service (`ws://` or `wss://`). @default process.env.TOOLWIRE_URL */
  url?: string | undefined;
  /**
   * API key; sent as `Authorization: Bearer` where the runtime allows, else in `hello`, and nowhere else. Scrubbed
   * from outputs, widgets, events, log lines and errors as a `redact` string is when it has 4 characters or more;
   * a shorter key (`dev`) would match inside ordinary words, so it is replaced only where a string is the key and
   * nothing else, and the client logs one `warn` (with its length, never the key). @default process.env.TOOLWIRE_API_KEY
   */
  apiKey?: string | undefined;
  /**
   * The tools this process runs: an array, or a record keyed by tool name. Each may be a `tool()` result, an
   * object with `tool()`'s options (`inputSchema` and `requiresApproval` accepted for `parameters` and
   * `needsApproval`), an AI SDK tool, or (in a record) a bare function; see `ToolSet`. Names must be unique.
   */
  tools: ToolSetOf<T, C>;
  /**
   * `ctx.context` for calls of runs this client did not start (for example runs started over HTTP), or a function
   * of the call returning it (or a promise of it). Runs started with `client.run()` use the context given there.
   * A function that throws or rejects fails the call (status `error`) without running the tool. Never sent.
   */
  context?: C | ((call: CallInfo) => C | Promise<C>) | undefined;
  /**
   * Calls executing at once; the rest wait in order. A call waiting for a human's approval (over the socket, or
   * from an `onApproval` that returns a promise) or for a nested agent run does not count: it holds no slot
   * until it goes on, and then (approved, or given its nested run's answer) it is first in line for one, so no
   * more than this many ever execute. @default 16
   */
  maxConcurrency?: number | undefined;
  /**
   * Calls waiting for a slot. Calls running, waiting, and results not yet acknowledged together stay within
   * `maxConcurrency + maxQueue`; past that the service is told the client is busy (a retryable result).
   * @default 1000
   */
  maxQueue?: number | undefined;
  /**
   * Overrides the heartbeat interval the service announces, in milliseconds. Any whole number from 1 is
   * accepted; under 100 (`MIN_HEARTBEAT_INTERVAL_MS`) the client uses 100, saying so with a `warn` when it
   * connects. @default the service's (15_000 with the stub)
   */
  heartbeatIntervalMs?: number | undefined;
  /** Reconnect policy, or `false` to never reconnect. @default { initialDelayMs: 100, maxDelayMs: 10_000, maxAttempts: Infinity } */
  reconnect?: { [K in keyof ReconnectOptions]?: ReconnectOptions[K] | undefined } | false | undefined;
  /** `connect()` rejects if no `welcome` arrived within this time. @default 30_000 */
  connectTimeoutMs?: number | undefined;
  /**
   * The soft limit of what the service has not read yet, in bytes: past it results wait in the outbox, a `pong`
   * and "busy" answers are held (one pong, one answer per call) and `error` frames are not sent. The socket's
   * `bufferedAmount` where it is exact (`ws`), else also the bytes written since the service last answered a
   * ping (docs/RELIABILITY.md, "Stalled peer"). @default 1_048_576
   */
  highWaterMarkBytes?: number | undefined;
  /**
   * The hard limit, in bytes: when what the service has not read, plus the answers held or dropped meanwhile,
   * passes it, the socket is dropped (reported as 1008, as the stub closes a client that stops reading) and the
   * client reconnects and resumes; results still unacked are sent again. At least `highWaterMarkBytes` and 1,024
   * (else `OptionsError`). No frame sent is larger: when it is below the service's `maxPayloadBytes`, results and
   * other frames are cut to it as they are to the service's limit (PROTOCOL.md §15), and a result waits until the
   * socket can take it without passing this limit. @default 16_777_216
   */
  maxBufferedBytes?: number | undefined;
  /**
   * Bytes of results waiting for their ack (as sent, UTF-8). Past it new calls are answered "busy" (a retryable
   * result) and queued calls wait to start, as when `maxConcurrency + maxQueue` is reached; calls already running
   * still add theirs (each at most the service's `maxPayloadBytes`). @default 16_777_216
   */
  maxOutboxBytes?: number | undefined;
  /** WebSocket constructor. @default the global `WebSocket`, else the `ws` package */
  WebSocket?: WebSocketConstructor | undefined;
  /** A pino-compatible logger. @default a logger that discards everything */
  logger?: Logger | undefined;
  /**
   * Strings (4+ characters) and patterns scrubbed from every output, widget and log line, as the API key is (when
   * it has 4+ characters: see `apiKey`). @default []
   */
  redact?: RedactRule[] | undefined;
  /**
   * Decide approvals in this process (a CLI prompt, a policy) instead of asking the service's human.
   * Returns `true`/`false` or `{ approved, reason }`, or a promise of it; while the promise is pending the call
   * gives up its `maxConcurrency` slot (the service's deadline keeps running: it does not know a human is
   * deciding). A throw or a rejection rejects the call.
   */
  onApproval?: Approver | undefined;
  /**
   * Answer the tools' `ctx.askQuestion()` in this process (a CLI prompt, a policy) instead of asking a person
   * through the service. Returns a {@link QuestionReply} (the answer as a string, `{ answer }` or
   * `{ declined: true, reason? }`), or a promise of it; while it is
   * pending the call gives up its `maxConcurrency` slot. A throw or a rejection rejects the question with
   * `QuestionError` `failed`.
   */
  onQuestion?: Questioner | undefined;
  /**
   * Traces every tool call: `otelTracing()` from `toolwire/otel` makes each call an OpenTelemetry span
   * (`execute_tool <name>`, a child of the service's span of the call), or any {@link ToolTracing}. With it the
   * client offers the protocol feature `trace_context` (PROTOCOL.md §18.10). In the browser build its code loads
   * when the client is made and `connect()` waits for it, the wait counting toward `connectTimeoutMs` and ended by
   * `close()`; `connect()` rejects with `ConnectionError` `load_failed` when it could not be loaded (the next
   * `connect()` tries again). @default no tracing
   */
  tracing?: ToolTracing | undefined;
  /**
   * Drain on SIGTERM and SIGINT (Node): from `connect()` until the client is closed, the first signal closes the
   * client with `close({ drain: true, timeoutMs })` (`timeoutMs` from here, else `close()`'s default 30_000), then
   * raises the signal again so the process ends as Node would (exit status 128 + the signal's number), unless the
   * application listens for that signal itself. A second signal while draining ends the process at once. Ignored
   * where there is no `process` (browsers). @default false
   */
  handleSignals?: boolean | { timeoutMs?: number | undefined } | undefined;
  /**
   * Run on each validated call, in order, after the tool's `allowedAgentNames` and before approval and `execute`
   * (Assemble's workflow policies): each may let the call through (`undefined`), block it (`{ block: text }`),
   * send it to approval (`{ requireApproval: reason }`) or scrub input fields (`{ redact: [fieldNames] }`).
   * See {@link CallPolicy}. @default no policies
   */
  policies?: ReadonlyArray<CallPolicy<C>> | undefined;
}

/** Default values of {@link ClientOptions}. */
export const CLIENT_DEFAULTS = {
  maxConcurrency: 16,
  maxQueue: 1_000,
  connectTimeoutMs: 30_000,
  highWaterMarkBytes: 1_048_576,
  maxBufferedBytes: 16_777_216,
  maxOutboxBytes: 16_777_216,
  reconnect: { initialDelayMs: 100, maxDelayMs: 10_000, maxAttempts: Number.POSITIVE_INFINITY },
} as const;
