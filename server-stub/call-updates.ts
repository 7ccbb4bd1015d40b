/**
 * The updates a client sends about a call it runs (docs/protocol/updates.md): used when the call is assigned to the
 * sending session, not done, and the update is newer than the last of its kind; otherwise ignored, but for a call
 * that ended or is another session's, which the sender is told to stop (`cancel { reason: 'not_dispatched' }`,
 * docs/protocol/calls-no-longer-held.md). Each one used becomes a run event and the latest is kept in the call's transcript
 * entry.
 *
 * @module
 */
import { type ClientFrame, EVENT_LIMITS, type FrameOf, STEP_LIMITS, utf8Length } from '../src/wire/protocol';
import type { Call } from './call';
import type { UpdateKind } from './call-activity';
import type { Dispatcher } from './dispatcher';
import { fitsFrame } from './fit-frame';
import type { ResolvedStubOptions } from './options';
import type { Run } from './run';
import type { Session } from './session';
import type { RunEventKind } from './transcript';

/** What the updates need from the service. */
export interface CallUpdatesDeps {
  options: Pick<ResolvedStubOptions, 'leaseMs' | 'maxPayloadBytes'>;
  dispatcher: Dispatcher;
  emit(run: Run, kind: RunEventKind, data: unknown): void;
}

/** Call updates of one stub server. */
export class CallUpdates {
  readonly #deps: CallUpdatesDeps;

  constructor(deps: CallUpdatesDeps) {
    this.#deps = deps;
  }

  /** `tool_progress`: the call's latest progress, and a `tool_progress` run event. */
  progress(session: Session, frame: FrameOf<ClientFrame, 'tool_progress'>): void {
    const call = this.#accepted(session, frame.callId, 'progress', frame.seq);
    if (!call) return;
    const { progress, total, message } = frame;
    call.activity.progress = {
      progress,
      ...(total === undefined ? {} : { total }),
      ...(message === undefined ? {} : { message }),
      at: new Date().toISOString(),
    };
    this.#deps.emit(call.run, 'tool_progress', {
      callId: call.callId,
      toolName: call.toolName,
      progress,
      ...(total === undefined ? {} : { total }),
      ...(message === undefined ? {} : { message }),
    });
  }

  /** `tool_preliminary`: the call's latest preliminary result, and a `tool_preliminary` run event. */
  preliminary(session: Session, frame: FrameOf<ClientFrame, 'tool_preliminary'>): void {
    const call = this.#accepted(session, frame.callId, 'preliminary', frame.seq);
    if (!call) return;
    const { output, widget } = frame;
    call.activity.preliminary = {
      output,
      ...(widget === undefined ? {} : { widget }),
      count: (call.activity.preliminary?.count ?? 0) + 1,
      at: new Date().toISOString(),
    };
    this.#deps.emit(call.run, 'tool_preliminary', {
      callId: call.callId,
      toolName: call.toolName,
      output,
      ...(widget === undefined ? {} : { widget }),
    });
  }

  /**
   * `tool_event`: recorded in the run (a `tool_event` run event), each `seq` once, at most
   * `EVENT_LIMITS.maxPerCall` per call (a flood would push the run's other events out of its transcript);
   * over-large data is replaced.
   */
  event(session: Session, frame: FrameOf<ClientFrame, 'tool_event'>): void {
    const call = this.#accepted(session, frame.callId, 'event', frame.seq);
    if (!call || call.activity.events >= EVENT_LIMITS.maxPerCall) return;
    call.activity.events += 1;
    let data = frame.data;
    if (data !== undefined) {
      const bytes = utf8Length(JSON.stringify(data));
      if (bytes > EVENT_LIMITS.maxDataBytes) data = { truncated: true, bytes };
    }
    this.#deps.emit(call.run, 'tool_event', {
      callId: call.callId,
      toolName: call.toolName,
      event: frame.event,
      ...(data === undefined ? {} : { data }),
    });
  }

  /**
   * `step_result`: the call's step `key` completed; the first result of each key is kept with the call (at most
   * {@link STEP_LIMITS.maxPerCall} keys, each at most {@link STEP_LIMITS.maxResultBytes} bytes of JSON; others are
   * ignored) and sent with the call when it is dispatched again (docs/protocol/steps.md).
   */
  step(session: Session, frame: FrameOf<ClientFrame, 'step_result'>): void {
    const call = this.#running(session, frame.callId);
    const steps = call?.activity.steps;
    if (steps === undefined || steps.has(frame.key) || steps.size >= STEP_LIMITS.maxPerCall) return;
    if (utf8Length(JSON.stringify(frame.result ?? null)) > STEP_LIMITS.maxResultBytes) return;
    steps.set(frame.key, frame.result ?? null);
    // The steps ride on the call's `tool_call` when it is dispatched again: one that would take it over the frame
    // limit is not kept (the step runs again there).
    if (call !== undefined && !fitsFrame(call.widestFrame(), this.#deps.options.maxPayloadBytes))
      steps.delete(frame.key);
  }

  /**
   * `lease`: the named calls still run in `session`; each lease is renewed (docs/protocol/lease.md). A named call
   * that is not dispatched to `session` may get `cancel { reason: 'not_dispatched' }`, once per frame.
   */
  lease(session: Session, frame: FrameOf<ClientFrame, 'lease'>): void {
    const { dispatcher } = this.#deps;
    const strays: string[] = [];
    for (const callId of frame.callIds) if (!this.#running(session, callId, false)) strays.push(callId);
    if (strays.length > 0) dispatcher.notDispatched(session, strays);
  }

  /**
   * The call, when `callId` is dispatched to `session` (its lease renewed, with the feature `lease`: any update
   * is a sign of life, a repeated one too). Else `undefined`, and (unless `tell` is `false`) the session may be
   * told the call is not its own (server-stub/dispatcher.ts `notDispatched`).
   */
  #running(session: Session, callId: string, tell = true): Call | undefined {
    const call = this.#deps.dispatcher.get(callId);
    if (call?.state !== 'dispatched' || call.sessionId !== session.id) {
      if (tell) this.#deps.dispatcher.notDispatched(session, [callId]);
      return undefined;
    }
    // A call waiting for its key's turn is not leased until the client says it runs (docs/protocol/fleets.md).
    if (session.features.has('lease') && !call.activity.waitsForKey)
      call.activity.leaseUntil = Date.now() + this.#deps.options.leaseMs;
    return call;
  }

  /** The call, when an update of `kind` numbered `seq` from `session` is to be used (docs/protocol/updates.md). */
  #accepted(session: Session, callId: string, kind: UpdateKind, seq: number): Call | undefined {
    const call = this.#running(session, callId);
    return call?.activity.accept(kind, session.id, seq) ? call : undefined;
  }
}
