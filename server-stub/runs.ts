/**
 * Runs of one stub server: start (from a socket, HTTP or code) and the rules on who may start or cancel what
 * (nesting depth, runs per session, ownership, a repeated `run_start`), events, cancellation, the end of a run
 * and its `run_result`.
 *
 * @module
 */

import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'eventemitter3';
import {
  type AgentDefinition,
  type ClientFrame,
  type FrameOf,
  NEGOTIATED_RUN_EVENT_KINDS,
  RUN_EVENT_FEATURES,
  type ServiceFrame,
  type ToolChoice,
  type ToolDefinition,
} from '../src/wire/protocol';
import type { Dispatcher } from './dispatcher';
import type { StubEvents } from './events';
import { fitRunResult } from './fit-frame';
import type { ResolvedStubOptions } from './options';
import { Run, type RunEnd } from './run';
import type { Session } from './session';
import type { RunEventKind, RunOrigin, RunSummary, RunTranscript } from './transcript';
import { driveRun } from './turn-loop';

/** Event kinds a person decides on: shown on every ancestor run too, where the UI may be following. */
const SURFACES_ON_ANCESTORS = new Set<RunEventKind>([
  'approval_requested',
  'approval_decided',
  'question_asked',
  'question_answered',
]);

/** A request to start a run. */
export interface StartRunRequest {
  agent: AgentDefinition;
  input: string;
  maxTurns?: number;
  startedBy: RunOrigin;
  /** The session that sent `run_start`: it receives `run_event` and `run_result`, and runs the run's calls. */
  owner?: Session;
  /** The tenant starting it (server-stub/tenants.ts): a nested run must be in its parent's tenant. */
  tenant: string | undefined;
  /** The key an HTTP request or the library started it with (kept, never shown: {@link Run.apiKey}). */
  apiKey?: string | undefined;
  requestId?: string;
  parentRunId?: string;
  parentCallId?: string;
  /** The end user the run acts for; a nested run takes its parent's. */
  userId?: string | undefined;
  /** `run_start.toolChoice` (feature `run_options`). */
  toolChoice?: ToolChoice | undefined;
  /** `run_start.metadata` (feature `run_options`). */
  metadata?: Record<string, unknown> | undefined;
}

/** Why a run could not be started or cancelled. */
export interface RunRefusal {
  code: 'unknown_run' | 'not_allowed' | 'busy';
  message: string;
}

/** What the run manager needs from the service. */
export interface RunManagerDeps {
  options: ResolvedStubOptions;
  sessions: ReadonlyMap<string, Session>;
  dispatcher: Dispatcher;
  events: EventEmitter<StubEvents>;
  toolsFor(run: Run): ToolDefinition[];
  /** The definition that holds a call of `toolName` for a person, given the one shown (server-stub/definitions.ts). */
  gateFor(run: Run, toolName: string, shown: ToolDefinition | undefined): ToolDefinition | undefined;
  /** The build the operator set as current, for runs no client started (docs/protocol/builds.md). */
  currentBuild?(tenant: string | undefined): string | undefined;
}

/** Every run of one stub server, kept in memory for the server's lifetime. */
export class RunManager {
  readonly #deps: RunManagerDeps;
  readonly #runs = new Map<string, Run>();
  /** Runs started over a socket, by session id and `run_start.requestId`. */
  readonly #byRequest = new Map<string, Run>();

  constructor(deps: RunManagerDeps) {
    this.#deps = deps;
  }

  /** The run with this id. */
  get(runId: string): Run | undefined {
    return this.#runs.get(runId);
  }

  /** Summaries of every run, newest first; with `tenant`, only that tenant's (server-stub/tenants.ts). */
  list(tenant?: { tenant: string | undefined }): RunSummary[] {
    const runs = [...this.#runs.values()].reverse();
    const seen = tenant === undefined ? runs : runs.filter((run) => run.tenant === tenant.tenant);
    return seen.map((run) => run.summary());
  }

  /**
   * Starts a run and its turn loop. For a socket, the caller sends `run_started` before the loop emits anything
   * (the loop starts on the next tick).
   */
  start(request: StartRunRequest): Run | RunRefusal {
    const { options } = this.#deps;
    let depth = 0;
    // A nested run continues the trace of the run it is nested in (docs/protocol/trace-context.md).
    let traceId: string | undefined;
    let userId = request.userId;
    if (request.parentRunId !== undefined) {
      const parent = this.#runs.get(request.parentRunId);
      if (!parent || parent.tenant !== request.tenant)
        return { code: 'unknown_run', message: `no run ${JSON.stringify(request.parentRunId)}` };
      if (parent.status !== 'running') {
        return { code: 'not_allowed', message: `parent run ${parent.id} is ${parent.status}` };
      }
      depth = parent.depth + 1;
      traceId = parent.traceId;
      // The end user of a nested run is the one its parent acts for, whatever the nested run_start says.
      userId = parent.userId;
      if (depth > options.maxRunDepth) {
        return {
          code: 'not_allowed',
          message: `run nesting depth ${depth} exceeds the limit of ${options.maxRunDepth} (maxRunDepth)`,
        };
      }
    }
    const owner = request.owner;
    if (owner && owner.runsInProgress >= options.maxRunsPerSession) {
      return {
        code: 'busy',
        message: `this session already has ${owner.runsInProgress} runs in progress (maxRunsPerSession)`,
      };
    }
    const run = new Run({
      id: `run_${randomUUID()}`,
      agent: request.agent,
      input: request.input,
      maxTurns: request.maxTurns ?? options.maxTurns,
      depth,
      traceId,
      startedBy: request.startedBy,
      ...(owner ? { ownerSessionId: owner.id } : {}),
      tenant: request.tenant,
      apiKey: request.apiKey,
      ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
      ...(request.parentRunId === undefined ? {} : { parentRunId: request.parentRunId }),
      ...(request.parentCallId === undefined ? {} : { parentCallId: request.parentCallId }),
      ...(userId === undefined ? {} : { userId }),
      toolChoice: request.toolChoice,
      metadata: request.metadata,
    });
    // Pinned to a build (docs/protocol/builds.md): a nested run to its parent's, a client's run to the client's,
    // any other to the current build when the operator set one (else to the first build that takes a call).
    const parentBuild =
      request.parentRunId === undefined ? undefined : this.#runs.get(request.parentRunId)?.buildId;
    run.buildId = parentBuild ?? (owner ? owner.buildId : this.#deps.currentBuild?.(run.tenant));
    this.#runs.set(run.id, run);
    if (owner && request.requestId !== undefined)
      this.#byRequest.set(requestKey(owner.id, request.requestId), run);
    if (owner) owner.runsInProgress += 1;
    // The call that started it waits, parked, holding no slot in its client: calls waiting for room may go there.
    const parentCall =
      request.parentCallId === undefined ? undefined : this.#deps.dispatcher.get(request.parentCallId);
    if (parentCall !== undefined) {
      parentCall.activity.nestedRuns += 1;
      this.#deps.dispatcher.retryWaiting();
    }
    this.#deps.events.emit('run_started', {
      runId: run.id,
      agent: run.agent.name,
      depth,
      ...(run.parentRunId === undefined ? {} : { parentRunId: run.parentRunId }),
    });
    setImmediate(() => {
      void driveRun(run, {
        model: options.model,
        dispatcher: this.#deps.dispatcher,
        toolsFor: this.#deps.toolsFor,
        gateFor: this.#deps.gateFor,
        emit: (r, kind, data) => this.emit(r, kind, data),
        retried: (r, info) => {
          const failed = info.status === undefined ? 'failed' : `failed with HTTP ${info.status}`;
          this.#deps.options.logger.warn(
            { runId: r.id, ...info },
            `model request for turn ${info.turn} of run ${r.id} ${failed}; sending it again (attempt ${info.attempt})`,
          );
          this.#deps.events.emit('model_retry', { runId: r.id, ...info });
        },
        end: (r, end) => this.end(r, end),
        newCallId: () => `call_${randomUUID()}`,
      });
    });
    return run;
  }

  /**
   * Records a run event and sends it as `run_event` to the client that started the run. A negotiated kind goes
   * only to a client that listed it in `hello.runEventKinds` or negotiated its feature (older clients refuse
   * kinds they do not know); `text_delta` is not recorded (nor numbered: the transcript keeps the message).
   */
  emit(run: Run, kind: RunEventKind, data: unknown): void {
    const recorded = kind !== 'text_delta';
    if (recorded) run.record(kind, data);
    const owner = run.ownerSessionId === undefined ? undefined : this.#deps.sessions.get(run.ownerSessionId);
    const feature = RUN_EVENT_FEATURES[kind];
    const accepted =
      !NEGOTIATED.has(kind) ||
      owner?.runEventKinds.has(kind) === true ||
      (feature !== undefined && owner?.features.has(feature) === true);
    if (accepted && owner !== undefined) {
      // Cut to the frame limit by the session when it would be over it (server-stub/fit-frame.ts `fitRunEvent`).
      owner.send({
        type: 'run_event',
        runId: run.id,
        ...(recorded ? { seq: run.eventCount } : {}),
        event: { kind, data },
      });
    }
    this.#deps.events.emit('run_event', { runId: run.id, kind, data });
    // A human deciding for a nested run looks at the outer run: approvals and questions surface on every ancestor,
    // with `runId` naming the run the call belongs to (where the decision is posted).
    if (SURFACES_ON_ANCESTORS.has(kind) && run.parentRunId !== undefined) {
      const parent = this.#runs.get(run.parentRunId);
      const origin = (data as { runId?: string }).runId ?? run.id;
      if (parent) this.emit(parent, kind, { ...(data as object), runId: origin });
    }
  }

  /**
   * `run_start` from a client: starts the run, owned by that session, and answers `run_started`. The same
   * `requestId` again (a client sends `run_start` again after a reconnect when its `run_started` did not arrive)
   * gets the same run, never a second one, with its `run_result` when it has ended.
   *
   * @returns `undefined` when answered, else why the run was not started.
   */
  startFor(session: Session, frame: FrameOf<ClientFrame, 'run_start'>): RunRefusal | undefined {
    const existing = this.#byRequest.get(requestKey(session.id, frame.requestId));
    if (existing) {
      session.send({ type: 'run_started', requestId: frame.requestId, runId: existing.id });
      if (existing.status !== 'running') session.send(this.resultFrame(existing, session));
      return undefined;
    }
    const started = this.start({
      agent: frame.agent,
      input: frame.input,
      startedBy: 'socket',
      owner: session,
      tenant: session.tenant,
      requestId: frame.requestId,
      ...(frame.maxTurns === undefined ? {} : { maxTurns: frame.maxTurns }),
      ...(frame.parentRunId === undefined ? {} : { parentRunId: frame.parentRunId }),
      ...(frame.parentCallId === undefined ? {} : { parentCallId: frame.parentCallId }),
      ...(frame.userId === undefined ? {} : { userId: frame.userId }),
      toolChoice: frame.toolChoice,
      metadata: frame.metadata,
    });
    if ('code' in started) return started;
    session.send({ type: 'run_started', requestId: frame.requestId, runId: started.id });
    return undefined;
  }

  /** `run_cancel` from a client: only the session that started a run may cancel it. */
  cancelFor(session: Session, runId: string, reason: string | undefined): RunRefusal | undefined {
    const run = this.#runs.get(runId);
    if (run && run.tenant !== session.tenant)
      return { code: 'unknown_run', message: `no run ${JSON.stringify(runId)}` };
    if (run && run.ownerSessionId !== session.id) {
      return { code: 'not_allowed', message: `run ${runId} was not started by this session` };
    }
    return this.cancel(runId, reason);
  }

  /**
   * Cancels a running run: its calls in flight get `cancel { reason: 'run_cancelled' }`, its nested runs are
   * cancelled, and the client that started it gets `run_result { status: 'cancelled' }`.
   */
  cancel(runId: string, reason: string | undefined): RunRefusal | undefined {
    const run = this.#runs.get(runId);
    if (!run) return { code: 'unknown_run', message: `no run ${JSON.stringify(runId)}` };
    if (run.status !== 'running')
      return { code: 'not_allowed', message: `run ${runId} is already ${run.status}` };
    this.end(run, { status: 'cancelled', cause: 'requested', reason });
    return undefined;
  }

  /**
   * Ends a run once: calls not done are cancelled (`cancel` reason `service` at shutdown, else `run_cancelled`),
   * nested runs too (for the same cause at shutdown, else because their parent ended), and `run_result` goes
   * to its client.
   */
  end(run: Run, end: RunEnd): void {
    if (run.status !== 'running') return;
    const shutdown = end.status === 'cancelled' && end.cause === 'shutdown';
    this.#deps.dispatcher.cancelCalls(run, shutdown ? 'service' : 'run_cancelled');
    if (end.status === 'completed') run.end(end.status, { finalOutput: end.finalOutput });
    else if (end.status === 'failed') run.end(end.status, { error: end.error, code: end.code });
    else run.end(end.status, { error: this.#cancelText(run, end) });
    const parentCall =
      run.parentCallId === undefined ? undefined : this.#deps.dispatcher.get(run.parentCallId);
    if (parentCall !== undefined)
      parentCall.activity.nestedRuns = Math.max(0, parentCall.activity.nestedRuns - 1);
    const owner = run.ownerSessionId === undefined ? undefined : this.#deps.sessions.get(run.ownerSessionId);
    if (owner) {
      owner.runsInProgress = Math.max(0, owner.runsInProgress - 1);
      owner.send(this.resultFrame(run, owner));
    }
    this.#deps.options.logger.debug({ runId: run.id, status: run.status }, 'run ended');
    this.#deps.events.emit('run_finished', run.transcript());
    for (const child of this.#runs.values()) {
      if (child.parentRunId === run.id && child.status === 'running') {
        this.end(child, { status: 'cancelled', cause: shutdown ? 'shutdown' : 'parent_ended' });
      }
    }
  }

  /** The `error` of a cancelled run: what cancelled it. */
  #cancelText(run: Run, end: Extract<RunEnd, { status: 'cancelled' }>): string {
    switch (end.cause) {
      case 'requested':
        return `the run was cancelled${end.reason ? `: ${end.reason}` : ''}`;
      case 'parent_ended': {
        const parent = run.parentRunId === undefined ? undefined : this.#runs.get(run.parentRunId);
        return `the run was cancelled: its parent run ${run.parentRunId} is ${parent?.status}`;
      }
      case 'owner_expired':
        return 'the run was cancelled: the session that started it expired';
      case 'tenant_closed':
        return 'the run was cancelled: no API key of its tenant is accepted any more';
      case 'shutdown':
        return 'the run was cancelled: the service shut down';
    }
  }

  /** The `run_result` frame of a run that has ended, for `session` (its `code` only with the feature `run_codes`). */
  resultFrame(run: Run, session: Session): FrameOf<ServiceFrame, 'run_result'> {
    return fitRunResult(this.#fullResultFrame(run, session), this.#deps.options.maxPayloadBytes);
  }

  #fullResultFrame(run: Run, session: Session): FrameOf<ServiceFrame, 'run_result'> {
    const code = session.features.has('run_codes') ? run.errorCode : undefined;
    return {
      type: 'run_result',
      runId: run.id,
      // Called once the run has ended; 'running' cannot occur.
      status: run.status === 'running' ? 'cancelled' : run.status,
      ...(run.finalOutput === undefined ? {} : { finalOutput: run.finalOutput }),
      ...(run.error === undefined ? {} : { error: run.error }),
      ...(code === undefined ? {} : { code }),
      toolCalls: run.resultToolCalls(session.features.has('result_parts')),
      turns: run.turns,
      ...(this.#deps.options.model.info === undefined
        ? {}
        : { model: this.#deps.options.model.info.model ?? this.#deps.options.model.info.kind }),
    };
  }

  /** The session that started these runs is gone for good: nobody can receive their results. */
  onSessionExpired(session: Session): void {
    for (const run of this.#runs.values()) {
      if (run.ownerSessionId === session.id && run.status === 'running') {
        this.end(run, { status: 'cancelled', cause: 'owner_expired' });
      }
    }
  }

  /** The runs of `from` are `into`'s from now on: `from` merged into it (server-stub/fleet.ts `KeyRing`). */
  mergeTenant(from: string | undefined, into: string | undefined): void {
    for (const run of this.#runs.values()) if (run.tenant === from) run.tenant = into;
  }

  /** The keys runs were started with over HTTP or from the library ({@link Run.apiKey}), oldest run first. */
  startedWith(): string[] {
    return [...this.#runs.values()].flatMap((run) => run.apiKey ?? []);
  }

  /** No key of `tenant` is accepted any more: its runs still in progress are cancelled. How many were. */
  closeTenant(tenant: string | undefined): number {
    let cancelled = 0;
    for (const run of this.#runs.values()) {
      if (run.tenant !== tenant || run.status !== 'running') continue;
      this.end(run, { status: 'cancelled', cause: 'tenant_closed' });
      cancelled += 1;
    }
    return cancelled;
  }

  /** Cancels every run still in progress (server shutdown). */
  shutdown(): void {
    for (const run of this.#runs.values()) {
      if (run.status === 'running') this.end(run, { status: 'cancelled', cause: 'shutdown' });
    }
  }

  /** Resolves with the transcript once the run has ended. */
  async waitFor(runId: string): Promise<RunTranscript> {
    const run = this.#runs.get(runId);
    if (!run) throw new Error(`no run ${JSON.stringify(runId)}`);
    return run.ended;
  }
}

const NEGOTIATED: ReadonlySet<string> = new Set(NEGOTIATED_RUN_EVENT_KINDS);

function requestKey(sessionId: string, requestId: string): string {
  return `${sessionId}\u0000${requestId}`;
}
