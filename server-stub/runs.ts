/**
 * Runs of one stub server: start (from a socket, HTTP or code), events, cancellation, the end of a run and its
 * `run_result`.
 *
 * @module
 */

import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'eventemitter3';
import {
  type AgentDefinition,
  type FrameOf,
  NEGOTIATED_RUN_EVENT_KINDS,
  type ServiceFrame,
  type ToolDefinition,
} from '../src/wire/protocol';
import type { Dispatcher } from './dispatcher';
import type { StubEvents } from './events';
import { fitRunResult } from './fit-frame';
import type { ResolvedStubOptions } from './options';
import {
  Run,
  type RunEventKind,
  type RunOrigin,
  type RunStatus,
  type RunSummary,
  type RunTranscript,
} from './run';
import type { Session } from './session';
import { driveRun } from './turn-loop';

/** A request to start a run. */
export interface StartRunRequest {
  agent: AgentDefinition;
  input: string;
  maxTurns?: number;
  startedBy: RunOrigin;
  /** The session that sent `run_start`: it receives `run_event` and `run_result`, and runs the run's calls. */
  owner?: Session;
  requestId?: string;
  parentRunId?: string;
  parentCallId?: string;
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

  /**
   * The run this session already started for `requestId`: a client sends `run_start` again after a reconnect
   * when its `run_started` did not arrive, and must get the same run, not a second one.
   */
  byRequest(session: Session, requestId: string): Run | undefined {
    return this.#byRequest.get(requestKey(session.id, requestId));
  }

  /** Summaries of every run, newest first. */
  list(): RunSummary[] {
    return [...this.#runs.values()].reverse().map((run) => run.summary());
  }

  /**
   * Starts a run and its turn loop. For a socket, the caller sends `run_started` before the loop emits anything
   * (the loop starts on the next tick).
   */
  start(request: StartRunRequest): Run | RunRefusal {
    const { options } = this.#deps;
    let depth = 0;
    if (request.parentRunId !== undefined) {
      const parent = this.#runs.get(request.parentRunId);
      if (!parent) return { code: 'unknown_run', message: `no run ${JSON.stringify(request.parentRunId)}` };
      if (parent.status !== 'running') {
        return { code: 'not_allowed', message: `parent run ${parent.id} is ${parent.status}` };
      }
      depth = parent.depth + 1;
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
      startedBy: request.startedBy,
      ...(owner ? { ownerSessionId: owner.id } : {}),
      ...(request.requestId === undefined ? {} : { requestId: request.requestId }),
      ...(request.parentRunId === undefined ? {} : { parentRunId: request.parentRunId }),
      ...(request.parentCallId === undefined ? {} : { parentCallId: request.parentCallId }),
    });
    this.#runs.set(run.id, run);
    if (owner && request.requestId !== undefined)
      this.#byRequest.set(requestKey(owner.id, request.requestId), run);
    if (owner) owner.runsInProgress += 1;
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
        emit: (r, kind, data) => this.emit(r, kind, data),
        end: (r, status, outcome) => this.end(r, status, outcome),
        newCallId: () => `call_${randomUUID()}`,
      });
    });
    return run;
  }

  /**
   * Records a run event and sends it as `run_event` to the client that started the run. A negotiated kind
   * (`text_delta`) goes only to a client that listed it in `hello.runEventKinds`, and is not recorded.
   */
  emit(run: Run, kind: RunEventKind, data: unknown): void {
    const negotiated = NEGOTIATED.has(kind);
    if (!negotiated) run.record(kind, data);
    const owner = run.ownerSessionId === undefined ? undefined : this.#deps.sessions.get(run.ownerSessionId);
    if (!negotiated || owner?.runEventKinds.has(kind)) {
      owner?.send({ type: 'run_event', runId: run.id, event: { kind, data } });
    }
    this.#deps.events.emit('run_event', { runId: run.id, kind, data });
    // A human deciding for a nested run looks at the outer run: approvals surface on every ancestor too,
    // with `runId` naming the run the call belongs to (where the decision is posted).
    if ((kind === 'approval_requested' || kind === 'approval_decided') && run.parentRunId !== undefined) {
      const parent = this.#runs.get(run.parentRunId);
      const origin = (data as { runId?: string }).runId ?? run.id;
      if (parent) this.emit(parent, kind, { ...(data as object), runId: origin });
    }
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
    this.end(run, 'cancelled', { error: `the run was cancelled${reason ? `: ${reason}` : ''}` });
    return undefined;
  }

  /** Ends a run once: pending calls are cancelled, nested runs too, and `run_result` goes to its client. */
  end(
    run: Run,
    status: Exclude<RunStatus, 'running'>,
    outcome: { finalOutput?: unknown; error?: string },
  ): void {
    if (run.status !== 'running') return;
    const shutdown = outcome.error === SHUTDOWN_MESSAGE;
    for (const call of run.calls) {
      if (call.state !== 'done') {
        this.#deps.dispatcher.cancel(call, shutdown ? 'service' : 'run_cancelled');
      }
    }
    run.end(status, outcome);
    const owner = run.ownerSessionId === undefined ? undefined : this.#deps.sessions.get(run.ownerSessionId);
    if (owner) {
      owner.runsInProgress = Math.max(0, owner.runsInProgress - 1);
      owner.send(this.resultFrame(run));
    }
    this.#deps.options.logger.debug({ runId: run.id, status }, 'run ended');
    this.#deps.events.emit('run_finished', run.transcript());
    for (const child of this.#runs.values()) {
      if (child.parentRunId === run.id && child.status === 'running') {
        this.end(child, 'cancelled', {
          error: shutdown ? SHUTDOWN_MESSAGE : `the run was cancelled: its parent run ${run.id} is ${status}`,
        });
      }
    }
  }

  /** The `run_result` frame of a run that has ended. */
  resultFrame(run: Run): FrameOf<ServiceFrame, 'run_result'> {
    return fitRunResult(this.#fullResultFrame(run), this.#deps.options.maxPayloadBytes);
  }

  #fullResultFrame(run: Run): FrameOf<ServiceFrame, 'run_result'> {
    return {
      type: 'run_result',
      runId: run.id,
      // Called once the run has ended; 'running' cannot occur.
      status: run.status === 'running' ? 'cancelled' : run.status,
      ...(run.finalOutput === undefined ? {} : { finalOutput: run.finalOutput }),
      ...(run.error === undefined ? {} : { error: run.error }),
      toolCalls: run.resultToolCalls(),
      turns: run.turns,
      ...(this.#deps.options.model.info === undefined ? {} : { model: this.#deps.options.model.info.kind }),
    };
  }

  /** The session that started these runs is gone for good: nobody can receive their results. */
  onSessionExpired(session: Session): void {
    for (const run of this.#runs.values()) {
      if (run.ownerSessionId === session.id && run.status === 'running') {
        this.end(run, 'cancelled', { error: 'the run was cancelled: the session that started it expired' });
      }
    }
  }

  /** Cancels every run still in progress (server shutdown). */
  shutdown(): void {
    for (const run of this.#runs.values()) {
      if (run.status === 'running') this.end(run, 'cancelled', { error: SHUTDOWN_MESSAGE });
    }
  }

  /** Resolves with the transcript once the run has ended. */
  async waitFor(runId: string): Promise<RunTranscript> {
    const run = this.#runs.get(runId);
    if (!run) throw new Error(`no run ${JSON.stringify(runId)}`);
    return run.ended;
  }
}

const SHUTDOWN_MESSAGE = 'the run was cancelled: the service shut down';

const NEGOTIATED: ReadonlySet<string> = new Set(NEGOTIATED_RUN_EVENT_KINDS);

function requestKey(sessionId: string, requestId: string): string {
  return `${sessionId}\u0000${requestId}`;
}
