/**
 * The stub's state and the operations both transports (WebSocket and HTTP) use: sessions (open, resume,
 * detach, expire), tools, and the dispatcher, approvals and runs wired together.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'eventemitter3';
import type { WebSocket } from 'ws';
import {
  CLOSE_CODES,
  type ClientFrame,
  type FrameOf,
  featuresOf,
  type ToolDefinition,
} from '../src/wire/protocol';
import { Approvals } from './approvals';
import { CallUpdates } from './call-updates';
import { closeSocket } from './close-socket';
import { gateOf, ToolDefinitions } from './definitions';
import { Dispatcher } from './dispatcher';
import type { StubEvents } from './events';
import { type ApiKeyEntry, FleetLimiter, fleetConflict, fleetConflicts, KeyRing, type Tenant } from './fleet';
import type { ResolvedStubOptions } from './options';
import { Questions } from './questions';
import { sessionsSeen } from './routing';
import type { Run } from './run';
import { RunManager } from './runs';
import { Session, SLOW_READER_CLOSE_CODE } from './session';
import { tenantIdOf } from './tenants';
import type { RunEventKind } from './transcript';

/** Public view of a session, for `server.sessions()`. */
export interface SessionInfo {
  sessionId: string;
  state: 'connected' | 'detached';
  tools: string[];
  /** Calls sent to the session whose result is pending. */
  inFlight: number;
  localApprovals: boolean;
  /** `hello.buildId`, when the client sent one. */
  buildId?: string;
}

/** Everything one stub server holds. */
export class StubService {
  readonly options: ResolvedStubOptions;
  readonly events = new EventEmitter<StubEvents>();
  readonly sessions = new Map<string, Session>();
  readonly dispatcher: Dispatcher;
  readonly approvals: Approvals;
  readonly runs: RunManager;
  readonly updates: CallUpdates;
  readonly questions: Questions;
  /** The keys accepted now and their tenants (server-stub/fleet.ts). */
  readonly keys: KeyRing;
  readonly fleet = new FleetLimiter();
  /** The tools' definitions across each tenant's sessions: which one the model is shown, and disagreements. */
  readonly definitions: ToolDefinitions;
  /** The build runs no client started are pinned to, for tenants the operator set none for. */
  currentBuild: string | undefined;
  /** The current build of each tenant the operator set one for (docs/protocol/builds.md). */
  readonly tenantBuilds = new Map<string, string>();
  #seq = 0;
  #closed = false;

  constructor(options: ResolvedStubOptions) {
    this.options = options;
    this.keys = new KeyRing(options.apiKeys === undefined ? undefined : [...options.apiKeys]);
    this.definitions = new ToolDefinitions(this.sessions, options.logger);
    const emit = (run: Run, kind: RunEventKind, data: unknown) => this.runs.emit(run, kind, data);
    this.dispatcher = new Dispatcher({
      options,
      sessions: this.sessions,
      emit,
      closeQuestions: (call) => this.questions.closeAll(call),
      decidedAlways: (call) => this.approvals.applyAlways(call),
      fleet: this.fleet,
    });
    this.approvals = new Approvals({
      dispatcher: this.dispatcher,
      maxPayloadBytes: options.maxPayloadBytes,
      emit,
      runOf: (runId) => this.runs.get(runId),
    });
    this.updates = new CallUpdates({ options, dispatcher: this.dispatcher, emit });
    this.questions = new Questions({
      dispatcher: this.dispatcher,
      sessions: this.sessions,
      maxPayloadBytes: options.maxPayloadBytes,
      emit,
      runOf: (runId) => this.runs.get(runId),
    });
    this.runs = new RunManager({
      options,
      sessions: this.sessions,
      dispatcher: this.dispatcher,
      events: this.events,
      toolsFor: (run) => this.toolsFor(run),
      gateFor: (run, toolName, shown) =>
        gateOf(
          toolName,
          shown,
          sessionsSeen(run, this.sessions, run.buildId ?? this.currentBuildOf(run.tenant)),
        ),
      currentBuild: (tenant) => this.currentBuildOf(tenant),
    });
  }

  /** The build runs of `tenant` that no client started are pinned to: the tenant's own, else the default. */
  currentBuildOf(tenant: string | undefined): string | undefined {
    return (tenant === undefined ? undefined : this.tenantBuilds.get(tenant)) ?? this.currentBuild;
  }

  /**
   * Sets the current build (`undefined` clears it): of `tenant` (the tenant a name of the key list stands for,
   * {@link KeyRing.tenantNamed}), or without one the default of the tenants that set none.
   */
  setCurrentBuild(buildId: string | undefined, tenant?: string): void {
    if (tenant === undefined) this.currentBuild = buildId;
    else if (buildId === undefined) this.tenantBuilds.delete(tenant);
    else this.tenantBuilds.set(tenant, buildId);
  }

  /** `true` once {@link shutdown} ran. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Attaches a socket that sent a valid `hello` to a session: the one named by `hello.sessionId` when it is still
   * resumable and of `tenant`, the tenant of the accepted `apiKey` (a socket still attached to it is closed with
   * 4009), else a new one.
   */
  openSession(
    ws: WebSocket,
    hello: FrameOf<ClientFrame, 'hello'>,
    apiKey: string | undefined,
    tenant: Tenant,
  ): {
    session: Session;
    resumed: boolean;
    duplicates: string[];
  } {
    let session = this.#resumable(hello, tenant);
    let resumed = false;
    if (session) {
      session.apiKey = apiKey;
      resumed = true;
      if (session.graceTimer !== undefined) clearTimeout(session.graceTimer);
      session.graceTimer = undefined;
      const previous = session.socket;
      session.socket = undefined;
      if (previous && previous !== ws) {
        closeSocket(previous, CLOSE_CODES.sessionReplaced, 'session resumed by another connection');
      }
    } else {
      session = new Session(
        `sess_${randomUUID()}`,
        ++this.#seq,
        apiKey,
        this.options.maxBufferedBytes,
        (slow, reason) => {
          this.options.logger.warn(
            { sessionId: slow.id, code: SLOW_READER_CLOSE_CODE },
            `closing connection: ${reason}`,
          );
          this.events.emit('protocol_error', {
            sessionId: slow.id,
            code: SLOW_READER_CLOSE_CODE,
            message: reason,
          });
        },
        {
          maxPayloadBytes: this.options.maxPayloadBytes,
          onTooLarge: (target, frame, bytes) => {
            // A call that cannot be sent ends now, for the model to read why (docs/protocol/limits.md).
            if (frame.type === 'tool_call') {
              this.dispatcher.tooLarge(target, frame.callId, bytes);
              return;
            }
            this.options.logger.error(
              {
                sessionId: target.id,
                type: frame.type,
                bytes,
                maxPayloadBytes: this.options.maxPayloadBytes,
              },
              `not sending a ${frame.type} frame of ${bytes} bytes: over the frame limit`,
            );
          },
        },
      );
      session.tenant = tenant;
      this.sessions.set(session.id, session);
    }
    session.socket = ws;
    session.state = 'connected';
    session.localApprovals = hello.localApprovals === true;
    session.maxConcurrency = hello.maxConcurrency;
    session.maxQueue = hello.maxQueue;
    session.buildId = hello.buildId;
    session.runEventKinds = new Set(hello.runEventKinds);
    const offered = featuresOf(hello.features);
    session.features = new Set([...this.options.features].filter((feature) => offered.has(feature)));
    const duplicates = this.definitions.announce(session, hello.tools);
    return { session, resumed, duplicates };
  }

  /**
   * The session `hello` may resume: named by `hello.sessionId`, not expired, and of `tenant`, the tenant the key is
   * of now: any key of it (keys rotating, docs/protocol/keys.md; a key moved to another tenant resumes none of
   * the old tenant's sessions). A stub that accepts any key has one tenant: any key resumes.
   */
  #resumable(hello: FrameOf<ClientFrame, 'hello'>, tenant: Tenant): Session | undefined {
    const session = hello.sessionId === undefined ? undefined : this.sessions.get(hello.sessionId);
    if (session === undefined || session.state === 'expired') return undefined;
    return session.tenant === tenant ? session : undefined;
  }

  /**
   * A `hello` was refused with 4010 (`reason`): when it resumed a session, that session ends now rather than
   * wait out its grace period for a resume its worker cannot make (docs/protocol/fleet-limits.md). Its calls go to
   * other clients at once, its runs are cancelled; a socket still attached to it is closed with the same code.
   */
  refusedResume(hello: FrameOf<ClientFrame, 'hello'>, tenant: Tenant, reason: string): void {
    const session = this.#resumable(hello, tenant);
    if (session === undefined) return;
    if (session.graceTimer !== undefined) clearTimeout(session.graceTimer);
    session.graceTimer = undefined;
    const previous = session.socket;
    session.socket = undefined;
    if (previous !== undefined) closeSocket(previous, CLOSE_CODES.fleetConflict, reason);
    session.state = 'detached';
    session.detachedAt ??= Date.now();
    this.options.logger.info(
      { sessionId: session.id, code: CLOSE_CODES.fleetConflict },
      'resume refused; the session ends now',
    );
    this.expire(session);
  }

  /** Called once `welcome` is on the wire: run frames that may have been lost, owed calls, waiting calls. */
  ready(session: Session, resumed: boolean): void {
    this.events.emit('session_open', { sessionId: session.id, resumed, tools: [...session.tools.keys()] });
    if (resumed) session.replayOnResume(3 * this.options.heartbeatIntervalMs);
    this.dispatcher.onSessionReady(session, resumed);
  }

  /**
   * A socket closed. If it was the session's current socket, the session waits `sessionGraceMs` for a resume;
   * a client that closed with 1000 (`client.close()`) has left, so its session ends at once and the calls still
   * owed to it go to another client (docs/protocol/sessions.md).
   */
  detach(session: Session, ws: WebSocket, code: number, reason: string): void {
    if (session.socket !== ws) return;
    session.socket = undefined;
    if (session.state !== 'connected') return;
    session.state = 'detached';
    session.detachedAt = Date.now();
    this.events.emit('session_detached', { sessionId: session.id, code, reason });
    if (this.#closed) return;
    if (code === CLOSE_CODES.normal) {
      this.expire(session);
      return;
    }
    session.graceTimer = setTimeout(() => this.expire(session), this.options.sessionGraceMs);
  }

  /** Ends a detached session for good: its calls are offered to other clients, its runs are cancelled. */
  expire(session: Session): void {
    if (session.state !== 'detached') return;
    session.graceTimer = undefined;
    session.state = 'expired';
    this.sessions.delete(session.id);
    this.definitions.ended(session);
    this.options.logger.info({ sessionId: session.id }, 'session expired');
    this.events.emit('session_expired', { sessionId: session.id });
    this.runs.onSessionExpired(session);
    this.dispatcher.onSessionExpired(session);
  }

  /**
   * Why a `hello` of `tenant` cannot join the fleet: its tools' `fleet` limits differ from a live session's of the
   * tenant (docs/protocol/fleet-limits.md); `undefined` when they agree.
   */
  helloConflict(hello: FrameOf<ClientFrame, 'hello'>, tenant: Tenant): string | undefined {
    const resuming = hello.sessionId === undefined ? undefined : this.sessions.get(hello.sessionId);
    return fleetConflict(hello.tools, tenant, this.sessions, resuming);
  }

  /**
   * Replaces the accepted keys (docs/protocol/keys.md, server-stub/fleet.ts `KeyRing`). A tenant merged into
   * another is that tenant from now on: its sessions, runs, calls in flight and fleet counts; its connected
   * sessions join the other's fleet as their `hello` would ({@link StubService.#joinFleet}). A socket opened with a
   * key no longer accepted, or moved to another tenant, is closed with 4001 `API key revoked`; its session waits
   * for a resume with a key of its tenant. A tenant left with no key is closed: its sessions end at once (none
   * could resume) and its runs are cancelled. Returns how many sockets were closed.
   */
  setApiKeys(entries: readonly ApiKeyEntry[]): number {
    // With any key accepted until now, the one tenant holds the keys its clients use, oldest session first, then
    // those its runs were started with (HTTP, the library), oldest first.
    const presented = this.keys.checked
      ? []
      : [...[...this.sessions.values()].flatMap((s) => s.apiKey ?? []), ...this.runs.startedWith()];
    const change = this.keys.set(entries, presented);
    const before = new Map<Session, Tenant>();
    for (const session of this.sessions.values()) before.set(session, session.tenant);
    for (const [from, into] of change.merged) this.#mergeTenant(from, into);
    const revoked = new Set<Session>();
    for (const session of this.sessions.values()) {
      const { socket, apiKey } = session;
      if (socket === undefined || !this.keys.checked) continue;
      // A key listed now for another tenant is revoked for the session's: the session and its socket are that
      // tenant's (a fresh socket with the key is the other tenant's, as a resume with it starts a new session).
      // A key not accepted any more is of no tenant (`null`), never the session's.
      if (this.keys.tenantOf(apiKey) !== session.tenant) {
        closeSocket(socket, CLOSE_CODES.unauthorized, 'API key revoked');
        revoked.add(session);
      }
    }
    for (const into of new Set(change.merged.values())) this.#joinFleet(into, before, revoked);
    for (const tenant of change.closed) this.#closeTenant(tenant);
    if (change.merged.size > 0) this.dispatcher.retryWaiting();
    return revoked.size;
  }

  /**
   * Tenants merged into `into`: each of their connected sessions (oldest first; not one whose socket was just
   * revoked) is checked as its `hello` would be (docs/protocol/fleet-limits.md, "Fleet-wide limits") against the
   * connected sessions of `into` and those checked before it. A tool whose `fleet` limits disagree is refused as
   * in a `tools_update`: the session no longer offers it (its calls of the tool in flight go on), and is told with
   * an `error not_allowed` naming the tool and the limits refused, on which the client drops it and goes on with
   * its other tools. The socket stays open: the merge is the operator's doing, not the worker's.
   */
  #joinFleet(into: Tenant, before: ReadonlyMap<Session, Tenant>, revoked: ReadonlySet<Session>): void {
    const fleet = new Map<string, Session>();
    const joining: Session[] = [];
    for (const session of this.sessions.values()) {
      if (session.tenant !== into || session.state !== 'connected' || session.left || revoked.has(session))
        continue;
      if (before.get(session) === into) fleet.set(session.id, session);
      else joining.push(session);
    }
    for (const session of joining) {
      const conflicts = fleetConflicts([...session.tools.values()], into, fleet, session);
      fleet.set(session.id, session);
      if (conflicts.length === 0) continue;
      const refused = new Set(conflicts.map((conflict) => conflict.toolName));
      for (const { toolName, fleet: limits, reason } of conflicts) {
        const tools = [{ name: toolName, ...(limits === undefined ? {} : { fleet: limits }) }];
        this.options.logger.warn(
          { sessionId: session.id, code: 'not_allowed', tools },
          `tool refused as its tenant merged into another: ${reason}`,
        );
        session.send({ type: 'error', code: 'not_allowed', message: reason, tools });
      }
      this.definitions.announce(
        session,
        [...session.tools.values()].filter((tool) => !refused.has(tool.name)),
      );
    }
  }

  /** `from` goes on as `into` (server-stub/fleet.ts `KeyRing`): everything `from` held is `into`'s now. */
  #mergeTenant(from: string | undefined, into: string | undefined): void {
    for (const session of this.sessions.values()) if (session.tenant === from) session.tenant = into;
    this.runs.mergeTenant(from, into);
    this.definitions.mergeTenant(from, into);
    this.fleet.merge(from, into);
    // The tenant merged into keeps its own current build.
    if (from !== undefined) this.tenantBuilds.delete(from);
    this.options.logger.info(
      { tenantId: tenantIdOf(from), intoTenantId: tenantIdOf(into) },
      'a tenant goes on as another: its keys are listed for it now',
    );
  }

  /**
   * No key of `tenant` is accepted any more: its runs are cancelled and its sessions end now, since no key could
   * resume them (their sockets were closed 4001).
   */
  #closeTenant(tenant: string | undefined): void {
    const runs = this.runs.closeTenant(tenant);
    let sessions = 0;
    for (const session of [...this.sessions.values()]) {
      if (session.tenant !== tenant) continue;
      if (session.graceTimer !== undefined) clearTimeout(session.graceTimer);
      session.graceTimer = undefined;
      const previous = session.socket;
      session.socket = undefined;
      if (previous !== undefined) closeSocket(previous, CLOSE_CODES.unauthorized, 'API key revoked');
      session.state = 'detached';
      session.detachedAt ??= Date.now();
      this.expire(session);
      sessions += 1;
    }
    if (tenant !== undefined) this.tenantBuilds.delete(tenant);
    if (runs + sessions > 0)
      this.options.logger.warn(
        { tenantId: tenantIdOf(tenant), sessions, runs },
        'no API key of a tenant is accepted any more: its sessions and runs ended (to rotate keys, keep its name or a key)',
      );
  }

  /** `tools_update`: replaces what the session offers, then offers it the waiting calls. */
  updateTools(session: Session, tools: readonly ToolDefinition[]): string[] {
    const duplicates = this.definitions.announce(session, tools);
    this.dispatcher.retryWaiting();
    return duplicates;
  }

  /**
   * The live sessions whose tools `run` sees (server-stub/routing.ts `sessionsSeen`): of the build it is pinned to,
   * else its tenant's current build, else any build.
   */
  #seenBy(run: Run): Session[] {
    return sessionsSeen(run, this.sessions, run.buildId ?? this.currentBuildOf(run.tenant));
  }

  /**
   * Definitions of the run's agent's tools, in the agent's order, as the model is shown them: as the sessions of
   * the run's build offer them (docs/protocol/builds.md: the build it is pinned to, else its tenant's current
   * build, else any build); where they differ, the run's own client's, else the newest a connected session offers
   * (docs/protocol/routing.md, server-stub/definitions.ts).
   */
  toolsFor(run: Run): ToolDefinition[] {
    const seen = this.#seenBy(run);
    const ownerId = run.ownerSessionId;
    const owner = ownerId === undefined ? undefined : this.sessions.get(ownerId);
    // The run's calls go to its own client (server-stub/routing.ts): the model is shown its definitions.
    const own = owner !== undefined && seen.includes(owner) ? owner : undefined;
    const out: ToolDefinition[] = [];
    for (const name of run.agent.tools) {
      const definition = this.definitions.shown(name, seen, own);
      if (definition !== undefined) out.push(definition);
    }
    return out;
  }

  /** Public view of the live sessions, oldest first. */
  sessionInfo(): SessionInfo[] {
    return [...this.sessions.values()].map((session) => ({
      sessionId: session.id,
      state: session.state === 'connected' ? 'connected' : 'detached',
      tools: [...session.tools.keys()],
      inFlight: this.dispatcher.inFlight(session),
      localApprovals: session.localApprovals,
      ...(session.buildId === undefined ? {} : { buildId: session.buildId }),
    }));
  }

  /** Cancels every run, clears every timer. Sockets are closed by the server. */
  shutdown(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.runs.shutdown();
    this.dispatcher.dispose();
    for (const session of this.sessions.values()) {
      if (session.graceTimer !== undefined) clearTimeout(session.graceTimer);
      session.graceTimer = undefined;
    }
  }
}
