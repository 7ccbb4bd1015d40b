/**
 * The write budget of one socket, against a service that stops reading. Every frame the client writes counts:
 * the bytes the socket reports as unsent (`bufferedAmount`) and the bytes written since the service last proved it
 * had read them (a `pong` to a ping sent after them), whichever is larger, since a socket may report nothing, always
 * 0, or late, and `ws` leaves out what the kernel holds. Answers held back here count too. A proof asked for and not
 * given within two heartbeat intervals drops the socket (see `Backpressure.proofTimeout`).
 *
 * - Over the soft limit (`highWaterMarkBytes`): answers that can wait are held, never queued without bound: one
 *   `pong` (to the latest `ping`; a pong answers the ping it names, and the newest is enough), the retryable
 *   "busy" results (one per call id, at most {@link MAX_HELD_ANSWERS}: one more drops the socket); `error` frames are not sent (only {@link ERROR_FRAMES_PER_INTERVAL} per
 *   {@link ERROR_FRAME_INTERVAL_MS} are sent in any case). Results wait in the outbox, which reads
 *   {@link Backpressure.pendingBytes}.
 * - Over the hard limit (`maxBufferedBytes`): the socket is dropped (reported as 1008, as the stub closes a client
 *   that stops reading) and the client resumes on a new one. The bytes of answers dropped or replaced while over
 *   the soft limit count towards it as if written: a service that keeps asking and never reads reaches it too.
 * - Over the service's frame rate (`welcome.maxFramesPerSecond`, `maxFrameBurst`; docs/protocol/limits.md): every
 *   frame counts, a token bucket as the service's own. A frame that finds no token, or frames already waiting,
 *   waits in order ({@link Backpressure.paces}) and goes out as tokens come back; its bytes count as pending, so
 *   writers that wait for room (the outbox, the call updates) wait for these too. A service that announced no rate
 *   is not paced, and a write then costs one comparison more.
 *
 * @module
 */
import { MAX_TIMEOUT_MS } from '../limits';
import { utf8Length } from '../utf8';
import { LATE_WAKE_MS } from './heartbeat';

/** The limits' defaults, in bytes (the client's `highWaterMarkBytes` and `maxBufferedBytes`). */
export const BACKPRESSURE_DEFAULTS = { highWaterMarkBytes: 1_048_576, maxBufferedBytes: 16_777_216 } as const;

/** `error` frames sent at most this many times per {@link ERROR_FRAME_INTERVAL_MS}; the rest are only counted. */
export const ERROR_FRAMES_PER_INTERVAL = 10;
/** The interval of {@link ERROR_FRAMES_PER_INTERVAL}, in milliseconds. */
export const ERROR_FRAME_INTERVAL_MS = 1_000;

/**
 * At most `limit` of something a peer can repeat at will per fixed interval of `intervalMs` (milliseconds, from the
 * first admitted after the last interval ended): invalid frames answered and logged here, the log lines of failures
 * the service caused (src/client/failure-log.ts). What is not admitted is the owner's to count and tell.
 */
export class IntervalBudget {
  #used = 0;
  #start = Number.NEGATIVE_INFINITY;

  constructor(
    readonly limit: number,
    readonly intervalMs: number,
  ) {}

  /** Start of the current interval, a reading of the clock `admit` is given (`-Infinity` before the first). */
  get start(): number {
    return this.#start;
  }

  /** Whether one more is admitted at `now` (milliseconds, a monotonic clock), counting it if so. */
  admit(now: number): boolean {
    if (now - this.#start >= this.intervalMs) {
      this.#start = now;
      this.#used = 0;
    }
    if (this.#used >= this.limit) return false;
    this.#used += 1;
    return true;
  }
}
/** Milliseconds between looks at a socket over the soft limit while answers are held. */
const HELD_RETRY_MS = 20;
/**
 * Retryable answers ("busy") held at most, one per call; one more drops the socket (as the hard limit does), and
 * the service offers again, on the resumed session, the calls it has no answer for: none is left unanswered.
 */
export const MAX_HELD_ANSWERS = 1_000;
/**
 * The share of the service's announced frame burst the client leaves unused (docs/protocol/limits.md): the service
 * meters frames as it reads them, and frames written at the rate may reach it bunched.
 */
export const FRAME_BURST_RESERVE = 0.25;
/** Frames written from the front of the paced list before it is cut (see `Backpressure.#flushPaced`). */
const COMPACT_PACED_AT = 1_024;
/** Unanswered pings remembered (a service that never answers would otherwise grow the list by one an interval). */
const MAX_PINGS = 64;

/** A retryable `tool_result` (the client is busy or shutting down), held until the socket has room. */
export interface HeldAnswer {
  callId: string;
  text: string;
}

/** What a {@link Backpressure} needs from its socket. */
export interface BackpressureOptions {
  /** Answers that can wait are held while more than this many bytes are pending. */
  softLimitBytes: number;
  /** Past this many bytes (pending, plus answers dropped while over the soft limit) the socket is dropped. */
  hardLimitBytes: number;
  /** `bufferedAmount` as the socket reports it (0 when it reports nothing). */
  reported(): number;
  /** The socket's own figure may be short: count the bytes written until a `pong` proves them read. */
  countsOwn: boolean;
  /** Milliseconds, for the rate of `error` frames. */
  now(): number;
  /** Writes one text frame (a held answer, or a probe ping), within the frame rate; `false` when the socket is gone. */
  write(text: string, type: 'pong' | 'tool_result' | 'ping'): boolean;
  /** Puts one frame that waited for the frame rate on the socket (not paced again); `false` when the socket is gone. */
  transmit(paced: PacedFrame): boolean;
  /**
   * Runs `fn` once the I/O already waiting has been read (the heartbeat clock's `afterIo`): a proof judged on a
   * late wake-up waits for it, as the heartbeat's verdict does. Left out: judged at once.
   */
  afterIo?(fn: () => void): void;
  /**
   * The hard limit was passed, or a proof of reading was not given in time: drop the socket (`reason`: the close
   * reason, `'the service is not reading'` when left out). Called once.
   */
  overflow(message: string, reason?: string): void;
}

/** A frame that waits for the service's frame rate: its text, its type, and the frame when a caller gave it. */
export class PacedFrame {
  declare readonly text: string;
  declare readonly type: string;
  declare readonly frame: object | undefined;

  constructor(text: string, type: string, frame: object | undefined) {
    this.text = text;
    this.type = type;
    this.frame = frame;
  }
}

/** One socket's write budget (see the module comment): what may be written now, what is held, when to drop. */
export class Backpressure {
  readonly #options: BackpressureOptions;
  /** Bytes written on this socket (counted only when `countsOwn`). */
  #written = 0;
  /** Bytes the service proved it read (a pong to a ping written after them). */
  #confirmed = 0;
  /** Pings written and not yet answered: id → bytes written up to and including it. Oldest first. */
  readonly #pings = new Map<string, number>();
  #pingSeq = 0;
  /**
   * The bytes a probe ping confirms once answered; a new probe waits for it. While the probe waits for the frame
   * rate, a count past every byte written (it confirms nothing yet), until it is on the socket.
   */
  #probeAt = -1;
  /** The id of the latest probe ping. */
  #probeId: string | undefined;
  /**
   * The service sent a `pong` without id while no ping of this socket waited for one: its id-less pongs come
   * unasked, so from then on they prove it alive (the heartbeat), not that it read what was written.
   */
  #pongsUnasked = false;
  /** The id of the latest `ping` while its `pong` is held (`null`: a ping without id); `undefined`: none held. */
  #heldPong: string | null | undefined;
  #heldPongBytes = 0;
  readonly #heldBusy = new Map<string, string>();
  #heldBusyBytes = 0;
  /** Bytes of answers dropped or replaced since the socket was last under the soft limit. */
  #withheld = 0;
  readonly #errorLines = new IntervalBudget(ERROR_FRAMES_PER_INTERVAL, ERROR_FRAME_INTERVAL_MS);
  /** Invalid frames not answered (rate limit or backpressure) since the last one answered. */
  #unanswered = 0;
  #stopped = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Milliseconds a probe ping may go unanswered (see `proofTimeout`); `undefined`: not judged yet. */
  #proofTimeoutMs: number | undefined;
  #proofTimer: ReturnType<typeof setTimeout> | undefined;
  #overflowed = false;
  /** The service's frame rate in frames per millisecond; 0: none announced, nothing paced. */
  #perMs = 0;
  #burst = 0;
  /** Frames the rate allows now (a token bucket of `#burst`), as of `#tokensAt` (`now()` time). */
  #tokens = 0;
  #tokensAt = 0;
  /** Frames waiting for the rate, in order; `#paced[#pacedAt]` next. */
  #paced: PacedFrame[] = [];
  #pacedAt = 0;
  #pacedBytes = 0;

  constructor(options: BackpressureOptions) {
    this.#options = options;
    // Each count a write reads is stored once more: V8 takes a field stored only once for a constant, and the first
    // pong (the first heartbeat, seconds in) or the first answer held would then throw away the optimised code of
    // every function that reads it, which each write of a call runs.
    this.#confirmed = 0;
    this.#withheld = 0;
    this.#heldPongBytes = 0;
    this.#heldBusyBytes = 0;
    this.#pacedBytes = 0;
    // The rate's fields take fractions once paced: a fraction stored first, so that `paceTo` does not change the
    // representation of a field every write reads (V8 would throw away that code once per process, as above).
    this.#perMs = 0.5;
    this.#perMs = 0;
    this.#tokens = 0.5;
    this.#tokens = 0;
    this.#tokensAt = 0.5;
    this.#tokensAt = 0;
  }

  /**
   * The service announced how fast it reads (`welcome.maxFramesPerSecond`, `maxFrameBurst`): from now on every frame
   * written counts against that rate. The bucket keeps {@link FRAME_BURST_RESERVE} of the burst unused, for frames
   * the network or the service's event loop bunches closer together than they were written; it starts full less the
   * `hello` already written, as the service's (which started at the upgrade, before this) took it.
   */
  paceTo(framesPerSecond: number, burst: number): void {
    this.#perMs = framesPerSecond / 1000;
    this.#burst = Math.max(1, burst - Math.floor(burst * FRAME_BURST_RESERVE));
    this.#tokens = this.#burst - 1;
    this.#tokensAt = this.#options.now();
  }

  /**
   * Keeps a frame to write (`text`, of `type`) when the frame rate has no room for it now, or others wait before it:
   * `true`, and it goes out in order as the rate allows ({@link BackpressureOptions.transmit}); `false`: write it
   * now (its token is taken).
   */
  paces(text: string, type: string, frame?: object): boolean {
    if (this.#perMs === 0) return false;
    if (this.#pacedAt === this.#paced.length && this.#take()) return false;
    this.#paced.push(new PacedFrame(text, type, frame));
    this.#pacedBytes += utf8Length(text);
    this.#check();
    this.#schedule(this.#nextTokenMs());
    return true;
  }

  /** Takes a token when the rate has one now. */
  #take(): boolean {
    const now = this.#options.now();
    const tokens = Math.min(this.#burst, this.#tokens + (now - this.#tokensAt) * this.#perMs);
    this.#tokensAt = now;
    if (tokens < 1) {
      this.#tokens = tokens;
      return false;
    }
    this.#tokens = tokens - 1;
    return true;
  }

  /** Milliseconds until the rate has a token again (at least 1). */
  #nextTokenMs(): number {
    return Math.max(1, Math.ceil((1 - this.#tokens) / this.#perMs));
  }

  /** Bytes the socket holds unread by the service, as best known, plus the answers held here. */
  get pendingBytes(): number {
    // `#unsent`, written out: read twice per frame written.
    const options = this.#options;
    const reported = options.reported();
    const unsent = options.countsOwn ? Math.max(reported, this.#written - this.#confirmed) : reported;
    return unsent + this.#heldPongBytes + this.#heldBusyBytes + this.#pacedBytes;
  }

  /** Bytes written on the socket and not yet read by the service, as best known: the held answers left out. */
  #unsent(): number {
    const reported = this.#options.reported();
    return this.#options.countsOwn ? Math.max(reported, this.#written - this.#confirmed) : reported;
  }

  /** Answers held here (a pong, busy results): for tests and figures. */
  get held(): number {
    return (this.#heldPong === undefined ? 0 : 1) + this.#heldBusy.size;
  }

  /**
   * A frame of `bytes` bytes (its text in UTF-8, as the socket counted it) was written. May drop the socket (see
   * {@link BackpressureOptions.overflow}).
   */
  wrote(bytes: number): void {
    const options = this.#options;
    if (options.countsOwn) {
      this.#written += bytes;
      // Ask for a proof of reading before the soft limit is reached, one at a time.
      if (this.#written - this.#confirmed >= options.softLimitBytes / 2 && this.#probeAt <= this.#confirmed) {
        // No probe from inside the probe's own write. A count past every byte written, not Infinity: a field that
        // held only small integers and takes a fraction would change the shape of this object, and V8 would throw
        // away the optimised code of every function that reads it (each write of a call).
        this.#probe();
      }
    }
    this.#check();
  }

  /**
   * A writer found no room while bytes it counted itself are unconfirmed: asks the service for a proof of reading
   * (a ping), unless one is already on its way. Without it, bytes below the probe's threshold would stay
   * unconfirmed for ever once nothing more is written, and a frame that needs them gone would never go.
   */
  askProof(): void {
    if (!this.#options.countsOwn || this.#written <= this.#confirmed || this.#probeAt > this.#confirmed)
      return;
    this.#probe();
  }

  /** Writes a heartbeat ping; its pong proves the bytes written before it read. */
  heartbeatPing(): void {
    this.#sendPing(this.#nextPingId());
  }

  /**
   * A `pong` from the service: everything written up to the ping it answers has been read. A `pong` without `id`
   * (docs/protocol/frames-service.md allows it) answers the oldest ping written and not yet answered: pings are
   * answered in order, so that one at least has been read (docs/protocol/lifecycle.md: a `pong` also answers every
   * earlier ping).
   */
  ponged(id: string | undefined): void {
    let key = id;
    if (key === undefined) {
      key = this.#oldestPing();
      // Unasked (a keep-alive of the service's own): it answers no ping, and later ones may not either.
      if (key === undefined) this.#pongsUnasked = true;
      if (key === undefined || this.#pongsUnasked) return;
    }
    const at = this.#pings.get(key);
    if (at === undefined) return;
    if (at > this.#confirmed) this.#confirmed = at;
    if (this.#proofTimer !== undefined && this.#probeAt <= this.#confirmed) {
      clearTimeout(this.#proofTimer);
      this.#proofTimer = undefined;
    }
    // Pings are answered in order: older ones will not be answered any more usefully.
    for (const [older] of this.#pings) {
      this.#pings.delete(older);
      if (older === key) break;
    }
    this.#flush();
  }

  /** The id of the oldest ping written and not yet answered. */
  #oldestPing(): string | undefined {
    for (const [key, at] of this.#pings) if (at >= 0) return key;
    return undefined;
  }

  /**
   * A probe ping (a proof of reading that writes wait for) unanswered for `ms` milliseconds drops the socket, as
   * the hard limit does: a service that reads but never answers, or answers only with other frames (which keep the
   * heartbeat content), would otherwise hold every write for ever. The connection sets it to two heartbeat
   * intervals once `welcome` announces one; until then no probe is judged.
   */
  proofTimeout(ms: number): void {
    // Two intervals of the longest heartbeat are past the longest timer: waited at most that long.
    this.#proofTimeoutMs = Math.min(ms, MAX_TIMEOUT_MS);
    if (this.#probeAt > this.#confirmed && this.#probeOnSocket()) this.#startProofTimer();
  }

  /** Whether the latest probe ping is on the socket (not waiting for the frame rate). */
  #probeOnSocket(): boolean {
    const id = this.#probeId;
    return id !== undefined && (this.#pings.get(id) ?? -1) >= 0;
  }

  /** Starts the wait for the probe's answer, from when the probe went on the socket. */
  #startProofTimer(): void {
    if (this.#proofTimer !== undefined || this.#overflowed || this.#proofTimeoutMs === undefined) return;
    const ms = this.#proofTimeoutMs;
    const dueAt = this.#options.now() + ms;
    this.#proofTimer = setTimeout(() => {
      this.#proofTimer = undefined;
      // A late wake-up means the process was busy, maybe with the pong waiting unread: judged once it is read.
      const { afterIo } = this.#options;
      if (afterIo !== undefined && this.#options.now() - dueAt > LATE_WAKE_MS)
        afterIo(() => this.#judgeProof(ms));
      else this.#judgeProof(ms);
    }, ms);
    // The proof timer alone does not keep the process alive (no-op in browsers).
    (this.#proofTimer as { unref?: () => void }).unref?.();
  }

  /** The probe's answer is `ms` late: drops the socket unless it came (or the socket is gone). */
  #judgeProof(ms: number): void {
    if (this.#overflowed || this.#probeAt <= this.#confirmed) return;
    const unproven = this.#written - this.#confirmed;
    const unasked = this.#pongsUnasked
      ? "; its pongs without id come unasked (a keep-alive), so they cannot prove it read what was written: a pong must answer a ping, with the ping's id"
      : '';
    this.stop();
    this.#options.overflow(
      `the service did not answer a ping in ${ms} ms: ${unproven} bytes written are not proven read, and writes wait for that proof${unasked}`,
      'the service did not answer a ping',
    );
  }

  /** A `ping` from the service: answered now if the socket has room, else its pong is held (one, the latest). */
  ping(id: string | undefined, text: string): void {
    const bytes = utf8Length(text);
    if (this.#heldPong === undefined && this.#heldBusy.size === 0 && this.#under()) {
      this.#options.write(text, 'pong');
      return;
    }
    if (this.#heldPong !== undefined) this.#withheld += this.#heldPongBytes;
    this.#heldPong = id ?? null;
    this.#heldPongBytes = bytes;
    this.#hold();
  }

  /**
   * A retryable result ("busy", "shutting down") for `callId`: written now if the socket has room, else held (one
   * per call). `true` when it was written or held.
   */
  busy(callId: string, text: string): boolean {
    if (this.#heldBusy.size === 0 && this.#under()) return this.#options.write(text, 'tool_result');
    const before = this.#heldBusy.get(callId);
    if (before !== undefined) {
      this.#heldBusyBytes -= utf8Length(before);
      this.#withheld += utf8Length(before);
    } else if (this.#heldBusy.size >= MAX_HELD_ANSWERS) {
      // One answer more than can be held: dropping it would leave its call unanswered until its deadline (its
      // bytes are far from the hard limit), so the socket goes now, and the service offers again, on the resumed
      // session, every call it has no answer for.
      if (!this.#overflowed) {
        this.stop();
        this.#options.overflow(
          `the service is not reading, and ${MAX_HELD_ANSWERS} "busy" answers wait to be written: one more cannot be held`,
        );
      }
      return true;
    }
    this.#heldBusy.set(callId, text);
    this.#heldBusyBytes += utf8Length(text);
    this.#hold();
    return true;
  }

  /** A result of `callId` that is not retryable goes out: a busy answer held for that call is obsolete. */
  answered(callId: string): void {
    if (this.#heldBusy.size === 0) return;
    const before = this.#heldBusy.get(callId);
    if (before === undefined) return;
    this.#heldBusy.delete(callId);
    this.#heldBusyBytes -= utf8Length(before);
  }

  /**
   * An invalid frame from the service is to be answered with an `error` frame of `bytes` bytes. Returns how many
   * invalid frames went unanswered before this one and whether this one is sent (to log with it): `send: false`
   * while the socket is over the soft limit (logged all the same: the log is how a user learns why, say, a pong
   * with a numeric id proves nothing); `undefined` when it is neither answered nor logged (over the rate of
   * {@link ERROR_FRAMES_PER_INTERVAL} a second).
   */
  mayAnswerError(bytes: number): { unanswered: number; send: boolean } | undefined {
    const logged = this.#errorLines.admit(this.#options.now());
    if (!this.#under()) {
      this.#unanswered += 1;
      this.#withheld += bytes;
      this.#check();
      return logged && !this.#overflowed ? { unanswered: this.#unanswered - 1, send: false } : undefined;
    }
    if (!logged) {
      this.#unanswered += 1;
      return undefined;
    }
    const before = this.#unanswered;
    this.#unanswered = 0;
    return { unanswered: before, send: true };
  }

  /** Invalid frames not answered since the last one logged: told with the next one, or when the socket closes. */
  get unanswered(): number {
    return this.#unanswered;
  }

  /** {@link Backpressure.stop} was called. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** The socket is gone: stop looking. Frames waiting for the rate go with it (their writers send them again). */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#proofTimer !== undefined) clearTimeout(this.#proofTimer);
    this.#proofTimer = undefined;
    this.#overflowed = true;
    this.#paced = [];
    this.#pacedAt = 0;
    this.#pacedBytes = 0;
  }

  #under(): boolean {
    const under = this.pendingBytes <= this.#options.softLimitBytes;
    if (under) this.#withheld = 0;
    return under;
  }

  #hold(): void {
    this.#check();
    this.#schedule(HELD_RETRY_MS);
  }

  /** Looks again (writes what waits) in `delayMs`, unless a look is already due. */
  #schedule(delayMs: number): void {
    if (this.#timer === undefined && !this.#overflowed) {
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#flush();
      }, delayMs);
      // Held answers alone do not keep the process alive (no-op in browsers).
      (this.#timer as { unref?: () => void }).unref?.();
    }
  }

  /** Writes the frames waiting for the rate while it has tokens; `false` when the socket is gone. */
  #flushPaced(): boolean {
    while (this.#pacedAt < this.#paced.length) {
      if (!this.#take()) {
        // A steady flow over the rate never drains the list: what was written leaves it now and then.
        if (this.#pacedAt >= COMPACT_PACED_AT) {
          this.#paced = this.#paced.slice(this.#pacedAt);
          this.#pacedAt = 0;
        }
        this.#schedule(this.#nextTokenMs());
        return true;
      }
      const next = this.#paced[this.#pacedAt] as PacedFrame;
      this.#pacedAt += 1;
      this.#pacedBytes -= utf8Length(next.text);
      if (!this.#options.transmit(next) || this.#overflowed) return false;
      if (next.type === 'ping') this.#pingWent((JSON.parse(next.text) as { id: string }).id);
    }
    this.#paced = [];
    this.#pacedAt = 0;
    return true;
  }

  /**
   * Writes the held answers (the pong first) while the socket has room; looks again later if some remain. Room is
   * judged on the bytes written and unread alone, as for an answer written at once: the other held answers are
   * not in the socket, and counting them would keep a backlog larger than the soft limit held for ever.
   */
  #flush(): void {
    if (this.#overflowed) return;
    // Frames waiting for the rate were written before any answer held now: they go first.
    if (!this.#flushPaced()) return;
    const soft = this.#options.softLimitBytes;
    if (this.#heldPong !== undefined && this.#unsent() <= soft) {
      const id = this.#heldPong;
      this.#heldPong = undefined;
      this.#heldPongBytes = 0;
      if (!this.#options.write(JSON.stringify(id === null ? { type: 'pong' } : { type: 'pong', id }), 'pong'))
        return;
    }
    for (const [callId, text] of this.#heldBusy) {
      if (this.#heldPong !== undefined || this.#overflowed || this.#unsent() > soft) break;
      this.#heldBusy.delete(callId);
      this.#heldBusyBytes -= utf8Length(text);
      if (!this.#options.write(text, 'tool_result')) return;
    }
    if (this.held > 0) this.#hold();
    else this.#under();
  }

  /** Drops the socket once pending bytes, plus answers dropped while over the soft limit, pass the hard limit. */
  #check(): void {
    if (this.#overflowed) return;
    const pending = this.pendingBytes;
    const hard = this.#options.hardLimitBytes;
    if (pending + this.#withheld <= hard) return;
    this.stop();
    const withheld = this.#withheld > 0 ? ` and ${this.#withheld} bytes of answers it was owed` : '';
    this.#options.overflow(
      `the service is not reading: ${pending} bytes unread${withheld}, over maxBufferedBytes (${hard})`,
    );
  }

  /** Asks the service for a proof of reading: a ping whose pong writes wait for, judged ({@link proofTimeout}). */
  #probe(): void {
    const id = this.#nextPingId();
    this.#probeId = id;
    // A count past every byte written, not Infinity (a fraction would change the field's representation, and V8
    // would throw away the optimised code of every write that reads it): no second probe from inside this one's
    // write, nor while it waits for the frame rate. Set to what it confirms once it is on the socket (#pingWent).
    this.#probeAt = this.#written + 1;
    if (!this.#sendPing(id)) this.#probeAt = -1;
  }

  #nextPingId(): string {
    const id = String(++this.#pingSeq);
    this.#remember(id);
    return id;
  }

  /** Writes ping `id`: on the socket now, or in turn when it waits for the frame rate; `false` when the socket is gone. */
  #sendPing(id: string): boolean {
    const text = JSON.stringify({ type: 'ping', id });
    if (!this.#options.write(text, 'ping')) return false;
    const paced = this.#paced;
    if (this.#pacedAt < paced.length && paced[paced.length - 1]?.text === text) return true;
    this.#pingWent(id);
    return true;
  }

  /**
   * Ping `id` is on the socket: its pong will prove every byte written so far read (`write` came back through
   * `wrote`, which counted the ping); a probe's wait for its answer starts now.
   */
  #pingWent(id: string): void {
    if (!this.#pings.has(id)) return;
    this.#pings.set(id, this.#written);
    if (id !== this.#probeId || this.#overflowed) return;
    this.#probeAt = this.#written;
    this.#startProofTimer();
  }

  #remember(id: string): void {
    this.#pings.set(id, -1);
    if (this.#pings.size > MAX_PINGS) {
      const oldest = this.#pings.keys().next().value;
      if (oldest !== undefined) this.#pings.delete(oldest);
    }
  }
}
