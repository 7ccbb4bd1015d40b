/**
 * The updates this client sends about calls it runs (docs/protocol/updates.md): each numbered per call and per type,
 * and the latest of each type sent again after a reconnect, before the outbox, until the call's result is
 * acknowledged. Progress and preliminary results are snapshots, so they are coalesced: at most one per call and
 * type every {@link PROGRESS_INTERVAL_MS}, a newer one replacing one still waiting, the last always sent before
 * the call's result. With the feature `lease`, every call started here is kept alive on the service
 * (docs/protocol/lease.md): one `lease` frame per interval for the calls that sent nothing else in it. Only for
 * the features the service took in `welcome`.
 *
 * Events and step results go at the pace the socket drains ({@link Pacing}): one that finds the socket over
 * `highWaterMarkBytes`, or behind others still waiting, waits in a queue, in order. After a reconnect, the kept
 * frames of calls still running are queued behind the results (./outbox.ts writes each result after the frames of
 * its own call, {@link CallUpdates.lead}); a burst larger than `maxBufferedBytes` thus never gets the socket dropped.
 *
 * This file holds `CallUpdates` (progress, preliminary results, events, questions) and the pace of the socket;
 * it owns the lease frames (./lease-renewal.ts) and the step results (./step-results.ts). The lease as the call
 * runner keeps it is ./leases.ts. The questions put to the service are ./socket-questions.ts, loaded with
 * `import()` at a browser page's first one ({@link registerSocketQuestions}).
 *
 * @module
 */
import { boundedData } from '../call/context';
import type { StepRecord } from '../call/steps';
import type {
  PreliminaryResult,
  ProgressUpdate,
  QuestionReply,
  QuestionRequest,
  ToolEvent,
  WidgetInvalidInfo,
} from '../call/types';
import { CodeOnDemand } from '../code-on-demand';
import { nobodyAnswers, QuestionError } from '../errors';
import type { Redactor } from '../logger';
import { redactOutput } from '../redact';
import { toWellFormed, truncateJsonString } from '../tool/output';
import { encodeFrame, fitTextField, frameBytes, setProgressMessage } from '../wire/codec';
import {
  type ClientFrame,
  EVENT_LIMITS,
  type Feature,
  type FrameOf,
  featuresOf,
  PROGRESS_INTERVAL_MS,
  PROTOCOL_DEFAULTS,
  type ServiceFrame,
  utf8Length,
} from '../wire/protocol';
import { CallMap } from './call-map';
import { type HeldCalls, type LeasedCall, LeaseRenewal } from './lease-renewal';
import { type CallSocket, ENVELOPE_BYTES, hasRoom } from './outbox';
import type { Questioner } from './questions';
import type * as SocketQuestionsCode from './socket-questions';
import type { SocketQuestions } from './socket-questions';
import { type StepFrame, StepResults } from './step-results';

/**
 * ./socket-questions.ts once loaded: registered by the Node entry ({@link registerSocketQuestions}), else loaded by
 * a client's first question put to the service. A page whose tools never ask one never downloads it.
 */
const socketQuestionsCode = new CodeOnDemand<typeof SocketQuestionsCode>(
  'question',
  () => import('./socket-questions'),
);

/** Makes ./socket-questions.ts known up front (src/node.ts): no question then waits for an import. */
export function registerSocketQuestions(code: typeof SocketQuestionsCode): void {
  socketQuestionsCode.register(code);
}

/** What the updates read of `welcome`. */
export type WelcomeTerms = Pick<
  FrameOf<ServiceFrame, 'welcome'>,
  'features' | 'leaseMs' | 'heartbeatIntervalMs' | 'sessionGraceMs'
>;

/** The frames sent as latest-wins snapshots. */
type SnapshotFrame = FrameOf<ClientFrame, 'tool_progress'> | FrameOf<ClientFrame, 'tool_preliminary'>;
type SnapshotKind = SnapshotFrame['type'];

/** The feature each snapshot frame needs. */
const FEATURE_OF: Readonly<Record<SnapshotKind, Feature>> = {
  tool_progress: 'progress',
  tool_preliminary: 'preliminary',
};

/** The latest update of one type for one call, and when one was last written. */
interface Slot {
  seq: number;
  /** The newest update (sent or waiting). */
  latest: SnapshotFrame | undefined;
  /** A newer update waits for its turn (the interval since the last write has not passed). */
  waiting: boolean;
  /** When the last one was written (`now()` time); `-Infinity` before the first. */
  writtenAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** What the call runner tells the call updates, and what its calls report to them. */
export interface CallUpdateHooks {
  progress(update: ProgressUpdate): void;
  preliminary(result: PreliminaryResult): void;
  emit(event: ToolEvent): void;
  /** A step a call completed, for the service to keep (absent in a test double: steps stay local). */
  step?(record: StepRecord): void;
  /**
   * Calls started here are leased (docs/protocol/lease.md): the service does not cut them at their deadline. Only
   * while
   * they are does the call runner tell the updates of each call that begins and ends (`started`, `ended`).
   */
  readonly leased: boolean;
  /** How long the service keeps a dropped session, in milliseconds. */
  readonly sessionGraceMs: number;
  /** The service takes content parts beside a result's output (docs/protocol/call-context.md). */
  readonly takesContent: boolean;
  /** The service takes a result's kind beside its output (`tool_result.result`, feature `result_parts`). */
  readonly takesResultParts?: boolean;
  started(call: LeasedCall): void;
  ended(call: LeasedCall): void;
  /** Puts a question to the service. */
  ask: Questioner;
  /** A call the updates keep something of ({@link LeasedCall.updated}) has its result, about to be written. */
  beforeResult(callId: string): void;
  /** The result of a call the updates keep something of was acknowledged (or dropped). */
  forget(callId: string): void;
  /** A socket (re)opened; `resumed: false` when it began a new session. */
  reconnected(resumed?: boolean): void;
  /** The frames of a call to write before its result (absent in a test double: none). See {@link CallUpdates.lead}. */
  lead?(callId: string, all: boolean): readonly ClientFrame[];
  /**
   * Where to count the bytes kept of calls whose result waits for its ack (absent in a test double: none). See
   * {@link CallUpdates.countKeptIn}.
   */
  countKeptIn?(outbox: KeptBytes): void;
  /** `answer` from the service. */
  answer(frame: FrameOf<ServiceFrame, 'answer'>): void;
  /** What the service takes on the current socket (absent in a test double: nothing). */
  setWelcome?(welcome: WelcomeTerms): void;
  dispose?(): void;
}

/** When the socket may take a frame of the call updates (see the module comment). */
export interface Pacing {
  /** `true` when the socket may take `frame` now (also when it is not open: the write fails and is redone later). */
  room(frame: ClientFrame): boolean;
  /** `true` while the socket is open. */
  readonly writable: boolean;
  /** `true` while results wait to be written: they go first. */
  resultsWaiting(): boolean;
}

/** What counts the bytes kept beside the results waiting for their ack: the outbox (`Outbox.keep`). */
export interface KeptBytes {
  /** `bytes` more (negative: fewer) are kept beside the results. */
  keep(bytes: number): void;
}

/** Milliseconds between looks at a socket over its limit while frames wait in the queue. */
const PACING_RETRY_MS = 5;

/** What a kept `tool_preliminary` frame is counted at: its output (as sent, at most) and widget, and more. */
function preliminaryBytes(frame: SnapshotFrame): number {
  if (frame.type !== 'tool_preliminary') return 0;
  return (
    frame.output.length * 3 +
    (frame.widget === undefined ? 0 : utf8Length(JSON.stringify(frame.widget))) +
    KEPT_FRAME_BYTES
  );
}

/** What a kept frame is counted at beyond its data (its envelope, a callId of 256 characters escaped, the object). */
const KEPT_FRAME_BYTES = 2048;

/** The {@link Pacing} of `socket`, with the client's limits; `resultsWaiting` reads the outbox. */
export function socketPacing(
  socket: Pick<CallSocket, 'writable' | 'bufferedAmount'>,
  highWaterMarkBytes: number,
  maxBufferedBytes: number | undefined,
  resultsWaiting: () => boolean,
): Pacing {
  return {
    room: (frame) =>
      hasRoom(
        socket,
        socket.bufferedAmount === 0 ? 0 : frameBytes(frame),
        highWaterMarkBytes,
        maxBufferedBytes,
      ),
    get writable() {
      return socket.writable;
    },
    resultsWaiting,
  };
}

/** What the updates need from the client. */
export interface CallUpdatesOptions {
  /** Writes a frame on the current socket; `false` when it cannot now (it is sent again after a reconnect). */
  send(frame: ClientFrame): boolean;
  redactor: Redactor;
  /** The largest frame the service accepts, in UTF-8 bytes. */
  maxPayloadBytes(): number;
  /** Told when a preliminary result's widget was dropped because the frame would be too large. */
  widgetInvalid?(info: WidgetInvalidInfo): void;
  /** Monotonic time in milliseconds. @default performance.now */
  now?: () => number;
  /** The calls the call runner holds: the lease reads and writes when the service last heard of each. */
  calls: HeldCalls;
  /** When events and kept frames may be written; without it, they are written at once. */
  pacing?: Pacing;
  /** A call's first question to the service is open (`open`), or its last one closed (see ./socket-questions.ts). */
  asking?(callId: string, open: boolean): void;
}

const NOTHING_QUEUED: readonly KeptFrame[] = Object.freeze([]);

/** A frame the call updates keep of a call and may queue (see {@link CallUpdates.lead}). */
type KeptFrame = FrameOf<ClientFrame, 'tool_event'> | StepFrame | SnapshotFrame;

/** Updates of every call of one client. Owned by `Client`; not exported from the package. */
export class CallUpdates implements CallUpdateHooks {
  readonly #options: CallUpdatesOptions;
  readonly #now: () => number;
  #features: ReadonlySet<Feature> = new Set();
  /** Per call id, a slot per snapshot type (only for calls that sent one). */
  readonly #calls = new CallMap<Map<SnapshotKind, Slot>>();
  /** Per call id, its `tool_event`s (every one counts: all are kept, to be sent again after a reconnect). */
  readonly #events = new CallMap<FrameOf<ClientFrame, 'tool_event'>[]>();
  /** The `lease` frames of the calls started here. */
  readonly #lease: LeaseRenewal;
  #graceMs: number = PROTOCOL_DEFAULTS.sessionGraceMs;
  /** Made at the first question put to the service ({@link CallUpdates.#questionsNow}). */
  #questions: SocketQuestions | undefined;
  /** Sessions lost so far (`welcome.resumed: false`): a question whose code loaded across one is not sent. */
  #sessionsLost = 0;
  readonly #steps: StepResults;
  /** Frames waiting for room on the socket, in order; `#queue[#queueAt]` next. */
  #queue: KeptFrame[] = [];
  #queueAt = 0;
  #pumpTimer: ReturnType<typeof setTimeout> | undefined;
  /** Calls whose result was handed to the outbox: what is kept of them goes before their result (see `lead`). */
  readonly #ended = new Set<string>();
  /** Per call id, the bytes of its kept events, step results and latest preliminary result (see `endedBytes`). */
  readonly #bytes = new CallMap<number>();
  /** Counts the bytes of {@link CallUpdates.#bytes} of the calls in {@link CallUpdates.#ended} (see `countKeptIn`). */
  #keptIn: KeptBytes | undefined;

  /** The updates of a client's calls, written on `socket`; a dropped widget is told to `events`. */
  static on(
    socket: { send(frame: ClientFrame): boolean; readonly maxPayloadBytes: number },
    redactor: Redactor,
    events: { widgetInvalid(info: WidgetInvalidInfo): void },
    calls: HeldCalls,
    pacing?: Pacing,
    asking?: (callId: string, open: boolean) => void,
  ): CallUpdates {
    return new CallUpdates({
      send: (frame) => socket.send(frame),
      redactor,
      maxPayloadBytes: () => socket.maxPayloadBytes,
      widgetInvalid: (info) => events.widgetInvalid(info),
      calls,
      ...(pacing === undefined ? {} : { pacing }),
      ...(asking === undefined ? {} : { asking }),
    });
  }

  constructor(options: CallUpdatesOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
    this.#lease = new LeaseRenewal({
      send: options.send,
      now: this.#now,
      calls: options.calls,
      maxPayloadBytes: options.maxPayloadBytes,
    });
    this.#steps = new StepResults(options.send, () => this.#features.has('steps'), options.maxPayloadBytes);
  }

  /** A step a running call completed (one function for every call: it is `onStep`). */
  readonly step = (record: StepRecord): void => {
    const bytes = this.#steps.step(record);
    if (bytes === 0) return;
    this.#keeps(record.callId);
    this.#count(record.callId, bytes);
  };

  /**
   * Bytes kept of the calls whose result waits for its ack (their events, step results and latest preliminary
   * result, kept to be sent again before the result on a new socket) are counted in `outbox` from now on, with its
   * results (`maxOutboxBytes`): a service that never acks cannot make the client keep them without bound. Told as
   * they change, so that a call without updates costs the outbox nothing.
   */
  countKeptIn(outbox: KeptBytes): void {
    this.#keptIn = outbox;
  }

  /** `bytes` more (or fewer) are kept of `callId`. */
  #count(callId: string, bytes: number): void {
    this.#bytes.set(callId, (this.#bytes.get(callId) ?? 0) + bytes);
    if (this.#ended.has(callId)) this.#keptIn?.keep(bytes);
  }

  /** Puts a call's question to the service (one function for every call). */
  readonly ask = (request: QuestionRequest): Promise<QuestionReply> => {
    this.#keeps(request.callId);
    const questions = this.#questionsNow();
    if (questions !== undefined) return this.#put(questions, request);
    if (!this.#features.has('questions')) return Promise.reject(nobodyAnswers());
    const sessionsLost = this.#sessionsLost;
    return this.#loadQuestions().then(
      (loaded) => {
        // Put to the session the call came from, or to none: the service ignores it from another.
        if (this.#sessionsLost !== sessionsLost)
          throw (socketQuestionsCode.code as typeof SocketQuestionsCode).sessionLost();
        return this.#put(loaded, request);
      },
      (error: unknown) => {
        // The tool reads why nobody can answer, as for any other question that cannot be asked.
        throw new QuestionError('failed', (error as Error).message, { cause: error });
      },
    );
  };

  #put(questions: SocketQuestions, request: QuestionRequest): Promise<QuestionReply> {
    const asked = questions.ask(request);
    // Asking is a sign of life, as an update is.
    this.#lease.heard(request.callId, this.#now());
    return asked;
  }

  /**
   * Loads ./socket-questions.ts (one load at a time). A failed load is forgotten, so the next question tries again.
   *
   * @throws (rejects) ToolwireError `load_failed` (the import's error as `cause`).
   */
  #loadQuestions(): Promise<SocketQuestions> {
    return socketQuestionsCode.load().then(() => this.#questionsNow() as SocketQuestions);
  }

  /** The open questions of these calls, made at once when ./socket-questions.ts is loaded (always in Node). */
  #questionsNow(): SocketQuestions | undefined {
    const code = socketQuestionsCode.code;
    if (this.#questions !== undefined || code === undefined) return this.#questions;
    this.#questions = new code.SocketQuestions({
      send: this.#options.send,
      redactor: this.#options.redactor,
      maxPayloadBytes: this.#options.maxPayloadBytes,
      enabled: () => this.#features.has('questions'),
      ...(this.#options.asking === undefined ? {} : { asking: this.#options.asking }),
    });
    return this.#questions;
  }

  /** `answer` from the service: before the first question was put, there is none it could answer. */
  answer(frame: FrameOf<ServiceFrame, 'answer'>): void {
    this.#questions?.answer(frame);
  }

  /** What the service said in `welcome`: the features it took, and the lease's terms. */
  setWelcome(welcome: WelcomeTerms): void {
    this.#features = featuresOf(welcome.features);
    this.#graceMs = welcome.sessionGraceMs ?? PROTOCOL_DEFAULTS.sessionGraceMs;
    // The lease goes with its terms (docs/protocol/lease.md): a welcome that names the feature without `leaseMs` has
    // not given one, and calls keep their deadline (rather than a lease renewed every 100 ms for nothing).
    const { leaseMs } = welcome;
    this.#lease.setInterval(
      this.#features.has('lease') && leaseMs !== undefined
        ? Math.max(100, Math.floor(Math.min(leaseMs / 3, welcome.heartbeatIntervalMs)))
        : 0,
    );
  }

  /** `true` when calls started here are leased: the service does not cut them at their deadline. */
  get leased(): boolean {
    return this.#lease.leased;
  }

  /** `true` when the service takes content parts beside a result's output (the feature `content`). */
  get takesContent(): boolean {
    return this.#features.has('content');
  }

  /** `true` when the service takes a result's kind beside its output (the feature `result_parts`). */
  get takesResultParts(): boolean {
    return this.#features.has('result_parts');
  }

  /** How long the service keeps a dropped session, in milliseconds (from `welcome`). */
  get sessionGraceMs(): number {
    return this.#graceMs;
  }

  /** A call started running here: leased from now on. */
  started(call: LeasedCall): void {
    this.#lease.started(call);
  }

  /** A call has its result: no more lease for it. */
  ended(call: LeasedCall): void {
    this.#lease.ended(call);
  }

  /** The call keeps something here until its result is acknowledged: the call runner is to tell when. */
  #keeps(callId: string): void {
    const call = this.#options.calls.get(callId);
    if (call !== undefined) call.updated = true;
  }

  /** `true` when the service took `feature` on the current socket. */
  has(feature: Feature): boolean {
    return this.#features.has(feature);
  }

  /** `ctx.progress()` of a running call (one function for every call: it is `onProgress`). */
  readonly progress = (update: ProgressUpdate): void => {
    if (!this.#features.has('progress')) return;
    const slot = this.#slot(update.callId, 'tool_progress');
    const frame: FrameOf<ClientFrame, 'tool_progress'> = {
      type: 'tool_progress',
      callId: update.callId,
      seq: ++slot.seq,
      progress: update.progress,
    };
    if (update.total !== undefined) frame.total = update.total;
    if (update.message !== undefined)
      setProgressMessage(frame, this.#options.redactor.text(update.message), this.#options.maxPayloadBytes());
    this.#offer(slot, frame);
  };

  /** A preliminary result of a running call (one function for every call: it is `onPreliminary`). */
  readonly preliminary = (result: PreliminaryResult): void => {
    if (!this.#features.has('preliminary')) return;
    const slot = this.#slot(result.callId, 'tool_preliminary');
    const { redactor } = this.#options;
    const frame: FrameOf<ClientFrame, 'tool_preliminary'> = {
      type: 'tool_preliminary',
      callId: result.callId,
      seq: ++slot.seq,
      output: '',
    };
    // As for a result: redact, then cut to what the frame leaves room for; a widget that does not fit is dropped.
    // Room for the rest of the frame is kept as for a result's (`ENVELOPE_BYTES`, ./outbox.ts).
    const budget = Math.max(2, this.#options.maxPayloadBytes() - ENVELOPE_BYTES);
    frame.output = truncateJsonString(toWellFormed(redactOutput(redactor, result.output)), budget);
    // A long callId may leave less than the room kept for the rest of the frame: cut further then.
    fitTextField(frame, 'output', this.#options.maxPayloadBytes());
    if (result.widget !== undefined) {
      frame.widget = redactor.value(result.widget);
      const size = utf8Length(encodeFrame(frame));
      if (size > this.#options.maxPayloadBytes()) {
        delete frame.widget;
        this.#options.widgetInvalid?.({
          toolName: result.toolName,
          callId: result.callId,
          path: 'widget',
          message: `the preliminary result with its widget is ${size} bytes, over the service's limit of ${this.#options.maxPayloadBytes()}; the widget was dropped`,
        });
      }
    }
    // The latest preliminary result is kept until the result's ack: counted in place of the one before it.
    this.#count(
      result.callId,
      preliminaryBytes(frame) - (slot.latest === undefined ? 0 : preliminaryBytes(slot.latest)),
    );
    this.#offer(slot, frame);
  };

  /**
   * `ctx.emit()` of a running call (one function for every call: it is `onEmit`): sent at once, and kept until the
   * call's result is acked. Past {@link EVENT_LIMITS.maxPerCall} events in one call (which `ctx.emit()` refuses
   * first, src/call/context.ts `checkEventCount`), the rest are dropped.
   */
  readonly emit = (event: ToolEvent): void => {
    if (!this.#features.has('events')) return;
    let events = this.#events.get(event.callId);
    if (events === undefined) {
      events = [];
      this.#events.set(event.callId, events);
    }
    if (events.length >= EVENT_LIMITS.maxPerCall) return;
    this.#keeps(event.callId);
    // A progress or preliminary result still waiting goes first: the service reads them in the order the tool
    // reported them (docs/protocol/updates.md).
    const slots = this.#calls.get(event.callId);
    if (slots !== undefined) for (const slot of slots.values()) if (slot.waiting) this.#write(slot);
    const frame: FrameOf<ClientFrame, 'tool_event'> = {
      type: 'tool_event',
      callId: event.callId,
      seq: events.length + 1,
      event: event.event,
    };
    // Kept until the result's ack: counted at its data's JSON (data over its bound is kept as a few bytes) and more.
    let kept = KEPT_FRAME_BYTES;
    // Redacted, then bounded again (a replacement may be longer than what it replaced).
    if ('data' in event) {
      const json = JSON.stringify(this.#options.redactor.value(event.data));
      frame.data = boundedData(json);
      const bytes = utf8Length(json);
      if (bytes <= EVENT_LIMITS.maxDataBytes) kept += bytes;
      // Data the frame limit leaves no room for is recorded as data over its own bound is (docs/protocol/updates.md).
      const limit = this.#options.maxPayloadBytes();
      if (json.length * 3 + 2048 > limit && frameBytes(frame) > limit)
        frame.data = { truncated: true, bytes: utf8Length(json) };
    }
    events.push(frame);
    this.#count(event.callId, kept);
    const { pacing } = this.#options;
    if (this.#queueAt < this.#queue.length || (pacing !== undefined && !pacing.room(frame)))
      this.#enqueue(frame);
    else if (this.#options.send(frame)) this.#lease.heard(event.callId, this.#now());
  };

  /** The call's result is about to be written: its open questions are dropped, whatever update still waits goes first. */
  beforeResult(callId: string): void {
    if (!this.#ended.has(callId)) {
      this.#ended.add(callId);
      const bytes = this.#bytes.get(callId);
      if (bytes !== undefined) this.#keptIn?.keep(bytes);
    }
    this.#questions?.forget(callId);
    for (const slot of this.#calls.get(callId)?.values() ?? []) {
      if (slot.waiting) this.#write(slot);
    }
  }

  /** The call's result was acknowledged (or dropped): its updates are no longer needed. */
  forget(callId: string): void {
    this.#questions?.forget(callId);
    if (this.#ended.delete(callId)) {
      const bytes = this.#bytes.get(callId);
      if (bytes !== undefined) this.#keptIn?.keep(-bytes);
    }
    this.#bytes.delete(callId);
    this.#events.delete(callId);
    this.#steps.forget(callId);
    const slots = this.#calls.get(callId);
    if (slots === undefined) return;
    for (const slot of slots.values()) if (slot.timer !== undefined) clearTimeout(slot.timer);
    this.#calls.delete(callId);
  }

  /**
   * The frames of `callId` to write before its result (the outbox asks, ./outbox.ts): on a new socket (`all`)
   * its step results, every event and the latest update of each type, in that order; else the frames of the call
   * still waiting in the queue, which leave it.
   */
  lead(callId: string, all: boolean): readonly KeptFrame[] {
    if (all) return this.#kept(callId);
    // The usual case, a result with nothing queued before it: no array made for it.
    if (this.#queueAt >= this.#queue.length) return NOTHING_QUEUED;
    const mine: KeptFrame[] = [];
    const rest: KeptFrame[] = [];
    for (let i = this.#queueAt; i < this.#queue.length; i++) {
      const frame = this.#queue[i] as KeptFrame;
      (frame.callId === callId ? mine : rest).push(frame);
    }
    this.#queue = rest;
    this.#queueAt = 0;
    return mine;
  }

  /**
   * A socket (re)opened: every step result, event and latest update of the calls still running goes again (the
   * `seq` makes it harmless), queued behind the results, in turns the socket drains; those of calls with a result
   * go with it ({@link CallUpdates.lead}). Open questions go at once. A resumed session has every started call
   * renewed at once (docs/protocol/lease.md: a resume renews).
   */
  reconnected(resumed = true): void {
    if (!resumed) this.#sessionsLost += 1;
    else this.#lease.resumed();
    this.#questions?.reconnected(resumed);
    this.#queue = [];
    this.#queueAt = 0;
    const callIds = new Set([...this.#steps.callIds(), ...this.#events.keys(), ...this.#calls.keys()]);
    for (const callId of callIds) {
      if (this.#ended.has(callId)) continue;
      for (const frame of this.#kept(callId)) this.#queue.push(frame);
    }
    if (this.#options.pacing === undefined) this.#pump();
    else this.#schedule(0);
  }

  /** Stops every timer (the client closed). */
  dispose(): void {
    for (const callId of [...this.#calls.keys()]) this.forget(callId);
    if (this.#pumpTimer !== undefined) clearTimeout(this.#pumpTimer);
    this.#pumpTimer = undefined;
    this.#queue = [];
    this.#queueAt = 0;
    this.#lease.dispose();
  }

  /** What is kept of `callId` to send again on a new socket, for the features the service took. */
  #kept(callId: string): KeptFrame[] {
    const kept: KeptFrame[] = [...this.#steps.of(callId)];
    if (this.#features.has('events')) for (const frame of this.#events.get(callId) ?? []) kept.push(frame);
    for (const slot of this.#calls.get(callId)?.values() ?? []) {
      const latest = slot.latest;
      if (latest !== undefined && this.#features.has(FEATURE_OF[latest.type])) kept.push(latest);
    }
    return kept;
  }

  #enqueue(frame: KeptFrame): void {
    this.#queue.push(frame);
    this.#schedule(PACING_RETRY_MS);
  }

  #schedule(ms: number): void {
    this.#pumpTimer ??= setTimeout(() => {
      this.#pumpTimer = undefined;
      this.#pump();
    }, ms);
  }

  /** Writes queued frames while the socket has room and no result waits; looks again later if some remain. */
  #pump(): void {
    const { pacing } = this.#options;
    while (this.#queueAt < this.#queue.length) {
      if (pacing !== undefined) {
        // A socket that is down gets the whole queue again when the next one opens (see reconnected).
        if (!pacing.writable) return;
        if (pacing.resultsWaiting() || !pacing.room(this.#queue[this.#queueAt] as KeptFrame)) {
          this.#schedule(PACING_RETRY_MS);
          return;
        }
      }
      const frame = this.#queue[this.#queueAt] as KeptFrame;
      this.#queueAt += 1;
      if (this.#options.send(frame)) this.#lease.heard(frame.callId, this.#now());
    }
    this.#queue = [];
    this.#queueAt = 0;
  }

  #slot(callId: string, kind: SnapshotKind): Slot {
    let slots = this.#calls.get(callId);
    if (slots === undefined) {
      slots = new Map();
      this.#calls.set(callId, slots);
    }
    let slot = slots.get(kind);
    if (slot === undefined) {
      this.#keeps(callId);
      slot = {
        seq: 0,
        latest: undefined,
        waiting: false,
        writtenAt: Number.NEGATIVE_INFINITY,
        timer: undefined,
      };
      slots.set(kind, slot);
    }
    return slot;
  }

  /** Writes now if the interval since the last write has passed, else keeps it for when it has. */
  #offer(slot: Slot, frame: SnapshotFrame): void {
    slot.latest = frame;
    const wait = slot.writtenAt + PROGRESS_INTERVAL_MS - this.#now();
    if (wait <= 0) {
      this.#write(slot);
      return;
    }
    slot.waiting = true;
    slot.timer ??= setTimeout(() => {
      slot.timer = undefined;
      if (slot.waiting) this.#write(slot);
    }, wait);
  }

  #write(slot: Slot): void {
    if (slot.timer !== undefined) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.waiting = false;
    slot.writtenAt = this.#now();
    const latest = slot.latest;
    if (latest === undefined || !this.#options.send(latest)) return;
    // An update renews the call's lease as a `lease` frame would.
    this.#lease.heard(latest.callId, slot.writtenAt);
  }
}
