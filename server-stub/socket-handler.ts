/**
 * One WebSocket connection: subprotocol and key checks, the `hello` deadline, heartbeat, flood control, frame
 * decoding, and routing of each frame to the service. A misbehaving connection is answered (an `error` frame)
 * or closed (a close code); it never affects another connection.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocket } from 'ws';
import {
  decodeClientFrame,
  droppedFieldsLog,
  isRefusedErrorFrame,
  type RefusedFrame,
} from '../src/wire/codec';
import {
  answeredFeatures,
  CLOSE_CODES,
  type ClientFrame,
  type ERROR_CODES,
  type FleetLimits,
  type FrameOf,
  PROTOCOL_VERSION,
  type ServiceFrame,
  SUBPROTOCOL,
} from '../src/wire/protocol';
import { socketDecision } from './approvals';
import { bearerKey } from './auth';
import { closeSocket } from './close-socket';
import { fitsFrame } from './fit-frame';
import { buildIdProblem, buildPolicyOf, fleetConflicts } from './fleet';
import { RateLimiter } from './rate-limiter';
import type { StubService } from './service';
import type { Session } from './session';
import { type SilenceWatch, watchSilence } from './silence-watch';

type ErrorCode = (typeof ERROR_CODES)[number];

/** The ids of a refused frame the error frame names (docs/protocol/errors.md). */
function refusalIds(about: RefusedFrame | undefined): {
  callId?: string;
  runId?: string;
  requestId?: string;
} {
  const { type: _type, toolName: _toolName, ...ids } = about ?? {};
  return ids;
}

/** Takes charge of a freshly upgraded socket. */
export function acceptSocket(service: StubService, ws: WebSocket, request: IncomingMessage): void {
  new SocketHandler(service, ws, request);
}

class SocketHandler {
  readonly #service: StubService;
  readonly #ws: WebSocket;
  readonly #headerKey: string | undefined;
  readonly #limiter: RateLimiter;
  readonly #remote: string;
  /** Logs the informative fields the client got wrong and the stub ignored (docs/protocol/errors.md). */
  readonly #dropped: (frame: { type: string; callId?: unknown }, dropped: readonly string[]) => void;
  #session: Session | undefined;
  #closing = false;
  #lastSeen = Date.now();
  #helloTimer: ReturnType<typeof setTimeout> | undefined;
  #heartbeat: SilenceWatch | undefined;

  constructor(service: StubService, ws: WebSocket, request: IncomingMessage) {
    this.#service = service;
    this.#ws = ws;
    const { options } = service;
    this.#limiter = new RateLimiter(options.maxFramesPerSecond, options.maxFrameBurst);
    this.#remote = `${request.socket.remoteAddress ?? '?'}:${request.socket.remotePort ?? '?'}`;
    this.#dropped = droppedFieldsLog(options.logger, 'client');
    ws.on('error', (error: Error & { code?: string }) => {
      // `ws` closes the socket itself after these (1009 for a frame over maxPayload, 1002/1007 for bad framing).
      options.logger.warn(
        { sessionId: this.#session?.id, remote: this.#remote, code: error.code },
        error.message,
      );
      this.#report(
        error.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? CLOSE_CODES.tooBig : 'socket_error',
        error.message,
      );
    });
    ws.on('close', (code, reason) => this.#onClose(code, reason.toString()));
    ws.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    ws.on('ping', () => {
      this.#lastSeen = Date.now();
    });
    ws.on('pong', () => {
      this.#lastSeen = Date.now();
    });

    const header = request.headers.authorization;
    const parsed = header === undefined ? undefined : bearerKey(header);
    this.#headerKey = parsed ?? undefined;
    if (ws.protocol !== SUBPROTOCOL) {
      this.#close(CLOSE_CODES.unsupportedProtocol, `subprotocol ${SUBPROTOCOL} required`);
      return;
    }
    if (header !== undefined && parsed === undefined) {
      this.#close(CLOSE_CODES.unauthorized, 'malformed Authorization header: expected "Bearer <key>"');
      return;
    }
    if (this.#headerKey !== undefined && !service.keys.accepts(this.#headerKey)) {
      this.#close(CLOSE_CODES.unauthorized, 'invalid API key');
      return;
    }
    this.#helloTimer = setTimeout(() => {
      this.#close(CLOSE_CODES.helloExpected, `no hello within ${options.helloTimeoutMs}ms`);
    }, options.helloTimeoutMs);
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    if (this.#closing) return;
    this.#lastSeen = Date.now();
    const { options } = this.#service;
    if (!this.#limiter.take()) {
      this.#close(
        CLOSE_CODES.flood,
        `more than ${options.maxFramesPerSecond} frames per second (burst ${options.maxFrameBurst})`,
      );
      return;
    }
    const text = rawText(data);
    if (isBinary) {
      if (!this.#session)
        this.#close(CLOSE_CODES.helloExpected, 'expected a hello text frame, got a binary frame');
      else this.#error('invalid_frame', 'binary frames are not part of the protocol; send JSON text frames');
      return;
    }
    const decoded = decodeClientFrame(text, options.maxPayloadBytes);
    if (!this.#session) {
      if (!decoded.ok) this.#close(CLOSE_CODES.helloExpected, `expected hello: ${decoded.message}`);
      else if (decoded.frame.type !== 'hello') {
        this.#close(CLOSE_CODES.helloExpected, `expected hello, got ${decoded.frame.type}`);
      } else {
        if (decoded.dropped !== undefined) this.#dropped(decoded.frame, decoded.dropped);
        this.#onHello(decoded.frame);
      }
      return;
    }
    // Its session resumed on another socket (this one closes, 4009): what still arrives here is not read. The new
    // socket's `welcome` (its `owed`, the calls sent again) is where client and service met; a late "busy" would take
    // away a call the resume gave back (docs/protocol/calls-no-longer-held.md). The client sends there what it still needs.
    if (this.#session.socket !== this.#ws) return;
    if (!decoded.ok) {
      // A peer never answers an error frame with an error frame (docs/protocol/errors.md).
      if (isRefusedErrorFrame(decoded)) options.logger.warn({ sessionId: this.#session.id }, decoded.message);
      else this.#error(decoded.code, decoded.message, refusalIds(decoded.about));
      return;
    }
    if (decoded.dropped !== undefined) this.#dropped(decoded.frame, decoded.dropped);
    try {
      this.#route(this.#session, decoded.frame);
    } catch (error) {
      // A bug in the stub must not take the connection (or the process) down.
      options.logger.error(
        { sessionId: this.#session.id, type: decoded.frame.type, error },
        'frame handler threw',
      );
      this.#error('internal', `the service failed to handle a ${decoded.frame.type} frame`);
    }
  }

  #onHello(hello: FrameOf<ClientFrame, 'hello'>): void {
    clearTimeout(this.#helloTimer);
    const service = this.#service;
    const { options } = service;
    if (hello.protocol !== PROTOCOL_VERSION) {
      this.#close(
        CLOSE_CODES.unsupportedProtocol,
        `protocol ${hello.protocol} is not supported; this service speaks protocol ${PROTOCOL_VERSION}`,
      );
      return;
    }
    const buildProblem = hello.buildId === undefined ? undefined : buildIdProblem(hello.buildId);
    if (buildProblem !== undefined) {
      this.#close(CLOSE_CODES.helloExpected, `hello.buildId ${buildProblem}`);
      return;
    }
    const key = this.#headerKey ?? hello.apiKey;
    if (service.keys.checked && key === undefined) {
      this.#close(
        CLOSE_CODES.unauthorized,
        'missing API key: send "Authorization: Bearer <key>" or hello.apiKey',
      );
      return;
    }
    // Accepted first: that comparison takes the same time whatever the key, a look-up of its tenant does not.
    const tenant = key === undefined || service.keys.accepts(key) ? service.keys.tenantOf(key) : null;
    if (tenant === null) {
      this.#close(CLOSE_CODES.unauthorized, 'invalid API key');
      return;
    }
    if (service.closed) {
      this.#close(CLOSE_CODES.goingAway, 'service shutting down');
      return;
    }
    const conflict = service.helloConflict(hello, tenant);
    if (conflict !== undefined) {
      this.#close(CLOSE_CODES.fleetConflict, conflict);
      service.refusedResume(hello, tenant, conflict);
      return;
    }
    const { session, resumed, duplicates } = service.openSession(this.#ws, hello, key, tenant);
    this.#session = session;
    if (duplicates.length > 0) this.#warnDuplicates(duplicates);
    const welcome: FrameOf<ServiceFrame, 'welcome'> = {
      type: 'welcome',
      sessionId: session.id,
      resumed,
      heartbeatIntervalMs: options.heartbeatIntervalMs,
      maxPayloadBytes: options.maxPayloadBytes,
      sessionGraceMs: options.sessionGraceMs,
      // The figure of a deadline's timeout text, for the calls the client ends itself (docs/protocol/deadlines.md).
      callDeadlineMs: options.callDeadlineMs,
      // What the flood control below allows: the client paces its frames to it (docs/protocol/limits.md).
      maxFramesPerSecond: options.maxFramesPerSecond,
      maxFrameBurst: options.maxFrameBurst,
      ...(hello.features === undefined
        ? {}
        : { features: answeredFeatures(hello.features, session.features) }),
      ...(session.features.has('lease')
        ? { leaseMs: options.leaseMs, maxCallDurationMs: options.maxCallDurationMs }
        : {}),
      ...(session.features.has('builds') ? buildPolicyOf(service.currentBuildOf(session.tenant)) : {}),
    };
    if (resumed && session.features.has('owed_calls')) this.#listOwed(session, welcome);
    session.send(welcome);
    options.logger.info(
      { sessionId: session.id, resumed, remote: this.#remote, tools: [...session.tools.keys()] },
      resumed ? 'session resumed' : 'session opened',
    );
    this.#startHeartbeat();
    service.ready(session, resumed);
  }

  /**
   * A resume's `welcome` lists the calls the session still owes a result for (feature `owed_calls`,
   * docs/protocol/calls-no-longer-held.md), so that its client drops the others it holds: their `cancel` may have been lost with
   * the socket. A list that would take the `welcome` over the frame limit is left out (unknown: the client keeps its
   * calls), with a `warn`.
   */
  #listOwed(session: Session, welcome: FrameOf<ServiceFrame, 'welcome'>): void {
    const { maxPayloadBytes, logger } = this.#service.options;
    welcome.owed = this.#service.dispatcher.owedBy(session);
    if (fitsFrame(welcome, maxPayloadBytes)) return;
    logger.warn(
      { sessionId: session.id, calls: welcome.owed.length, maxPayloadBytes },
      'welcome.owed left out: the list of calls owed would take the welcome over the frame limit',
    );
    delete welcome.owed;
  }

  #route(session: Session, frame: ClientFrame): void {
    const service = this.#service;
    switch (frame.type) {
      case 'hello':
        this.#error('not_allowed', 'hello was already received on this connection');
        return;
      case 'ping':
        session.send({ type: 'pong', ...(frame.id === undefined ? {} : { id: frame.id }) });
        return;
      case 'pong':
        return;
      case 'tool_result':
        service.dispatcher.onResult(session, frame);
        return;
      case 'tool_progress':
        service.updates.progress(session, frame);
        return;
      case 'tool_preliminary':
        service.updates.preliminary(session, frame);
        return;
      case 'lease':
        service.updates.lease(session, frame);
        return;
      case 'key_waits':
        service.dispatcher.keyWaits(session, frame);
        return;
      case 'approval_waits':
        service.dispatcher.approvalWaits(session, frame);
        return;
      case 'tool_event':
        service.updates.event(session, frame);
        return;
      case 'step_result':
        service.updates.step(session, frame);
        return;
      case 'question':
        service.questions.ask(session, frame);
        return;
      case 'question_cancel':
        service.questions.withdraw(session, frame);
        return;
      case 'approval_request': {
        const refusal = service.approvals.request(session, frame);
        if (refusal) this.#error(refusal.code, refusal.message, { callId: frame.callId });
        return;
      }
      case 'approval': {
        const refusal = service.approvals.decide(
          frame.callId,
          socketDecision(frame, session.features),
          undefined,
          session,
        );
        const { callId, requestId } = frame;
        const answered = requestId !== undefined && session.features.has('decisions');
        if (refusal)
          this.#error(refusal.code, refusal.message, answered ? { callId, requestId } : { callId });
        else if (answered)
          session.send({ type: 'approval_applied', requestId, callId, approved: frame.approved });
        return;
      }
      case 'tools_update': {
        const conflicts = fleetConflicts(frame.tools, session.tenant, service.sessions, session);
        let tools = frame.tools;
        if (conflicts.length > 0) {
          // Named with the limits refused, so that the client drops them (docs/protocol/fleet-limits.md); the update's
          // other tools apply, and a refused name keeps what the session offered before under it, if anything.
          const refused = new Set(conflicts.map((conflict) => conflict.toolName));
          tools = frame.tools.flatMap((tool) => {
            if (!refused.has(tool.name)) return [tool];
            const before = session.tools.get(tool.name);
            return before === undefined ? [] : [before];
          });
          // One error a tool, each with its own reason.
          for (const { toolName, fleet, reason } of conflicts)
            this.#error('not_allowed', reason, {
              tools: [{ name: toolName, ...(fleet === undefined ? {} : { fleet }) }],
            });
        }
        const duplicates = service.updateTools(session, tools);
        if (duplicates.length > 0) this.#warnDuplicates(duplicates);
        return;
      }
      case 'run_start': {
        const refusal = service.runs.startFor(session, frame);
        if (refusal) this.#error(refusal.code, refusal.message, { requestId: frame.requestId });
        return;
      }
      case 'run_cancel': {
        const refusal = service.runs.cancelFor(session, frame.runId, frame.reason);
        if (refusal) this.#error(refusal.code, refusal.message, { runId: frame.runId });
        return;
      }
      case 'error':
        service.options.logger.warn(
          { sessionId: session.id, code: frame.code, callId: frame.callId },
          `client reported an error: ${frame.message}`,
        );
        return;
    }
  }

  #startHeartbeat(): void {
    const intervalMs = this.#service.options.heartbeatIntervalMs;
    this.#heartbeat = watchSilence(
      intervalMs,
      () => this.#lastSeen,
      (silentMs) =>
        this.#close(CLOSE_CODES.heartbeatTimeout, `no frame for ${silentMs}ms (2 heartbeat intervals)`),
    );
  }

  #warnDuplicates(names: string[]): void {
    this.#error(
      'invalid_frame',
      `tool names announced more than once (the first definition is used): ${names.join(', ')}`,
    );
  }

  #error(
    code: ErrorCode,
    message: string,
    ids: {
      callId?: string;
      runId?: string;
      requestId?: string;
      tools?: Array<{ name: string; fleet?: FleetLimits }>;
    } = {},
  ): void {
    const sessionId = this.#session?.id;
    this.#service.options.logger.warn(
      { sessionId, remote: this.#remote, code, ...ids },
      `refused frame: ${message}`,
    );
    this.#report(code, message);
    if (this.#ws.readyState === this.#ws.OPEN) {
      this.#session?.send({ type: 'error', code, message, ...ids });
    }
  }

  #report(code: string | number, message: string): void {
    const sessionId = this.#session?.id;
    this.#service.events.emit('protocol_error', {
      ...(sessionId === undefined ? {} : { sessionId }),
      code,
      message,
    });
  }

  #close(code: number, reason: string): void {
    if (this.#closing) return;
    this.#closing = true;
    this.#service.options.logger.warn(
      { sessionId: this.#session?.id, remote: this.#remote, code },
      `closing connection: ${reason}`,
    );
    if (code !== CLOSE_CODES.normal && code !== CLOSE_CODES.goingAway) this.#report(code, reason);
    closeSocket(this.#ws, code, reason);
  }

  #onClose(code: number, reason: string): void {
    this.#closing = true;
    clearTimeout(this.#helloTimer);
    this.#heartbeat?.stop();
    if (this.#session) this.#service.detach(this.#session, this.#ws, code, reason);
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
