/**
 * The public `Client`: one socket kept open to the service (src/wire/connection.ts), the tool calls it sends run in
 * this process (./calls.ts), agent runs started from here (./runs.ts), decisions sent with `client.decide()`
 * (./decisions.ts), and typed events (eventemitter3). This file holds, in order: the types of its events and
 * state, the context source of its calls, its connection (the `hello` it announces, where each of the
 * connection's events and frames goes), the `Client` itself, and the wait of its drain on `close()`.
 *
 * @module
 */
import { EventEmitter } from 'eventemitter3';
import { decodeArguments } from '../call/arguments';
import { readDecideArguments } from '../call/decision';
import {
  type CallParts,
  callParts,
  mayAskApproval,
  type PartName,
  partsFor,
  preloadParts,
} from '../call/parts';
import { duplicateTool, ToolRegistry } from '../call/registry';
import { sharedAbort } from '../call/signal';
import type { ApprovalDecision, ApprovalRequest, CallPolicy } from '../call/types';
import { CodeOnDemand } from '../code-on-demand';
import {
  AbortError,
  ApprovalError,
  ConnectionError,
  OptionsError,
  ToolDefinitionError,
  type ToolwireError,
} from '../errors';
import { DECISION_ANSWER_TIMEOUT_MS } from '../limits';
import { consoleErrorLogger, consoleNotice, type Logger, redactingLogger } from '../logger';
import { isThenable } from '../maybe';
import { clientRedactor, type Redactor, SHORT_SECRET } from '../redact';
import { type ToolSourceOf, type ToolsGiven, toTool } from '../tool/shapes';
import { type AnyTool, type Tool, toolInternals } from '../tool/tool';
import { VERSION } from '../version';
import { forgetLastCalls } from '../wire/codec';
import {
  alreadyConnecting,
  Connection,
  type ConnectionState,
  type ConnectOptions,
  closedBeforeConnected,
} from '../wire/connection';
import { afterIo } from '../wire/heartbeat';
import {
  ERROR_CODES,
  FEATURES,
  type FrameOf,
  NEGOTIATED_RUN_EVENT_KINDS,
  PROTOCOL_VERSION,
  type ServiceFrame,
  sameFleetLimits,
  utf8Length,
} from '../wire/protocol';
import {
  type Agent,
  type AgentContext,
  agentDefinition,
  missingAgentTools,
  NESTED_RUN,
  type NestedRun,
} from './agent';
import type * as ApprovalsCode from './approvals';
import type { ReportedApprovals } from './approvals';
import { approvalsCode, CallRunner } from './calls';
import {
  type CallInfo,
  CLOSE_DEFAULTS,
  type ClientOptions,
  type ClientStats,
  type CloseOptions,
  checkCloseOptions,
  checkConnectOptions,
  checkRunArguments,
  checkToolSlots,
  type ResolvedClientOptions,
  type RunOptions,
  resolveClientOptions,
} from './client-options';
import type { Decisions } from './decisions';
import type { RunEvent, RunResult, Runs } from './runs';
import { serviceCode, serviceMessage } from './service-words';
import { drainOnSignals, type SignalHooks } from './signals';
import type * as Tracing from './tracing';
import type { ToolTracing } from './tracing';

declare global {
  /**
   * `Symbol.asyncDispose`, which `Client` keys its dispose method by, declared as lib.esnext.disposable and
   * @types/node declare it (the same declaration, so they merge): the published types then compile in a project
   * whose lib has neither (`lib: ["ES2022", "DOM"]`, no @types/node), as test/package/install.test.ts checks.
   * `await using` still needs that lib; where the runtime has no `Symbol.asyncDispose`, `close()` is the way.
   */
  interface SymbolConstructor {
    readonly asyncDispose: unique symbol;
  }
}

/** ./tracing.ts: registered by the Node entry, else loaded by the `connect()` of a client with `tracing`. */
const tracingCode = new CodeOnDemand<typeof Tracing>('tracing', () => import('./tracing'));

/** What ends a wait for code besides `close()`: `connect()`'s `connectTimeoutMs`, a run's `signal`. */
type CodeBound =
  | {
      readonly timeoutMs: number;
      readonly still: () => string;
      /** The error for `message` when the time is up; without it, ConnectionError `connect_timeout`. */
      readonly error?: (message: string) => Error;
    }
  | { readonly signal: AbortSignal }
  | undefined;

/** A `decide()` waiting for its code: within the one bound of a whole `decide()`, then ApprovalError `timeout`. */
const DECISION_CODE_BOUND: CodeBound = {
  timeoutMs: DECISION_ANSWER_TIMEOUT_MS,
  still: () => 'decision',
  error: (message) => new ApprovalError('timeout', `decide(): ${message}`),
};

/** `['gate']` → `gate`, `['gate', 'retry', 'tracing']` → `gate, retry and tracing`. */
const listed = (names: readonly string[]) =>
  names.length < 2 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;

/** Registers ./tracing.ts (the Node entry), so that no client with `tracing` waits for it. */
export function registerTracing(code: typeof Tracing): void {
  tracingCode.register(code);
}

/**
 * The class of a client's runs (./runs.ts, with the run events' schemas). A page that never calls `client.run()`
 * never downloads it: the first `run()` loads it with `import()`. The Node entry registers it
 * ({@link registerRuns}), so that a Node client's first run waits for no import.
 */
const runsCode = new CodeOnDemand<typeof Runs>('run', () =>
  // A run reports the approvals of its calls the service holds (./approvals.ts `ReportedApprovals`), and hides the
  // values of its tools' sensitive fields in its events (src/call/redaction.ts).
  Promise.all([import('./runs'), approvalsCode.load(), callParts.redaction.load()]).then(
    ([loaded]) => loaded.Runs,
  ),
);

const closedClient = () => new ConnectionError('closed', 'the client is closed');
/** A run pending when `close()` is called, waiting for the run code or registered (one wording for both). */
const closedRun = () => new ConnectionError('closed', 'the client was closed');

/** `decide()` on a socket that is not open (as ./decisions.ts says it when a frame cannot be sent). */
const decideNotConnected = () =>
  new ConnectionError('not_connected', 'decide(): the client is not connected');

/** `decide()` on a client that `close()` ended, as `run()` says it: no later connection will take it. */
const decideClosed = () => new ConnectionError('closed', 'decide(): the client is closed');
/** A `decide()` waiting for its code when `close()` is called (pending, as a run is: "was closed"); nothing sent. */
const decideClosedPending = () =>
  new ConnectionError('closed', 'decide(): the client was closed before the decision was sent');

/**
 * What a wait for code (`Client.#waitForCode`) rejects with when the client is closed, by who waits: when the wait
 * would begin, and when `close()` ends it (a run is then told as a run already started is, a decision that it was
 * not sent).
 */
const CLOSED_WAITS = {
  connect: [closedBeforeConnected, closedBeforeConnected],
  run: [closedClient, closedRun],
  decide: [decideClosed, decideClosedPending],
} as const;

/** Makes `Runs` known up front (src/node.ts): every client's first `run()` then starts at once. */
export function registerRuns(runs: typeof Runs): void {
  runsCode.register(runs);
}

/**
 * The class of a client's decisions (./decisions.ts). A page that never calls `client.decide()` never downloads
 * it: the first `decide()` loads it with `import()`. The Node entry registers it ({@link registerDecisions}), so
 * that a Node client's first decision waits for no import.
 */
const decisionsCode = new CodeOnDemand<typeof Decisions>('decision', () =>
  // A decision puts back what the approver was shown redacted (./approvals.ts `ReportedApprovals`).
  Promise.all([import('./decisions'), approvalsCode.load()]).then(([loaded]) => loaded.Decisions),
);

/** Makes `Decisions` known up front (src/node.ts): every client's first `decide()` then sends at once. */
export function registerDecisions(decisions: typeof Decisions): void {
  decisionsCode.register(decisions);
}

/*
 * The types of what a {@link Client} emits and returns: its events, its state and a run's output type.
 */
/** Payload of `tool_call` and the base of `tool_result` events. */
export interface ToolCallEvent {
  callId: string;
  runId: string;
  toolName: string;
}

/** Events a {@link Client} emits (`client.on(name, listener)`, eventemitter3's API). */
export interface ClientEvents {
  /** A `welcome` arrived: the first connection, or a reconnect (`resumed` says whether the session survived). */
  connected: [info: { sessionId: string; resumed: boolean }];
  /** The socket closed; the client reconnects unless it was closed or refused. */
  disconnected: [info: { code: number; reason: string }];
  /**
   * A reconnect attempt is scheduled in `delayMs` milliseconds; the same attempt is announced again, sooner, when
   * `close()` begins a drain while the socket is down.
   */
  reconnecting: [info: { attempt: number; delayMs: number }];
  /** A call started executing. */
  tool_call: [info: ToolCallEvent];
  /**
   * A call finished; its result is in the outbox until the service acks it. `output` is what the model reads
   * (redacted); a result that is not `ok` is also logged at `warn`.
   */
  tool_result: [info: ToolCallEvent & { status: string; durationMs: number; output: string }];
  /**
   * A call needs a human decision; nothing runs until it arrives. Not emitted for a call an `always` decision the
   * client knows of covers (its own `decide()`'s, or one a run it started reported): the service decides it at once.
   */
  approval_requested: [request: ApprovalRequest];
  /** A widget failed validation or was too large, and was dropped (the model still got the data). */
  widget_invalid: [info: { toolName: string; callId: string; path: string; message: string }];
  /**
   * Progress of a run this client started: `turn`, `message`, `tool_call`, `tool_result`, `approval_requested`,
   * `approval_decided`, and `text_delta` (`{ turn, delta }`: the model's text as it streams, before the turn's
   * `message`) when the service's model streams (docs/protocol/run-events.md), redacted as one stream per run and turn:
   * the end of a delta that could begin a secret is held back until the next delta or the turn's end
   * (docs/guide/secrets.md).
   */
  run_event: [event: RunEvent];
  /**
   * Something went wrong that did not end the client by itself: a connection attempt that failed (each one, with
   * its cause), a protocol error from the service, a frame that could not be sent, a 4009. Always a `ToolwireError`
   * (`ConnectionError`, `ProtocolError`, `OptionsError` for a failed `context` function): branch on its `code`.
   */
  error: [error: ToolwireError];
  /** The client closed for good; `error` says why when it was not `close()`. */
  closed: [error: ConnectionError | undefined];
}

/** The final output type of a run of agent `A`: a string, or what the agent's `outputType` parses to. */
export type RunOutput<A> = A extends { readonly '~output'?: infer T } ? Exclude<T, undefined> : unknown;

/** Client state, as an explicit union. */
export type ClientState = ConnectionState;

/*
 * `ctx.context` for a call the service sends: the context given to `client.run()` when the call belongs to a
 * run this client started (nested runs share their parent's), else the client's `context` option, a value or a
 * function of the call.
 */
/**
 * The `contextFor` of a client's call runner. A `context` function that throws or rejects is reported with
 * `report` (a `OptionsError` `context_failed` naming the tool, the original as its `cause`), and its error
 * goes on to the call runner, which fails the call without running the tool.
 */
export function contextSource(
  runs: { get(runId: string): { readonly context: unknown } | undefined },
  options: Pick<ClientOptions, 'context'>,
  report: (error: OptionsError) => void,
): (call: CallInfo) => unknown {
  return (call) => {
    const run = runs.get(call.runId);
    if (run !== undefined) return run.context;
    const { context } = options;
    if (typeof context !== 'function') return context;
    return contextOf(context as (info: CallInfo) => unknown, call, report);
  };
}

/**
 * What the client's `context` function gives for `call` (apart from {@link contextSource}'s function: a call of a
 * client without one makes no scope for the closure here).
 */
function contextOf(
  context: (info: CallInfo) => unknown,
  call: CallInfo,
  report: (error: OptionsError) => void,
): unknown {
  const failed = (error: unknown) => {
    report(
      new OptionsError('context_failed', `the context function failed for ${call.toolName}`, {
        cause: error,
      }),
    );
    throw error;
  };
  try {
    const value = context({ callId: call.callId, runId: call.runId, toolName: call.toolName });
    // An async context function is awaited by the call runner; a rejection is reported the same way.
    return isThenable(value) ? Promise.resolve(value).catch(failed) : value;
  } catch (error) {
    return failed(error);
  }
}

/*
 * A client's {@link Connection}: the `hello` it announces, and where each of the connection's events goes among
 * the client's parts (the decisions, the calls, the runs, the signal hooks, the public events).
 */
/** The parts of a client its connection's events go to; read when an event comes (some are made after it). */
export interface ClientParts {
  readonly registry: ToolRegistry;
  /** The client's redactor (a tool definition's `approvalReason` is announced redacted). */
  readonly redactor: Redactor;
  /**
   * `undefined` until the client's first `decide()` (./decisions.ts is then loaded, see {@link registerDecisions}):
   * before it, no decision waits for an answer, and the frames that answer one are no one's.
   */
  readonly decisions: Decisions | undefined;
  readonly calls: CallRunner;
  /** `undefined` until the client's first `run()` (./runs.ts is then loaded, see {@link registerRuns}). */
  readonly runs: Runs | undefined;
  /** A `welcome` came with these features: the runs made later learn what the service takes. */
  welcomed(features: readonly string[] | undefined): void;
  readonly signals: SignalHooks;
  /** Emits a public event of the client (a listener's throw is caught there). */
  emit<E extends keyof ClientEvents>(event: E, ...args: EventEmitter.EventArgs<ClientEvents, E>): void;
  /**
   * The service refused these tools of a `tools_update` (their fleet limits disagree, docs/protocol/fleet-limits.md): the
   * client drops them and announces the others again.
   */
  toolsRefused(names: readonly string[]): void;
  /**
   * A resume was refused (4010) for this tool's fleet limits: `true` when the client added it since it was made
   * (`addTool()`, a run's tools) and drops it now; `false` for one it was made with, or does not offer.
   */
  refusedAtResume(toolName: string): boolean;
  /** Announces the tools offered now (`tools_update`): they changed after the `hello` went out. */
  announceTools(): void;
}

/** `true` when `registry` holds exactly `tools`, in that order. */
function sameTools(tools: readonly AnyTool[], registry: ToolRegistry): boolean {
  const now = registry.tools();
  return now.length === tools.length && now.every((tool, index) => tool === tools[index]);
}

/** The `hello` a client with these options sends, offering the tools of `parts` now. */
function helloFrame(resolved: ResolvedClientOptions, options: ClientOptions, parts: ClientParts) {
  return {
    protocol: PROTOCOL_VERSION,
    sdk: { name: 'toolwire', version: VERSION },
    tools: parts.registry.definitions(parts.redactor),
    localApprovals: options.onApproval !== undefined,
    maxConcurrency: resolved.maxConcurrency,
    maxQueue: resolved.maxQueue,
    ...(resolved.buildId === undefined ? {} : { buildId: resolved.buildId }),
    runEventKinds: [...NEGOTIATED_RUN_EVENT_KINDS],
    // Every addition this SDK knows (docs/protocol/index.md), the trace context with a tracer; the service picks.
    features: options.tracing ? [...FEATURES] : FEATURES.filter((name) => name !== 'trace_context'),
  };
}

/** The connection of a client with these options, its events routed to `parts`. */
export function clientConnection(
  resolved: ResolvedClientOptions,
  options: ClientOptions,
  logger: Logger,
  parts: ClientParts,
): Connection {
  // The tools the last `hello` offered: one added or removed before its `welcome` is announced then.
  let offered: readonly AnyTool[] = [];
  return new Connection({
    url: resolved.url,
    apiKey: resolved.apiKey,
    redactor: parts.redactor,
    WebSocket: options.WebSocket,
    reconnect: resolved.reconnect,
    heartbeatIntervalMs: options.heartbeatIntervalMs,
    connectTimeoutMs: resolved.connectTimeoutMs,
    highWaterMarkBytes: resolved.highWaterMarkBytes,
    maxBufferedBytes: resolved.maxBufferedBytes,
    logger,
    ...(options.logger === undefined ? { retryNotice: redactingLogger(consoleNotice, parts.redactor) } : {}),
    hello: () => {
      offered = parts.registry.tools();
      return helloFrame(resolved, options, parts);
    },
    onWelcome: (welcome) => {
      parts.decisions?.welcomed(welcome.features);
      parts.calls.welcomed(welcome);
      parts.welcomed(welcome.features);
      parts.runs?.welcomed(welcome.features);
      parts.runs?.reconnected(welcome.resumed);
      parts.signals.connected();
      if (!sameTools(offered, parts.registry)) parts.announceTools();
      parts.emit('connected', { sessionId: welcome.sessionId, resumed: welcome.resumed });
    },
    onFrame: (frame, heardAt) => routeFrame(parts, frame, heardAt),
    onDisconnected: (code, reason) => {
      parts.decisions?.disconnected();
      parts.calls.disconnected();
      parts.runs?.disconnected();
      parts.emit('disconnected', { code, reason });
    },
    onReconnecting: (attempt, delayMs) => parts.emit('reconnecting', { attempt, delayMs }),
    onError: (error) => parts.emit('error', error),
    // A tool added while the socket was down (or whose refusal was lost with it): dropped, not the whole client.
    onFleetRefused: (toolName) => parts.refusedAtResume(toolName),
    // A frame that will never go out as it is (already reported through onError).
    onUnsendable: (frame, error) => {
      if (frame.type === 'run_start') parts.runs?.unsendable(frame, error);
      else parts.calls.unsendable(frame, error);
    },
    onRefused: (about, message) => {
      const { type, callId, questionId } = about;
      if (type === 'tool_call' && callId !== undefined) parts.calls.unreadable(callId, about, message);
      // An answer that cannot be read ends its question as cancelled (docs/protocol/errors.md), as any other status
      // would.
      else if (type === 'answer' && callId !== undefined && questionId !== undefined) {
        const reason = `the service's answer could not be read (${message})`;
        parts.calls.handle({ type: 'answer', callId, questionId, status: 'cancelled', reason });
      } else if (parts.decisions?.refused(about, message) !== true) parts.runs?.refused(about, message);
    },
    onClosed: (error) => {
      parts.decisions?.disconnected('closed');
      parts.calls.abortAll('client closed');
      parts.calls.dispose();
      parts.runs?.failAll(error ?? closedRun());
      parts.signals.closed();
      parts.emit('closed', error);
    },
  });
}

/**
 * A frame after `welcome`, heard at `heardAt` (`performance.now()` time): to the part it is about; an `error` frame
 * no part takes becomes an `error` event.
 */
function routeFrame(
  parts: ClientParts,
  frame: Exclude<ServiceFrame, FrameOf<ServiceFrame, 'welcome'>>,
  heardAt: number | undefined,
): void {
  switch (frame.type) {
    case 'tool_call':
    case 'cancel':
    case 'hand_back':
    case 'ack':
    case 'answer':
      parts.calls.handle(frame, heardAt);
      return;
    case 'approval_applied':
      // About a decision this client sent: none before its first decide() made `decisions`.
      parts.decisions?.handle(frame);
      return;
    case 'run_started':
    case 'run_event':
    case 'run_result':
      // About a run this client started: none before its first run() made `runs`.
      parts.runs?.handle(frame);
      return;
    case 'error':
      if (parts.decisions?.handle(frame) !== true && parts.runs?.handle(frame) !== true)
        serviceError(parts, frame);
      return;
  }
}

/**
 * An `error` frame about no decision or run: an `error` event; one naming a call may drop its result. One naming
 * tools of a refused `tools_update` drops them here (a `hello` that offered them would be refused with 4010, and
 * with it every other tool of this client) and says so as `ConnectionError` `fleet_conflict`.
 */
function serviceError(parts: ClientParts, frame: FrameOf<ServiceFrame, 'error'>): void {
  if (frame.tools !== undefined) {
    // Only a tool this client still offers as refused: a refusal of an update that a later one replaced (the tool
    // removed, or added again with other limits) is stale, and says nothing about what the client offers now.
    const names = frame.tools
      .filter(({ name, fleet }) => {
        const offered = parts.registry.get(name);
        return offered !== undefined && sameFleetLimits(offered.definition.fleet, fleet);
      })
      .map(({ name }) => name);
    if (names.length === 0) return;
    parts.toolsRefused(names);
    const listed = names.map((name) => JSON.stringify(name)).join(', ');
    const them = names.length === 1 ? 'it' : 'them';
    parts.emit(
      'error',
      new ConnectionError(
        'fleet_conflict',
        `the service refused ${names.length === 1 ? 'tool' : 'tools'} ${listed}: ${serviceMessage(frame.message, parts.redactor)}; this client no longer offers ${them} and goes on with its other tools. Every worker offering a tool must announce the same fleet limits: to change them, replace every worker offering ${them}, or rename ${them}`,
      ),
    );
    return;
  }
  // The service will never record this result (docs/protocol/tool-calls.md, docs/protocol/errors.md): drop it from
  // the outbox.
  if (
    frame.callId !== undefined &&
    dropsResult(frame.code) &&
    !parts.calls.refusedResult(frame.callId, frame.code)
  )
    return;
  const error = new ConnectionError(
    `service_${serviceCode(frame.code, parts.redactor)}`,
    `the service reported: ${serviceMessage(frame.message, parts.redactor)}`,
  );
  parts.emit('error', error);
}

/**
 * Whether an `error` naming a `callId` drops that call's result (docs/protocol/errors.md): `unknown_call`,
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

/**
 * A connection from this process to the service, running the process's tools.
 *
 * @example
 * ```ts
 * import { Client, tool } from 'toolwire';
 *
 * const ping = tool({ name: 'ping', description: 'Answers pong.', execute: () => 'pong' });
 * const client = new Client({ url: 'ws://127.0.0.1:8787', apiKey: 'dev', tools: [ping] });
 * await client.connect();
 * // … tool calls now run in this process …
 * await client.close();
 * ```
 * @throws OptionsError from the constructor when an option is invalid (the message names the field);
 *   ToolDefinitionError when an entry of `tools` is refused: no tool (`not_a_tool`), refused as `tool()` refuses
 *   it, or a second tool of one name (`duplicate_tool`).
 */
export class Client<C = unknown, T = ToolsGiven> extends EventEmitter<ClientEvents> {
  readonly #registry: ToolRegistry;
  /**
   * Names of the tools added since the client was made (`addTool()`, a run's tools): one the service refuses at a
   * resume (4010) is dropped, where a tool the client was made with closes it (docs/reference/errors-connection.md).
   */
  readonly #added = new Set<string>();
  /** A `removeTool()` not announced yet: it is, at the end of the task or with the next announcement. */
  #removalToAnnounce = false;
  readonly #maxConcurrency: number;
  readonly #connection: Connection;
  readonly #calls: CallRunner;
  /** Made on the first `run()` ({@link Client.#runsNow}); the logger they report to until then. */
  #runs: Runs | undefined;
  /** Made on the first `decide()` ({@link Client.#decisionsNow}). */
  #decisions: Decisions | undefined;
  /**
   * The approvals this client reports to `approval_requested` listeners, kept for `decide()`: made with the first
   * that needs them (a call asking, a run, a decision), which has ./approvals.ts here ({@link Client.#reported}).
   */
  #reportedApprovals: ReportedApprovals | undefined;
  /**
   * What waits for code to load (browsers only: `connect()`, runs, decisions), so that `close()` ends it
   * ({@link Client.#waitForCode}).
   */
  #codeWaiters: Set<() => void> | undefined;
  /**
   * The wait of a `connect()` for code before the socket opens (browsers only), the connection still `idle`: the
   * client is `connecting`, another `connect()` meanwhile is refused and a `run()` waits, as while the socket opens.
   */
  #connectWait: Promise<unknown> | undefined;
  readonly #logger: Logger;
  /** The features of the last `welcome`, `null` before the first: a `Runs` made after it is told them. */
  #features: readonly string[] | undefined | null = null;
  readonly #redactor: Redactor;
  /** The client's `tracing`, if any. */
  readonly #tracing: ToolTracing | undefined;
  readonly #signals: SignalHooks; // told directly: the public events are the application's (it may clear them)
  /** `policies`, whose gate `connect()` loads. */
  readonly #policies: readonly CallPolicy[] | undefined;
  /** `connectTimeoutMs`: bounds `connect()` as a whole, its wait for code included. */
  readonly #connectTimeoutMs: number;
  /**
   * Whether `tool_call` / `tool_result` have listeners. Every call asks (it makes no object for an event nobody
   * listens to): kept as listeners come and go ({@link Client.#listenersChanged}), not looked up in the emitter's
   * table twice a call.
   */
  #callListened = false;
  #resultListened = false;

  constructor(options: ClientOptions<C, T>) {
    super();
    const resolved = resolveClientOptions(options as ClientOptions);
    this.#registry = new ToolRegistry(resolved.tools);
    this.#policies = options.policies as readonly CallPolicy[] | undefined;
    this.#connectTimeoutMs = resolved.connectTimeoutMs;
    preloadParts(partsFor(undefined, { policies: this.#policies }));
    this.#maxConcurrency = resolved.maxConcurrency;
    // A key function's keys are read later, one per attempt: only a key given as a string is known now; the
    // connection teaches the redactor each one the function returns before it is used (src/wire/connection.ts).
    const staticKey = typeof resolved.apiKey === 'string' ? resolved.apiKey : undefined;
    const redactor = clientRedactor(staticKey ?? '', resolved.redact);
    const logger = redactingLogger(options.logger ?? consoleErrorLogger, redactor);
    this.#redactor = redactor;
    this.#logger = logger;
    this.#signals = drainOnSignals(this, resolved.signalDrainMs, logger);
    if (staticKey !== undefined && staticKey.length < SHORT_SECRET) {
      // Not searched for in free text (docs/reliability/index.md, "Secrets"): it would take ordinary words with it.
      logger.warn(
        { length: staticKey.length },
        `the API key is shorter than ${SHORT_SECRET} characters: it is not searched for inside the texts tools return, log and throw (it would match inside ordinary words), only replaced where it is a whole value; use a longer key in production`,
      );
    }
    // The connection's events go to these parts, read when each comes (the runs and the calls are made below).
    // The parts made later are read through accessors, defined apart: V8 keeps an object literal with accessors as
    // a dictionary, and every frame reads `calls` from it (a generic lookup, not a load).
    const parts: ClientParts = Object.defineProperties(
      {
        registry: this.#registry,
        redactor,
        welcomed: (features: readonly string[] | undefined) => {
          this.#features = features;
        },
        signals: this.#signals,
        emit: ((event, ...args) => this.#emit(event, ...args)) as ClientParts['emit'],
        toolsRefused: (names: readonly string[]) => this.#dropTools(names),
        refusedAtResume: (name: string) => {
          if (!this.#added.has(name) || !this.#registry.has(name)) return false;
          this.#dropTools([name]);
          return true;
        },
        announceTools: () => this.#announce(),
      },
      {
        decisions: { get: () => this.#decisions },
        calls: { get: () => this.#calls },
        runs: { get: () => this.#runs },
      },
    ) as ClientParts;
    this.#connection = clientConnection(resolved, options as ClientOptions, logger, parts);
    this.#tracing = options.tracing;
    // The runs' run contexts and trace captures, by run id: none before the first run().
    const liveRuns = { get: (runId: string) => this.#runs?.live.get(runId) };
    // One function for every call (the call is read from its ctx), not a closure per call.
    const nestedRun: NestedRun = (agent, input, maxTurns, ctx) => {
      this.#calls.park(ctx.callId);
      // The nested run shares the calling run's context (what the calling tool got as ctx.context). Once it has
      // its answer, the calling tool goes on in a slot of its own (a failure just ends it: it needs none); cancelled
      // while in line for that slot, its `await` rejects with the abort reason.
      return this.#startRun(agent, input, {
        context: ctx.context,
        signal: ctx.signal,
        maxTurns,
        parentRunId: ctx.runId,
        parentCallId: ctx.callId,
        userId: ctx.userId,
      }).then((result) => this.#calls.resumeParked(ctx.callId, result));
    };
    this.#calls = new CallRunner({
      registry: this.#registry,
      maxConcurrency: resolved.maxConcurrency,
      maxQueue: resolved.maxQueue,
      highWaterMarkBytes: resolved.highWaterMarkBytes,
      maxBufferedBytes: resolved.maxBufferedBytes,
      maxOutboxBytes: resolved.maxOutboxBytes,
      maxQueueBytes: resolved.maxQueueBytes,
      socket: this.#connection,
      contextFor: contextSource(liveRuns, options as ClientOptions, (error) => this.#emit('error', error)),
      onApproval: options.onApproval,
      onQuestion: options.onQuestion,
      policies: options.policies as readonly CallPolicy[] | undefined,
      extend: { [NESTED_RUN]: nestedRun },
      redactor,
      logger,
      tracing: options.tracing,
      callTraces: tracingCode.code?.callTraces,
      runCallers: liveRuns,
      events: {
        toolCall: (info) => this.#emit('tool_call', info),
        toolResult: (info) => this.#emit('tool_result', info),
        approvalRequested: (request, service) => {
          // A call an `always` decision covers is decided by the service at once: nobody is asked.
          if (service !== true || this.#reported().asked(request)) this.#emit('approval_requested', request);
        },
        // Always logged (the logger redacts), whether or not anyone listens to the event (docs/guide/model-output.md).
        widgetInvalid: (info) => {
          logger.warn(
            { toolName: info.toolName, callId: info.callId, path: info.path },
            `dropped the invalid widget of ${info.toolName} (call ${info.callId}): ${info.path}: ${info.message}`,
          );
          this.#emit('widget_invalid', info);
        },
        listens: (event) => (event === 'tool_call' ? this.#callListened : this.#resultListened),
      },
    });
  }

  /**
   * Current state: `idle` until `connect()`, then `connecting` (in a browser, from its wait for the code the tools
   * need on), `open`, `reconnecting`, `draining`, `closed`.
   */
  get state(): ClientState {
    const state = this.#connection.state;
    return state === 'idle' && this.#connectWait !== undefined ? 'connecting' : state;
  }

  /** Session id given by the service; survives reconnects. `undefined` before the first `welcome`. */
  get sessionId(): string | undefined {
    return this.#connection.sessionId;
  }

  /**
   * Calls executing (`running`), waiting to begin (`queued`: for a slot, or for their concurrency key's turn), results
   * not yet acknowledged (`unacked`; once closed, a final figure: those it closed without an ack), and the
   * `maxConcurrency` slots held (`slots`: more than `running` when tools have `slots`). With tools that have
   * `concurrency`, `tools` gives each one's calls holding a permit (`running`) and waiting for one (`waiting`).
   * `running` counts a tool that ignores `ctx.signal` until its `execute` returns, after its call was answered
   * (cancelled, timed out) and after `close()` returned: `close()` resolved and `running` 0, none of your tools' code
   * runs any more.
   */
  get stats(): ClientStats {
    const stats: ClientStats = {
      running: this.#calls.running,
      queued: this.#calls.queued,
      waiting: this.#calls.waiting,
      unacked: this.#calls.unacked,
    };
    const slots = this.#calls.slotsHeld;
    if (slots !== undefined) stats.slots = slots;
    const tools = this.#calls.concurrencyStats();
    if (tools !== undefined) stats.tools = tools;
    return stats;
  }

  /**
   * Opens the connection and announces the tools. Resolves once the service says `welcome`. Every attempt that
   * fails meanwhile is reported at once (an `error` event, and a `warn` line with a `logger`, with the cause); a
   * refused key or protocol rejects at once, and so does an address that answers but not as a toolwire service
   * (docs/protocol/lifecycle.md). `connect({ maxAttempts: 1 })` rejects at the first failed attempt.
   * @throws ConnectionError `unauthorized` (key refused, at the upgrade or by close 4001), `unsupported_protocol`
   *   (close 4002, or no `toolwire.v1` subprotocol), `upgrade_failed` (an HTTP status other than 101 that is not
   *   408, 429 or 5xx, which are retried), `invalid_welcome` (a first frame that is not a protocol frame),
   *   `connect_timeout`, `unreachable` (after `maxAttempts` failed attempts, the last one as `cause`),
   *   `invalid_url`, `hello_too_large`, `already_connecting` at once when called again while connecting (in a browser, while the first call still waits
   *   for code too), `already_connected`
   *   when called again once connected (call it once: the client reconnects by itself), or `closed` when
   *   `close()` came first ("this client is closed; create a new Client to connect again": a closed client never
   *   connects again; "the client was closed before it connected" when `close()` ended this `connect()`).
   * @throws OptionsError `invalid_options` when the options are not an object, `unknown_option` (with "did you
   *   mean"), `invalid_option` when `maxAttempts` is not a whole number ≥ 1 or Infinity; before any attempt.
   * @throws ToolwireError `load_failed` in a browser when the code the tools, `policies` or `tracing` need could not
   *   be loaded (src/call/parts.ts; the import's error as `cause`), before any attempt; the next call loads again.
   *
   * In a browser, `connect()` first waits for the code the tools, `policies` and `tracing` need that is not loaded
   * yet (src/call/parts.ts). `connectTimeoutMs` bounds `connect()` as a whole, from the call to `welcome`: that
   * wait and the socket's attempts share it, the attempts getting what the wait left. When the code is not there
   * within it, `connect()` rejects with `ConnectionError` `connect_timeout` ("toolwire's gate code did not load
   * within 30000ms", naming each part still missing) before any attempt, and the client stays as it was: code
   * that arrives later is kept, and the next `connect()` goes straight to the socket. A client with its code loaded
   * (always in Node, Bun and Deno: src/node.ts registers it) waits for nothing and starts no timer for it.
   */
  async connect(options: ConnectOptions = {}): Promise<void> {
    checkConnectOptions(options);
    // A first connect() still waiting for code: refused at once, as while its socket opens (await that one). Not
    // once close() ended that wait (the first has yet to see it): closed for good, in the connection's words.
    if (this.#connectWait !== undefined && this.#connection.state !== 'closed') throw alreadyConnecting();
    // A closed client waits for no code: the connection refuses it in its own words (make a new Client).
    const loads = this.#connection.state === 'closed' ? undefined : this.#codeToLoad();
    let timeoutMs: number | undefined;
    if (loads !== undefined) {
      const started = performance.now();
      const still = new Set(loads.keys());
      const all = Promise.all([...loads].map(([what, load]) => load.then(() => still.delete(what))));
      const bound = { timeoutMs: this.#connectTimeoutMs, still: () => listed([...still]) };
      const wait = this.#waitForCode(all, 'connect', bound);
      this.#connectWait = wait;
      try {
        // First in line on `wait`: the socket is `connecting` before a run() waiting with it goes on.
        await wait;
      } finally {
        this.#connectWait = undefined;
      }
      timeoutMs = Math.max(0, this.#connectTimeoutMs - (performance.now() - started));
    }
    if (this.#tracing !== undefined) this.#calls.traceWith((tracingCode.code as typeof Tracing).callTraces);
    await this.#connection.connect(options, timeoutMs).catch((error: unknown) => {
      throw this.#redactor.error(error);
    });
  }

  /**
   * Starts a run of `agent` on the service. The agent's definition is sent; its tools' `execute` functions and
   * `context` stay here, and its tools run in this client. `context` is typed as the client's context and what
   * the agent's tools declare ({@link AgentContext}): a context of another type does not compile.
   * @returns the run's result once the agent answers.
   * @throws OptionsError `invalid_agent`, `invalid_input` or `invalid_option` for a wrong argument (or an agent
   *   tool with more `slots` than `maxConcurrency`), before anything is sent; ToolDefinitionError `duplicate_tool`,
   *   `too_large` for an agent tool this client cannot add (as `addTool()`); RunError `run_failed` / `run_cancelled` / a service error code, `invalid_output` when the final
   *   output does not match the agent's `outputType`, `session_lost` when the client reconnects into a new session
   *   (`welcome.resumed: false`) while the run is going; AbortError at once when `signal` aborts; ConnectionError
   *   `not_connected` before `connect()`, `closed` when the client closed first ("the client is closed") or while
   *   the run was pending ("the client was closed", whether the run code had loaded or not). Made while `connect()` is under
   *   way (in a browser, its wait for code included), the run waits for it: it is sent once the service welcomes
   *   the client, and rejects with `connect()`'s error when that fails, with `closed` at `close()`. While the client
   *   is reconnecting the run waits and starts on the next connection (a run never started is sent again to a new
   *   session).
   */
  // biome-ignore lint/suspicious/noExplicitAny: any agent; its output type flows into the result.
  async run<A extends Agent<any>>(
    agent: A,
    input: string,
    options: RunOptions<C & AgentContext<A>> = {},
  ): Promise<RunResult<RunOutput<A>>> {
    checkRunArguments(agent, input, options);
    const { signal } = options;
    const started = {
      context: options.context,
      signal,
      maxTurns: options.maxTurns,
      parentRunId: undefined,
      parentCallId: undefined,
      userId: options.userId,
      onEvent: options.onEvent,
      toolChoice: options.toolChoice,
      // A copy as JSON: what is sent is what was checked, whatever the caller changes later.
      metadata:
        options.metadata === undefined
          ? undefined
          : (JSON.parse(JSON.stringify(options.metadata)) as Record<string, unknown>),
    };
    // In a browser, connect() may wait for code before the socket opens: the client is `connecting` then too, and
    // the run waits with it (ended by close() or its signal), then goes on as one made while the socket opens.
    const connectWait = this.#connection.state === 'idle' ? this.#connectWait : undefined;
    if (connectWait !== undefined) {
      await this.#waitForCode(connectWait, 'run', signal && { signal }).catch((error: unknown) => {
        throw this.#redactor.error(error);
      });
    }
    const { state } = this.#connection;
    if (state === 'idle' || state === 'closed') {
      throw new ConnectionError(
        state === 'idle' ? 'not_connected' : 'closed',
        state === 'idle' ? 'call connect() before run()' : 'the client is closed',
      );
    }
    const result = await this.#startRun(agent, input, started).catch((error: unknown) => {
      throw this.#redactor.error(error);
    });
    // The final output is read by the run code (./runs.ts), which the run loaded: `#runs` is made.
    return (this.#runs as Runs).finalOutput(agent, result, this.#redactor) as Promise<
      RunResult<RunOutput<A>>
    >;
  }

  /**
   * Adds a tool while connected; the service is told with `tools_update`. Any shape `tools` accepts outside a
   * record (a `tool()` result, an object with its options, an AI SDK tool with a `name`). A tool whose `fleet`
   * limits the service refuses (other workers announce other limits) is removed again when the service says so,
   * with an `error` event (`ConnectionError` `fleet_conflict`); the client goes on with its other tools. Added
   * while the socket is down, it is refused at the resume (4010): the client drops it and starts a new session.
   * @throws ToolDefinitionError as `tool()` does for an object it refuses; `not_a_tool`; `duplicate_tool` when a
   *   different tool has that name (call `removeTool(name)` first to replace it; adding the tool it already runs
   *   does nothing); `too_large` when the
   *   tool definitions would no longer fit in one frame of the service's `maxPayloadBytes` (the tool is not added);
   *   ConnectionError `closed` once the client is closed (a closed client runs no tool again).
   */
  addTool<P>(source: ToolSourceOf<P, C>): void {
    if (this.#connection.state === 'closed')
      throw new ConnectionError(
        'closed',
        'client.addTool(): the client is closed; make a new Client to add tools',
      );
    const item = toTool(source, 'addTool()');
    // The tool this client already runs under that name: nothing to add or announce.
    const registered = this.#registry.get(item.name);
    if (registered === item) return;
    if (registered !== undefined)
      throw duplicateTool('client.addTool()', item.name, 'client.removeTool', [registered, item]);
    this.#addTools([item], 'addTool()');
  }

  /**
   * Adds tools this client does not run yet and announces them (`addTool()`, and a run's agent tools): each
   * checked against `maxConcurrency` (its `slots`), and all of them left out again when the definitions would no
   * longer fit in one frame of the service's `maxPayloadBytes`.
   * @throws OptionsError `invalid_option` (a tool's `slots`); ToolDefinitionError `too_large`.
   */
  #addTools(items: readonly Tool[], owner: string): void {
    for (const item of items) checkToolSlots(item, this.#maxConcurrency, owner);
    for (const item of items) this.#registry.add(item);
    for (const item of items) this.#added.add(item.name);
    const size = utf8Length(
      JSON.stringify({ type: 'tools_update', tools: this.#registry.definitions(this.#redactor) }),
    );
    if (size > this.#connection.maxPayloadBytes) {
      for (const item of items) {
        this.#registry.remove(item.name);
        this.#added.delete(item.name);
      }
      const names = items.map((item) => `"${item.name}"`).join(', ');
      throw new ToolDefinitionError(
        'too_large',
        `${owner}: adding ${items.length === 1 ? 'tool' : 'tools'} ${names} makes the tool definitions ${size} bytes, over the service's limit of ${this.#connection.maxPayloadBytes}`,
      );
    }
    // Its calls may ask for approval: ./approvals.ts starts loading now (a call that asks first waits for it).
    if (
      approvalsCode.code === undefined &&
      items.some((item) => mayAskApproval(toolInternals(item), { policies: this.#policies }))
    )
      approvalsCode.load().catch(() => {});
    this.#calls.toolsChanged();
    this.#announce();
  }

  /**
   * `loading` (code the client waits for: browsers only), ended by `close()` or `bound` rather than by the code
   * alone: a page that closes the client, or whose network stalls, while a chunk is on its way gets its answer
   * anyway. The code, when it arrives, is kept by whoever loads it, not by this wait. The timer of a `timeoutMs`
   * and the listener on a `signal` live as long as the wait.
   *
   * @throws (rejects) ConnectionError `closed` when the client is or gets closed first (for `connect()`: "the
   *   client was closed before it connected"; for a run closed during the wait: "the client was closed", as for a
   *   run already started; for a decision: "decide(): the client was closed before the decision was sent");
   *   `connect_timeout` when `bound.timeoutMs` passes first; AbortError
   *   `aborted` when `bound.signal` aborts first (as a run aborted before it started); what `loading` rejects
   *   with, redacted.
   */
  #waitForCode<R>(loading: Promise<R>, waiter: 'connect' | 'run' | 'decide', bound: CodeBound): Promise<R> {
    const [closed, closedMeanwhile] = CLOSED_WAITS[waiter];
    const signal = bound !== undefined && 'signal' in bound ? bound.signal : undefined;
    const limit = bound !== undefined && 'timeoutMs' in bound ? bound : undefined;
    const aborted = () =>
      new AbortError('aborted', 'the run was aborted before it started', { cause: signal?.reason });
    if (this.#connection.state === 'closed') return Promise.reject(closed());
    if (signal?.aborted) return Promise.reject(aborted());
    return new Promise<R>((resolve, reject) => {
      this.#codeWaiters ??= new Set();
      const waiters = this.#codeWaiters;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const settle = (outcome: () => void) => {
        if (!waiters.delete(end)) return;
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        outcome();
      };
      const end = () => settle(() => reject(closedMeanwhile()));
      const onAbort = () => settle(() => reject(aborted()));
      waiters.add(end);
      signal?.addEventListener('abort', onAbort);
      if (limit !== undefined) {
        timer = setTimeout(() => {
          const message = `toolwire's ${limit.still()} code did not load within ${limit.timeoutMs}ms`;
          const error = limit.error?.(message) ?? new ConnectionError('connect_timeout', message);
          settle(() => reject(error));
        }, limit.timeoutMs);
      }
      loading.then(
        (loaded) => settle(() => resolve(loaded)),
        (error: unknown) => settle(() => reject(this.#redactor.error(error))),
      );
    });
  }

  /**
   * The loads of the optional code this client's options and tools need that is not here yet, by what each loads
   * (a part of src/call/parts.ts, `approvals`, `tracing`); `undefined` when all of it is (always in Node).
   */
  #codeToLoad(): Map<string, Promise<unknown>> | undefined {
    const registry = this.#registry;
    const policies = { policies: this.#policies };
    const names = new Set<PartName>(partsFor(undefined, policies));
    let mayAsk = mayAskApproval(undefined, policies);
    for (const name of registry.names()) {
      const internals = toolInternals(registry.get(name));
      for (const part of partsFor(internals)) names.add(part);
      mayAsk ||= mayAskApproval(internals);
    }
    const loads = new Map<string, Promise<unknown>>();
    for (const name of names) if (callParts[name].code === undefined) loads.set(name, callParts[name].load());
    // A call that may ask for approval: who decides it is ./approvals.ts.
    if (mayAsk && approvalsCode.code === undefined) loads.set('approvals', approvalsCode.load());
    if (this.#tracing !== undefined && tracingCode.code === undefined)
      loads.set('tracing', tracingCode.load());
    return loads.size === 0 ? undefined : loads;
  }

  /**
   * Stops offering tools the service refused for their fleet limits (docs/protocol/fleet-limits.md), and announces the
   * others again when the socket is open (at a resume, the next `hello` does).
   */
  #dropTools(names: readonly string[]): void {
    for (const name of names) {
      this.#registry.remove(name);
      this.#added.delete(name);
    }
    this.#calls.toolsChanged();
    this.#announce();
  }

  /**
   * Removes a tool by name; the service is told at the end of the current task (with the next `addTool()` or
   * `run()` when one comes first), so that `removeTool(name)` then `addTool(newVersion)` replaces the tool without a
   * moment in which the service sees no worker offer it (the calls waiting for it there would end
   * `unknown_tool`). Calls already running finish; those held here whose tool has not begun are then answered
   * busy, so that the service gives them to a worker that still offers the tool. Returns `false` if absent.
   */
  removeTool(name: string): boolean {
    this.#added.delete(name);
    const removed = this.#registry.remove(name);
    if (removed && !this.#removalToAnnounce) {
      this.#removalToAnnounce = true;
      afterIo(() => {
        if (this.#removalToAnnounce) this.#announce();
      });
    }
    return removed;
  }

  /**
   * Answers an `approval_requested` event over the socket: `true`/`false` or `{ approved, reason?, arguments?,
   * always? }` (docs/protocol/decisions.md). Resolves once the service applied it (once sent, without feature
   * `decisions`).
   * @throws ApprovalError `unknown_call`, `not_pending`, `invalid_decision`, `unsupported`, `too_large` (over the
   *   service's `maxPayloadBytes`), `too_deep` (edited arguments over 64 levels), `timeout` (no answer within
   *   `DECISION_ANSWER_TIMEOUT_MS`, 30,000 ms from the call, the socket open; in a browser that time also covers
   *   loading the decision code, and `timeout` comes as well when that code has not loaded within it);
   *   ConnectionError `closed` once the client is closed ("decide(): the client is closed"; a decision still
   *   waiting when it closes: "the client was closed before …", the decision sent or, waiting for its code, not),
   *   `not_connected` when the socket is not open otherwise (before `connect()`, while reconnecting),
   *   `disconnected` when it dropped before the answer; ToolwireError `load_failed` in a browser when the decision code (loaded with `import()` at the first
   *   `decide()`) could not be loaded (the import's error as `cause`; the next `decide()` loads again). Arguments
   *   that are no decision (`invalid_decision`: the id, the decision's shape, a misspelt field) and a socket that
   *   is not open (`not_connected`) are refused at once, before any load; edited `arguments` (not JSON, too deep,
   *   holding a secret) are checked by the loaded code.
   */
  decide(callId: string, decision: ApprovalDecision): Promise<void> {
    // Bad arguments are refused at once, before any wait for code.
    const read = readDecideArguments(callId, decision);
    if (read instanceof ApprovalError) return Promise.reject(read);
    // A socket that is not open answers at once, in a browser too: no decision code is loaded for a decision
    // that cannot be sent (a page offline would otherwise wait for a chunk it cannot fetch).
    if (this.#connection.state === 'closed') return Promise.reject(decideClosed());
    if (!this.#connection.writable) return Promise.reject(decideNotConnected());
    const decisions = this.#decisionsNow();
    if (decisions !== undefined) return decisions.decide(callId, read);
    // A decision waiting for ./decisions.ts ends when `close()` does, not when the code arrives; the wait for the
    // code and the wait for the answer share the one bound of a decision.
    const started = performance.now();
    return this.#waitForCode(this.#loadDecisions(), 'decide', DECISION_CODE_BOUND).then((loaded) =>
      loaded.decide(callId, read, Math.max(0, DECISION_ANSWER_TIMEOUT_MS - (performance.now() - started))),
    );
  }

  /**
   * Closes the client. With `drain` (the default) it stops taking calls, hands the calls whose `execute` has not
   * begun back to the service (answered busy: waiting for a slot, their key's turn, their context, their
   * arguments' async validation or an approval,
   * whose decision then goes to the client that gets the call), lets running ones finish (a call waiting for a
   * person's answer among them: a `warn` says the drain waits for it; and a tool that ignores `ctx.signal` still
   * running after its call was answered, cancelled or timed out) and waits for
   * the service to ack every result, all within `timeoutMs`; then it cancels on the service the runs this client
   * started that are still going (their `run()` promises reject with `ConnectionError` `closed`) and closes with
   * code 1000. A socket that drops during the drain, or was down when it began, is reopened (attempts at most
   * `DRAIN_RECONNECT_MAX_DELAY_MS`, 1 s, apart, each cut `DRAIN_HANDSHAKE_TIMEOUT_MS`, 2 s, after it began without
   * `welcome` whichever step holds it (its `apiKey` function, loading the WebSocket class, the handshake), the one
   * under way included, until `timeoutMs` whatever `reconnect.maxAttempts` says) and the session resumed, so that
   * the results reach the service; the drain ends as soon as nothing is left to run or to ack. At `timeoutMs` it
   * stops waiting: calls still running are aborted (those of a tool with `sideEffect` `'none'` or `'idempotent'`
   * are handed back to the service, answered busy, and another client runs them again; the others are answered
   * `cancelled`). If the socket is up, those answers and any result not acked yet go out before the close frame;
   * if it is down, they are not delivered by this client: no close reaches the service, which keeps the session's
   * calls for its grace period and then gives the ones it has no result for to another client (they may run twice:
   * at least once). A tool that ignores `ctx.signal` may still run after `close()` returns: `stats.running` counts it
   * until its `execute` returns, and what it returns is dropped. The results closed without an ack stay counted in
   * `stats.unacked`, a final figure, and a `warn` line names their calls. Rejects only with an `OptionsError` for invalid options (e.g. `timeout` for
   * `timeoutMs`), before anything is closed.
   * @see docs/guide/client.md ("Closing")
   */
  async close(options: CloseOptions = {}): Promise<void> {
    checkCloseOptions(options);
    const { drain = CLOSE_DEFAULTS.drain, timeoutMs = CLOSE_DEFAULTS.timeoutMs } = options;
    const state = this.#connection.state;
    if (state === 'closed') return;
    this.#calls.stopAccepting();
    // A session to drain into: open, or being resumed (the socket dropped before or during the drain: running calls
    // go on, and their results are delivered once it is back).
    if (drain && (this.#connection.writable || state === 'reconnecting')) {
      this.#connection.drain();
      // The connection may end for good meanwhile (reconnecting gave up): nothing can be delivered then.
      const ended = new Promise<void>((resolve) => this.once('closed', () => resolve()));
      const started = performance.now();
      const finished = await withTimeout(Promise.race([this.#calls.idle(), ended]), timeoutMs);
      if (!finished) {
        // Out of time: the calls still running are aborted, and their `cancelled` results are written (if the
        // socket is up) before the close frame. Acks are awaited only for what is left of `timeoutMs` (nothing,
        // or about): close() as a whole keeps to it, as a pod's grace period does, and acks cannot come while the
        // service is out of reach.
        this.#calls.abortAll('client closing', true);
        const left = Math.round(timeoutMs - (performance.now() - started));
        if (left > 0) await withTimeout(Promise.race([this.#calls.idle(), ended]), left);
      }
    } else {
      this.#calls.abortAll('client closing', true);
    }
    // Runs started here cannot go on without this client (their context lives here): cancel them on the service
    // rather than leave them waiting for a session that will not come back.
    this.#runs?.cancelAll('the client that started the run closed');
    if (this.#codeWaiters !== undefined) {
      for (const end of this.#codeWaiters) end();
      this.#codeWaiters.clear();
    }
    this.#connection.close();
    // The decoder keeps the last call frames for V8's sake (../wire/codec.ts): no call's arguments outlive a client.
    forgetLastCalls();
  }

  /** `await using client = new Client(...)` closes it (with drain) at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Starts a run after making sure this client runs the agent's tools (announced before `run_start`). */
  // biome-ignore lint/suspicious/noExplicitAny: any agent, whatever its output type.
  #startRun(agent: Agent<any>, input: string, options: Parameters<Runs['start']>[2]): Promise<RunResult> {
    const missing = missingAgentTools(this.#registry, agent);
    if (missing instanceof Error) return Promise.reject(missing);
    if (missing.length > 0) {
      try {
        this.#addTools(missing, `client.run(): agent "${agent.name}"`);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    // A tool removed in this task is announced gone before the run starts.
    if (this.#removalToAnnounce) this.#announce();
    const toolChoice = options.toolChoice ?? agent.toolChoice;
    // The tracer captures the caller's trace here, in the caller's context, for the run's calls to link to.
    // A run comes after `connect()`, which loaded ./tracing.ts for a client with `tracing`.
    const traceCaller = this.#tracing === undefined ? undefined : tracingCode.code?.runCaller(this.#tracing);
    const definition = agentDefinition(agent);
    const start = (runs: Runs) =>
      runs.start(
        definition,
        input,
        traceCaller === undefined ? { ...options, toolChoice } : { ...options, toolChoice, traceCaller },
      );
    const runs = this.#runsNow();
    if (runs !== undefined) return start(runs);
    // A run waiting for ./runs.ts ends when `close()` does or its `signal` aborts, not only when the code arrives.
    const { signal } = options;
    return this.#waitForCode(this.#loadRuns(), 'run', signal === undefined ? undefined : { signal }).then(
      start,
    );
  }

  /**
   * Loads ./runs.ts (one load at a time). A failed load is forgotten, so the next `run()` tries again.
   *
   * @throws (rejects) ToolwireError `load_failed` (the import's error as `cause`).
   */
  #loadRuns(): Promise<Runs> {
    return runsCode.load().then(() => this.#runsNow() as Runs);
  }

  /** This client's runs, made at once when ./runs.ts is loaded (always in Node: src/node.ts registers it). */
  #runsNow(): Runs | undefined {
    const Made = runsCode.code;
    if (this.#runs !== undefined || Made === undefined) return this.#runs;
    const runs = new Made(
      (frame) => this.#connection.send(frame),
      (event, raw) => this.#onRunEvent(event, raw),
      () => this.#connection.maxPayloadBytes,
      (runId, reason) => this.#calls.cancelRun(runId, reason),
      this.#logger,
      sharedAbort,
      {
        redactor: this.#redactor,
        hiddenArguments: this.#hiddenArguments,
        deltas: this.#redactor,
        listenerFailed: (error) => this.#listenerFailed("a run's onEvent listener threw", error, false),
        // The requests reported for its calls the service held, undecided, abort their `signal`.
        ended: (runId) => this.#reportedApprovals?.runEnded(runId),
      },
    );
    // What the service takes (feature `run_options`) is known once a welcome came; a new Runs has no run to resend.
    if (this.#features !== null) {
      runs.welcomed(this.#features);
      runs.reconnected(true);
    }
    this.#runs = runs;
    return runs;
  }

  /**
   * Loads ./decisions.ts (one load at a time). A failed load is forgotten, so the next `decide()` tries again.
   *
   * @throws (rejects) ToolwireError `load_failed` (the import's error as `cause`).
   */
  #loadDecisions(): Promise<Decisions> {
    return decisionsCode.load().then(() => this.#decisionsNow() as Decisions);
  }

  /**
   * This client's decisions, made at once when ./decisions.ts is loaded (always in Node: src/node.ts registers
   * it), told the features of the last `welcome`.
   */
  #decisionsNow(): Decisions | undefined {
    const Made = decisionsCode.code;
    if (this.#decisions !== undefined || Made === undefined) return this.#decisions;
    const decisions = new Made(
      (frame) => this.#connection.send(frame),
      () => this.#connection.maxPayloadBytes,
      () => this.#redactor,
      {
        restore: (callId, edited) => this.#reported().restore(callId, edited),
        applied: (callId, decision) => this.#reported().decided(callId, decision),
      },
    );
    if (this.#features !== null) decisions.welcomed(this.#features);
    this.#decisions = decisions;
    return decisions;
  }

  /** A call's arguments with the values of its tool's `sensitiveFieldNames` (this client's tool of that name) replaced. */
  readonly #hiddenArguments = (toolName: unknown, args: unknown): unknown => {
    if (typeof toolName !== 'string' || args === undefined) return args;
    const names = toolInternals(this.#registry.get(toolName))?.sensitiveFieldNames;
    if (names === undefined || names.length === 0) return args;
    const decoded = decodeArguments(args);
    // Here with the run code (`runsCode`), as every event of a run is.
    const { shownArguments } = callParts.redaction.code as CallParts['redaction'];
    return shownArguments(decoded.ok ? decoded.value : args, this.#redactor, names);
  };

  #onRunEvent(event: RunEvent, raw: RunEvent): void {
    this.#emit('run_event', event);
    const held = this.#reported().runEvent(event, raw);
    if (held !== undefined) this.#emit('approval_requested', held);
  }

  /**
   * The approvals this client reported, made at the first need: a call asking for approval, a run's event, a
   * decision, each of which has ./approvals.ts loaded first (the calls' `approvalsCode`, and the loads of
   * ./runs.ts and ./decisions.ts).
   */
  #reported(): ReportedApprovals {
    this.#reportedApprovals ??= new (approvalsCode.code as typeof ApprovalsCode).ReportedApprovals(
      () => this.#redactor,
      (name) => toolInternals(this.#registry.get(name))?.sensitiveFieldNames ?? [],
    );
    return this.#reportedApprovals;
  }

  #announce(): void {
    const removal = this.#removalToAnnounce;
    this.#removalToAnnounce = false;
    if (this.#connection.writable)
      this.#connection.send({ type: 'tools_update', tools: this.#registry.definitions(this.#redactor) });
    // After the announcement, so that the service does not send them here again.
    if (removal) this.#calls.toolsRemoved();
  }

  // Every way a listener comes or goes (`once` listeners leave through `removeListener`): the call events'
  // listeners are counted again ({@link Client.#callListened}).
  override on<E extends EventEmitter.EventNames<ClientEvents>>(
    event: E,
    fn: EventEmitter.EventListener<ClientEvents, E>,
    context?: unknown,
  ): this {
    super.on(event, fn, context);
    return this.#listenersChanged();
  }

  override addListener<E extends EventEmitter.EventNames<ClientEvents>>(
    event: E,
    fn: EventEmitter.EventListener<ClientEvents, E>,
    context?: unknown,
  ): this {
    return this.on(event, fn, context);
  }

  override once<E extends EventEmitter.EventNames<ClientEvents>>(
    event: E,
    fn: EventEmitter.EventListener<ClientEvents, E>,
    context?: unknown,
  ): this {
    super.once(event, fn, context);
    return this.#listenersChanged();
  }

  override removeListener<E extends EventEmitter.EventNames<ClientEvents>>(
    event: E,
    fn?: EventEmitter.EventListener<ClientEvents, E>,
    context?: unknown,
    once?: boolean,
  ): this {
    super.removeListener(event, fn, context, once);
    return this.#listenersChanged();
  }

  override off<E extends EventEmitter.EventNames<ClientEvents>>(
    event: E,
    fn?: EventEmitter.EventListener<ClientEvents, E>,
    context?: unknown,
    once?: boolean,
  ): this {
    return this.removeListener(event, fn, context, once);
  }

  override removeAllListeners(event?: EventEmitter.EventNames<ClientEvents>): this {
    super.removeAllListeners(event);
    return this.#listenersChanged();
  }

  #listenersChanged(): this {
    this.#callListened = this.listenerCount('tool_call') > 0;
    this.#resultListened = this.listenerCount('tool_result') > 0;
    return this;
  }

  // Listeners are user code: one that throws must not break the socket handler that emitted.
  #emit<E extends keyof ClientEvents>(event: E, ...args: EventEmitter.EventArgs<ClientEvents, E>): void {
    // A service's or a socket's words may quote a secret (the key in a URL, an echo of it), and the ids and
    // words an event carries are the service's (a call id, a close reason): redacted for the listeners there are.
    const first = args[0];
    if (first instanceof Error) {
      if (event === 'error' || event === 'closed') (args as unknown[])[0] = this.#redactor.error(first);
    } else if (typeof first === 'object' && first !== null && this.listenerCount(event) > 0)
      (args as unknown[])[0] = this.#redactor.fields(first);
    try {
      this.emit(event, ...args);
    } catch (error) {
      this.#listenerFailed(`a "${event}" listener threw`, error, event === 'error');
    }
  }

  /**
   * A listener of the application's threw (`error` when it was an `error` listener): reported as an `error` event
   * (`listener_failed`); where no `error` listener hears it, or it was one, as an `error` log line instead, so that
   * a failure is never silent (with no `logger`, on the console).
   */
  #listenerFailed(message: string, cause: unknown, inErrorListener: boolean): void {
    if (!inErrorListener && this.listenerCount('error') > 0) {
      this.#emit('error', new ConnectionError('listener_failed', message, { cause }));
      return;
    }
    this.#logger.error({ code: 'listener_failed', error: cause }, message);
  }
}

/**
 * Waits for a promise at most `timeoutMs` milliseconds (the client's drain on `close()`): `true` when `promise`
 * settled within it, `false` when the time ran out first.
 */
async function withTimeout(promise: Promise<void>, timeoutMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
