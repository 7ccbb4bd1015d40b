/**
 * Wire protocol v1: every frame exchanged between a toolwire client and the service, as TypeScript types and
 * as runtime schemas, each declared once. Both the client (`src/`) and the stand-in service (`server-stub/`)
 * import this module; docs/protocol/index.md is the prose contract for the same frames. In order:
 * - the field schemas frames share, and what both directions send (`ping`, `pong`, `error`);
 * - the WebSocket close codes;
 * - the protocol additions each switched on by a feature (docs/protocol/updates.md): the features, trace context,
 *   progress, questions, events, content parts, approval decisions, steps and the call's scope;
 * - the version, the subprotocol and the defaults both sides assume;
 * - the frames the service sends, and their union;
 * - the frames a client sends, and their union, built at the first {@link clientFrames} (the service decodes them;
 *   a client only encodes them).
 *
 * Every schema but a few small field schemas is built at its first use ({@link once}): a client decodes a frame type
 * with that type's schema alone ({@link serviceFrameSchemaOf}), so that a worker that only ever gets calls builds its
 * `welcome`'s schema and no other (`tool_call`, `ack`, `ping` and `pong` take ./codec.ts's fast path), and a
 * process that neither sends nor gets a frame type never builds its schema (issue 28: a Node worker's start ~200 KiB
 * of heap and ~11 million instructions less).
 *
 * Frames are JSON text messages with a string `type`. Every inbound frame is decoded (./codec.ts) before use; a
 * frame that fails is answered with an `error` frame and the connection stays open.
 *
 * @module
 */
import * as z from 'zod/mini';
import { once } from '../once';
import { utf8Length } from '../utf8';

/** UTF-8 length of a string in bytes, without allocating (lone surrogates count as U+FFFD, 3 bytes). */
export { utf8Length } from '../utf8';

/*
 * Field schemas the frames share: ids, counts, JSON objects.
 */
/** Longest id, in characters (UTF-16 code units). */
export const MAX_ID_CHARS = 256;
/** An opaque id (`callId`, `runId`, …): 1 to {@link MAX_ID_CHARS} characters. */
export const id = z.string().check(z.minLength(1), z.maxLength(MAX_ID_CHARS));
/** An integer ≥ 0. */
export const nonNegativeInt = z.number().check(z.int(), z.minimum(0));
/** Longest `hello.buildId`, in characters (docs/protocol/builds.md). */
export const MAX_BUILD_ID_CHARS = 128;
/**
 * A `hello.buildId`: 1 to {@link MAX_BUILD_ID_CHARS} printable ASCII characters, no spaces (a commit, a tag, a
 * version). What an operator types and logs show: no control characters, no look-alikes.
 */
export const BUILD_ID_PATTERN = /^[\x21-\x7e]{1,128}$/;
/** An integer ≥ 1 (a per-call update counter). */
export const positiveInt = z.number().check(z.int(), z.minimum(1));
/** A JSON object. */
export const jsonObject = z.record(z.string(), z.unknown());
/**
 * A tool's name (`ToolDefinition.name`, its aliases, `run_start.toolChoice.name`): 1 to 64 letters, digits, `_`
 * or `-`.
 */
const toolName = /* @__PURE__ */ once(() =>
  z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,64}$/, { error: 'must be 1 to 64 letters, digits, _ or -' })),
);

/*
 * What both directions use: the call statuses, feature lists, and the frames either side sends (`ping`, `pong`,
 * `error`).
 */
/** Status of one tool call, as the model and the service see it. */
export const TOOL_CALL_STATUSES = [
  'ok',
  'error',
  'invalid_arguments',
  'unknown_tool',
  'rejected',
  'timeout',
  'cancelled',
] as const;

/** A list of feature names (docs/protocol/index.md): at most 64 names of at most 64 characters. */
export const featureList = z.array(z.string().check(z.maxLength(64))).check(z.maxLength(64));

export const ping = /* @__PURE__ */ once(() =>
  z.object({ type: z.literal('ping'), id: z.optional(z.string()) }),
);
export const pong = /* @__PURE__ */ once(() =>
  z.object({ type: z.literal('pong'), id: z.optional(z.string()) }),
);

/** Codes carried by `error` frames. */
export const ERROR_CODES = [
  'invalid_json',
  'invalid_frame',
  'unknown_type',
  'frame_too_large',
  'unknown_call',
  'duplicate_result',
  'unknown_run',
  'unknown_tool',
  'not_allowed',
  'busy',
  'internal',
  'too_large',
] as const;

export const errorFrame = /* @__PURE__ */ once(() =>
  z.object({
    type: z.literal('error'),
    code: z.string(), // one of ERROR_CODES; a receiver takes any other as a plain error (docs/protocol/errors.md)
    message: z.string(),
    callId: z.optional(z.string()),
    requestId: z.optional(z.string()),
    runId: z.optional(z.string()),
    /**
     * The tools of a `tools_update` the service refused, with the `fleet` limits they were announced with (other
     * workers announce others): docs/protocol/fleet-limits.md.
     */
    tools: z.optional(
      z.array(
        z.object({
          name: z.string(),
          fleet: z.optional(
            z.object({ concurrency: z.optional(z.number()), perSecond: z.optional(z.number()) }),
          ),
        }),
      ),
    ),
  }),
);

/**
 * WebSocket close codes used by protocol v1 (docs/protocol/errors.md; RFC 6455 §7.4.2 reserves 4000–4999 for
 * applications).
 * 1000 (normal) and 1009 (frame too big, sent by `ws` itself) are used as RFC 6455 defines them.
 */
export const CLOSE_CODES = {
  /** Normal close, e.g. after `client.close()`. */
  normal: 1000,
  /** RFC 6455 policy violation: the peer stopped reading (over `maxBufferedBytes` unread), see §14. */
  policyViolation: 1008,
  /** A frame exceeded `maxPayloadBytes`. */
  tooBig: 1009,
  /** The API key is missing or wrong. Do not reconnect with the same key. */
  unauthorized: 4001,
  /** `hello.protocol` or the subprotocol is not supported. Do not reconnect. */
  unsupportedProtocol: 4002,
  /**
   * The handshake frame was not valid: the service's first frame was not a valid `hello` (or none came within the
   * hello timeout); the client's `welcome` was wrong in a required field (docs/protocol/lifecycle.md).
   */
  helloExpected: 4003,
  /** No ping or pong from the peer within two heartbeat intervals. */
  heartbeatTimeout: 4008,
  /** Another connection resumed this session; this one is superseded. */
  sessionReplaced: 4009,
  /** The peer sent frames faster than the allowed rate. */
  flood: 4029,
  /** The service is shutting down; reconnect later. */
  goingAway: 4050,
  /**
   * The `hello` disagrees with what other sessions of the tenant announced (a tool's `fleet` limits, docs/protocol/
   * "Fleets"). Do not reconnect with the same `hello`.
   */
  fleetConflict: 4010,
} as const;

/*
 * The protocol additions for long-running and talking calls (docs/protocol/updates.md), each switched on per socket by
 * a
 * feature negotiated in `hello`/`welcome` (docs/protocol/index.md): names, bounds and the fields and frames both sides
 * read. The frames only a client sends (`tool_progress`, `tool_preliminary`, `lease`, `question`,
 * `question_cancel`, `tool_event`) are with the client's frames below.
 */
/** Most call ids one `lease` frame carries. */
export const MAX_LEASE_IDS = 1_000;
/** Most call ids in each list of a `key_waits` frame (docs/protocol/fleets.md). */
export const MAX_KEY_WAIT_IDS = 1_000;
/** Most call ids in each list of an `approval_waits` frame (docs/protocol/approvals.md). */
export const MAX_APPROVAL_WAIT_IDS = 1_000;

/** Every feature this version of the protocol defines (docs/protocol/index.md). */
export const FEATURES = [
  'progress',
  'preliminary',
  'lease',
  'questions',
  'events',
  'content',
  'event_replay',
  'trace_context',
  'decisions',
  'steps',
  'call_context',
  'strict',
  'run_codes',
  'builds',
  'fleet',
  'key_waits',
  'hand_back',
  'run_options',
  'result_parts',
  'owed_calls',
  'approval_waits',
] as const;
/** One of {@link FEATURES}. */
export type Feature = (typeof FEATURES)[number];

/**
 * Retired feature names, read as the feature that replaced them wherever a peer lists features (`hello`,
 * `welcome`, the stub's `features` option), so that an older peer still works (docs/protocol/index.md). `agent_name`
 * carried `tool_call.agentName` alone; it is part of `call_context`, which carries the session too.
 */
export const FEATURE_ALIASES: Readonly<Record<RetiredFeature, Feature>> = { agent_name: 'call_context' };
/** A retired feature name, still read as its feature ({@link FEATURE_ALIASES}). */
export type RetiredFeature = 'agent_name';

/**
 * The feature a listed name means: itself when it is one of {@link FEATURES}, the feature it is an alias of
 * ({@link FEATURE_ALIASES}), else `undefined` (a name this version does not know, or not a string).
 */
export function featureOf(name: unknown): Feature | undefined {
  if (typeof name !== 'string') return undefined;
  if ((FEATURES as readonly string[]).includes(name)) return name as Feature;
  return Object.hasOwn(FEATURE_ALIASES, name) ? FEATURE_ALIASES[name as RetiredFeature] : undefined;
}

/**
 * `welcome.features`: each name of `offered` (`hello.features`) whose feature is among `used`, as the client
 * wrote it (a retired name too, so that an older client sees its feature on), once each.
 */
export function answeredFeatures(offered: readonly unknown[], used: ReadonlySet<Feature>): string[] {
  const answered = new Set<string>();
  for (const name of offered) {
    const feature = featureOf(name);
    if (feature !== undefined && used.has(feature)) answered.add(name as string);
  }
  return [...answered];
}

/** The features a peer's list means ({@link featureOf} of each name), in order, once each; unknown names ignored. */
export function featuresOf(names: readonly unknown[] | undefined): Set<Feature> {
  const features = new Set<Feature>();
  for (const name of names ?? []) {
    const feature = featureOf(name);
    if (feature !== undefined) features.add(feature);
  }
  return features;
}

/** Longest `tool_call.traceparent` and `tool_call.tracestate`, in characters (docs/protocol/trace-context.md). */
export const MAX_TRACE_FIELD_CHARS = 512;

const traceField = /* @__PURE__ */ once(() =>
  z.optional(z.string().check(z.maxLength(MAX_TRACE_FIELD_CHARS))),
);

/**
 * `tool_call.traceparent` and `tool_call.tracestate` (feature `trace_context`): the W3C Trace Context of the
 * service's span of the call. Informative: a client ignores a value it cannot parse (docs/protocol/trace-context.md).
 */
export const traceFields = /* @__PURE__ */ once(() => ({
  traceparent: traceField(),
  tracestate: traceField(),
}));

/** The feature a `run_event` kind belongs to: it is sent only to a session that negotiated it. */
export const RUN_EVENT_FEATURES: Readonly<Record<string, Feature>> = {
  tool_progress: 'progress',
  tool_preliminary: 'preliminary',
  question_asked: 'questions',
  question_answered: 'questions',
  tool_event: 'events',
};

/** A client sends at most one `tool_progress` per call in this many milliseconds (the last one always). */
export const PROGRESS_INTERVAL_MS = 250;
/** Longest `tool_progress.message`, in characters. */
export const MAX_PROGRESS_MESSAGE_CHARS = 1_000;

/** Bounds of a `question` (docs/protocol/questions.md). */
export const QUESTION_LIMITS = {
  /** Longest question, in characters. */
  maxQuestionChars: 4_000,
  /** Most choices. */
  maxChoices: 50,
  /** Longest choice, in characters. */
  maxChoiceChars: 200,
  /** Most questions of one call open at once. */
  maxOpenPerCall: 8,
  /** Most questions one call asks in all. */
  maxPerCall: 64,
} as const;

/** How a question ended. */
export const ANSWER_STATUSES = ['answered', 'declined', 'cancelled'] as const;

/** `answer` (service → client, feature `questions`): the user's answer to a `question`. */
export const answer = /* @__PURE__ */ once(() =>
  z.object({
    type: z.literal('answer'),
    callId: id,
    questionId: id,
    /**
     * One of {@link ANSWER_STATUSES}; any other, or none (a status that is not a string is dropped, as informative),
     * is taken as `cancelled` (docs/protocol/frames-service.md, docs/protocol/questions.md), never refused.
     */
    status: z.optional(z.string()),
    /** With `answered`: the answer (a string, one of the choices, or a value matching the schema). */
    answer: z.optional(z.unknown()),
    /** With `declined` or `cancelled`: why, when known. */
    reason: z.optional(z.string()),
  }),
);

/** Bounds of `tool_event` (docs/protocol/updates.md). */
export const EVENT_LIMITS = {
  /** A name of 1 to 128 letters, digits and `_ . : / -`. */
  namePattern: /^[A-Za-z0-9_.:/-]{1,128}$/,
  /** Largest `data`, in bytes of JSON. */
  maxDataBytes: 16_384,
  /** Most events one call records. */
  maxPerCall: 256,
} as const;

/** Bounds of content parts (docs/protocol/call-context.md). */
export const CONTENT_LIMITS = {
  /** Most parts in one result. */
  maxParts: 64,
  /** The media types an image part may have. */
  imageTypes: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
} as const;

const base64 = once(() =>
  z.string().check(
    z.regex(/^[A-Za-z0-9+/]*={0,2}$/, {
      error: 'must be base64 (letters, digits, + and /, then up to two =)',
    }),
  ),
);

/** One content part of a result (docs/protocol/call-context.md). */
export const contentPartSchema = /* @__PURE__ */ once(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('text'), text: z.string() }),
    z.object({ type: z.literal('image'), data: base64(), mediaType: z.enum(CONTENT_LIMITS.imageTypes) }),
    z.object({
      type: z.literal('file'),
      data: base64(),
      mediaType: z.string().check(z.minLength(1), z.maxLength(255)),
      filename: z.optional(z.string().check(z.maxLength(255))),
    }),
    z.object({ type: z.literal('json'), value: z.unknown() }),
  ]),
);
/** A content part: `text`, `image` (base64), `file` (base64) or `json`. */
export type ContentPart = z.infer<ReturnType<typeof contentPartSchema>>;

/** `tool_result.content` and `RunToolCall.content`: at most {@link CONTENT_LIMITS.maxParts} parts. */
export const contentList = /* @__PURE__ */ once(() =>
  z.array(contentPartSchema()).check(z.maxLength(CONTENT_LIMITS.maxParts)),
);

/*
 * Approvals (docs/protocol/approvals.md) and their additions under the feature `decisions`
 * (docs/protocol/decisions.md): the reason,
 * and the service's answer to a decision sent over the socket. The client's frames (`approval_request`,
 * `approval`, with edited arguments and `always`) are with the client's frames below.
 */
/** Longest approval reason (`approval_request.reason`, `ToolDefinition.approvalReason`), in characters. */
export const MAX_APPROVAL_REASON_CHARS = 1_000;

/** `approval_applied` (service → client, feature `decisions`): the `approval` with this `requestId` was applied. */
export const approvalApplied = /* @__PURE__ */ once(() =>
  z.object({
    type: z.literal('approval_applied'),
    requestId: id,
    callId: id,
    approved: z.boolean(),
  }),
);

/*
 * Durable steps and the call's scope (docs/protocol/steps.md, docs/protocol/call-context.md): the bounds of steps, the
 * `tool_call` fields
 * that carry kept steps, the run's session and agent, and the side-effect class of a tool definition. The
 * `step_result` frame, which only a client sends, is with the client's frames below.
 */
/** The side-effect classes a tool definition may announce (docs/protocol/frames.md). */
export const SIDE_EFFECTS = ['none', 'idempotent', 'external'] as const;

/** Bounds of durable steps (docs/protocol/steps.md). */
export const STEP_LIMITS = {
  /** Longest step key, in characters. */
  maxKeyChars: 256,
  /** Largest result of one step the service keeps, in bytes of JSON. */
  maxResultBytes: 16_384,
  /** Most steps the service keeps for one call. */
  maxPerCall: 32,
} as const;

export const stepKey = /* @__PURE__ */ once(() =>
  z.string().check(z.minLength(1), z.maxLength(STEP_LIMITS.maxKeyChars)),
);

/** The steps of a call the service kept, by key (`tool_call.steps`). */
export const keptSteps = /* @__PURE__ */ once(() => z.record(stepKey(), z.unknown()));

/** Fields of `tool_call` from these features; optional, sent only where negotiated. */
export const toolCallScope = /* @__PURE__ */ once(() => ({
  /** Feature `call_context`: the session that started the call's run (absent for a run started over HTTP). */
  sessionId: z.optional(id),
  /** Feature `call_context`: the name of the agent whose run made the call. */
  agentName: z.optional(z.string().check(z.maxLength(128))),
  /** Feature `call_context`: the service's identity of the agent's definition the run started with. */
  agentRevision: z.optional(id),
  /** Feature `call_context`: the tenant (account) the run belongs to, as the service knows it; never a secret. */
  tenantId: z.optional(id),
  /** Feature `call_context`: the end user the run acts for, as whoever started it said (`run_start.userId`). */
  userId: z.optional(id),
  /** Feature `steps`: the call's completed steps the service kept (a re-dispatched call), by key. */
  steps: z.optional(keptSteps()),
}));

/*
 * Run options and result parts (docs/protocol/, runs): `run_start.toolChoice` and `run_start.metadata` (feature
 * `run_options`), and the kind of a result beside its text (`tool_result.result`, `RunToolCall.result`, feature
 * `result_parts`).
 */
/** The modes of `run_start.toolChoice` besides naming one tool. */
export const TOOL_CHOICE_MODES = ['auto', 'none', 'required'] as const;

/**
 * `run_start.toolChoice`: which tools the model may call. `auto` (the default): any or none; `none`: no tool;
 * `required`: some tool; `{ type: 'tool', name }`: that tool. `required` and a named tool hold until the model
 * has called a tool in the run, then later turns are `auto` (so a run can end); `none` holds for every turn.
 */
export const toolChoiceSchema = /* @__PURE__ */ once(() =>
  z.union([z.enum(TOOL_CHOICE_MODES), z.object({ type: z.literal('tool'), name: toolName() })], {
    error: 'must be "auto", "none", "required" or { "type": "tool", "name": <tool name> }',
  }),
);
/** One of {@link TOOL_CHOICE_MODES}, or `{ type: 'tool', name }`. */
export type ToolChoice = z.infer<ReturnType<typeof toolChoiceSchema>>;

/** Bounds of `run_start.metadata`. */
export const RUN_METADATA_LIMITS = {
  /** Largest metadata object, in UTF-8 bytes of its JSON. */
  maxBytes: 16_384,
} as const;

/**
 * `run_start.metadata`: a JSON object the service keeps with the run and shows on it; it means nothing to the
 * protocol (a service ignores keys it does not know). At most {@link RUN_METADATA_LIMITS.maxBytes} of JSON.
 */
export const runMetadata = /* @__PURE__ */ once(() =>
  jsonObject.check(
    z.refine((value) => utf8Length(JSON.stringify(value)) <= RUN_METADATA_LIMITS.maxBytes, {
      message: `must be at most ${RUN_METADATA_LIMITS.maxBytes} bytes of JSON`,
    }),
  ),
);

/**
 * The kinds of a result (`tool_result.result.type`): `text` (the tool returned a string), `json` (any other
 * value), `content` (content parts), `error-text` (the call failed; the model reads a text), `error-json` (the
 * tool threw a plain JSON value rather than an `Error`).
 */
export const RESULT_PART_TYPES = ['text', 'json', 'error-text', 'error-json', 'content'] as const;
/** One of {@link RESULT_PART_TYPES}. */
export type ResultPartType = (typeof RESULT_PART_TYPES)[number];

/**
 * `tool_result.result` (feature `result_parts`): the result's kind, and `value` when `output` does not carry it
 * (a `toModelOutput` projection: `value` is the full result; `error-json`: the thrown value).
 */
export const resultPartSchema = /* @__PURE__ */ once(() =>
  z.object({
    type: z.enum(RESULT_PART_TYPES),
    value: z.optional(z.unknown()),
  }),
);

/** `RunToolCall.result` as a service reports it: a type this version does not know is passed on (informative). */
const reportedResultPart = /* @__PURE__ */ once(() =>
  z.object({ type: z.string(), value: z.optional(z.unknown()) }),
);

/*
 * The version, the subprotocol, and the defaults both sides assume.
 */
/** Protocol version carried in `hello.protocol`. */
export const PROTOCOL_VERSION = 1;
/** WebSocket subprotocol negotiated on upgrade (RFC 6455 §1.9, `Sec-WebSocket-Protocol`). */
export const SUBPROTOCOL = 'toolwire.v1';

/** Protocol defaults: both sides assume these unless `welcome` says otherwise. */
export const PROTOCOL_DEFAULTS = {
  /** Largest frame either side accepts, in UTF-8 bytes. @default 1_048_576 (1 MiB) */
  maxPayloadBytes: 1_048_576,
  /** Interval between application pings, in milliseconds. @default 15_000 */
  heartbeatIntervalMs: 15_000,
  /** How long the service keeps a dropped session resumable, in milliseconds. @default 60_000 */
  sessionGraceMs: 60_000,
  /** How long the service waits for a tool result before cancelling the call, in milliseconds. @default 120_000 */
  callDeadlineMs: 120_000,
  /** Most call ids one `ack` frame (`callIds`) or one `tool_call` (`acks`) may carry. @default 1_000 */
  maxAcksPerFrame: 1_000,
} as const;

/**
 * The shortest heartbeat interval either side uses, in milliseconds: a service announcing less (even 1 ms) would
 * have each client ping and check for silence every few milliseconds and take any pause for a dead peer. The
 * client clamps a shorter interval to this, with a warning; the stub refuses a shorter `heartbeatIntervalMs`.
 */
export const MIN_HEARTBEAT_INTERVAL_MS = 100;

/** One of {@link TOOL_CALL_STATUSES}. */
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/** `{ name, description, parameters, needsApproval, approvalReason?, sideEffect?, strict? }`: `parameters` is a JSON Schema object (input side). */
export type ToolDefinition = z.infer<ClientFrameSchemas['toolDefinitionSchema']>;

/** Wire shape of an agent. */
export type AgentDefinition = z.infer<ClientFrameSchemas['agentDefinitionSchema']>;

/** A tool call as recorded in a run's transcript and returned in `run_result`. */
export const runToolCallSchema = /* @__PURE__ */ once(() =>
  z.object({
    callId: id,
    toolName: z.string(),
    arguments: z.unknown(),
    /** One of {@link TOOL_CALL_STATUSES}, or any other string a newer service reports: never refused (docs/protocol/runs.md). */
    status: z.string(),
    output: z.string(),
    widget: z.optional(z.unknown()),
    /** Content parts beside `output` (feature `content`, docs/protocol/call-context.md). */
    content: z.optional(contentList()),
    durationMs: z.number().check(z.minimum(0)),
    /** The result's kind, and its value when `output` does not carry it (feature `result_parts`). */
    result: z.optional(reportedResultPart()),
  }),
);
/**
 * One tool call of a finished run. `status` is a {@link ToolCallStatus}, or a status this protocol version does not
 * list, passed on as the service wrote it (docs/protocol/runs.md).
 */
export type RunToolCallFrame = Omit<z.infer<ReturnType<typeof runToolCallSchema>>, 'status'> & {
  status: ToolCallStatus | (string & {});
};

/*
 * The frames the service sends.
 */
const welcome = /* @__PURE__ */ once(() =>
  z.object({
    type: z.literal('welcome'),
    sessionId: id,
    /** `true` when `hello.sessionId` was accepted and the session resumed. */
    resumed: z.boolean(),
    heartbeatIntervalMs: z.number().check(z.int(), z.minimum(1)),
    maxPayloadBytes: z.number().check(z.int(), z.minimum(1024)),
    /** How long the session outlives its socket, in milliseconds (docs/protocol/sessions.md); absent: 60,000. */
    sessionGraceMs: z.optional(nonNegativeInt),
    /**
     * The service's per-call deadline, in milliseconds (docs/protocol/deadlines.md): the figure of the timeout text of
     * a call the client ends at its deadline, its tool not begun. Absent: the call's `deadlineMs`.
     */
    callDeadlineMs: z.optional(z.number().check(z.int(), z.minimum(1))),
    /** The ones of `hello.features` the service uses on this socket; absent: none. */
    features: z.optional(featureList),
    /** With the feature `lease`: how long a call's lease lasts without renewal (docs/protocol/lease.md). */
    leaseMs: z.optional(z.number().check(z.int(), z.minimum(1000))),
    /** With the feature `lease`: the longest a leased call may run, from the model's request. */
    maxCallDurationMs: z.optional(z.number().check(z.int(), z.minimum(1))),
    /**
     * The frames a second the service reads from this socket before it closes it with 4029, sustained; the client
     * paces what it writes to it (docs/protocol/limits.md). Absent: not paced.
     */
    maxFramesPerSecond: z.optional(z.number().check(z.int(), z.minimum(1))),
    /** The frames the service reads at once above that rate (its token bucket); absent: one second's frames. */
    maxFrameBurst: z.optional(z.number().check(z.int(), z.minimum(1))),
    /** With the feature `builds`: how a run not started by a client is pinned to a build (docs/protocol/builds.md). */
    buildPolicy: z.optional(z.string().check(z.maxLength(64))),
    /** With the feature `builds`: the build the operator set as current, if any. */
    currentBuildId: z.optional(z.string().check(z.maxLength(MAX_BUILD_ID_CHARS))),
    /**
     * With the feature `owed_calls`, on a resume: every call the service is still owed a result for by the session
     * (docs/protocol/calls-no-longer-held.md). Bounded by the frame limit alone; absent: unknown.
     */
    owed: z.optional(z.array(id)),
  }),
);

const toolCall = /* @__PURE__ */ once(() =>
  z.object({
    type: z.literal('tool_call'),
    callId: id,
    runId: id,
    toolName: z.string(),
    /** As the model produced them: an object, a JSON string (possibly double-encoded), `''` or `null`. */
    arguments: z.optional(z.unknown()),
    /** `true`: a human approved; `false`: a human rejected (see `reason`); absent: no decision needed yet. */
    approved: z.optional(z.boolean()),
    reason: z.optional(z.string()),
    /** How long the service waits for the result, in milliseconds from receipt. */
    deadlineMs: z.optional(nonNegativeInt),
    /** Nesting depth of the run: 0 for a top-level run. */
    depth: z.optional(nonNegativeInt),
    /** Results the service has recorded, acknowledged on the way (as an `ack` frame would; docs/protocol/tool-calls.md). */
    acks: z.optional(z.array(id).check(z.maxLength(PROTOCOL_DEFAULTS.maxAcksPerFrame))),
    ...traceFields(),
    /** Feature `decisions`: `arguments` are the ones the approver edited (docs/protocol/decisions.md). */
    argumentsEdited: z.optional(z.literal(true)),
    ...toolCallScope(),
  }),
);

const cancel = /* @__PURE__ */ once(() =>
  z.object({
    type: z.literal('cancel'),
    callId: id,
    reason: z.optional(z.string()), // `deadline`, `run_cancelled`, … or any text: a plain cancel (docs/protocol/deadlines.md)
  }),
);

/**
 * `hand_back` (service → client, feature `hand_back`): each named call still waiting for its concurrency key's turn
 * is answered busy, so that another worker takes it (docs/protocol/fleets.md).
 */
const handBack = /* @__PURE__ */ once(() =>
  z.object({
    type: z.literal('hand_back'),
    callIds: z.array(id).check(z.minLength(1), z.maxLength(MAX_KEY_WAIT_IDS)),
  }),
);

/** One result acknowledged (`callId`), or several at once (`callIds`), or both; never neither. */
const ack = /* @__PURE__ */ once(() =>
  z
    .object({
      type: z.literal('ack'),
      callId: z.optional(id),
      callIds: z.optional(z.array(id).check(z.minLength(1), z.maxLength(PROTOCOL_DEFAULTS.maxAcksPerFrame))),
    })
    .check(
      z.refine((frame) => frame.callId !== undefined || frame.callIds !== undefined, {
        message: 'an ack names callId or callIds',
        path: ['callId'],
      }),
    ),
);

const runStarted = /* @__PURE__ */ once(() =>
  z.object({ type: z.literal('run_started'), requestId: id, runId: id }),
);

/**
 * `run_event` kinds added after the first six of protocol 1. A service sends one of these only to a client that
 * lists it in `hello.runEventKinds`, or whose socket negotiated the feature it belongs to
 * ({@link RUN_EVENT_FEATURES}), so an older client, which refuses kinds it does not know, never gets one
 * (docs/protocol/run-events.md). `text_delta`: `{ turn, delta }`, a piece of the model's text as it streams; the others
 * are the running calls' (docs/protocol/updates.md).
 */
export const NEGOTIATED_RUN_EVENT_KINDS = [
  'text_delta',
  'tool_progress',
  'tool_preliminary',
  'question_asked',
  'question_answered',
  'tool_event',
] as const;

/** Kinds of `run_event` (docs/protocol/run-events.md). */
export const RUN_EVENT_KINDS = [
  'turn',
  'message',
  'tool_call',
  'tool_result',
  'approval_requested',
  'approval_decided',
  ...NEGOTIATED_RUN_EVENT_KINDS,
] as const;

const runEvent = /* @__PURE__ */ once(() =>
  z.object({
    type: z.literal('run_event'),
    runId: id,
    /** Numbers the run's events from 1 (docs/protocol/run-events.md): a client drops one at or below the highest it has. */
    seq: z.optional(positiveInt),
    /** `kind`: one of {@link RUN_EVENT_KINDS}, or any other string; a client ignores a kind it does not know (docs/protocol/run-events.md). */
    event: z.object({ kind: z.string(), data: z.optional(z.unknown()) }),
  }),
);

const runResult = /* @__PURE__ */ once(() =>
  z.object({
    type: z.literal('run_result'),
    runId: id,
    status: z.string(), // `completed`, `failed`, `cancelled`; any other: the run failed (docs/protocol/runs.md)
    finalOutput: z.optional(z.unknown()),
    error: z.optional(z.string()),
    /**
     * Why a `failed` run failed, when the service names it (feature `run_codes`, docs/protocol/runs.md):
     * `invalid_output` when the final output is not JSON or does not match the agent's `outputSchema`.
     */
    code: z.optional(z.string().check(z.maxLength(64))),
    toolCalls: z.array(runToolCallSchema()),
    turns: nonNegativeInt,
    /** The kind of model that played the run, when the service says (the stub: `scripted`, `openai-compatible`). */
    model: z.optional(z.string()),
  }),
);

/**
 * The size a service gave in place of a value it cut to fit a frame: `{ truncated: true, bytes }` and nothing
 * else (a `run_result`'s call `arguments`, or its structured `finalOutput`; docs/protocol/runs.md), `bytes` being
 * the size of the value's JSON. `undefined` for any other value.
 */
export function cutValueBytes(value: unknown): number | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { truncated, bytes, ...rest } = value as { truncated?: unknown; bytes?: unknown };
  return truncated === true && typeof bytes === 'number' && Object.keys(rest).length === 0
    ? bytes
    : undefined;
}

/**
 * The schema of each frame type the service may send, by type: a record typed by the union's types
 * ({@link ServiceFrame}), so that a type added to one and not the other does not compile. It inherits nothing: a
 * type such as `__proto__` or `toString` finds no schema.
 */
const SERVICE_FRAMES: Readonly<Record<ServiceFrame['type'], () => z.ZodMiniType>> = Object.assign(
  Object.create(null) as object,
  {
    welcome,
    tool_call: toolCall,
    cancel,
    hand_back: handBack,
    ack,
    run_started: runStarted,
    run_event: runEvent,
    run_result: runResult,
    answer,
    approval_applied: approvalApplied,
    ping,
    pong,
    error: errorFrame,
  } satisfies Record<ServiceFrame['type'], () => z.ZodMiniType>,
);

/**
 * The schema of the service's frames of type `type` (built at the first call for that type), or `undefined` for a
 * type the service does not send. It parses a frame of its type as {@link serviceFrameSchema} does, with the same
 * issues: that union hands such a frame to the same schema.
 */
export function serviceFrameSchemaOf(type: string): z.ZodMiniType | undefined {
  return Object.hasOwn(SERVICE_FRAMES, type) ? SERVICE_FRAMES[type as ServiceFrame['type']]() : undefined;
}

/** Runtime schema of every frame the service may send: their union, built at the first call. */
export const serviceFrameSchema = /* @__PURE__ */ once(() =>
  z.discriminatedUnion('type', [
    welcome(),
    toolCall(),
    cancel(),
    handBack(),
    ack(),
    runStarted(),
    runEvent(),
    runResult(),
    answer(),
    approvalApplied(),
    ping(),
    pong(),
    errorFrame(),
  ]),
);

/** A frame sent by a client (its runtime schema: {@link clientFrames}`().clientFrameSchema`). */
export type ClientFrame = z.infer<ClientFrameSchemas['clientFrameSchema']>;
/** A frame sent by the service. */
export type ServiceFrame = z.infer<ReturnType<typeof serviceFrameSchema>>;
/** Selects one frame type by its `type`. */
export type FrameOf<F extends { type: string }, T extends F['type']> = Extract<F, { type: T }>;

/*
 * The frames a client sends: what the service (the stub) decodes with `decodeClientFrame` (./codec.ts). A client
 * only encodes them: their schemas are built at the first call of {@link clientFrames} (the service's first
 * decode), never in a client's process, and a browser page's bundler drops them.
 */
/**
 * A frame naming calls that wait in the client holding no slot, their tool not begun (`key_waits`,
 * `approval_waits`): `waiting` and `running`, each 1 to `maxIds` ids, at least one of them.
 */
function slotlessWaitsFrame<T extends 'key_waits' | 'approval_waits'>(type: T, maxIds: number) {
  const ids = z.optional(z.array(id).check(z.minLength(1), z.maxLength(maxIds)));
  return z.object({ type: z.literal(type), waiting: ids, running: ids }).check(
    z.refine((frame) => frame.waiting !== undefined || frame.running !== undefined, {
      message: 'waiting or running is required',
      path: ['waiting'],
    }),
  );
}

/** The schemas of the frames a client sends, and of what they carry (see {@link clientFrames}). */
function buildClientFrames() {
  /** Limits the service enforces across every session offering a tool (feature `fleet`, docs/protocol/fleet-limits.md). */
  const fleetLimitsSchema = z.object({
    /** Calls of the tool in flight at once, across the fleet. */
    concurrency: z.optional(z.number().check(z.int(), z.minimum(1))),
    /** Calls of the tool sent per second, across the fleet (a token bucket of this size). */
    perSecond: z.optional(z.number().check(z.positive())),
  });

  /** JSON-serialisable definition of a tool, as announced to the service. */
  const toolDefinitionSchema = z.object({
    name: toolName(),
    description: z.string().check(z.minLength(1)),
    parameters: jsonObject,
    needsApproval: z.boolean(),
    /**
     * Why every call needs approval, for the approver (docs/protocol/decisions.md); an older service ignores
     * it.
     */
    approvalReason: z.optional(z.string().check(z.maxLength(MAX_APPROVAL_REASON_CHARS))),
    /** How the tool touches the world (docs/protocol/frames.md); absent: not said, treat as `external`. */
    sideEffect: z.optional(z.enum(SIDE_EFFECTS)),
    /**
     * `parameters` are in strict form (docs/protocol/call-context.md, feature `strict`); an older service
     * ignores it.
     */
    strict: z.optional(z.boolean()),
    /**
     * Discovery: show the tool up front (`true`) or behind discovery (`false`); an older service ignores it.
     */
    defaultEnabled: z.optional(z.boolean()),
    /** Discovery metadata (docs/protocol/call-context.md); an older service ignores it. */
    capability: z.optional(
      z.object({
        visibility: z.optional(z.enum(['auto', 'always', 'deferred', 'skill', 'hidden'])),
        execution: z.optional(z.enum(['auto', 'direct', 'sandbox', 'both'])),
        namespace: z.optional(
          z
            .string()
            .check(
              z.regex(/^[a-zA-Z0-9_.:/-]{1,64}$/, { error: 'must be 1 to 64 letters, digits or _ . : / -' }),
            ),
        ),
        tags: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(64))).check(z.maxLength(32))),
        aliases: z.optional(z.array(toolName()).check(z.maxLength(16))),
      }),
    ),
    /** Limits across every worker offering the tool (feature `fleet`); an older service ignores it. */
    fleet: z.optional(fleetLimitsSchema),
    /**
     * How many of the client's `maxConcurrency` slots one call takes (absent: 1), so that the service routes by
     * free slots (docs/protocol/routing.md); an older service ignores it.
     */
    slots: z.optional(z.number().check(z.int(), z.minimum(1))),
  });

  /** JSON-serialisable definition of an agent, sent with `run_start`. Its tools' `execute` never leaves. */
  const agentDefinitionSchema = z.object({
    name: z.string().check(z.minLength(1), z.maxLength(128)),
    instructions: z.string(),
    model: z.optional(z.string()),
    /** Names of the tools the agent may call; each one is announced by some connected client. */
    tools: z.array(z.string()),
    /** JSON Schema the final output must match, when the agent has an `outputType`. */
    outputSchema: z.optional(jsonObject),
  });

  const hello = z.object({
    type: z.literal('hello'),
    protocol: z.number(),
    sdk: z.object({ name: z.string(), version: z.string() }),
    tools: z.array(toolDefinitionSchema),
    /** Present when resuming a session after a reconnect. */
    sessionId: z.optional(id),
    /** Only where the runtime cannot set an `Authorization` header (browsers). */
    apiKey: z.optional(z.string()),
    /**
     * The build this client runs (`Client({ buildId })`); runs it starts are pinned to it (feature `builds`).
     */
    // Its characters are the service's to check, with a message of its own (`BUILD_ID_PATTERN`).
    buildId: z.optional(z.string().check(z.minLength(1), z.maxLength(MAX_BUILD_ID_CHARS))),
    /** `true` when the client decides approvals itself (`onApproval`): calls are sent undecided. */
    localApprovals: z.optional(z.boolean()),
    /** The client's `maxConcurrency`, a hint for load spreading. */
    maxConcurrency: z.optional(nonNegativeInt),
    /**
     * How many more calls the client queues once `maxConcurrency` run: with `maxConcurrency`, the most calls
     * the client can hold before it answers "busy". The service keeps calls beyond it waiting on its side.
     */
    maxQueue: z.optional(nonNegativeInt),
    /**
     * `run_event` kinds beyond the first six that the client accepts ({@link NEGOTIATED_RUN_EVENT_KINDS});
     * the service sends those kinds only to clients that list them. Unknown names are ignored.
     */
    runEventKinds: z.optional(z.array(z.string().check(z.maxLength(64))).check(z.maxLength(64))),
    /**
     * The protocol additions the client can use (docs/protocol/index.md); any strings, unknown ones are
     * ignored.
     */
    features: z.optional(featureList),
  });

  const toolResult = z.object({
    type: z.literal('tool_result'),
    callId: id,
    status: z.enum(TOOL_CALL_STATUSES),
    output: z.string(),
    widget: z.optional(z.unknown()),
    /** `true` when the client did not run the call (busy) and the service may send it again later. */
    retryable: z.optional(z.boolean()),
    durationMs: z.optional(z.number().check(z.minimum(0))),
    /** Content parts beside `output` (feature `content`, docs/protocol/call-context.md). */
    content: z.optional(contentList()),
    /** The result's kind, and its value when `output` does not carry it (feature `result_parts`). */
    result: z.optional(resultPartSchema()),
  });

  const toolsUpdate = z.object({
    type: z.literal('tools_update'),
    tools: z.array(toolDefinitionSchema),
  });

  const runStart = z.object({
    type: z.literal('run_start'),
    /** Chosen by the client; echoed in `run_started` and `error`. */
    requestId: id,
    agent: agentDefinitionSchema,
    input: z.string(),
    maxTurns: z.optional(z.number().check(z.int(), z.minimum(1))),
    /** Set for a nested run (an agent used as a tool): the run and call it belongs to. */
    parentRunId: z.optional(id),
    parentCallId: z.optional(id),
    /**
     * The end user the run acts for (feature `call_context`: the service gives it to the run's calls and
     * nested runs as `tool_call.userId`); a nested run takes its parent's. An older service ignores it.
     */
    userId: z.optional(id),
    /** Feature `run_options`: which tools the model may call. Absent: 'auto'. */
    toolChoice: z.optional(toolChoiceSchema()),
    /** Feature `run_options`: the caller's data, kept with the run. */
    metadata: z.optional(runMetadata()),
  });

  const runCancel = z.object({
    type: z.literal('run_cancel'),
    runId: id,
    reason: z.optional(z.string()),
  });

  // The protocol additions' frames (docs/protocol/updates.md).
  const finite = z.number().check(
    z.refine((n) => Number.isFinite(n), { message: 'must be a finite number' }),
    z.minimum(0),
  );

  /** `tool_progress` (client → service, feature `progress`): how far a running call has got. */
  const toolProgress = z.object({
    type: z.literal('tool_progress'),
    callId: id,
    /**
     * Counted per call by the client, one up per new progress; the service ignores one not above the last.
     */
    seq: positiveInt,
    progress: finite,
    total: z.optional(
      z.number().check(z.refine((n) => Number.isFinite(n) && n > 0, { message: 'must be greater than 0' })),
    ),
    message: z.optional(z.string().check(z.maxLength(MAX_PROGRESS_MESSAGE_CHARS))),
  });

  /** `tool_preliminary` (client → service, feature `preliminary`): a snapshot result for people, not the model. */
  const toolPreliminary = z.object({
    type: z.literal('tool_preliminary'),
    callId: id,
    /** Counted per call by the client, one up per new preliminary result. */
    seq: positiveInt,
    output: z.string(),
    widget: z.optional(z.unknown()),
  });

  /** `lease` (client → service, feature `lease`): these calls still run here; their leases are renewed. */
  const lease = z.object({
    type: z.literal('lease'),
    callIds: z.array(id).check(z.minLength(1), z.maxLength(MAX_LEASE_IDS)),
  });

  /**
   * `key_waits` (client → service, feature `key_waits`): `waiting`: these calls wait for their concurrency key's turn,
   * holding no slot, their tool not begun; `running`: these calls, named in `waiting` before, hold their slots again
   * (docs/protocol/fleets.md).
   */
  const keyWaits = slotlessWaitsFrame('key_waits', MAX_KEY_WAIT_IDS);

  /**
   * `approval_waits` (client → service, feature `approval_waits`): `waiting`: these calls wait for the client's own
   * approver (a person, say), holding no slot, their tool not begun; `running`: these calls, named in `waiting` before,
   * were approved and hold their slots again (docs/protocol/approvals.md).
   */
  const approvalWaits = slotlessWaitsFrame('approval_waits', MAX_APPROVAL_WAIT_IDS);

  /** `question` (client → service, feature `questions`): the running call asks the user. */
  const question = z.object({
    type: z.literal('question'),
    callId: id,
    /** Chosen by the client, unique within the call's dispatch (its stay in one session; docs/protocol/questions.md). */
    questionId: id,
    question: z.string().check(z.minLength(1), z.maxLength(QUESTION_LIMITS.maxQuestionChars)),
    choices: z.optional(
      z
        .array(z.string().check(z.minLength(1), z.maxLength(QUESTION_LIMITS.maxChoiceChars)))
        .check(z.minLength(1), z.maxLength(QUESTION_LIMITS.maxChoices)),
    ),
    /** A JSON Schema the answer must match. */
    schema: z.optional(jsonObject),
  });

  /** `question_cancel` (client → service, feature `questions`): the call no longer waits for that answer. */
  const questionCancel = z.object({
    type: z.literal('question_cancel'),
    callId: id,
    questionId: id,
  });

  /** `tool_event` (client → service, feature `events`): something the running call records in its run. */
  const toolEvent = z.object({
    type: z.literal('tool_event'),
    callId: id,
    /** Counted per call by the client, one up per event; the service records each once, in order. */
    seq: positiveInt,
    event: z
      .string()
      .check(z.regex(EVENT_LIMITS.namePattern, { error: 'must be 1 to 128 letters, digits or _ . : / -' })),
    data: z.optional(z.unknown()),
  });

  /** `approval_request` (client → service): the client's own policy says a human must approve this call. */
  const approvalRequest = z.object({
    type: z.literal('approval_request'),
    callId: id,
    reason: z.optional(z.string()),
  });

  /**
   * `approval` (client → service): a human's decision. With the feature `decisions`: `arguments` (edited, only with
   * `approved: true`), `always` (the same decision for the tool's later calls in the run) and `requestId` (the
   * service answers `approval_applied` or an `error` carrying it).
   */
  const approval = z
    .object({
      type: z.literal('approval'),
      callId: id,
      approved: z.boolean(),
      reason: z.optional(z.string()),
      arguments: z.optional(jsonObject),
      always: z.optional(z.boolean()),
      requestId: z.optional(id),
    })
    .check(
      z.refine((frame) => frame.approved || frame.arguments === undefined, {
        message: 'arguments may only be edited when approving',
        path: ['arguments'],
      }),
    );

  /** `step_result` (client → service, feature `steps`): a step of a running call completed with this JSON result. */
  const stepResult = z.object({
    type: z.literal('step_result'),
    callId: id,
    key: stepKey(),
    result: z.unknown(),
  });

  /** Runtime schema of every frame a client may send. */
  const clientFrameSchema = z.discriminatedUnion('type', [
    hello,
    toolResult,
    approvalRequest,
    approval,
    toolsUpdate,
    runStart,
    runCancel,
    toolProgress,
    toolPreliminary,
    lease,
    keyWaits,
    approvalWaits,
    question,
    questionCancel,
    toolEvent,
    stepResult,
    ping(),
    pong(),
    errorFrame(),
  ]);

  return { fleetLimitsSchema, toolDefinitionSchema, agentDefinitionSchema, clientFrameSchema };
}

/** The schemas of the frames a client sends: `clientFrameSchema` (every frame), and the definitions they carry. */
export type ClientFrameSchemas = ReturnType<typeof buildClientFrames>;

let builtClientFrames: ClientFrameSchemas | undefined;

/**
 * The schemas of the frames a client sends ({@link ClientFrameSchemas}), built at the first call and kept: the
 * service's (the stub's) to decode with; a client, which only encodes these frames, never builds them.
 */
export function clientFrames(): ClientFrameSchemas {
  builtClientFrames ??= buildClientFrames();
  return builtClientFrames;
}

/** A tool's fleet-wide limits, as announced. */
export type FleetLimits = z.infer<ClientFrameSchemas['fleetLimitsSchema']>;

/** Whether two tools announce the same fleet-wide limits (none and `{}` alike): workers of a fleet must. */
export function sameFleetLimits(a: FleetLimits | undefined, b: FleetLimits | undefined): boolean {
  return a?.concurrency === b?.concurrency && a?.perSecond === b?.perSecond;
}
