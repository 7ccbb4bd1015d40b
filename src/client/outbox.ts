/**
 * `Outbox`: the result of every finished call, kept until the service acks it. Results are written at once when
 * the socket can take them, held while its buffer is over `highWaterMarkBytes`, and written again once on each
 * new socket. Also builds the `tool_result` frame: redacted, and cut to the service's `maxPayloadBytes`. It counts
 * the bytes it holds: past `maxOutboxBytes` it is {@link Outbox.full}, and the client takes no new call. The
 * content parts of a result are fitted to the frame first (`fitContent`), then the outbox.
 *
 * After a reconnect, results go first, at the pace the socket drains: each is preceded only by what the call
 * updates keep of its own call (its events, steps and latest updates, {@link OutboxOptions.lead}), since the
 * service ignores the updates of a call it has the result of; the updates of calls still running wait until the
 * results are written (./call-updates.ts). Nothing is written past `highWaterMarkBytes`, so a backlog larger
 * than `maxBufferedBytes` goes out in turns instead of getting the socket dropped again on every reconnect.
 *
 * @module
 */
import type { ToolCallResult, WidgetInvalidInfo } from '../call/types';
import type { Logger, Redactor } from '../logger';
import { redactOutput } from '../redact';
import { type ContentPart, redactedPart } from '../tool/content';
import { undeliverableText } from '../tool/model-text';
import { base64Bytes, toWellFormed, truncateJsonString } from '../tool/output';
import { jsonStringBytes } from '../utf8';
import { frameBytes as encodedBytes, encodeFrame } from '../wire/codec';
import { type ClientFrame, type FrameOf, RESULT_PART_TYPES, utf8Length } from '../wire/protocol';
import type { ToolCallFrame } from './execution';
import { addResultPart, type ResultPartFrame } from './result-parts';

/*
 * Content parts of a result made to fit the service's frame limit (docs/protocol/call-context.md): redacted, then the
 * largest
 * parts replaced by a text that says what was left out, until the `tool_result` fits; never a frame the service
 * would close the socket for.
 */
/** What a part left out is called in the text that replaces it. */
function described(part: ContentPart): string {
  switch (part.type) {
    case 'image':
      return `image ${part.mediaType} of ${base64Bytes(part.data).toLocaleString('en-US')} bytes`;
    case 'file':
      return `file${part.filename === undefined ? '' : ` ${part.filename}`} (${part.mediaType}) of ${base64Bytes(part.data).toLocaleString('en-US')} bytes`;
    case 'json':
      return 'JSON part';
    case 'text':
      return 'text part';
  }
}

/**
 * The parts to send with `frame` (its output and widget already set): redacted (text, JSON, a file's name and
 * type; an image or file whose bytes hold a secret as a text part of the replacement), and within `maxPayloadBytes` with the frame, or `undefined` when even the
 * parts' replacements do not fit (the output then carries everything there is to read).
 */
export function fitContent(
  frame: FrameOf<ClientFrame, 'tool_result'>,
  parts: readonly ContentPart[],
  maxPayloadBytes: number,
  redactor: Redactor,
): ContentPart[] | undefined {
  const content = parts.map((part) => redactedPart(part, redactor));
  const size = () => utf8Length(encodeFrame({ ...frame, content }));
  if (size() <= maxPayloadBytes) return content;
  const largestFirst = content
    .map((part, index) => ({ index, bytes: part.type === 'text' ? 0 : utf8Length(JSON.stringify(part)) }))
    .filter((entry) => entry.bytes > 0)
    .sort((a, b) => b.bytes - a.bytes);
  for (const { index } of largestFirst) {
    const part = content[index] as ContentPart;
    content[index] = {
      type: 'text',
      text: `[${described(part)} not sent: the result would be over the service's limit of ${maxPayloadBytes.toLocaleString('en-US')} bytes]`,
    };
    if (size() <= maxPayloadBytes) return content;
  }
  return undefined;
}

/** A `tool_result` frame as the outbox holds it until its ack. */
export type ToolResultFrame = FrameOf<ClientFrame, 'tool_result'>;

/** The part of the socket the call runner writes to (the client's `Connection`). */
export interface CallSocket {
  /** Sends a frame; `false` when it was not sent (the socket is not open, or the frame is too large). */
  send(frame: ClientFrame): boolean;
  readonly writable: boolean;
  /** Bytes queued on the socket and not yet written to the network. */
  readonly bufferedAmount: number;
  /** The largest frame sent, in bytes: the service's limit, or the client's `maxBufferedBytes` when smaller. */
  readonly maxPayloadBytes: number;
  /** A writer found no room: ask the service to prove it read what was written (a socket counting its own bytes). */
  askProof?(): void;
}

/** Dependencies of an {@link Outbox}. */
export interface OutboxOptions {
  socket: CallSocket;
  /** Results are held (not written) while the socket buffers more than this many bytes. */
  highWaterMarkBytes: number;
  /**
   * The socket is dropped past this many bytes unread (backpressure.ts): a result is held while it would take the
   * socket past it, unless the socket is empty (a result is never larger). No such wait when absent.
   */
  maxBufferedBytes?: number;
  /** The outbox is {@link Outbox.full} while its results take this many bytes or more. @default Infinity */
  maxBytes?: number;
  redactor: Redactor;
  /** Told when a widget is dropped because the result with it would be over the service's limit. */
  widgetInvalid(info: WidgetInvalidInfo): void;
  /** `true` while the service takes content parts beside `output` (feature `content`, docs/protocol/call-context.md). */
  takesContent?(): boolean;
  /** Told (`warn`) of each held result cut again to a smaller limit after a resume. */
  logger?: Pick<Logger, 'warn'>;
  /**
   * The frames of a call that must reach the service before its result, in order: on a new socket (`all`) every
   * one the call updates keep of it; else those still waiting for room (they leave the updates' queue). None when
   * absent.
   */
  lead?(callId: string, all: boolean): readonly ClientFrame[];
}

/**
 * `true` when `socket` may take a frame of `bytes` bytes now: it is over neither `highWaterMarkBytes` nor, with
 * the frame, `maxBufferedBytes` (unless it is empty: a frame is never larger). Also `true` when the socket is
 * not open: the write then fails, and the frame goes again on the next socket.
 */
export function hasRoom(
  socket: Pick<CallSocket, 'writable' | 'bufferedAmount'>,
  bytes: number,
  highWaterMarkBytes: number,
  maxBufferedBytes = Number.POSITIVE_INFINITY,
): boolean {
  if (!socket.writable) return true;
  const buffered = socket.bufferedAmount;
  return buffered <= highWaterMarkBytes && (buffered === 0 || buffered + bytes <= maxBufferedBytes);
}

/**
 * A `tool_result` frame as the outbox makes it (a class: see {@link HeldResult}), with every field it may get in their
 * order on the wire, `undefined` until set (`JSON.stringify` leaves those out): one hidden class for every result.
 */
class ResultFrame implements ToolResultFrame {
  declare readonly type: 'tool_result';
  declare readonly callId: string;
  declare readonly status: ToolResultFrame['status'];
  declare output: string;
  declare readonly durationMs: number | undefined;
  declare widget: ToolResultFrame['widget'];
  declare content: ToolResultFrame['content'];
  declare result: ToolResultFrame['result'];

  constructor(
    callId: string,
    status: ToolResultFrame['status'],
    output: string,
    durationMs: number | undefined,
  ) {
    this.type = 'tool_result';
    this.callId = callId;
    this.status = status;
    this.output = output;
    this.durationMs = durationMs;
    this.widget = undefined;
    this.content = undefined;
    this.result = undefined;
  }
}

/**
 * The frame of a {@link HeldResult} not yet filled in (never sent, never read: `add` sets the frame first), and of
 * one no longer held (acked or dropped: the outbox lets go of its frame).
 */
const NO_FRAME: ToolResultFrame = new ResultFrame('', 'ok', '', 0);

/**
 * One result waiting for its `ack`, with what the outbox keeps of its call: a `tool_call` of its ids, tool and
 * small arguments (the texts and the log lines about the result name them; a re-delivery's arguments are compared
 * with them), and the socket generation the result was last written on (`-1`: not yet).
 *
 * Made by the call runner where a call ends (src/client/calls.ts `finished`), and filled in by {@link Outbox.add}:
 * one object for the call and its result. Made there rather than in `add`: V8 inlines `add` into `finished`, with
 * that function's inlining budget spent by the time it reaches a constructor inside `add`, which then goes through
 * V8's generic construct (~300 instructions a call); made in `finished` itself, it is inlined among the first.
 *
 * A class, as {@link ResultFrame}: V8 notes where each object literal is made, and once most objects of a place
 * outlive a young-generation collection (results held until their ack while calls are many in flight) it makes that
 * place's objects in the old generation from then on, throwing away the optimised code that makes them, once per
 * process between its 10,000th and 20,000th calls; the results of lone calls then become old-generation garbage.
 * The instances of a class are always made young.
 */
export class HeldResult implements ToolCallFrame {
  /**
   * A result held by the class, never sent: it keeps the hidden classes of held results and of {@link ResultFrame}s,
   * and so the optimised code of the result path, while the outbox holds none. A full collection while no result
   * waits for its ack (an idle client) would free them and throw that code away, as for calls (src/client/calls.ts
   * `ClientExecution.kept`).
   */
  static readonly kept: HeldResult = new HeldResult('', '', '', undefined);
  declare readonly type: 'tool_call';
  declare readonly callId: string;
  declare readonly runId: string;
  declare readonly toolName: string;
  /** The call's arguments when small enough to keep (src/client/held-arguments.ts `keptOf`). */
  declare readonly arguments: unknown;
  /** The result's frame: set by {@link Outbox.add}. */
  declare frame: ToolResultFrame;
  declare sentOn: number;
  /** `frame` is already the error result that replaced one that could not be sent. */
  declare replaced: boolean;
  /** The size of `frame` as sent, in bytes (see {@link frameBytes}). */
  declare bytes: number;
  /** Frames of the call to write before `frame` on this socket ({@link OutboxOptions.lead}); `lead[leadAt]` next. */
  declare lead: readonly ClientFrame[] | undefined;
  declare leadAt: number;
  /**
   * Its call's number among the finished ids (src/client/finished-ids.ts `FinishedIds.add`): whether they still
   * remember it.
   */
  declare readonly finishedAs: number;

  // Fields are declared only and set here: no field initializer runs per result.
  constructor(callId: string, runId: string, toolName: string, args: unknown, finishedAs = 0) {
    this.type = 'tool_call';
    this.callId = callId;
    this.runId = runId;
    this.toolName = toolName;
    this.arguments = args;
    this.frame = NO_FRAME;
    this.sentOn = -1;
    this.replaced = false;
    this.bytes = 0;
    this.lead = undefined;
    this.leadAt = 0;
    this.finishedAs = finishedAs;
  }
}

/** `entry` is held: added, and neither acked nor dropped since. */
const isHeld = (entry: HeldResult | undefined): entry is HeldResult =>
  entry !== undefined && entry.frame !== NO_FRAME;

/** Places before an outbox's oldest result and results no longer held, past which its queue is compacted. */
const MIN_COMPACTED = 32;

/** `[null,null,{"type":` and `}]`: the JSON of a result part of its kind alone, around the kind's string. */
const KIND_PART_BYTES = 21;

/**
 * For each of the protocol's result kinds, the bytes of its part alone, counted once (a frame per call counted
 * them again: ~250 instructions). An object that inherits nothing, as src/wire/codec.ts's tables: a kind it does not
 * hold reads `undefined`, and only a number is taken.
 */
const KIND_PART_SIZES: Readonly<Record<string, unknown>> = Object.setPrototypeOf(
  Object.fromEntries(RESULT_PART_TYPES.map((kind) => [kind, KIND_PART_BYTES + jsonStringBytes(kind)])),
  null,
);

/** The bytes of a result part of kind `kind` alone. */
function kindPartBytes(kind: string): number {
  const known = KIND_PART_SIZES[kind];
  return typeof known === 'number' ? known : KIND_PART_BYTES + jsonStringBytes(kind);
}

/**
 * The size of a `tool_result` frame as sent, in UTF-8 bytes: its output's JSON exactly, a widget's and content's
 * JSON when present, and the rest of the frame counted at its largest (106 bytes and 6 per unit of the call id).
 */
function frameBytes(frame: ToolResultFrame): number {
  let bytes = jsonStringBytes(frame.output) + 106 + 6 * frame.callId.length;
  const { widget, content, result } = frame;
  if (widget === undefined && content === undefined) {
    // A plain result's part is its kind alone: `[null,null,{"type":…}]` counted without building it.
    if (result !== undefined)
      bytes +=
        result.value === undefined
          ? kindPartBytes(result.type)
          : utf8Length(JSON.stringify([widget, content, result]));
  } else bytes += utf8Length(JSON.stringify([widget, content, result]));
  return bytes;
}

/** What {@link Outbox.unsendable} did with a result that cannot be sent. */
export type Unsendable = 'replaced' | 'dropped' | 'not held';

/** Milliseconds between looks at a socket whose buffer was over `highWaterMarkBytes`. */
const BACKPRESSURE_RETRY_MS = 5;

/**
 * Room kept for the rest of a `tool_result` (or `tool_preliminary`) frame when capping `output`, in bytes: the
 * output's JSON takes at most `maxPayloadBytes` minus this (or minus the actual envelope, when a long call id makes
 * it larger).
 */
export const ENVELOPE_BYTES = 512;

export class Outbox {
  readonly #options: OutboxOptions;
  /**
   * The results held, in the order they were added, from {@link Outbox.#head} to {@link Outbox.#tail} (every other
   * place is `undefined`): they are written in this order, and the service acks them in the order it reads them, so
   * an ack nearly always names the oldest, found by comparing its call id (a string the ack's `JSON.parse` made, never
   * hashed). A result acked or dropped out of order stays in its place, no longer held (its frame `NO_FRAME`), until
   * the oldest passes it or the queue is compacted ({@link Outbox.#forget}). The array is never shortened (its
   * `length` setter is a runtime call, and the next result would grow it again): compacted, it stays within about
   * twice the most results held at once (or twice {@link MIN_COMPACTED}).
   */
  readonly #queue: (HeldResult | undefined)[] = [];
  #head = 0;
  #tail = 0;
  #size = 0;
  /**
   * The results by call id, for the questions that do not come in order (an ack for a result other than the
   * oldest, a re-delivered call, `statusOf`, `unsendable`): made at the first, holding the queue's results up to
   * {@link Outbox.#indexed}, filled further when asked about an id it does not hold, and dropped when the queue is
   * compacted, so that each result is indexed at most once between compactions. A result added and acked in order
   * never touches it.
   */
  #index: Map<string, HeldResult> | undefined;
  /** The place in the queue up to which {@link Outbox.#index} holds the results. */
  #indexed = 0;
  /** The error result {@link Outbox.unsendable} dropped last: `add` returns it for a result dropped as it is written. */
  #dropped: ToolResultFrame | undefined;
  /** Walks of the queue under way (a flush): meanwhile it is not compacted. */
  #walks = 0;
  /** Counts sockets: an entry is written once per generation. */
  #generation = 0;
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** Some entry may not be written on the current socket yet (a flush stopped early). */
  #backlog = false;
  /** The service's limit the held results were cut to. */
  #cutTo: number;
  /** Bytes of every result held (the sum of the entries' `bytes`). */
  #bytes = 0;
  /** Bytes kept beside the results (see {@link Outbox.keep}). */
  #kept = 0;

  constructor(options: OutboxOptions) {
    this.#options = options;
    this.#cutTo = options.socket.maxPayloadBytes;
  }

  /** Results not yet acknowledged by the service. */
  get size(): number {
    return this.#size;
  }

  /** The oldest result held, if any. */
  get oldest(): HeldResult | undefined {
    return this.#size === 0 ? undefined : this.#queue[this.#head];
  }

  /** Bytes of the results not yet acknowledged, as sent. */
  get bytes(): number {
    return this.#bytes;
  }

  /** Some result waits to be written on this socket (held for room): what else is to be sent waits behind it. */
  get waiting(): boolean {
    return this.#backlog || this.#flushTimer !== undefined;
  }

  /**
   * Bytes kept beside the results, to be sent again before them on a new socket (the events, step results and latest
   * preliminary result of their calls; negative: fewer): counted with the results against `maxBytes`.
   */
  keep(bytes: number): void {
    this.#kept += bytes;
  }

  /** The results held, with what is kept beside them, take `maxBytes` or more: no new call is taken until acks free room. */
  get full(): boolean {
    return this.#bytes + this.#kept >= (this.#options.maxBytes ?? Number.POSITIVE_INFINITY);
  }

  /**
   * Writes the result of `held`'s call, and keeps it in `held` (the call runner's, made for this result) until
   * {@link Outbox.ack}. Returns the result's frame (its `output` is what the model reads). `updated`: the call sent
   * updates (events, progress, steps), some of which may still wait to go before its result; a call that sent none
   * is not asked about. `wellFormed`: the result's output holds no lone surrogate (not scanned again).
   */
  add(
    held: HeldResult,
    result: ToolCallResult,
    durationMs: number,
    part?: ResultPartFrame,
    updated = false,
    wellFormed = false,
  ): ToolResultFrame {
    const resultFrame = this.#resultFrame(held, result, durationMs, wellFormed);
    // The result's kind (feature `result_parts`), when the frame has room for it (./result-parts.ts).
    if (part !== undefined) addResultPart(resultFrame, part, this.#options.socket.maxPayloadBytes);
    const lead = updated ? this.#options.lead?.(held.callId, false) : undefined;
    const entry = held;
    entry.frame = resultFrame;
    entry.lead = lead?.length ? lead : undefined;
    this.#enqueue(entry);
    this.#resize(entry);
    // Nothing older waits to be written: write this one alone rather than walk the outbox.
    if (this.#backlog || this.#flushTimer !== undefined || !this.#write(entry)) this.flush();
    // Compared here, not through `isHeld`: a plain call's path enters no function more, and `add` stays small.
    const { frame } = entry;
    return frame !== NO_FRAME ? frame : this.#lastFrame(entry, resultFrame);
  }

  /**
   * The frame `entry` last had, let go of as `add` wrote it: the error result that replaced it when the socket
   * refused that too ({@link Outbox.unsendable} dropped it), else `made` (acked at once).
   */
  #lastFrame(entry: HeldResult, made: ToolResultFrame): ToolResultFrame {
    const dropped = this.#dropped;
    this.#dropped = undefined;
    return dropped?.callId === entry.callId ? dropped : made;
  }

  /**
   * The service asked again for a call whose result is held here (a re-delivered `tool_call`): the result is
   * written again, on this socket too. `false` when no result of that call is held.
   */
  resend(callId: string): boolean {
    const held = this.#find(callId);
    if (held === undefined) return false;
    held.sentOn = -1;
    // Nothing else waits to be written: this one alone, rather than a walk of the outbox for each call re-delivered.
    if (this.waiting || !this.#write(held)) this.flush();
    return true;
  }

  /** The `tool_call` frame of the call whose result is held here, if one is. */
  callOf(callId: string): ToolCallFrame | undefined {
    return this.#find(callId);
  }

  /** The status of the result held for `callId`, waiting for its ack; `undefined` when none is. */
  statusOf(callId: string): ToolResultFrame['status'] | undefined {
    return this.#find(callId)?.frame.status;
  }

  /** The service has the result, or will never take it: forget it. */
  ack(callId: string): void {
    const oldest = this.oldest;
    this.#forget(oldest !== undefined && oldest.callId === callId ? oldest : this.#find(callId));
  }

  /**
   * A new socket is open: every result held is written again, once. A service that now takes smaller frames (a
   * resumed session's `welcome` may say so) gets the held results cut again to its new limit.
   */
  reconnected(): void {
    this.#generation += 1;
    const limit = this.#options.socket.maxPayloadBytes;
    if (limit < this.#cutTo) {
      for (const entry of this.#held()) {
        // A result part is left out of a result cut again (its value would not fit either).
        const { callId, status, output, durationMs, widget, content } = entry.frame;
        const before = utf8Length(encodeFrame(entry.frame));
        if (before <= limit) continue;
        const cut = new ResultFrame(callId, status, output, durationMs);
        entry.frame = this.#withContent(this.#fit(cut, entry, widget), content);
        this.#resize(entry);
        // The call id, the tool and the sizes only: never the output, which may hold what redaction missed.
        this.#options.logger?.warn(
          {
            callId: entry.callId,
            toolName: entry.toolName,
            bytes: before,
            cutToBytes: utf8Length(encodeFrame(entry.frame)),
            maxPayloadBytes: limit,
          },
          `the result of ${entry.toolName} (call ${entry.callId}) waiting for its ack is ${before} bytes, over the resumed session's limit of ${limit}; it was cut to fit`,
        );
      }
    }
    this.#cutTo = limit;
    if (this.#options.lead !== undefined) {
      for (const entry of this.#held()) {
        const lead = this.#options.lead(entry.callId, true);
        entry.lead = lead.length > 0 ? lead : undefined;
        entry.leadAt = 0;
      }
    }
    // A flush stopped early on the old socket is done with: this one starts from the first result.
    this.dispose();
    this.flush();
  }

  /**
   * `frame` will never go out as it is (over the service's limit, or the socket threw on it). The first time, the
   * call's result is replaced by an `error` result saying so (`code`: the failure's `ConnectionError` code); when
   * that replacement cannot be sent either, it is dropped. Returns what was done.
   */
  unsendable(frame: ToolResultFrame, code: string): Unsendable {
    const entry = this.#find(frame.callId);
    if (entry === undefined || entry.frame !== frame) return 'not held';
    if (entry.replaced) {
      // Dropped while `add` writes it: `add` returns this replacement, as the result's last frame.
      this.#dropped = frame;
      this.ack(frame.callId);
      return 'dropped';
    }
    entry.frame = new ResultFrame(
      frame.callId,
      'error',
      undeliverableText(entry.toolName, code),
      frame.durationMs,
    );
    entry.replaced = true;
    entry.sentOn = -1;
    this.#resize(entry);
    return 'replaced';
  }

  /** Writes results not yet written on the current socket, in order, while the socket's buffer has room. */
  flush(): void {
    if (this.#flushTimer !== undefined) return;
    this.#backlog = true;
    // Live: a result acked meanwhile (a refused frame may drop one) is not written, one added meanwhile is.
    const queue = this.#queue;
    this.#walks += 1;
    try {
      for (let at = this.#head; at < this.#tail; at++) {
        const entry = queue[at];
        if (!isHeld(entry) || entry.sentOn === this.#generation) continue;
        if (!this.#write(entry)) return;
      }
    } finally {
      this.#walks -= 1;
    }
    this.#backlog = false;
  }

  /** Stops the backpressure timer. */
  dispose(): void {
    if (this.#flushTimer !== undefined) clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
  }

  /**
   * The client closed: stops the backpressure timer and lets go of every result still held, none of which can be
   * acknowledged any more. Returns their call ids, oldest first.
   */
  close(): string[] {
    this.dispose();
    const held = this.#held();
    for (const entry of held) this.#forget(entry);
    return held.map((entry) => entry.callId);
  }

  /**
   * Puts `entry` last, not looked for first: the runner holds one result per call id at most (a call answered here is
   * never run again). A method of its own: V8 inlines `add` into the call runner's `finished` only while `add` stays
   * small (see {@link HeldResult}).
   */
  #enqueue(entry: HeldResult): void {
    this.#queue[this.#tail] = entry;
    this.#tail += 1;
    this.#size += 1;
  }

  /** The results held, oldest first. */
  #held(): HeldResult[] {
    return this.#queue.slice(this.#head, this.#tail).filter(isHeld);
  }

  /**
   * The result held for `callId`, if any, through the index ({@link Outbox.#index}): the results added since it
   * was last filled are indexed when it has none held for that id.
   */
  #find(callId: string): HeldResult | undefined {
    if (this.#size === 0) return undefined;
    let index = this.#index;
    if (index === undefined) {
      index = new Map();
      this.#index = index;
    }
    const found = index.get(callId);
    if (isHeld(found)) return found;
    const queue = this.#queue;
    const tail = this.#tail;
    if (this.#indexed === tail) return undefined;
    for (let at = Math.max(this.#indexed, this.#head); at < tail; at++) {
      const entry = queue[at];
      if (isHeld(entry)) index.set(entry.callId, entry);
    }
    this.#indexed = tail;
    const added = index.get(callId);
    return isHeld(added) ? added : undefined;
  }

  /**
   * Lets go of `entry`, held (none when `undefined`). The places before the oldest result still held are emptied;
   * the queue is made again of the results held when it has more places that hold none than results (and at least
   * {@link MIN_COMPACTED}), so that each place is copied at most once for each place freed, and a service that never
   * acks the oldest result keeps no more than twice the places of what it holds.
   */
  #forget(entry: HeldResult | undefined): void {
    if (entry === undefined) return;
    this.#bytes -= entry.bytes;
    this.#size -= 1;
    entry.frame = NO_FRAME;
    entry.lead = undefined;
    const queue = this.#queue;
    const tail = this.#tail;
    let head = this.#head;
    while (head < tail && !isHeld(queue[head])) queue[head++] = undefined;
    this.#head = head;
    const size = this.#size;
    if (this.#walks > 0 || (size > 0 && tail - size < Math.max(size, MIN_COMPACTED))) return;
    let to = 0;
    for (let at = head; at < tail; at++) {
      const held = queue[at];
      queue[at] = undefined;
      if (isHeld(held)) queue[to++] = held;
    }
    this.#head = 0;
    this.#tail = to;
    this.#index = undefined;
    this.#indexed = 0;
  }

  /** Counts `entry` again after its frame changed. */
  #resize(entry: HeldResult): void {
    const bytes = frameBytes(entry.frame);
    this.#bytes += bytes - entry.bytes;
    entry.bytes = bytes;
  }

  /**
   * Writes one entry if the socket can take it now, after the frames of its call that go first; `false` when it
   * cannot (a flush retries later).
   */
  #write(entry: HeldResult): boolean {
    const { socket, highWaterMarkBytes, maxBufferedBytes } = this.#options;
    if (!socket.writable) return false;
    const lead = entry.lead;
    if (lead !== undefined) {
      while (entry.leadAt < lead.length) {
        const next = lead[entry.leadAt] as ClientFrame;
        if (!hasRoom(socket, encodedBytes(next), highWaterMarkBytes, maxBufferedBytes)) return this.#later();
        if (!socket.send(next) && !socket.writable) return false;
        entry.leadAt += 1;
      }
      entry.lead = undefined;
    }
    if (!hasRoom(socket, entry.bytes, highWaterMarkBytes, maxBufferedBytes)) return this.#later();
    const { frame } = entry;
    if (socket.send(frame)) entry.sentOn = this.#generation;
    // Refused as it was and replaced meanwhile (see unsendable): the replacement goes out now, if it can.
    else if (entry.frame !== frame && isHeld(entry) && socket.writable) {
      if (socket.send(entry.frame)) entry.sentOn = this.#generation;
    }
    return true;
  }

  /** Looks again in a moment (the socket's buffer is over its limit); `false`, for {@link Outbox.#write}. */
  #later(): false {
    this.#options.socket.askProof?.();
    this.#flushTimer ??= setTimeout(() => {
      this.#flushTimer = undefined;
      this.flush();
    }, BACKPRESSURE_RETRY_MS);
    return false;
  }

  #resultFrame(
    frame: ToolCallFrame,
    result: ToolCallResult,
    durationMs: number,
    wellFormed: boolean,
  ): ToolResultFrame {
    const { redactor } = this.#options;
    const out: ToolResultFrame = new ResultFrame(frame.callId, result.status, '', durationMs);
    // Redact first, then cut: a cut through a secret would leave a piece of it that no rule matches.
    // A JSON output stays JSON: a secret is replaced inside its values (`redactOutput`, src/redact.ts).
    const { output } = result;
    const redacted = redactOutput(redactor, output);
    // An output known well-formed and left as it was is not scanned again.
    out.output = wellFormed && redacted === output ? output : toWellFormed(redacted);
    const widget = result.widget === undefined ? undefined : redactor.value(result.widget);
    return this.#withContent(this.#fit(out, frame, widget), result.content);
  }

  /** Cuts `out`'s output to the service's limit, and adds `widget` (already redacted) if the frame has room. */
  #fit(out: ToolResultFrame, frame: ToolCallFrame, widget: unknown): ToolResultFrame {
    const { socket } = this.#options;
    // The cut counts JSON escapes, so the frame fits the service's limit whatever the text holds.
    // The frame without its output is at most 105 bytes plus 6 per unit of the call id: with an id of up to 64
    // units it is within ENVELOPE_BYTES, and need not be measured.
    const envelope = frame.callId.length <= 64 ? 0 : utf8Length(encodeFrame({ ...out, output: '' })) - 2;
    const budget = Math.max(2, socket.maxPayloadBytes - Math.max(ENVELOPE_BYTES, envelope));
    out.output = truncateJsonString(out.output, budget);
    if (widget !== undefined) {
      out.widget = widget as ToolResultFrame['widget'];
      const size = utf8Length(JSON.stringify(out));
      if (size > socket.maxPayloadBytes) {
        out.widget = undefined;
        this.#options.widgetInvalid({
          toolName: frame.toolName,
          callId: frame.callId,
          path: 'widget',
          message: `the result with its widget is ${size} bytes, over the service's limit of ${socket.maxPayloadBytes}; the widget was dropped`,
        });
      }
    }
    return out;
  }

  /** Adds the result's content parts when the service takes them, fitted to what the frame leaves room for. */
  #withContent(out: ToolResultFrame, parts: ToolCallResult['content']): ToolResultFrame {
    if (parts === undefined || this.#options.takesContent?.() !== true) return out;
    const content = fitContent(out, parts, this.#options.socket.maxPayloadBytes, this.#options.redactor);
    if (content !== undefined) out.content = content;
    return out;
  }
}
