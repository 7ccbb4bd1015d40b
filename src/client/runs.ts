/**
 * Agent runs started by this client: `run_start` out, `run_started` / `run_event` / `run_result` in, and the
 * run context each run's tool calls see as `ctx.context`.
 *
 * @module
 */

import type { AbortLike } from '../call/types';
import { AbortError, type ConnectionError, RunError } from '../errors';
import type { Logger } from '../logger';
import type { Redactor } from '../redact';
import { encodeFrame } from '../wire/codec';
import {
  type AgentDefinition,
  type ClientFrame,
  cutValueBytes,
  type FrameOf,
  type ServiceFrame,
  type ToolChoice,
  utf8Length,
} from '../wire/protocol';
import { publicToolCalls, type RunEvent, type RunToolCall, toRunEvent } from './run-events';
import { serviceCode, serviceMessage, type WordRedactor } from './service-words';
import { type Released, type StreamRedactor, TextDeltas } from './text-deltas';

/**
 * What a client gives its runs: what a run's events are handed out as and what redacts the service's words in a
 * run's error (the client's redactor: the ids and words in them are the service's and the model's), and where a
 * run's `onEvent` that throws is reported.
 */
export interface RunsHooks {
  /**
   * Redacts the service's words in a run's error, and the events and calls of a run as they are handed out (its
   * `onEvent`, `RunResult.toolCalls`): the client's redactor.
   */
  redactor?: WordRedactor & { value<T>(value: T): T };
  /**
   * A call's arguments with the values of the `sensitiveFieldNames` of the client's tool of that name replaced, in
   * the events and calls of a run as they are handed out (an event's call, a `message`'s `toolCalls`).
   */
  hiddenArguments?: (toolName: unknown, args: unknown) => unknown;
  /** What redacts `text_delta` events as one stream per run and turn (src/client/text-deltas.ts). */
  deltas?: StreamRedactor;
  listenerFailed?: (error: unknown) => void;
  /** A run the service had started is over here (its `run_result`, an error, or the client closed). */
  ended?: (runId: string) => void;
}

export type {
  RunEvent,
  RunEventKind,
  RunEventOf,
  RunToolCall,
  ToolResultPart,
} from './run-events';

/** The outcome of a completed run. */
export interface RunResult<Output = unknown> {
  /** Id the service gave the run. */
  runId: string;
  /** The agent's final answer: a string, or the parsed object when the agent has an `outputType`. */
  finalOutput: Output;
  /**
   * Every tool call of the run, in the order they finished; large parts cut to fit the frame limit (see
   * {@link RunToolCall}), and a run of thousands of calls may carry only the first. Redacted as the run's events
   * are: the API key and `redact` rules replaced everywhere, and in `arguments` the values of the
   * `sensitiveFieldNames` of this client's tool of that name.
   */
  toolCalls: RunToolCall[];
  /** Model turns taken. */
  turns: number;
  /**
   * The model that played the run, when the service says: the stub's OpenAI-compatible model answers with its
   * name (`'llama3.1'`), its scripted model `'scripted'` (its answers come from a script, not a language model).
   */
  model?: string;
}

/** Options of one run. */
export interface StartRunOptions {
  context: unknown;
  signal: AbortSignal | undefined;
  maxTurns: number | undefined;
  parentRunId: string | undefined;
  parentCallId: string | undefined;
  /** The end user the run acts for (`run_start.userId`). */
  userId?: string | undefined;
  /** Told about each `run_event` of this run. */
  onEvent?: ((event: RunEvent) => void) | undefined;
  /** What the client's tracer captured of the caller (`ToolTracing.runStarted`), for the run's calls' traces. */
  traceCaller?: unknown;
  /** Which tools the model may call (feature `run_options`). Absent: the service's, `auto`. */
  toolChoice?: ToolChoice | undefined;
  /** The caller's data, kept with the run on the service (feature `run_options`). */
  metadata?: Record<string, unknown> | undefined;
}

interface PendingRun {
  frame: FrameOf<ClientFrame, 'run_start'>;
  runId: string | undefined;
  sent: boolean;
  context: unknown;
  /** See {@link StartRunOptions.traceCaller}. */
  traceCaller?: unknown;
  cancelRequested: boolean;
  /** The highest `run_event.seq` seen: a repeat sent again after a resume is dropped. */
  eventSeq: number;
  onEvent: ((event: RunEvent) => void) | undefined;
  /** `signal.reason` of the abort that cancelled the run, kept as the AbortError's `cause`. */
  abortReason?: unknown;
  /**
   * Its caller aborted it and `run()` has rejected already; the record stays only to cancel the run on the
   * service (until its `run_result`, or until {@link MAX_ABANDONED_RUNS} newer ones push it out).
   */
  abandoned: boolean;
  resolve(result: RunResult): void;
  reject(error: Error): void;
  cleanup(): void;
}

/**
 * Runs aborted by their caller and not yet answered by the service, kept to send `run_cancel` again after a
 * reconnect: past this many the oldest is forgotten (a service that never answers cannot grow the client).
 */
export const MAX_ABANDONED_RUNS = 256;

/** A logger that drops `debug` lines (the logger's own `silentLogger` would bring src/redact.ts along). */
const NO_DEBUG: Pick<Logger, 'debug'> = { debug: () => {} };

/** How many ended runs' ids a client keeps, to drop their events sent again after a resume. */
const REMEMBERED_RUNS = 1_024;

/** Tracks this client's runs. Owned by `Client`; not exported from the package. */
export class Runs {
  readonly #byRequest = new Map<string, PendingRun>();
  readonly #byRun = new Map<string, PendingRun>();
  /** Runs whose caller aborted them, waiting for the service to end them, oldest first. */
  readonly #abandoned = new Set<PendingRun>();
  /**
   * The ids of the runs that ended here, the latest {@link REMEMBERED_RUNS}: their events sent again after a resume
   * (docs/protocol/runs.md) came before their end, and are dropped.
   */
  readonly #ended = new Set<string>();
  readonly #send: (frame: ClientFrame) => boolean;
  readonly #onEvent: (event: RunEvent, raw: RunEvent) => void;
  readonly #aborted: (runId: string, reason: unknown) => void;
  #sequence = 0;
  /** The service takes `toolChoice` and `metadata` on this socket (feature `run_options`). */
  #runOptions = false;
  /** A `welcome` has come on some socket: {@link Runs.welcomed} has said what the service takes. */
  #welcomedOnce = false;
  /** The text each run's stream holds back, made on the first `text_delta` (with {@link RunsHooks.deltas}). */
  #deltas: TextDeltas | undefined;

  readonly #maxPayloadBytes: () => number;
  readonly #logger: Pick<Logger, 'debug'>;
  readonly #listenTo: (signal: AbortSignal) => AbortLike;
  readonly #hooks: RunsHooks;

  /**
   * This client's runs the service has started, by run id, read-only: a call of one of them gets its run context
   * as `ctx.context` (the client's context source reads it here), and is taken with more room when the run is
   * nested (`frame.parentCallId`: one of this client's calls waits for it, src/client/calls.ts).
   */
  readonly live: ReadonlyMap<
    string,
    {
      readonly context: unknown;
      readonly traceCaller?: unknown;
      readonly frame: { readonly parentCallId?: string };
    }
  > = this.#byRun;

  /**
   * @param onEvent - told of each event of a run, as handed out (redacted) and as the service sent it (`raw`: the
   *   arguments an approval was shown redacted for, which the client puts back in an edit; src/client/approvals.ts).
   * @param aborted - told, once its id is known, of each run its caller aborted: its tool calls in this process
   *   are aborted at once, without waiting for the service's `cancel` (the socket may be down).
   * @param listenTo - what a run's `signal` is listened to through: the client gives `sharedAbort`
   *   (src/call/signal.ts), one listener on a signal for every run that shares it; by default the signal itself.
   *   Given rather than imported, so that this module, which a browser page loads on its first `run()`, shares
   *   few modules with the first download (each one shared costs the page the names it imports across).
   */
  constructor(
    send: (frame: ClientFrame) => boolean,
    onEvent: (event: RunEvent, raw: RunEvent) => void,
    maxPayloadBytes: () => number,
    aborted: (runId: string, reason: unknown) => void = () => {},
    logger: Pick<Logger, 'debug'> = NO_DEBUG,
    listenTo: (signal: AbortSignal) => AbortLike = (signal) => signal,
    hooks: RunsHooks = {},
  ) {
    this.#hooks = hooks;
    this.#listenTo = listenTo;
    this.#logger = logger;
    this.#send = send;
    this.#onEvent = onEvent;
    this.#maxPayloadBytes = maxPayloadBytes;
    this.#aborted = aborted;
  }

  /** Starts a run; resolves with its result, rejects with `RunError`, `AbortError` or `ConnectionError`. */
  start(agent: AgentDefinition, input: string, options: StartRunOptions): Promise<RunResult> {
    return new Promise<RunResult>((resolve, reject) => {
      const requestId = `req_${Date.now().toString(36)}_${(this.#sequence++).toString(36)}`;
      const frame: FrameOf<ClientFrame, 'run_start'> = { type: 'run_start', requestId, agent, input };
      if (options.maxTurns !== undefined) frame.maxTurns = options.maxTurns;
      if (options.parentRunId !== undefined) frame.parentRunId = options.parentRunId;
      if (options.parentCallId !== undefined) frame.parentCallId = options.parentCallId;
      if (options.userId !== undefined) frame.userId = options.userId;
      if (options.toolChoice !== undefined && options.toolChoice !== 'auto')
        frame.toolChoice = options.toolChoice;
      if (options.metadata !== undefined) frame.metadata = options.metadata;
      const { signal } = options;
      // Many runs may share one signal: one listener on it for all (`sharedAbort`, src/call/signal.ts).
      const shared = signal === undefined ? undefined : this.#listenTo(signal);
      const onAbort = () => this.#abort(run, signal?.reason);
      const run: PendingRun = {
        frame,
        runId: undefined,
        sent: false,
        context: options.context,
        ...(options.traceCaller === undefined ? {} : { traceCaller: options.traceCaller }),
        cancelRequested: false,
        abandoned: false,
        eventSeq: 0,
        onEvent: options.onEvent,
        resolve,
        reject,
        cleanup: () => shared?.removeEventListener('abort', onAbort),
      };
      if (signal?.aborted) {
        reject(new AbortError('aborted', 'the run was aborted before it started', { cause: signal.reason }));
        return;
      }
      const size = utf8Length(encodeFrame(frame));
      if (size > this.#maxPayloadBytes()) {
        // It could never be sent: waiting for a connection would wait forever.
        reject(
          new RunError(
            'frame_too_large',
            `the run's input and agent definition make a run_start of ${size} bytes, over the service's limit of ${this.#maxPayloadBytes()}`,
          ),
        );
        return;
      }
      shared?.addEventListener('abort', onAbort);
      this.#byRequest.set(requestId, run);
      run.sent = this.#sendStart(run);
    });
  }

  /**
   * A `welcome` came: whether the service takes `run_start.toolChoice` and `metadata` on this socket (feature
   * `run_options`). Told before {@link Runs.reconnected}.
   */
  welcomed(features: readonly string[] | undefined): void {
    this.#runOptions = features?.includes('run_options') === true;
  }

  /**
   * Sends a run's `run_start`. To a service without the feature `run_options` it goes without `metadata` (data
   * the service would not keep, as a service ignores metadata it does not understand) and, when the run asks for
   * a `toolChoice`, not at all: the run fails with `RunError` `unsupported` rather than run unconstrained.
   */
  #sendStart(run: PendingRun): boolean {
    const { frame } = run;
    if (this.#runOptions || (frame.toolChoice === undefined && frame.metadata === undefined))
      return this.#send(frame);
    // Not known yet (no welcome on this socket): sent once one comes (`reconnected`).
    if (!this.#welcomedOnce) return false;
    if (frame.toolChoice !== undefined) {
      this.#settle(run);
      run.reject(
        new RunError(
          'unsupported',
          `the service does not take toolChoice (it did not negotiate the feature run_options); the run was not started`,
        ),
      );
      return false;
    }
    const { metadata: _, ...plain } = frame;
    return this.#send(plain);
  }

  /**
   * A socket (re)opened: send again every `run_start` not yet answered by `run_started` (written is not
   * received: it may have died with the old socket; the service starts one run per session and `requestId`), and
   * repeat cancellations.
   *
   * When the socket began a new session (`resumed: false`), the runs the old session started are lost: the service
   * cancels them when that session expires, and their `run_result` would go to it, never to this one
   * (docs/protocol/sessions.md). Each rejects at once with `RunError` `session_lost`; one its caller aborted is
   * forgotten.
   * A `run_start` never answered is sent again: the new session starts it.
   */
  reconnected(resumed = true): void {
    this.#welcomedOnce = true;
    for (const run of [...this.#byRequest.values()]) {
      if (run.runId === undefined) run.sent = this.#sendStart(run) || run.sent;
      else if (!resumed) {
        this.#settle(run);
        run.reject(
          new RunError(
            'session_lost',
            `run ${run.runId} was lost with its session: the client reconnected and the service began a new session (the old one expired, was replaced or is unknown to it), which cannot follow the run`,
          ),
        );
      } else if (run.cancelRequested) this.#send({ type: 'run_cancel', runId: run.runId });
    }
  }

  /** Handles run frames and `error` frames that name a request or run. Returns `true` when it used the frame. */
  handle(frame: ServiceFrame): boolean {
    switch (frame.type) {
      case 'run_started': {
        const run = this.#byRequest.get(frame.requestId);
        if (!run) return true;
        // A request starts one run: another run id for it later (a confused service) is not adopted.
        if (run.runId !== undefined && run.runId !== frame.runId) {
          this.#logger.debug(
            { requestId: frame.requestId, runId: frame.runId },
            `run_started for a request whose run is ${run.runId}, ignored`,
          );
          return true;
        }
        run.runId = frame.runId;
        this.#byRun.set(frame.runId, run);
        if (run.cancelRequested) {
          this.#send({ type: 'run_cancel', runId: frame.runId });
          this.#aborted(frame.runId, run.abortReason);
        }
        return true;
      }
      case 'run_event': {
        const run = this.#byRun.get(frame.runId);
        if (run === undefined) {
          // Only a run this client started has events for it (docs/reference/events.md); one that ended here is
          // forgotten quietly, another is a confused service.
          if (!this.#ended.has(frame.runId))
            this.#logger.debug(
              { runId: frame.runId.slice(0, 64) },
              'run_event of a run this client did not start, ignored',
            );
          return true;
        }
        if (frame.seq !== undefined) {
          // Sent again after a resume (docs/protocol/run-events.md): this one already came.
          if (frame.seq <= run.eventSeq) return true;
          run.eventSeq = frame.seq;
        }
        // A kind added after this version (docs/protocol/run-events.md), or data its kind's shape refuses: informative, so
        // ignored rather than refused.
        const read = toRunEvent(frame);
        if (!('kind' in read)) {
          this.#logger.debug(
            { runId: frame.runId, kind: frame.event.kind.slice(0, 64) },
            'unknown' in read
              ? 'run_event of a kind this client does not know, ignored'
              : `run_event whose data does not have its kind's shape, ignored (${read.malformed.slice(0, 200)})`,
          );
          return true;
        }
        if (read.kind === 'text_delta' && this.#hooks.deltas !== undefined) {
          this.#deltas ??= new TextDeltas(this.#hooks.deltas);
          const { released, now } = this.#deltas.delta(frame.runId, read.turn, read.delta);
          for (const held of released) this.#release(held);
          // A delta held whole goes out with the next one, or when its turn ends.
          if (now !== '' || read.delta === '')
            this.#deliver(run, { ...this.#redacted({ ...read, delta: '' }), delta: now } as RunEvent, read);
          return true;
        }
        // The end of a turn's text: what its stream holds goes out first.
        if (read.kind === 'message' || read.kind === 'turn') this.#flush(frame.runId, run);
        this.#deliver(run, this.#redacted(read), read);
        return true;
      }
      case 'run_result': {
        const run = this.#byRun.get(frame.runId);
        if (!run) return true;
        this.#settle(run);
        if (frame.status === 'completed') {
          run.resolve({
            runId: frame.runId,
            finalOutput: frame.finalOutput,
            toolCalls: this.#redactedCalls(publicToolCalls(frame.toolCalls)),
            turns: frame.turns,
            ...(frame.model === undefined ? {} : { model: frame.model }),
          });
        } else if (frame.status === 'cancelled' && run.cancelRequested) {
          run.reject(
            new AbortError('aborted', `run ${frame.runId} was cancelled`, { cause: run.abortReason }),
          );
        } else {
          const message =
            frame.error === undefined
              ? `run ${frame.runId} ${frame.status}`
              : serviceMessage(frame.error, this.#hooks.redactor);
          run.reject(new RunError(failureCode(frame), message));
        }
        return true;
      }
      case 'error': {
        const run =
          (frame.requestId !== undefined ? this.#byRequest.get(frame.requestId) : undefined) ??
          (frame.runId !== undefined ? this.#byRun.get(frame.runId) : undefined);
        if (!run) return this.#overAlready(frame);
        this.#settle(run);
        const message = serviceMessage(frame.message, this.#hooks.redactor);
        run.reject(
          new RunError(
            serviceCode(frame.code, this.#hooks.redactor),
            frame.code === 'busy' ? `${message}${BUSY_HINT}` : message,
          ),
        );
        return true;
      }
      default:
        return false;
    }
  }

  /**
   * `result`, a run of `agent` (an `Agent`, ./agent.ts) that ended, with its final output parsed by the agent's `outputType` (without one,
   * the model's text: a string).
   *
   * @throws (rejects) RunError `invalid_output`, redacted by `redactor`, when the final output does not match, or
   *   when the service sent its size in its place (over the frame limit).
   */
  async finalOutput(
    agent: {
      readonly name: string;
      readonly outputSchema?: unknown;
      parseOutput(value: unknown): Promise<{ ok: true; value: unknown } | { ok: false; message: string }>;
    },
    result: RunResult,
    redactor: Pick<Redactor, 'error'>,
  ): Promise<RunResult> {
    const parsed = await agent.parseOutput(result.finalOutput);
    if (parsed.ok) return { ...result, finalOutput: parsed.value };
    const cut = cutValueBytes(result.finalOutput);
    if (cut !== undefined)
      throw redactor.error(
        new RunError(
          'invalid_output',
          `the final output of ${agent.name} was ${cut} bytes, over the frame limit: the service sent its size in its place (its transcript of run ${result.runId} has it whole)`,
        ),
      );
    throw redactor.error(
      new RunError(
        'invalid_output',
        `the final output of ${agent.name} does not match its ${agent.outputSchema === undefined ? 'output (no outputType)' : 'outputType'}: ${parsed.message}`,
      ),
    );
  }

  #redactedCalls(calls: RunToolCall[]): RunToolCall[] {
    const { redactor, hiddenArguments: hidden } = this.#hooks;
    if (redactor === undefined) return calls;
    return calls.map((call) =>
      redactor.value(
        hidden === undefined ? call : { ...call, arguments: hidden(call.toolName, call.arguments) },
      ),
    );
  }

  #redacted(event: RunEvent): RunEvent {
    const { redactor } = this.#hooks;
    return redactor === undefined ? event : redactor.value(this.#withoutSensitiveFields(event));
  }

  /**
   * A run event with the values of its calls' sensitive fields replaced ({@link RunsHooks.hiddenArguments}), as the
   * approver and the logs see them: in a call's `arguments`, and in each call of a `message`'s `toolCalls`.
   */
  #withoutSensitiveFields(event: RunEvent): RunEvent {
    const hidden = this.#hooks.hiddenArguments;
    if (hidden === undefined) return event;
    const fields = event as { toolName?: unknown; arguments?: unknown; toolCalls?: unknown };
    if (fields.arguments !== undefined)
      return { ...event, arguments: hidden(fields.toolName, fields.arguments) } as RunEvent;
    if (!Array.isArray(fields.toolCalls)) return event;
    const toolCalls = fields.toolCalls.map((call: { name?: unknown; arguments?: unknown }) =>
      call !== null && typeof call === 'object' && call.arguments !== undefined
        ? { ...call, arguments: hidden(call.name, call.arguments) }
        : call,
    );
    return { ...event, toolCalls } as RunEvent;
  }

  /** Hands an event of `run` (`undefined`: a run this client did not start) to its `onEvent` and the client. */
  #deliver(run: PendingRun | undefined, event: RunEvent, raw: RunEvent): void {
    const listener = run?.abandoned === true ? undefined : run?.onEvent;
    if (listener !== undefined) {
      try {
        listener(event);
      } catch (error) {
        // A listener's failure must not break the socket handler; the client's own event still goes out.
        this.#hooks.listenerFailed?.(error);
      }
    }
    // An approval or a question of a nested run surfaces on each ancestor run too (docs/protocol/runs.md), with
    // `data.runId` naming the nested run. When that run is this client's as well, the client has the event
    // already: the copy goes to the ancestor's `onEvent` only, so `run_event` and `approval_requested`
    // carry each event once.
    const origin = 'nestedRunId' in event ? event.nestedRunId : undefined;
    if (origin !== undefined && this.#byRun.has(origin)) return;
    this.#onEvent(event, raw);
  }

  /** Hands out the text a run's stream held, as one last `text_delta` of its turn. */
  #release(held: Released, run = this.#byRun.get(held.runId)): void {
    const event: RunEvent = { kind: 'text_delta', runId: held.runId, turn: held.turn, delta: '' };
    this.#deliver(run, { ...this.#redacted(event), delta: held.delta } as RunEvent, event);
  }

  /** The run's stream ended (its turn, the run, the socket): what it holds goes out. */
  #flush(runId: string | undefined, run: PendingRun | undefined): void {
    if (runId === undefined || this.#deltas === undefined) return;
    const held = this.#deltas.end(runId);
    if (held !== undefined) this.#release(held, run);
  }

  /** The socket dropped: every stream's held text goes out (the deltas sent meanwhile are not sent again). */
  disconnected(): void {
    for (const runId of this.#deltas?.holding() ?? []) this.#flush(runId, this.#byRun.get(runId));
  }

  /**
   * Whether an `error` naming no pending run answers a `run_cancel` of a run that already ended here (its abort
   * raced its end: the service says it is `not_allowed`, already completed, or `unknown_run`): nothing anyone must
   * act on, so it is logged at `debug` and used, never an `error` event.
   */
  #overAlready(frame: FrameOf<ServiceFrame, 'error'>): boolean {
    const { runId } = frame;
    if (frame.requestId !== undefined || runId === undefined || !this.#ended.has(runId)) return false;
    if (frame.code !== 'not_allowed' && frame.code !== 'unknown_run') return false;
    this.#logger.debug({ runId, code: frame.code }, 'run_cancel answered for a run that already ended');
    return true;
  }

  /**
   * A `run_result` or `run_started` the service got wrong (refused with `error invalid_frame`,
   * docs/protocol/errors.md),
   * or an `error` that cannot be read (not answered, docs/protocol/errors.md), names its run or request: that run will
   * never hear more, so it fails now (`RunError` `invalid_frame`) rather
   * than wait for ever.
   */
  refused(about: { type?: string; runId?: string; requestId?: string }, message: string): void {
    const run =
      about.type === 'run_result' && about.runId !== undefined
        ? this.#byRun.get(about.runId)
        : about.type === 'run_started' && about.requestId !== undefined
          ? this.#byRequest.get(about.requestId)
          : about.type === 'error'
            ? ((about.requestId === undefined ? undefined : this.#byRequest.get(about.requestId)) ??
              (about.runId === undefined ? undefined : this.#byRun.get(about.runId)))
            : undefined;
    if (run === undefined) return;
    this.#settle(run);
    run.reject(
      new RunError('invalid_frame', `the service sent a ${about.type} this client cannot read: ${message}`),
    );
  }

  /** A `run_start` the socket will never take as it is: its run fails with a `RunError`. */
  unsendable(frame: FrameOf<ClientFrame, 'run_start'>, error: ConnectionError): void {
    const run = this.#byRequest.get(frame.requestId);
    if (run === undefined || run.runId !== undefined) return;
    this.#settle(run);
    run.reject(new RunError(error.code, `the run could not be started: ${error.message}`, { cause: error }));
  }

  /** Asks the service to cancel every run this client started that is still going (the client is closing). */
  cancelAll(reason: string): void {
    for (const run of this.#byRequest.values()) {
      if (run.runId !== undefined) this.#send({ type: 'run_cancel', runId: run.runId, reason });
    }
  }

  /** Rejects every run (the client closed for good). */
  failAll(error: ConnectionError): void {
    this.disconnected();
    for (const run of [...this.#byRequest.values()]) {
      this.#settle(run);
      run.reject(error);
    }
  }

  /**
   * The caller aborted the run: `run()` rejects now with an `AbortError`, whether or not the service answers
   * (docs/protocol/runs.md), and the run's tool calls here abort. The service is asked to cancel it (now, or once its
   * `run_started` comes, and again after each reconnect) until it ends the run.
   */
  #abort(run: PendingRun, reason: unknown): void {
    if (run.abandoned) return;
    this.#flush(run.runId, run);
    run.cancelRequested = true;
    run.abortReason = reason;
    const { runId } = run;
    const message =
      runId === undefined ? 'the run was aborted before it started' : `run ${runId} was aborted`;
    if (runId === undefined && !run.sent) this.#settle(run);
    else {
      run.cleanup();
      run.abandoned = true;
      this.#abandoned.add(run);
      if (this.#abandoned.size > MAX_ABANDONED_RUNS) {
        for (const oldest of this.#abandoned) {
          this.#settle(oldest);
          break;
        }
      }
      if (runId !== undefined) {
        this.#send({ type: 'run_cancel', runId });
        this.#aborted(runId, reason);
      }
    }
    run.reject(new AbortError('aborted', message, { cause: reason }));
  }

  #settle(run: PendingRun): void {
    this.#flush(run.runId, run);
    run.cleanup();
    this.#abandoned.delete(run);
    this.#byRequest.delete(run.frame.requestId);
    if (run.runId !== undefined) {
      this.#byRun.delete(run.runId);
      this.#ended.add(run.runId);
      if (this.#ended.size > REMEMBERED_RUNS) this.#ended.delete(this.#ended.values().next().value as string);
      this.#hooks.ended?.(run.runId);
    }
  }
}

/**
 * Follows the service's `busy` refusal of a `run_start` (its limit of runs in progress per session, e.g. the stub's
 * `maxRunsPerSession`, 64): what to do about it. The client does not queue runs itself: the service does not
 * announce its limit, and a hidden queue would let `run()` wait without bound.
 */
const BUSY_HINT =
  "; no run was started. The service limits the runs in progress at once in one client's session: wait for some " +
  'of these runs to end before starting more (keep fewer run() calls going at once), or start the others from ' +
  'another Client, which has its own session';

/**
 * The `RunError` code of a run that did not complete: `run_cancelled`, `invalid_output` when the service says its
 * final output did not match the agent's `outputSchema` (`run_result.code`, feature `run_codes`), else
 * `run_failed` (any other code, or a status this version does not know: docs/protocol/runs.md).
 */
function failureCode(frame: FrameOf<ServiceFrame, 'run_result'>): string {
  if (frame.status === 'cancelled') return 'run_cancelled';
  return frame.status === 'failed' && frame.code === 'invalid_output' ? 'invalid_output' : 'run_failed';
}
