/**
 * Frames to and from text. In order:
 * - the informative fields of each frame, which a receiver drops rather than refuse the frame;
 * - decoding: a size bound, JSON, a depth bound, then the frame schemas of ./protocol.ts, with a hand-written
 *   fast path for the frames of every call and of the heartbeat; decoding never throws;
 * - encoding, with a hand-written path for a plain `tool_result`;
 * - fitting a client frame's free text within the service's frame limit.
 *
 * @module
 */
import type * as z from 'zod/mini';
import { nestsDeeperThan } from '../json';
import { jsonSyntaxError } from '../json-syntax';
import { MAX_FRAME_DEPTH } from '../limits';
import type { Logger } from '../logger';
import { cutChars, isJsonVerbatim, jsonPrefix, jsonStringBytes, utf8Length } from '../utf8';
import { type Fault, faultsOf, ruleOf } from './issue-text';
import {
  type ClientFrame,
  type ClientFrameSchemas,
  clientFrames,
  type FrameOf,
  MAX_PROGRESS_MESSAGE_CHARS,
  MAX_TRACE_FIELD_CHARS,
  PROTOCOL_DEFAULTS,
  RESULT_PART_TYPES,
  type ServiceFrame,
  serviceFrameSchemaOf,
  TOOL_CALL_STATUSES,
} from './protocol';

/*
 * The informative fields of each frame: fields a receiver drops, rather than refuse the whole frame, when their
 * value is not what the protocol says (docs/protocol/errors.md, "Informative fields"). A frame whose only faults are in
 * these fields is used without them; the decoder says which it dropped, and the receiver logs it.
 *
 * A path names a field from the frame's root, `*` standing for any array index. Dropping an array element
 * removes it from its array (an unknown feature name); dropping an object field deletes it.
 */
/** Informative fields of the frames the service sends. */
export const INFORMATIVE_SERVICE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  // Names a peer does not know are ignored, never refused (docs/protocol/index.md); a lease without a valid leaseMs is
  // no lease (docs/protocol/lease.md);
  // without a valid sessionGraceMs the client assumes the default (docs/protocol/limits.md), without a valid
  // callDeadlineMs it names the call's deadlineMs (docs/protocol/deadlines.md).
  // An invalid frame rate is no rate (docs/protocol/limits.md). An invalid `owed` is unknown, as a whole: a list
  // without an id it held would drop that call (docs/protocol/calls-no-longer-held.md).
  welcome: [
    'features',
    'features.*',
    'leaseMs',
    'maxCallDurationMs',
    'sessionGraceMs',
    'callDeadlineMs',
    'maxFramesPerSecond',
    'maxFrameBurst',
    'owed',
    // What the builds are (feature `builds`, docs/protocol/builds.md) is for operators: the client reads neither.
    'buildPolicy',
    'currentBuildId',
  ],
  // The trace context is informative (docs/protocol/trace-context.md); the reason of a rejection is text for the model.
  tool_call: ['traceparent', 'tracestate', 'reason'],
  // Any reason is a plain cancel (docs/protocol/deadlines.md).
  cancel: ['reason'],
  // `seq` only drops repeats after a resume (docs/protocol/run-events.md); `data` is anything already.
  run_event: ['seq'],
  // A run_result is never refused for what it reports (docs/protocol/runs.md).
  run_result: ['model', 'error', 'code', 'toolCalls.*.content', 'toolCalls.*.widget', 'toolCalls.*.result'],
  // Any status but answered and declined is cancelled (docs/protocol/frames-service.md), one that is not a string too.
  answer: ['status', 'reason'],
};

/** Informative fields of the frames a client sends. */
export const INFORMATIVE_CLIENT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  // Unknown names are ignored (docs/protocol/index.md, docs/protocol/runs.md); `sideEffect` absent is `external`
  // (docs/protocol/frames.md); the reason is for the approver.
  hello: [
    'features',
    'features.*',
    'runEventKinds',
    'runEventKinds.*',
    'tools.*.sideEffect',
    'tools.*.approvalReason',
  ],
  tools_update: ['tools.*.sideEffect', 'tools.*.approvalReason'],
  tool_result: ['durationMs', 'result'],
  run_cancel: ['reason'],
};

/**
 * The informative field an issue at `path` falls in (the longest pattern of `patterns` that is a prefix of it),
 * as a concrete path; `undefined` when the issue is in a field that is not informative.
 */
export function informativePath(
  patterns: readonly string[] | undefined,
  path: readonly PropertyKey[],
): PropertyKey[] | undefined {
  let best: PropertyKey[] | undefined;
  for (const pattern of patterns ?? []) {
    const segments = pattern.split('.');
    if (segments.length > path.length || (best !== undefined && segments.length <= best.length)) continue;
    const matches = segments.every((segment, i) =>
      segment === '*' ? typeof path[i] === 'number' : segment === path[i],
    );
    if (matches) best = path.slice(0, segments.length);
  }
  return best;
}

/** Drops the fields at `paths` from `value` (a freshly parsed frame, changed in place). */
export function dropFields(value: Record<string, unknown>, paths: readonly PropertyKey[][]): void {
  const arrays = new Set<unknown[]>();
  const removed = Symbol('dropped');
  for (const path of paths) {
    let parent: unknown = value;
    for (const key of path.slice(0, -1)) parent = (parent as Record<PropertyKey, unknown> | undefined)?.[key];
    const last = path[path.length - 1] as PropertyKey;
    if (Array.isArray(parent) && typeof last === 'number') {
      parent[last] = removed;
      arrays.add(parent);
    } else if (typeof parent === 'object' && parent !== null)
      delete (parent as Record<PropertyKey, unknown>)[last];
  }
  for (const array of arrays) {
    const kept = array.filter((item) => item !== removed);
    array.length = 0;
    array.push(...kept);
  }
}

/**
 * Logs the informative fields dropped from a frame: a `warn` the first time a field of a frame type is dropped
 * (on this socket: one logger per socket), `debug` after that, so a service that gets a field wrong in every
 * frame is said once. The line names the frame type, its call id if any, and the field; never its value.
 */
export function droppedFieldsLog(
  logger: Pick<Logger, 'warn' | 'debug'>,
  peer: string,
): (frame: { type: string; callId?: unknown }, dropped: readonly string[]) => void {
  const said = new Set<string>();
  return (frame, dropped) => {
    const fields = {
      type: frame.type,
      ...(typeof frame.callId === 'string' ? { callId: frame.callId } : {}),
    };
    for (const problem of dropped) {
      const key = `${frame.type} ${problem.slice(0, problem.indexOf(':')).replace(/\.\d+/g, '.*')}`;
      const message = `an informative field of a ${frame.type} frame from the ${peer} is invalid and was ignored: ${problem}`;
      if (said.has(key)) logger.debug(fields, message);
      else logger.warn(fields, message);
      said.add(key);
    }
  };
}

/** The ids and tool name a refused frame carried, where they are readable (docs/protocol/errors.md). */
export interface RefusedFrame {
  type?: string;
  callId?: string;
  runId?: string;
  requestId?: string;
  questionId?: string;
  toolName?: string;
}

/**
 * Result of {@link decodeServiceFrame} and {@link decodeClientFrame}: the frame (with the informative fields it
 * dropped, `field: problem`, see {@link INFORMATIVE_SERVICE_FIELDS}), or an error code, a message that names what was wrong, and
 * what of the refused frame is readable (`about`), so that the refusal can name its call, run or request.
 */
export type DecodeResult<F> =
  | { ok: true; frame: F; dropped?: readonly string[] }
  | {
      ok: false;
      code: 'invalid_json' | 'invalid_frame' | 'unknown_type' | 'frame_too_large';
      message: string;
      about?: RefusedFrame;
      /** A known frame type with wrong fields: the paths of the fields at fault (never their values). */
      fields?: readonly string[];
      /** Not a frame of any type: JSON that is not an object, or an object with no string `type`. */
      shapeless?: true;
    };

/** The schema a frame is parsed with: the client frames' union, or the schema of one service frame type. */
type FrameSchema = Pick<z.ZodMiniType, 'safeParse'>;

/**
 * Decodes a frame of the client (`clientSchema`, their union) or, with `undefined`, of the service: its type's schema
 * alone ({@link serviceFrameSchemaOf}, built at the first frame of the type), after the fast path.
 */
function decodeWith<F>(
  clientSchema: ClientFrameSchemas['clientFrameSchema'] | undefined,
  raw: string,
  maxPayloadBytes: number,
): DecodeResult<F> {
  // A JS string's UTF-8 size is at most 3 bytes per UTF-16 unit; count only when it might be over.
  if (raw.length * 3 > maxPayloadBytes && utf8Length(raw) > maxPayloadBytes) {
    return { ok: false, code: 'frame_too_large', message: `frame exceeds ${maxPayloadBytes} bytes` };
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, code: 'invalid_json', message: `frame is not JSON: ${jsonSyntaxError(raw)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, code: 'invalid_frame', message: 'frame must be a JSON object', shapeless: true };
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') {
    return { ok: false, code: 'invalid_frame', message: 'frame has no string "type"', shapeless: true };
  }
  // The frames of every call and of the heartbeat take a hand-written path; anything it does not accept goes on to the
  // schema, which has the last word (and the error messages). Same output as the schema: test/wire/protocol-fast.test.ts.
  const fast =
    clientSchema === undefined ? fastServiceFrame(type, value as Record<string, unknown>) : undefined;
  // Whatever reads a frame's values later may recurse (a JSON Schema check, JSON.stringify, structuredClone). Every
  // field the fast path keeps of a `tool_call` is flat (an id, a number, a list of ids; its arguments are not walked):
  // one with no other field cannot nest too deep, and is not walked. Its keys counted cost about half the walk (~430
  // instructions a call, more with acks).
  if (
    (fast?.type !== 'tool_call' || Object.keys(value).length !== toolCallFields) &&
    nestsTooDeep(type, value as Record<string, unknown>)
  ) {
    return {
      ok: false,
      code: 'invalid_frame',
      message: `frame nests deeper than ${MAX_FRAME_DEPTH} levels`,
      ...readable(type, value as Record<string, unknown>),
    };
  }
  if (fast !== undefined) {
    if (fast.type === 'tool_call') LAST_CALLS[fast.acks === undefined ? 0 : 1] = value;
    return { ok: true, frame: fast as F };
  }
  // A type the service does not send is refused as the client frames' union refuses one (its only issue, at `type`).
  const schema: FrameSchema | undefined = clientSchema ?? serviceFrameSchemaOf(type);
  if (schema === undefined) return unknownType(type);
  const parsed = schema.safeParse(value, SAY_RULES);
  if (parsed.success) return { ok: true, frame: shaped(clientSchema, parsed.data) as F };
  const issues = parsed.error.issues;
  if (issues.length === 1 && issues[0]?.code === 'invalid_union' && issues[0].path.join('.') === 'type') {
    return unknownType(type);
  }
  const faults = issues.flatMap((issue) => faultsOf(issue));
  const lenient = withoutInformative<F>(clientSchema, schema, raw, type, faults);
  if (lenient !== undefined) return lenient;
  // Each fault once (the keys of a record may break one rule many times), the first few: the message stays short.
  const shown = new Map<string, string>();
  for (const { path, rule } of faults) {
    if (shown.size === MAX_SHOWN_FAULTS) break;
    const field = where(path);
    shown.set(`${field}: ${rule}`, field);
  }
  return {
    ok: false,
    code: 'invalid_frame',
    message: `invalid ${type.slice(0, 64)} frame: ${[...shown.keys()].join('; ')}`,
    fields: [...new Set(shown.values())],
    ...readable(type, value as Record<string, unknown>),
  };
}

/** The refusal of a frame of a type the receiver does not know. */
const unknownType = (type: string) =>
  ({
    ok: false,
    code: 'unknown_type',
    message: `unknown frame type ${JSON.stringify(type.slice(0, 64))}`,
  }) as const;

/** The parse options of every frame: its refusals state each rule in words (./issue-text.ts). */
const SAY_RULES = { error: ruleOf };

/** Most faults a refusal names. */
const MAX_SHOWN_FAULTS = 5;

/** A service's `tool_call` or `ack` in the one shape of the fast path ({@link callFrame}); any other frame as it is. */
const shaped = (clientSchema: FrameSchema | undefined, frame: unknown) =>
  clientSchema === undefined ? oneShape(frame as ServiceFrame) : frame;

const where = (path: readonly PropertyKey[]) => (path.length > 0 ? path.map(String).join('.') : '(root)');

/**
 * The frame without its faulty informative fields (see {@link INFORMATIVE_SERVICE_FIELDS}), when every issue is in one of them;
 * `undefined` otherwise. Rare: the frame is parsed again, and only then changed.
 */
function withoutInformative<F>(
  clientSchema: FrameSchema | undefined,
  schema: FrameSchema,
  raw: string,
  type: string,
  faults: readonly Fault[],
): DecodeResult<F> | undefined {
  const patterns = (clientSchema === undefined ? INFORMATIVE_SERVICE_FIELDS : INFORMATIVE_CLIENT_FIELDS)[
    type
  ];
  if (patterns === undefined) return undefined;
  const paths: PropertyKey[][] = [];
  const dropped: string[] = [];
  for (const fault of faults) {
    const path = informativePath(patterns, fault.path);
    if (path === undefined) return undefined;
    paths.push(path);
    // A fault inside the dropped field (an item of `owed`, `result.type`) is named too: the rule is its own.
    const inside = fault.path.length > path.length ? `${where(fault.path)} ` : '';
    dropped.push(`${where(path)}: ${inside}${fault.rule}`);
  }
  const value = JSON.parse(raw) as Record<string, unknown>;
  // A client that cannot read the traceparent ignores both trace fields (docs/protocol/trace-context.md).
  if (type === 'tool_call' && paths.some((path) => path.length === 1 && path[0] === 'traceparent'))
    paths.push(['tracestate']);
  dropFields(value, paths);
  const parsed = schema.safeParse(value);
  return parsed.success ? { ok: true, frame: shaped(clientSchema, parsed.data) as F, dropped } : undefined;
}

/** What of a refused frame can still be read (`about`: its type, ids and tool name), when it names an id. */
function readable(type: string, value: Record<string, unknown>): { about?: RefusedFrame } {
  const about: RefusedFrame = { type: type.slice(0, 64) };
  if (isId(value.callId)) about.callId = value.callId;
  if (isId(value.runId)) about.runId = value.runId;
  if (isId(value.requestId)) about.requestId = value.requestId;
  if (Object.keys(about).length === 1) return {};
  if (isId(value.questionId)) about.questionId = value.questionId;
  if (typeof value.toolName === 'string' && /^[a-zA-Z0-9_-]{1,64}$/.test(value.toolName))
    about.toolName = value.toolName;
  return { about };
}

/**
 * Whether a frame nests deeper than `MAX_FRAME_DEPTH`. A `tool_call`'s arguments are not walked
 * here: the client walks them anyway, and answers arguments past its own limit with `invalid_arguments`.
 *
 * The frame is level 1, so its fields' values are walked to one level less. A list of ids or numbers (a call's
 * `acks`, an `ack`'s `callIds`: every frame of every call) nests one level and is not walked: the walk
 * ({@link nestsDeeperThan}, which allocates) has one call site, which V8 leaves out of this function's optimised
 * code while only such frames come.
 */
function nestsTooDeep(type: string, value: Record<string, unknown>): boolean {
  const skipped = type === 'tool_call' ? 'arguments' : undefined;
  for (const key in value) {
    // Most fields are ids, names and numbers: only an object or an array is walked.
    const item = value[key];
    if (
      typeof item === 'object' &&
      item !== null &&
      key !== skipped &&
      !isFlatList(item) &&
      nestsDeeperThan(item, MAX_FRAME_DEPTH - 1)
    )
      return true;
  }
  return false;
}

/** An array that holds no object or array: one level deep. */
function isFlatList(value: object): boolean {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const item: unknown = value[i];
    if (typeof item === 'object' && item !== null) return false;
  }
  return true;
}

const isId = (value: unknown): value is string =>
  typeof value === 'string' && value.length >= 1 && value.length <= 256;
const isIdList = (value: unknown, min: number): value is string[] =>
  Array.isArray(value) &&
  value.length >= min &&
  value.length <= PROTOCOL_DEFAULTS.maxAcksPerFrame &&
  value.every(isId);
const isCount = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isTraceField = (value: unknown): value is string | undefined =>
  value === undefined || (typeof value === 'string' && value.length <= MAX_TRACE_FIELD_CHARS);

/**
 * The one shape of every `tool_call`, `ack`, `ping` and `pong` the decoder returns: every field of these frames,
 * always in this order, `undefined` where the frame did not carry it (`JSON.stringify` and `toEqual` see no
 * difference). Code that reads frames then meets one hidden class, whatever optional fields a frame carried (a
 * `tool_call` with or without `acks`, an `ack` with `callId` or `callIds`) and whether it is a call's or the
 * heartbeat's: V8 keeps its optimised code when a frame of another mix first arrives, where a new shape would throw
 * it away (a deopt and a recompile, ~20 ms each).
 */
function callFrame(
  type: 'tool_call' | 'ack' | 'ping' | 'pong',
  callId: string | undefined,
  callIds: string[] | undefined,
  runId: string | undefined,
  toolName: string | undefined,
  args: unknown,
  approved: boolean | undefined,
  reason: string | undefined,
  deadlineMs: number | undefined,
  depth: number | undefined,
  acks: string[] | undefined,
  traceparent: string | undefined,
  tracestate: string | undefined,
  argumentsEdited: true | undefined,
  sessionId: string | undefined,
  agentName: string | undefined,
  agentRevision: string | undefined,
  tenantId: string | undefined,
  userId: string | undefined,
  steps: Readonly<Record<string, unknown>> | undefined,
  id: string | undefined,
): ServiceFrame {
  return {
    type,
    callId,
    callIds,
    runId,
    toolName,
    arguments: args,
    approved,
    reason,
    deadlineMs,
    depth,
    acks,
    traceparent,
    tracestate,
    argumentsEdited,
    sessionId,
    agentName,
    agentRevision,
    tenantId,
    userId,
    steps,
    id,
  } as ServiceFrame;
}

/** An `ack` in the shape of {@link callFrame}. */
function ackFrame(callId: string | undefined, callIds: string[] | undefined): ServiceFrame {
  const no = undefined;
  return callFrame(
    'ack',
    callId,
    callIds,
    no,
    no,
    no,
    no,
    no,
    no,
    no,
    no,
    no,
    no,
    no,
    no,
    no,
    no,
    no,
    no,
    no,
    no,
  );
}
/** A `ping` or `pong` in the shape of {@link callFrame}. */
function heartbeatFrame(type: 'ping' | 'pong', id: string | undefined): ServiceFrame {
  const no = undefined;
  return callFrame(type, no, no, no, no, no, no, no, no, no, no, no, no, no, no, no, no, no, no, no, id);
}

// Every field of the shape holds both `undefined` and a value once, now: V8 widens a field's type the first time it
// holds a value of another kind, and throws away the optimised code that read it; done at load, it never happens
// later, whichever fields the service starts to send.
ackFrame(undefined, undefined);
callFrame(
  'tool_call',
  'c',
  ['c'],
  'r',
  't',
  {},
  true,
  'r',
  1,
  1,
  ['c'],
  't',
  't',
  true,
  's',
  'a',
  'a',
  't',
  'u',
  {},
  'i',
);

/**
 * A `tool_call`, `ack`, `ping` or `pong` the schema accepted, in the one shape of the fast path ({@link callFrame});
 * any other frame as it is.
 */
function oneShape(frame: ServiceFrame): ServiceFrame {
  if (frame.type === 'ack') return ackFrame(frame.callId, frame.callIds);
  if (frame.type === 'ping' || frame.type === 'pong') return heartbeatFrame(frame.type, frame.id);
  if (frame.type !== 'tool_call') return frame;
  const f = frame;
  return callFrame(
    'tool_call',
    f.callId,
    undefined,
    f.runId,
    f.toolName,
    f.arguments,
    f.approved,
    f.reason,
    f.deadlineMs,
    f.depth,
    f.acks,
    f.traceparent,
    f.tracestate,
    f.argumentsEdited,
    f.sessionId,
    f.agentName,
    f.agentRevision,
    f.tenantId,
    f.userId,
    f.steps,
    undefined,
  );
}

/**
 * The last `tool_call` taken by {@link fastServiceFrame} without `acks`, and the last with them (acks ride on the
 * next call while calls keep coming), as parsed: they keep the hidden classes V8 gave the service's calls, as
 * {@link REGULAR_FRAMES} keeps those of its other frames. A full collection while no call's frame was alive (an idle
 * client: V8's memory reducer; under callgrind at 1 call in flight, once a window) freed them and threw the
 * optimised `fastServiceFrame` away ("weak objects"), and a frame of the other kind met later did again ("wrong
 * map"): compiled again each time. Holds at most two frames, each within `maxPayloadBytes`, and only frames the
 * decoder accepted; let go by {@link forgetLastCalls} when a client closes, so that no call's arguments outlive it.
 */
const LAST_CALLS: unknown[] = [undefined, undefined];

/**
 * Lets go of the last `tool_call` frames the decoder keeps for their hidden classes (a client calls it when it
 * closes: no call's arguments stay in memory after it). The next call's frames are kept again.
 */
export function forgetLastCalls(): void {
  LAST_CALLS[0] = undefined;
  LAST_CALLS[1] = undefined;
}

/**
 * The run id of the last `tool_call` {@link fastServiceFrame} took. `JSON.parse` makes each frame a string of its own
 * for a value longer than 10 characters (shorter ones it shares), so that every call held in flight kept its own copy
 * of its run's id (56 B for the service's `run_<uuid>`); a call of the same run as the last (nearly every call after
 * a run's first) keeps this one instead.
 */
let lastRunId = '';

/**
 * How many fields the `tool_call` {@link fastServiceFrame} returned last carried that it keeps: `type`, its ids and
 * tool name, and those of its optional fields that came. The frame had no other field when it had as many.
 */
let toolCallFields = 0;

/**
 * Accepts the two frames of every tool call (`tool_call`, `ack`) and the heartbeat's (`ping`, `pong`) without the
 * schema, when they are certainly valid; returns `undefined` for anything else (the schema then decides). Unknown
 * fields are dropped, as the schema drops them. All come out in one shape ({@link callFrame}).
 */
export function fastServiceFrame(type: string, value: Record<string, unknown>): ServiceFrame | undefined {
  if (type === 'ping' || type === 'pong') {
    const { id } = value;
    return id === undefined || typeof id === 'string' ? heartbeatFrame(type, id) : undefined;
  }
  if (type === 'ack') {
    const { callId, callIds } = value;
    if (callIds === undefined) return isId(callId) ? ackFrame(callId, undefined) : undefined;
    if (!isIdList(callIds, 1) || (callId !== undefined && !isId(callId))) return undefined;
    return ackFrame(callId, callIds);
  }
  if (type !== 'tool_call') return undefined;
  const {
    callId,
    runId,
    toolName,
    approved,
    reason,
    deadlineMs,
    depth,
    acks,
    traceparent,
    tracestate,
    argumentsEdited,
    agentName,
  } = value;
  if (!isId(callId) || !isId(runId) || typeof toolName !== 'string') return undefined;
  if (approved !== undefined && typeof approved !== 'boolean') return undefined;
  if (reason !== undefined && typeof reason !== 'string') return undefined;
  if (deadlineMs !== undefined && !isCount(deadlineMs)) return undefined;
  if (depth !== undefined && !isCount(depth)) return undefined;
  if (acks !== undefined && !isIdList(acks, 0)) return undefined;
  if (!isTraceField(traceparent) || !isTraceField(tracestate)) return undefined;
  if (argumentsEdited !== undefined && argumentsEdited !== true) return undefined;
  // The call's scope (docs/protocol/call-context.md) is checked here; kept steps (rare) are left to the schema.
  const { sessionId } = value;
  if (sessionId !== undefined && !isId(sessionId)) return undefined;
  if (agentName !== undefined && (typeof agentName !== 'string' || agentName.length > 128)) return undefined;
  const { agentRevision, tenantId, userId } = value;
  if (agentRevision !== undefined && !isId(agentRevision)) return undefined;
  if (tenantId !== undefined && !isId(tenantId)) return undefined;
  if (userId !== undefined && !isId(userId)) return undefined;
  if (value.steps !== undefined) return undefined;
  if (runId !== lastRunId) lastRunId = runId;
  toolCallFields =
    4 +
    +(value.arguments !== undefined) +
    +(approved !== undefined) +
    +(reason !== undefined) +
    +(deadlineMs !== undefined) +
    +(depth !== undefined) +
    +(acks !== undefined) +
    +(traceparent !== undefined) +
    +(tracestate !== undefined) +
    +(argumentsEdited !== undefined) +
    +(sessionId !== undefined) +
    +(agentName !== undefined) +
    +(agentRevision !== undefined) +
    +(tenantId !== undefined) +
    +(userId !== undefined);
  return callFrame(
    'tool_call',
    callId,
    undefined,
    lastRunId,
    toolName,
    value.arguments,
    approved,
    reason,
    deadlineMs,
    depth,
    acks,
    traceparent,
    tracestate,
    argumentsEdited,
    sessionId,
    agentName,
    agentRevision,
    tenantId,
    userId,
    undefined,
    undefined,
  );
}

/**
 * Decodes one text frame sent by the service. Never throws.
 *
 * @param raw - the WebSocket text message.
 * @param maxPayloadBytes - frames longer than this many UTF-8 bytes are refused. @default 1_048_576
 * @returns `{ ok: true, frame }` or `{ ok: false, code, message }`.
 */
export function decodeServiceFrame(
  raw: string,
  maxPayloadBytes: number = PROTOCOL_DEFAULTS.maxPayloadBytes,
): DecodeResult<ServiceFrame> {
  return decodeWith<ServiceFrame>(undefined, raw, maxPayloadBytes);
}

/*
 * The frames a healthy session sends now and then, decoded now, before the first real frame. V8 optimises the
 * decoder after a few hundred `tool_call`s, for the frames it has seen by then: an `ack` of its own (acks ride on the
 * next call while calls keep coming; one goes alone when they pause) or a `pong` (a heartbeat, or a proof of reading
 * every 512 KB written) met for the first time after that threw the optimised decoder away, and it ran unoptimised for
 * thousands of frames until V8 compiled it again (10-18 ms of compiling each time, on Node 20). V8 records what a
 * function meets only after it has run a while: 24 rounds were enough on Node 20, 20 were not.
 *
 * One parsed object of each stays alive with this module (a function refers to the list, so it lives in the module's
 * scope): V8 forgets a hidden class that no object has had for a few full collections, and the decoder's knowledge of
 * that frame with it, so the first lone `ack` after a quiet spell would throw the optimised code away again.
 */
const REGULAR_FRAMES = [
  '{"type":"ack","callId":"c"}',
  '{"type":"ack","callIds":["c"]}',
  '{"type":"ping"}',
  '{"type":"pong","id":"1"}',
].map((text) => ({ text, parsed: JSON.parse(text) as unknown }));

function learnRegularFrames(): void {
  for (let round = 0; round < 32; round++) for (const { text } of REGULAR_FRAMES) decodeServiceFrame(text);
}
learnRegularFrames();

/**
 * Decodes one text frame sent by a client. Never throws.
 *
 * @param raw - the WebSocket text message.
 * @param maxPayloadBytes - frames longer than this many UTF-8 bytes are refused. @default 1_048_576
 * @returns `{ ok: true, frame }` or `{ ok: false, code, message }`.
 */
export function decodeClientFrame(
  raw: string,
  maxPayloadBytes: number = PROTOCOL_DEFAULTS.maxPayloadBytes,
): DecodeResult<ClientFrame> {
  return decodeWith<ClientFrame>(clientFrames().clientFrameSchema, raw, maxPayloadBytes);
}

/**
 * `true` when a frame that failed to decode is an `error` frame with wrong fields: a peer never answers an `error`
 * frame with an `error` frame (docs/protocol/errors.md), so it is only logged. (An `error` frame with wrong fields is
 * the
 * one failure whose message starts so: {@link decodeServiceFrame} names the type of a known frame.)
 */
export function isRefusedErrorFrame(result: DecodeResult<unknown>): boolean {
  return !result.ok && result.code === 'invalid_frame' && result.message.startsWith('invalid error frame: ');
}

/** The codes of the `error` frames that answer a frame the receiver could not use (docs/protocol/errors.md). */
export type RefusalCode = 'invalid_json' | 'invalid_frame' | 'unknown_type' | 'frame_too_large';

/** The `error` frame that refuses a frame, naming the call, run and request of it that are readable. */
export function refusal(code: RefusalCode, message: string, about: RefusedFrame = {}) {
  const { callId, runId, requestId } = about;
  return {
    type: 'error' as const,
    code,
    message,
    ...(callId === undefined ? {} : { callId }),
    ...(runId === undefined ? {} : { runId }),
    ...(requestId === undefined ? {} : { requestId }),
  };
}

/** Serialises a frame. Frames are plain JSON values by construction, so this never throws for a valid frame. */
export function encodeFrame(frame: ClientFrame | ServiceFrame): string {
  if (
    frame.type === 'tool_result' &&
    frame.widget === undefined &&
    frame.retryable === undefined &&
    frame.content === undefined &&
    frame.result?.value === undefined
  ) {
    return encodePlainResult(frame);
  }
  return JSON.stringify(frame);
}

/**
 * A `tool_result` without widget, `retryable`, content parts or a result part's value (one per call), written by
 * hand: about twice as fast as `JSON.stringify` on the object, and the same text for a result built in field order
 * (test/wire/protocol-fast.test.ts).
 */
function encodePlainResult({
  callId,
  status,
  output,
  durationMs,
  result,
}: FrameOf<ClientFrame, 'tool_result'>): string {
  // The protocol's words come written with the text around them, the quotes of the call id and the output included:
  // fewer pieces to join, and to flatten on the socket.
  const written = STATUS_THEN_OUTPUT[status];
  const statusThenOutput =
    typeof written === 'string' ? written : `","status":${JSON.stringify(status)},"output":"`;
  // A call of 0 ms (nearly every call of a synchronous tool) has what follows its output written once: no number
  // turned into text, nor three more pieces for the socket to join (~250 instructions a result).
  let after = durationMs === 0 ? (result === undefined ? ZERO_MS_END : ZERO_MS_PART_END[result.type]) : 0;
  if (typeof after !== 'string') {
    const writtenEnd = result === undefined ? '}' : RESULT_PART_END[result.type];
    const end =
      typeof writtenEnd === 'string' ? writtenEnd : `,"result":{"type":${JSON.stringify(result?.type)}}}`;
    // A finite number is written by `String` as `JSON.stringify` writes it, without a call into the runtime.
    after =
      durationMs === undefined
        ? `"${end}`
        : `","durationMs":${Number.isFinite(durationMs) ? String(durationMs) : JSON.stringify(durationMs)}${end}`;
  }
  return `{"type":"tool_result","callId":"${inJsonString(callId)}${statusThenOutput}${inJsonString(output)}${after}`;
}

/**
 * `text` as `JSON.stringify` writes it, without the quotes. Nearly every call id and output needs no escape
 * ({@link isJsonVerbatim}): it is then `text` itself, without the runtime's fixed cost of a `JSON.stringify` call
 * (~850 instructions, twice a result: most of what writing one took).
 */
function inJsonString(text: string): string {
  return isJsonVerbatim(text) ? text : JSON.stringify(text).slice(1, -1);
}

/**
 * `text` as one flat string. A template literal makes a cons string (a pair of pieces); V8 flattens one in place the
 * first time it is read whole, but keeps the pair, so a frame built with it walks the pair again each time the socket
 * copies the frame out (~140 instructions a piece, on every result). `JSON.parse` makes a new string, flat.
 */
const flat = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

/*
 * The tables below are objects, not `Map`s: a property read whose names V8 has seen is a compare and a load,
 * where `Map.get` hashes into the table (~90 instructions a read, two a result). They inherit nothing (prototype
 * `null`, set after they are made, so they keep V8's fast properties, as `Object.create(null)` does not): a name they
 * do not hold reads `undefined`, even when a library has set a string on `Object.prototype` under it, and only a
 * string is taken.
 */
/**
 * For each of the protocol's statuses, its field and the name of the next, between the call id's closing quote and
 * the output's opening one: `","status":"ok","output":"`.
 */
const STATUS_THEN_OUTPUT: Readonly<Record<string, unknown>> = Object.setPrototypeOf(
  Object.fromEntries(
    TOOL_CALL_STATUSES.map((status) => [status, flat(`","status":${JSON.stringify(status)},"output":"`)]),
  ),
  null,
);

/** For each result kind, its part and the frame's end: `,"result":{"type":"json"}}}`. */
const RESULT_PART_END: Readonly<Record<string, unknown>> = Object.setPrototypeOf(
  Object.fromEntries(
    RESULT_PART_TYPES.map((kind) => [kind, flat(`,"result":{"type":${JSON.stringify(kind)}}}`)]),
  ),
  null,
);

/** What follows the output of a plain result of 0 ms without a result part: `","durationMs":0}`. */
const ZERO_MS_END = flat('","durationMs":0}');

/** For each result kind, what follows the output of a plain result of 0 ms with its part. */
const ZERO_MS_PART_END: Readonly<Record<string, unknown>> = Object.setPrototypeOf(
  Object.fromEntries(
    RESULT_PART_TYPES.map((kind) => [kind, flat(`","durationMs":0${RESULT_PART_END[kind]}`)]),
  ),
  null,
);

/*
 * Fitting a client frame's free text within the service's frame limit (docs/protocol/limits.md): a text field is cut,
 * on a
 * character boundary, to the bytes the rest of the frame leaves, so that the frame is always sent.
 */
/** What ends a text cut to fit a frame. */
export const CUT_MARK = '…';

/** UTF-8 size of `frame` once encoded, in bytes. */
export function frameBytes(frame: ClientFrame): number {
  return utf8Length(encodeFrame(frame));
}

/**
 * Cuts the string field `field` of `frame` (in place) so that the encoded frame takes at most `limitBytes`: the
 * longest prefix that fits, then {@link CUT_MARK}. A text that fits is left as it is; when not even the mark fits,
 * the field is left empty. Returns `true` when the frame fits afterwards (`false`: the rest of the frame alone is
 * over the limit).
 */
export function fitTextField<F extends ClientFrame>(
  frame: F,
  field: keyof F & string,
  limitBytes: number,
): boolean {
  const record = frame as unknown as Record<string, unknown>;
  const text = record[field];
  if (typeof text !== 'string') return frameBytes(frame) <= limitBytes;
  const size = frameBytes(frame);
  if (size <= limitBytes) return true;
  // The frame without the text's content: what is left for it is the limit less that.
  const room = limitBytes - (size - jsonStringBytes(text)) - 2;
  const mark = jsonStringBytes(CUT_MARK) - 2;
  if (room >= mark) {
    record[field] = jsonPrefix(text, room - mark) + CUT_MARK;
    return true;
  }
  record[field] = '';
  return frameBytes(frame) <= limitBytes;
}

/**
 * Sets a `tool_progress` frame's `message` (already redacted: a replacement may have made it longer): cut to
 * {@link MAX_PROGRESS_MESSAGE_CHARS} characters, then to what the frame limit leaves it, each time ending in
 * {@link CUT_MARK}.
 */
export function setProgressMessage(
  frame: FrameOf<ClientFrame, 'tool_progress'>,
  message: string,
  limitBytes: number,
): void {
  frame.message = cutChars(message, MAX_PROGRESS_MESSAGE_CHARS);
  // The rest of the frame takes at most ~1.7 KB (a callId of 256 characters, escaped): measured only past that.
  if (frame.message.length * 6 + 2048 > limitBytes) fitTextField(frame, 'message', limitBytes);
}
