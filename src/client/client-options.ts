/**
 * The options of a `Client`, of `client.connect()`, `client.run()` and `client.close()`: what each means, their
 * defaults, and the checks made before anything is built or sent; last, a client's options with every default
 * applied (`resolveClientOptions`).
 *
 * @module
 */

import { backoffDelaysFault } from '../backoff';
import type { CallPolicy, QuestionReply } from '../call/types';
import { OptionsError, ToolDefinitionError } from '../errors';
import { isPlainObject } from '../json';
import { displayUrl, type Logger, type RedactRule, secretScrubber } from '../logger';
import {
  aBoolean,
  aDuration,
  aFunction,
  anAbortSignal,
  anArrayOf,
  anInteger,
  anything,
  aString,
  checkOptions,
  describeSecret,
  describeValue,
  isOptionsObject,
  type OptionsOwner,
  type OptionsSpec,
  oneOf,
  optionsFault,
  type Rule,
} from '../tool/check-options';
import {
  aToolSet,
  type ToolSetOf,
  type ToolsContext,
  type ToolsGiven,
  toTools,
  twoToolsNamed,
  uniqueTools,
} from '../tool/shapes';
import { type Tool, toolInternals } from '../tool/tool';
import { API_KEY_PATTERN, describeKey, MAX_API_KEY_CHARS } from '../wire/api-key';
import type { ConnectOptions, ReconnectOptions } from '../wire/connection';
import {
  BUILD_ID_PATTERN,
  MAX_BUILD_ID_CHARS,
  RUN_METADATA_LIMITS,
  type ToolChoice,
  utf8Length,
} from '../wire/protocol';
import type { WebSocketConstructor } from '../wire/transport';
import { type Agent, aToolChoice, isAgent } from './agent';
import type { Approver } from './approvals';
import type { Questioner } from './questions';
import type { RunEvent } from './runs';
import type { ToolTracing } from './tracing';

/** Information about a call, given to a `context` function. */
export interface CallInfo {
  callId: string;
  runId: string;
  toolName: string;
}

/** A run context of type `C`, or a function of the call giving it (or a promise of it). */
type ContextOrFunction<C> = C | ((call: CallInfo) => C | Promise<C>);

/**
 * The type of a client's `context` option: `C` is inferred from the value given (or from what its function
 * returns); `Needed` is the run context the client's `tool()` results declare (`ToolsContext`, `unknown` when none
 * does), which `C` must also be. A message of TypeScript's naming `ClientContext<{}, { db: Db }>` says that `{}`
 * was given where the tools need `{ db: Db }`. `Needed` is never inferred from the context (`NoInfer`).
 */
type ClientContext<C, Needed> = ContextOrFunction<C> & NoInfer<ContextOrFunction<Needed>>;

/**
 * Options of `new Client(...)`; every duration is in milliseconds. `C` is the run context; `T` types `tools` entry by entry (inferred from the
 * value given, so that `execute`'s input is the schema's type: see `ToolSetOf`).
 */
export interface ClientOptions<C = unknown, T = ToolsGiven> {
  /**
   * WebSocket URL of the service: a string or a `URL` object (its `href` is used) whose scheme is `ws://` or
   * `wss://`, in any case (`WSS://` is read as `wss://`), without a fragment (`#…`: refused by `new Client`, as some
   * runtimes' WebSocket refuses it and others drop it). Shown in messages without its userinfo and query.
   * @default process.env.TOOLWIRE_URL
   */
  url?: string | URL | undefined;
  /**
   * API key: printable ASCII without spaces, at most 4096 characters (`MAX_API_KEY_CHARS`; `OptionsError`
   * `invalid_option` otherwise). Sent as `Authorization: Bearer` where the runtime allows, else in `hello`, and
   * nowhere else. Scrubbed
   * from outputs, widgets, events, log lines and errors as a `redact` string is when it has 4 characters or more;
   * a shorter key (`dev`) would match inside ordinary words, so it is replaced only where a string is the key and
   * nothing else, and the client logs one `warn` (with its length, never the key).
   *
   * A function (`() => string | Promise<string>`) is read before every connection attempt, so keys rotate
   * without a restart: a refusal (close 4001, HTTP 401/403) reads it once more and tries a different key at once,
   * and the session resumes with it (docs/protocol/keys.md). A function that throws, rejects, returns no key
   * or takes over 10_000 ms (`API_KEY_TIMEOUT_MS`; while `close()` drains, past 2_000 ms from the attempt's start,
   * `DRAIN_HANDSHAKE_TIMEOUT_MS`) fails that attempt (`ConnectionError` `api_key_failed`, the cause scrubbed of
   * keys), which is retried with backoff. Each key it returns is scrubbed as a key given as a
   * string is, from the moment it is returned (the 16 latest are kept: `MAX_LEARNED_SECRETS`); a key it throws
   * in an error before it ever returned it is not known to be one, and shows in that error.
   * @default process.env.TOOLWIRE_API_KEY
   */
  apiKey?: string | (() => string | Promise<string>) | undefined;
  /**
   * The build this process runs (a commit, a release tag): 1 to 128 characters of printable ASCII without spaces
   * (`OptionsError` `invalid_option` otherwise). Announced in `hello`; a service
   * with the feature `builds` pins each run to one build and sends its calls only to workers of that build, so a
   * rolling deploy never sends a run's next call to other code (docs/guide/workers.md). @default none
   */
  buildId?: string | undefined;
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
   *
   * Its type (a function's result's, awaited) is checked at compile time against the context the `tool()` results
   * of `tools` declare (`ToolContext<{ db: Db }>` in an `execute`, else `AppContext` once the app declares it; all of
   * them at once, an agent's `asTool()` carrying its agent's tools'): `{}`, or `() => ({ db: 1 })`, does not compile
   * beside such a tool. Tools that declare none take any context, and leaving it out compiles (their calls then get
   * `undefined` outside `client.run()`). Not checked against tools given later (`addTool()`), nor against `tools`
   * when the type arguments are written out (`new Client<Ctx>(…)` checks it against `Ctx` only).
   */
  context?: ClientContext<C, ToolsContext<T>> | undefined;
  /**
   * Calls executing at once; the rest wait in order. A call waiting for a human's approval (over the socket, or
   * from an `onApproval` that returns a promise) or for a nested agent run does not count: it holds no slot
   * until it goes on, and then (approved, or given its nested run's answer) it is first in line for one, so no
   * more than this many ever execute. @default 16
   */
  maxConcurrency?: number | undefined;
  /**
   * Calls waiting for a slot. Calls running, waiting, and results not yet acknowledged together stay within
   * `maxConcurrency + maxQueue`; past that the service is told the client is busy (a retryable result). Calls
   * waiting for a human (a decision, an answer) or a nested run hold no slot and count apart, every call held
   * within `2 × (maxConcurrency + maxQueue)`: a nested run's calls come to this client while its callers wait.
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
  /**
   * `connect()` rejects (`ConnectionError` `connect_timeout`) if no `welcome` arrived within this time, in
   * milliseconds, counted from the call: in a browser, its wait for the code the tools, `policies` and `tracing`
   * need comes out of it, and code still missing when it is up rejects `connect()` naming it. @default 30_000
   */
  connectTimeoutMs?: number | undefined;
  /**
   * The soft limit of what the service has not read yet, in bytes: past it results wait in the outbox, a `pong`
   * and "busy" answers are held (one pong, one answer per call) and `error` frames are not sent. The socket's
   * `bufferedAmount` where it is exact (`ws`), else also the bytes written since the service last answered a
   * ping (docs/reliability/index.md, "Stalled peer"). @default 1_048_576
   */
  highWaterMarkBytes?: number | undefined;
  /**
   * The hard limit, in bytes: when what the service has not read, plus the answers held or dropped meanwhile,
   * passes it, the socket is dropped (reported as 1008, as the stub closes a client that stops reading) and the
   * client reconnects and resumes; results still unacked are sent again. At least `highWaterMarkBytes` and 1,024
   * (else `OptionsError`). No frame sent is larger: when it is below the service's `maxPayloadBytes`, results and
   * other frames are cut to it as they are to the service's limit (docs/protocol/limits.md), and a result waits until
   * the
   * socket can take it without passing this limit. @default 16_777_216
   */
  maxBufferedBytes?: number | undefined;
  /**
   * Bytes of results waiting for their ack (as sent, UTF-8), with the events, step results and latest preliminary
   * result their calls keep until then (to send again before them on a new socket). Past it new calls are answered "busy" (a retryable
   * result) and queued calls wait to start, as when `maxConcurrency + maxQueue` is reached; calls already running
   * still add theirs (each at most the service's `maxPayloadBytes`). @default 16_777_216
   */
  maxOutboxBytes?: number | undefined;
  /**
   * Bytes of the arguments of calls waiting to begin, counted as the UTF-8 size of their JSON text as the service
   * sent them: calls waiting for a slot (`maxQueue`), which hold their arguments as that text, parsed again when
   * they start; calls waiting for a decision on their approval (`onApproval`'s later answer, or the service's),
   * until they go on approved; and calls of a tool with `concurrency` waiting at its gate (for their key's turn, or
   * holding its permit, for a slot). Those two kinds keep only small arguments while their tool holds the input its
   * schema made of them (measured once, when its first wait begins; counted once, also when an approved call then
   * waits at its gate; that input's heap may be many times its bytes: up to about 21 for `{"a":[{},{},…]}`, about 42 for a call
   * waiting for a decision, whose approver has a frozen copy). Past it new calls are answered "busy" (a retryable
   * result), as when `maxConcurrency + maxQueue` is reached; the last call to begin waiting may pass it by its own
   * arguments (each at most the service's `maxPayloadBytes`), and so may calls between their arrival and their
   * wait (validating, awaiting their context). Not counted here: calls running, which hold their arguments as their
   * tools do, and calls waiting for a person's answer or a nested run (bounded in number: all calls held stay
   * within `2 × (maxConcurrency + maxQueue)`). A positive integer (`Infinity` too is refused: `OptionsError`). @default 16_777_216
   */
  maxQueueBytes?: number | undefined;
  /** WebSocket constructor. @default the global `WebSocket`, else the `ws` package */
  WebSocket?: WebSocketConstructor | undefined;
  /**
   * A pino-compatible logger (`debug`, `info`, `warn`, `error`), given every line redacted. Without one, the `error`
   * lines go to `console.error` (stderr), as `[toolwire] error <message> <fields as JSON>`, and the others are
   * discarded: an `error` line says the client stopped serving or lost work where no exception reaches you (refused
   * for good after it connected, a result it could not deliver). To log nothing at all, pass
   * `{ debug() {}, info() {}, warn() {}, error() {} }`.
   * @default `error` lines to the console, the rest discarded
   */
  logger?: Logger | undefined;
  /**
   * Strings (4+ characters) and patterns scrubbed from every output, widget and log line, as the API key is (when
   * it has 4+ characters: see `apiKey`). A string is found as written, lowercased or uppercased, escaped or
   * encoded (JSON, `\uXXXX`, percent-encoding up to 8 times; 12+ bytes as hex or base64 of its UTF-8 or UTF-16
   * bytes), never encrypted or hashed (docs/guide/secrets.md). @default []
   */
  redact?: RedactRule[] | undefined;
  /**
   * Decide approvals in this process (a CLI prompt, a policy) instead of asking the service's human.
   * Returns `true`/`false` or `{ approved, reason }`, or a promise of it; while the promise is pending the call
   * gives up its `maxConcurrency` slot, and the service counts it in none of this worker's slots either (feature
   * `approval_waits`; an older service counts it as running). Meanwhile the call is leased as a running call is:
   * with the feature `lease` the client keeps it alive while the person decides (up to the service's
   * `maxCallDurationMs`, a day in the stub), without it the service's deadline cuts it. The service never asks for it
   * back for another worker (`hand_back`), where the person would be asked again; a draining `close()` gives it
   * back. A throw or a rejection rejects the call. A call is put to it once: one the service takes back while
   * the promise is pending and sends here again waits for that promise, whose answer decides it
   * (docs/protocol/calls-no-longer-held.md, "Calls a session no longer holds").
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
   * client offers the protocol feature `trace_context` (docs/protocol/trace-context.md). @default no tracing
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

/** `client.stats`: what the client holds now. */
export interface ClientStats {
  /**
   * Calls executing (holding slots), a tool that ignores `ctx.signal` counted until its `execute` returns, after its
   * call was answered (cancelled, timed out) and after `close()`.
   */
  running: number;
  /**
   * Calls waiting to begin: in line for a slot, and calls of tools with `concurrency` waiting for their key's turn
   * (the backlog this process holds; calls waiting for a human or a nested run are in `waiting`).
   */
  queued: number;
  /**
   * Calls begun in this process that hold no slot while they wait for a human (an `onApproval` decision, an answer
   * to a question) or for a nested run (an agent tool): in neither `running` nor `queued` (a call waiting for its
   * concurrency key's turn is `queued`), and waiting without a deadline of their own while a person decides. An
   * `onApproval` that never settles shows here, its call held until `close()`. A call the service holds for a
   * `decide()` has not reached this process yet: it is in no count here.
   */
  waiting: number;
  /**
   * Results sent and not yet acknowledged. Once the client is closed, a final figure: the results it closed without
   * an ack (a drain that ran out of `timeoutMs`, `drain: false`, a socket down), which the service may not have; it
   * gives a call it has no result for to another client after the session's grace period. A `warn` line names
   * their calls at the close; the client holds none of them any more.
   */
  unacked: number;
  /**
   * `maxConcurrency` slots held: `running`, plus the extra slots of calls of tools with `slots`. Present once a
   * tool with `slots` was added (until then it equals `running`).
   */
  slots?: number;
  /**
   * Per tool with `concurrency`, in this process: calls holding a permit of their key (`running`: executing, or
   * waiting for a client slot in their key's turn, so it may exceed `maxConcurrency`) and calls waiting for one.
   */
  tools?: Record<string, { running: number; waiting: number }>;
}

/**
 * Refuses a tool whose one call would take more slots than the client has (`tool({ slots })`): it could never run.
 * @throws OptionsError `invalid_option` naming the tool, its `slots` and `maxConcurrency`.
 */
export function checkToolSlots(tool: Tool, maxConcurrency: number, owner: string): void {
  const slots = toolInternals(tool)?.slots ?? 1;
  if (slots <= maxConcurrency) return;
  throw new OptionsError(
    'invalid_option',
    `${owner}: tool "${tool.name}" has slots ${slots}, more than maxConcurrency (${maxConcurrency}): none of its calls could ever run`,
  );
}

/** Default values of {@link ClientOptions}. */
export const CLIENT_DEFAULTS = {
  maxConcurrency: 16,
  maxQueue: 1_000,
  connectTimeoutMs: 30_000,
  highWaterMarkBytes: 1_048_576,
  maxBufferedBytes: 16_777_216,
  maxOutboxBytes: 16_777_216,
  maxQueueBytes: 16_777_216,
  reconnect: { initialDelayMs: 100, maxDelayMs: 10_000, maxAttempts: Number.POSITIVE_INFINITY },
} as const;

/*
 * The options of `client.connect()`, `client.run()` and `client.close()`: their defaults and the checks made
 * before anything is sent.
 */
/** Options of {@link Client.run}. */
export interface RunOptions<C = unknown> {
  /**
   * `ctx.context` for every tool call of this run and of its nested runs. Never sent. In `client.run()`, of the
   * client's context type and the one the agent's `tool()` results declare (`ToolContext<…>`), as `invokeTool`
   * checks its `context`.
   */
  context?: C | undefined;
  /**
   * Aborting rejects `run()` at once with `AbortError` (`cause`: `signal.reason`, or a redacted copy of it
   * when it holds a secret: the reason itself is never changed), connected or not, aborts the
   * run's tool calls in this process at once, and cancels the run on the service (`run_cancel`, re-sent after a
   * reconnect until the service ends the run; docs/protocol/deadlines.md).
   */
  signal?: AbortSignal | undefined;
  /** Model turns before the run fails. @default the service's (10 with the stub) */
  maxTurns?: number | undefined;
  /**
   * The end user the run acts for (1 to 256 characters): sent with the run, and given back by the service to
   * each tool call of the run and of its nested runs as `ctx.userId` (feature `call_context`). @default none
   */
  userId?: string | undefined;
  /**
   * Told about each event of this run as it happens (the same as the client's `run_event` event, for this run
   * only): turns, messages, tool calls and results, approvals, and the calls' progress, preliminary results and
   * questions. A listener that throws is ignored.
   */
  onEvent?: ((event: RunEvent) => void) | undefined;
  /**
   * Which tools the model may call: `'auto'` (any or none), `'none'`, `'required'` (some tool), or
   * `{ type: 'tool', name }` (that tool; the agent must have it). `'required'` and a named tool hold until the
   * model has called a tool in the run, then later turns are `'auto'`. Overrides the agent's `toolChoice`. A
   * service without the feature `run_options` cannot honour it: `run()` then rejects with `RunError` `unsupported`.
   * Absent: the agent's, else `'auto'`.
   */
  toolChoice?: ToolChoice | undefined;
  /**
   * Your data about the run (a request id, a user's plan), sent with it and kept on the service, which shows it on
   * the run (the stub: `GET /v1/runs/:runId`, `stub.runs.get(runId).metadata`); it means nothing to the model. A
   * JSON object of at most 16,384 bytes (`RUN_METADATA_LIMITS`). A service without the feature `run_options`
   * does not keep it. Absent: none.
   */
  metadata?: Record<string, unknown> | undefined;
}

/** Default values of {@link CloseOptions}. */
export const CLOSE_DEFAULTS = { drain: true, timeoutMs: 30_000 } as const;

/** Options of {@link Client.close}. */
export interface CloseOptions {
  /**
   * Finish running calls and have their results acked before closing, reopening the socket if it is down.
   * @default true
   */
  drain?: boolean | undefined;
  /**
   * The longest the drain takes, acks included, in milliseconds; then running calls are aborted (a call of a tool
   * with `sideEffect` `'none'` or `'idempotent'` is handed back to the service, which gives it to another client;
   * any other is answered `cancelled`) and the client closes. With the socket down then, results not yet acked and
   * those answers are left to the service: it sends those calls to another client after the session's grace
   * period (at least once). @default 30_000
   */
  timeoutMs?: number | undefined;
}

/** The option rule of a run's `metadata`: a JSON object of at most {@link RUN_METADATA_LIMITS.maxBytes} bytes. */
const aRunMetadata: Rule = {
  expected: `a JSON object of at most ${RUN_METADATA_LIMITS.maxBytes} bytes`,
  test: (value) => {
    if (!isPlainObject(value)) return false;
    try {
      const json = JSON.stringify(value);
      return utf8Length(json) <= RUN_METADATA_LIMITS.maxBytes && isPlainObject(JSON.parse(json));
    } catch {
      return false; // a cycle, a BigInt
    }
  },
};

/** What `client.run()` accepts: one rule per option of {@link RunOptions}. */
const RUN_OPTIONS: OptionsSpec<RunOptions> = {
  rules: {
    context: anything,
    signal: anAbortSignal,
    maxTurns: anInteger({ min: 1 }),
    onEvent: aFunction,
    userId: aString('a string of 1 to 256 characters', { minLength: 1, maxLength: 256 }),
    toolChoice: aToolChoice,
    metadata: aRunMetadata,
  },
  aliases: {
    experimental_context: 'context',
    // Events as they happen (the AI SDK's and the OpenAI Agents SDK's streaming).
    stream: 'onEvent',
    abortSignal: 'signal',
    turns: 'maxTurns',
    maxSteps: 'maxTurns',
    onRunEvent: 'onEvent',
    user: 'userId',
    endUserId: 'userId',
  },
};
const RUN_OWNER: OptionsOwner = { name: 'client.run()', error: OptionsError };

/**
 * Checks `run()`'s arguments before anything is sent, so a mistake is an immediate, named error.
 * @throws OptionsError `invalid_agent`, `invalid_input`, `invalid_options`, `unknown_option`, `invalid_option`.
 */
export function checkRunArguments(agent: unknown, input: unknown, options: unknown): void {
  if (!isAgent(agent)) {
    optionsFault(
      RUN_OWNER,
      'invalid_agent',
      `agent must be made with new Agent(), got ${describeValue(agent)}`,
    );
  }
  if (typeof input !== 'string') {
    optionsFault(RUN_OWNER, 'invalid_input', `input must be a string, got ${describeValue(input)}`);
  }
  checkOptions(options, RUN_OPTIONS, RUN_OWNER);
  const choice = (options as RunOptions).toolChoice;
  if (typeof choice === 'object' && !(agent as Agent).tools.some((item) => item.name === choice.name)) {
    optionsFault(
      RUN_OWNER,
      'invalid_option',
      `toolChoice names the tool "${choice.name}", which is not one of the tools of agent "${(agent as Agent).name}"`,
    );
  }
}

/** What `client.close()` accepts: one rule per option of {@link CloseOptions}. */
const CLOSE_OPTIONS: OptionsSpec<CloseOptions> = {
  rules: { drain: aBoolean, timeoutMs: aDuration(0) },
  aliases: { graceful: 'drain', drainTimeoutMs: 'timeoutMs' },
};
const CLOSE_OWNER: OptionsOwner = { name: 'client.close()', error: OptionsError };

/** Checks `close()`'s options. @throws OptionsError `invalid_options`, `unknown_option`, `invalid_option`. */
export function checkCloseOptions(options: unknown): void {
  checkOptions(options, CLOSE_OPTIONS, CLOSE_OWNER);
}

/** What `client.connect()` accepts: one rule per option of {@link ConnectOptions}. */
const CONNECT_OPTIONS: OptionsSpec<ConnectOptions> = {
  rules: {
    maxAttempts: {
      expected: 'a whole number ≥ 1 or Infinity',
      test: (value) =>
        value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && (value as number) >= 1),
    },
  },
  aliases: {
    retries: 'maxAttempts',
    maxRetries: 'maxAttempts',
    attempts: 'maxAttempts',
    maxTries: 'maxAttempts',
  },
};
const CONNECT_OWNER: OptionsOwner = { name: 'client.connect()', error: OptionsError };

/**
 * Checks `connect()`'s options before any attempt.
 * @throws OptionsError `invalid_options`, `unknown_option`, `invalid_option`.
 */
export function checkConnectOptions(options: unknown): void {
  checkOptions(options, CONNECT_OPTIONS, CONNECT_OWNER);
}

/*
 * The checks made when a `Client` is built ({@link ClientOptions}), and the options with every default applied.
 */
const RECONNECT_OPTIONS: OptionsSpec<ReconnectOptions> = {
  rules: {
    initialDelayMs: aDuration(0),
    maxDelayMs: aDuration(0),
    // As `connect({ maxAttempts })`: a first attempt is always made (`false` for none after a drop).
    maxAttempts: anInteger({ min: 1, infinity: true }),
  },
  aliases: {
    retries: 'maxAttempts',
    maxRetries: 'maxAttempts',
    attempts: 'maxAttempts',
    delayMs: 'initialDelayMs',
    minDelay: 'initialDelayMs',
    minDelayMs: 'initialDelayMs',
  },
};

const SIGNAL_OPTIONS: OptionsSpec<{ timeoutMs?: number }> = {
  rules: { timeoutMs: aDuration(0) },
  aliases: { drainTimeoutMs: 'timeoutMs' },
};

/**
 * A ws:// or wss:// URL, its scheme in any case (schemes are case-insensitive), without a fragment: a `#` (a raw one
 * starts the fragment anywhere in a URL) is refused by some runtimes' WebSocket and ignored by others, and a URL
 * copied from the stub's page (`http://…/#key=…`) carries its key there, where it would never be sent.
 */
const WS_URL = /^wss?:\/\/[^#]+$/i;

/** The text of a `url` option: a string as given, a `URL` object's `href`; `undefined` for anything else. */
const urlText = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : value instanceof URL ? value.href : undefined;

const isLogger = (value: unknown) =>
  ['debug', 'info', 'warn', 'error'].every(
    (level) => typeof (value as Record<string, unknown> | null)?.[level] === 'function',
  );

const isRedactRule = (value: unknown) =>
  (typeof value === 'string' && value.length >= 4) ||
  (value instanceof RegExp && !new RegExp(value.source, value.flags.replace('y', '')).test(''));

/** What `new Client()` accepts: one rule per option of {@link ClientOptions}. */
const CLIENT_OPTIONS: OptionsSpec<ClientOptions> = {
  rules: {
    url: {
      expected: 'a ws:// or wss:// URL without a fragment (#…)',
      test: (value) => WS_URL.test(urlText(value) ?? ''),
      required: true,
      get whenMissing() {
        return hasEnv() ? '(or set TOOLWIRE_URL)' : undefined;
      },
      // A token may travel in the query or the userinfo.
      show: (value, redact) => {
        const text = urlText(value);
        return describeValue(text === undefined ? value : displayUrl(text), redact);
      },
    },
    apiKey: {
      ...oneOf(
        aString(
          `a non-empty string of printable ASCII without spaces, at most ${MAX_API_KEY_CHARS} characters (the characters an HTTP header may carry)`,
          { pattern: API_KEY_PATTERN, maxLength: MAX_API_KEY_CHARS },
        ),
        { ...aFunction, expected: 'a function returning one (read before every connection attempt)' },
      ),
      required: true,
      get whenMissing() {
        return hasEnv() ? '(or set TOOLWIRE_API_KEY)' : undefined;
      },
      // A secret, even when refused: shown by kind and size, and the first character a key cannot hold.
      show: (value) => describeKey(value, describeSecret),
    },
    tools: { ...aToolSet, required: true },
    buildId: aString(
      `1 to ${MAX_BUILD_ID_CHARS} characters of printable ASCII without spaces (a commit, a tag)`,
      { pattern: BUILD_ID_PATTERN },
    ),
    context: anything,
    maxConcurrency: anInteger({ min: 1 }),
    maxQueue: anInteger({ min: 0 }),
    heartbeatIntervalMs: aDuration(1),
    reconnect: {
      expected: 'false or an object { initialDelayMs?, maxDelayMs?, maxAttempts? }',
      test: (value) => value === false || isOptionsObject(value),
      fields: RECONNECT_OPTIONS,
    },
    connectTimeoutMs: aDuration(1),
    highWaterMarkBytes: anInteger({ min: 1, unit: 'bytes' }),
    // At least the smallest frame limit a service may announce (docs/protocol/limits.md): a frame larger than it is
    // never sent.
    maxBufferedBytes: anInteger({ min: 1_024, unit: 'bytes' }),
    maxOutboxBytes: anInteger({ min: 1, unit: 'bytes' }),
    maxQueueBytes: anInteger({ min: 1, unit: 'bytes' }),
    WebSocket: aFunction,
    logger: { expected: 'a logger with debug, info, warn and error methods', test: isLogger },
    // The rules are secrets themselves: shown by kind and size only.
    redact: {
      ...anArrayOf(
        {
          expected:
            'a string of 4 characters or more (shorter ones would scrub ordinary words) or a RegExp that does not match the empty string',
          test: isRedactRule,
          show: describeSecret,
        },
        'an array of strings and RegExps',
      ),
      show: describeSecret,
    },
    onApproval: aFunction,
    onQuestion: aFunction,
    tracing: {
      expected: 'an object with a startCall method, such as otelTracing() from toolwire/otel',
      test: (value) => typeof (value as Partial<ToolTracing> | null)?.startCall === 'function',
    },
    handleSignals: {
      expected: 'true, false or an object { timeoutMs? }',
      test: (value) => typeof value === 'boolean' || isOptionsObject(value),
      fields: SIGNAL_OPTIONS,
    },
    policies: anArrayOf(aFunction, 'an array of functions'),
  },
  aliases: {
    endpoint: 'url',
    address: 'url',
    baseURL: 'url',
    baseUrl: 'url',
    key: 'apiKey',
    token: 'apiKey',
    authToken: 'apiKey',
    concurrency: 'maxConcurrency',
    maxConcurrentCalls: 'maxConcurrency',
    queueSize: 'maxQueue',
    maxQueueSize: 'maxQueue',
    pingInterval: 'heartbeatIntervalMs',
    pingIntervalMs: 'heartbeatIntervalMs',
    autoReconnect: 'reconnect',
    retry: 'reconnect',
    timeout: 'connectTimeoutMs',
    timeoutMs: 'connectTimeoutMs',
    highWaterMark: 'highWaterMarkBytes',
    maxBufferedAmount: 'maxBufferedBytes',
    maxOutboxSize: 'maxOutboxBytes',
    maxQueueSizeBytes: 'maxQueueBytes',
    webSocketImpl: 'WebSocket',
    WebSocketImpl: 'WebSocket',
    ws: 'WebSocket',
    redactions: 'redact',
    secrets: 'redact',
    approve: 'onApproval',
    askQuestion: 'onQuestion',
    policy: 'policies',
    toolPolicies: 'policies',
    onAsk: 'onQuestion',
    tracer: 'tracing',
    telemetry: 'tracing',
    otel: 'tracing',
    signals: 'handleSignals',
    drainOnSignals: 'handleSignals',
  },
};

const CLIENT_OWNER: OptionsOwner = { name: 'new Client(options)', error: OptionsError };

/** Options with every default applied. */
export interface ResolvedClientOptions
  extends Required<
    Pick<
      ClientOptions,
      | 'maxConcurrency'
      | 'maxQueue'
      | 'connectTimeoutMs'
      | 'highWaterMarkBytes'
      | 'maxBufferedBytes'
      | 'maxOutboxBytes'
      | 'maxQueueBytes'
      | 'redact'
    >
  > {
  /** The service's URL: a `URL` object's `href`, its `ws://` or `wss://` scheme in lower case. */
  url: string;
  /** The key, or the function read before every connection attempt. */
  apiKey: string | (() => string | Promise<string>);
  /** `hello.buildId`, when given. */
  buildId: string | undefined;
  reconnect: ReconnectOptions | false;
  /** How long a drain on a signal may take, in milliseconds; `undefined` without `handleSignals`. */
  signalDrainMs: number | undefined;
  /** `tools` made into tools (src/tool/shapes.ts). */
  // biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list of tools; each keeps its own types.
  tools: Tool<any, any, any>[];
}

/**
 * An environment variable, `undefined` where it cannot be read: no `process.env`, or one whose reads throw (Deno
 * without `--allow-env` refuses each read).
 */
function env(name: string): string | undefined {
  try {
    return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
  } catch {
    return undefined;
  }
}

/**
 * Whether the runtime has environment variables (Node, Bun, Deno: a `process` with `versions.node`) for `url` and
 * `apiKey` to come from: a message about a missing one names the variable only there. A browser has none, even
 * where a bundler gives it a `process` of its own (`{ env: {}, browser: true }`).
 */
function hasEnv(): boolean {
  try {
    const { process } = globalThis as { process?: { env?: unknown; versions?: { node?: unknown } } };
    return typeof process?.versions?.node === 'string' && typeof process.env === 'object';
  } catch {
    return false;
  }
}

/**
 * Checks options and applies defaults.
 * @throws OptionsError `invalid_options` (not an object), `unknown_option` (with "did you mean"),
 *   `invalid_option` naming the option and the value; ToolDefinitionError for a tool of `tools` that is refused
 *   (as `tool()` refuses it, naming the tool and the field), `not_a_tool` (an entry of no accepted shape, named
 *   by its index or key) or `duplicate_tool`. No message shows a
 *   secret: values are scrubbed of the API key and the `redact` rules, `url` is shown without its userinfo,
 *   query and fragment, and the API key and redact rules themselves only by kind and size.
 */
export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  // Options that are no object may be the URL, given alone.
  if (!isOptionsObject(options))
    checkOptions(options, CLIENT_OPTIONS, { ...CLIENT_OWNER, redact: displayUrl });
  const withEnv = {
    ...options,
    url: options.url ?? env('TOOLWIRE_URL'),
    apiKey: options.apiKey ?? env('TOOLWIRE_API_KEY'),
  };
  // Every value a message shows is scrubbed of the key and the rules, whatever their validity (a key shorter than
  // 4 characters where a value is it entirely: docs/guide/secrets.md).
  const rules: unknown = withEnv.redact;
  const owner: OptionsOwner = {
    ...CLIENT_OWNER,
    redact: secretScrubber([
      typeof withEnv.apiKey === 'function' ? undefined : withEnv.apiKey,
      ...(Array.isArray(rules) ? rules : [rules]),
    ]),
  };
  checkOptions(withEnv, CLIENT_OPTIONS, owner);
  // Field by field: a field given as `undefined` (a spread config) takes its default, as a missing one does.
  const given = options.reconnect;
  const reconnect =
    given === false
      ? false
      : {
          initialDelayMs: given?.initialDelayMs ?? CLIENT_DEFAULTS.reconnect.initialDelayMs,
          maxDelayMs: given?.maxDelayMs ?? CLIENT_DEFAULTS.reconnect.maxDelayMs,
          maxAttempts: given?.maxAttempts ?? CLIENT_DEFAULTS.reconnect.maxAttempts,
        };
  const delays =
    given === false || given === undefined
      ? undefined
      : backoffDelaysFault('reconnect', given, CLIENT_DEFAULTS.reconnect);
  if (delays !== undefined) optionsFault(owner, 'invalid_option', delays);
  const highWaterMarkBytes = options.highWaterMarkBytes ?? CLIENT_DEFAULTS.highWaterMarkBytes;
  const maxBufferedBytes = options.maxBufferedBytes ?? CLIENT_DEFAULTS.maxBufferedBytes;
  if (maxBufferedBytes < highWaterMarkBytes) {
    optionsFault(
      owner,
      'invalid_option',
      `maxBufferedBytes (${describeValue(maxBufferedBytes, owner.redact)}) must not be less than highWaterMarkBytes (${describeValue(highWaterMarkBytes, owner.redact)})`,
    );
  }
  // The same tool listed twice is kept once; two different tools may not share a name.
  const tools = uniqueTools(toTools(options.tools, CLIENT_OWNER.name), (name, both) => {
    throw new ToolDefinitionError('duplicate_tool', `${CLIENT_OWNER.name}: ${twoToolsNamed(name, both)}`);
  });
  const maxConcurrency = options.maxConcurrency ?? CLIENT_DEFAULTS.maxConcurrency;
  for (const item of tools) checkToolSlots(item, maxConcurrency, CLIENT_OWNER.name);
  return {
    // Both checked above as required; the URL's scheme in lower case, as every WebSocket accepts it.
    url: (urlText(withEnv.url) as string).replace(/^wss?:/i, (scheme) => scheme.toLowerCase()),
    apiKey: withEnv.apiKey as string | (() => string | Promise<string>),
    buildId: options.buildId,
    maxConcurrency: options.maxConcurrency ?? CLIENT_DEFAULTS.maxConcurrency,
    maxQueue: options.maxQueue ?? CLIENT_DEFAULTS.maxQueue,
    connectTimeoutMs: options.connectTimeoutMs ?? CLIENT_DEFAULTS.connectTimeoutMs,
    highWaterMarkBytes,
    maxBufferedBytes,
    maxOutboxBytes: options.maxOutboxBytes ?? CLIENT_DEFAULTS.maxOutboxBytes,
    maxQueueBytes: options.maxQueueBytes ?? CLIENT_DEFAULTS.maxQueueBytes,
    redact: options.redact ?? [],
    reconnect,
    signalDrainMs: !options.handleSignals
      ? undefined
      : ((options.handleSignals === true ? undefined : options.handleSignals.timeoutMs) ??
        CLOSE_DEFAULTS.timeoutMs),
    tools,
  };
}
