/**
 * A client session: survives its socket for `sessionGraceMs`, so a client that reconnects with the same
 * `sessionId` keeps its calls.
 *
 * @module
 */
import type { WebSocket } from 'ws';
import { encodeFrame } from '../src/wire/codec';
import {
  CLOSE_CODES,
  type Feature,
  PROTOCOL_DEFAULTS,
  type ServiceFrame,
  type ToolDefinition,
  utf8Length,
} from '../src/wire/protocol';
import { closeCodeReceived, closeSocket } from './close-socket';
import { fitRunEvent, textFits } from './fit-frame';

/**
 * The client's frame limit: a `run_event` over it is cut to fit (server-stub/fit-frame.ts); any other frame over it
 * is not written, and reported.
 */
export interface SessionFrameLimit {
  /** The frame limit the service announced in `welcome` (docs/protocol/limits.md). */
  maxPayloadBytes: number;
  /** Told of a frame that was not written because it was over the limit. */
  onTooLarge(session: Session, frame: ServiceFrame, bytes: number): void;
}

/** `connected`: a socket is attached; `detached`: within the grace period; `expired`: gone for good. */
export type SessionState = 'connected' | 'detached' | 'expired';

/**
 * Frames kept for a detached session and delivered when it resumes, and replayed on resume when they were sent
 * shortly before the drop (they may have died with the socket). Run events are not kept, only these.
 */
const KEPT_WHILE_DETACHED = new Set<ServiceFrame['type']>(['run_started', 'run_result']);
/** RFC 6455 1008 (policy violation): the close code for a client that stopped reading. */
export const SLOW_READER_CLOSE_CODE = 1008;

/** Most frames kept for a detached session; older ones are dropped first. */
export const MAX_KEPT_FRAMES = 256;

/** What the stub knows about one client session. */
export class Session {
  readonly id: string;
  /** Order of creation, used to break ties when spreading calls. */
  readonly seq: number;
  /** When the session was last sent a new call (a dispatch counter; 0: never): ties go to the longest idle. */
  lastDispatch = 0;
  /** The key the session was opened with (`undefined` when the server accepts any key and none was sent). */
  apiKey: string | undefined;
  /** `hello.buildId`: the build the session runs (docs/protocol/builds.md). */
  buildId: string | undefined;
  /** The tenant the session belongs to (see server-stub/tenants.ts): it is given only that tenant's calls. */
  tenant: string | undefined;
  state: SessionState = 'connected';
  socket: WebSocket | undefined;
  /**
   * Its client has left: the stub has read its close with 1000 (`client.close()`, docs/protocol/sessions.md) and the
   * socket is finishing its close. The session ends at the socket's `close` event, a moment later (or `ws`'s close
   * timeout for a client that does not end the connection); until then it is still `connected`, but it offers no
   * tool and is sent no call, so a call the model asks for meanwhile is decided as if it had gone.
   */
  get left(): boolean {
    return this.socket !== undefined && closeCodeReceived(this.socket) === CLOSE_CODES.normal;
  }
  tools = new Map<string, ToolDefinition>();
  localApprovals = false;
  /** The features negotiated on the current socket (docs/protocol/index.md); none until `hello` offers some. */
  features: ReadonlySet<Feature> = new Set();
  maxConcurrency: number | undefined;
  /** `hello.maxQueue`: with `maxConcurrency`, the most calls the session takes before it answers busy. */
  maxQueue: number | undefined;
  /** `hello.runEventKinds`: the negotiated `run_event` kinds this session accepts (docs/protocol/run-events.md). */
  runEventKinds: ReadonlySet<string> = new Set();
  /** Call ids assigned to this session and not finished (dispatched, or held after its `approval_request`). */
  readonly calls = new Set<string>();
  /** Runs started by this session that are still in progress. */
  runsInProgress = 0;
  graceTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the last socket was found closed (epoch ms). */
  detachedAt: number | undefined;
  readonly #kept: ServiceFrame[] = [];
  /** Results acknowledged and not yet told (see {@link Session.ack}). */
  #acks: string[] = [];
  readonly #recent: Array<{ frame: ServiceFrame; at: number }> = [];
  /** The TCP socket each {@link cork} held (`undefined`: none), innermost last. */
  readonly #corked: Array<TcpSocket | undefined> = [];

  readonly #maxBufferedBytes: number;
  readonly #onOverflow: (session: Session, reason: string) => void;
  readonly #frameLimit: SessionFrameLimit;

  /**
   * @param maxBufferedBytes - a socket with more unsent bytes than this is closed with 1008 (slow reader).
   * @param onOverflow - told when that happens, with the close reason.
   * @param frameLimit - the client's frame limit: a larger frame is never written (the client would close 1009,
   *   resume and be sent it again). The default: the protocol's 1 MiB, nothing reported.
   */
  constructor(
    id: string,
    seq: number,
    apiKey: string | undefined,
    maxBufferedBytes: number,
    onOverflow: (session: Session, reason: string) => void,
    frameLimit: SessionFrameLimit = {
      maxPayloadBytes: PROTOCOL_DEFAULTS.maxPayloadBytes,
      onTooLarge: () => {},
    },
  ) {
    this.id = id;
    this.seq = seq;
    this.apiKey = apiKey;
    this.#maxBufferedBytes = maxBufferedBytes;
    this.#onOverflow = onOverflow;
    this.#frameLimit = frameLimit;
  }

  /**
   * Replaces the announced tools (from `hello` or `tools_update`). The first definition of a name wins. Without
   * the feature `strict` on this socket, `strict` is left out (docs/protocol/call-context.md).
   */
  setTools(tools: readonly ToolDefinition[]): string[] {
    const duplicates: string[] = [];
    this.tools = new Map();
    for (const tool of tools) {
      if (this.tools.has(tool.name)) duplicates.push(tool.name);
      else this.tools.set(tool.name, this.features.has('strict') ? tool : withoutStrict(tool));
    }
    return duplicates;
  }

  /**
   * Acknowledges a result (docs/protocol/index.md docs/protocol/tool-calls.md). Acks are coalesced: they ride on the
   * next `tool_call` sent to
   * this
   * session (`acks`), or go out together as one `ack` frame once the current task is done (a microtask), so a
   * burst of results costs one frame, and a steady flow of calls none.
   */
  ack(callId: string): void {
    this.#acks.push(callId);
    // A resolved promise rather than queueMicrotask, which makes an AsyncResource per call in Node.
    if (this.#acks.length === 1) void Promise.resolve().then(() => this.#flushAcks());
  }

  #takeAcks(): string[] {
    const taken = this.#acks.slice(0, PROTOCOL_DEFAULTS.maxAcksPerFrame);
    this.#acks = this.#acks.slice(taken.length);
    return taken;
  }

  #flushAcks(): void {
    while (this.#acks.length > 0) {
      const ids = this.#takeAcks();
      this.#write(ids.length === 1 ? { type: 'ack', callId: ids[0]! } : { type: 'ack', callIds: ids });
    }
  }

  /**
   * Sends a frame on the attached socket. When detached, `run_started` and `run_result` are kept for
   * {@link flushKept}; anything else is dropped. Returns `true` when the frame was written. Pending acks ride
   * on a `tool_call`, and go out before any other frame (so frames keep the order they were sent in).
   */
  send(frame: ServiceFrame): boolean {
    if (
      frame.type === 'tool_call' &&
      !this.features.has('trace_context') &&
      frame.traceparent !== undefined
    ) {
      // Sent only with the feature (docs/protocol/trace-context.md): an older client gets the frame it knows.
      const { traceparent: _traceparent, tracestate: _tracestate, ...plain } = frame;
      frame = plain;
    }
    if (this.#acks.length > 0) {
      if (frame.type === 'tool_call') {
        const withAcks = { ...frame, acks: this.#acks.slice(0, PROTOCOL_DEFAULTS.maxAcksPerFrame) };
        const text = encodeFrame(withAcks);
        // Acks ride on a call only when the two fit in one frame.
        if (textFits(text, this.#frameLimit.maxPayloadBytes)) {
          this.#takeAcks();
          return this.#write(withAcks, text);
        }
      }
      this.#flushAcks();
    }
    return this.#write(frame);
  }

  /**
   * Holds what is written to the socket until {@link uncork}, which writes it at once: the frames between go out in
   * one write (Node's `writev` on the TCP socket under `ws`), so that a client reads them together. Counted, as
   * Node counts corks; a socket without a TCP socket under it (none attached) is not held.
   */
  cork(): void {
    const raw = tcpSocketOf(this.socket);
    if (raw !== undefined) raw.cork();
    this.#corked.push(raw);
  }

  /** Ends the last {@link cork}. */
  uncork(): void {
    this.#corked.pop()?.uncork();
  }

  /** Writes `frame` (encoded as `text`, when the caller has encoded it) if it is within the client's frame limit. */
  #write(frame: ServiceFrame, text?: string): boolean {
    const socket = this.socket;
    if (socket && socket.readyState === socket.OPEN) {
      const { maxPayloadBytes } = this.#frameLimit;
      let encoded = text ?? encodeFrame(frame);
      if (!textFits(encoded, maxPayloadBytes)) {
        if (frame.type === 'run_event') {
          frame = fitRunEvent(frame, maxPayloadBytes);
          encoded = encodeFrame(frame);
        }
        if (!textFits(encoded, maxPayloadBytes)) {
          // The last guard: what the service builds from a client's or a person's data is checked before it is
          // recorded, so this is a frame the service could not make fit (a model's arguments over the limit).
          this.#frameLimit.onTooLarge(this, frame, utf8Length(encoded));
          return false;
        }
      }
      socket.send(encoded);
      if (socket.bufferedAmount > this.#maxBufferedBytes && socket.readyState === socket.OPEN) {
        // A client that does not read would make the service buffer without bound.
        const reason = `the client is not reading: over ${this.#maxBufferedBytes} bytes waiting`;
        this.#onOverflow(this, reason);
        closeSocket(socket, SLOW_READER_CLOSE_CODE, reason);
      }
      if (this.#keeps(frame)) {
        this.#recent.push({ frame, at: Date.now() });
        if (this.#recent.length > MAX_KEPT_FRAMES) this.#recent.shift();
      }
      return true;
    }
    if (this.state !== 'expired' && this.#keeps(frame)) {
      this.#kept.push(frame);
      if (this.#kept.length > MAX_KEPT_FRAMES) this.#kept.shift();
    }
    return false;
  }

  /** Kept for a resume: `run_started`, `run_result`, and with `event_replay` `run_event` (docs/protocol/sessions.md). */
  #keeps(frame: ServiceFrame): boolean {
    return (
      KEPT_WHILE_DETACHED.has(frame.type) ||
      // Only numbered events: the client drops the repeats by their `seq` (a `text_delta` has none).
      (frame.type === 'run_event' && frame.seq !== undefined && this.features.has('event_replay'))
    );
  }

  /**
   * On resume: sends again the `run_started`/`run_result` frames written within `windowMs` before the drop was
   * noticed (a dead peer is noticed up to three heartbeat intervals late, and those frames may be lost), then
   * the frames kept while detached, oldest first.
   */
  replayOnResume(windowMs: number): void {
    const since = (this.detachedAt ?? Date.now()) - windowMs;
    const recent = this.#recent.filter((entry) => entry.at >= since).map((entry) => entry.frame);
    this.#recent.length = 0;
    const kept = this.#kept.splice(0);
    for (const frame of [...recent, ...kept]) this.send(frame);
  }
}

/** What {@link Session.cork} needs of the TCP socket under a `ws` WebSocket. */
interface TcpSocket {
  cork(): void;
  uncork(): void;
}

/** The TCP socket under `ws` (its `_socket`: `ws` has no public way to cork), when there is one. */
function tcpSocketOf(socket: WebSocket | undefined): TcpSocket | undefined {
  if (socket === undefined || socket.readyState !== socket.OPEN) return undefined;
  const raw = (socket as unknown as { _socket?: Partial<TcpSocket> | null })._socket;
  return typeof raw?.cork === 'function' && typeof raw.uncork === 'function' ? (raw as TcpSocket) : undefined;
}

function withoutStrict(tool: ToolDefinition): ToolDefinition {
  if (tool.strict === undefined) return tool;
  const { strict: _ignored, ...rest } = tool;
  return rest;
}
