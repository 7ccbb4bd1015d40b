/**
 * Wire protocol v1: every frame exchanged between a toolwire client and the service, as TypeScript types and
 * as runtime schemas. Both the client (`src/`) and the stand-in service (`server-stub/`) import this module.
 * The schemas of the frames only a client sends are in ./client-frames.ts (a client only encodes them, so a page
 * does not carry them), those of both directions in ./shared-frames.ts, and the protocol additions' in the
 * `*-frames.ts` beside it. docs/PROTOCOL.md is the prose contract for the same frames.
 *
 * Frames are JSON text messages with a string `type`. Every inbound frame is decoded with {@link decodeFrame}
 * before use; a frame that fails is answered with an `error` frame and the connection stays open.
 *
 * @module
 */
import * as z from 'zod/mini';
import { approvalApplied } from './approval-frames';
import { answer, contentList, traceFields } from './call-frames';
import type { agentDefinitionSchema, clientFrameSchema, toolDefinitionSchema } from './client-frames';
import { id, nonNegativeInt, positiveInt } from './frame-fields';
import { errorFrame, featureList, ping, pong, type TOOL_CALL_STATUSES } from './shared-frames';
import { toolCallScope } from './step-frames';

export { MAX_APPROVAL_REASON_CHARS } from './approval-frames';

export {
  ANSWER_STATUSES,
  answeredFeatures,
  CONTENT_LIMITS,
  type ContentPart,
  contentPartSchema,
  EVENT_LIMITS,
  FEATURE_ALIASES,
  FEATURES,
  type Feature,
  featureOf,
  featuresOf,
  MAX_LEASE_IDS,
  PROGRESS_INTERVAL_MS,
  QUESTION_LIMITS,
  type RetiredFeature,
  RUN_EVENT_FEATURES,
} from './call-frames';
export { SIDE_EFFECTS, STEP_LIMITS } from './step-frames';

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

export { agentDefinitionSchema, toolDefinitionSchema } from './client-frames';
export { CLOSE_CODES } from './close-codes';
export { TOOL_CALL_STATUSES } from './shared-frames';

/** One of {@link TOOL_CALL_STATUSES}. */
export type ToolCallStatus = (typeof TOOL_CALL_STATUSES)[number];

/** `{ name, description, parameters, needsApproval, approvalReason?, sideEffect?, strict? }`: `parameters` is a JSON Schema object (input side). */
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

/** Wire shape of an agent. */
export type AgentDefinition = z.infer<typeof agentDefinitionSchema>;

/** A tool call as recorded in a run's transcript and returned in `run_result`. */
export const runToolCallSchema = z.object({
  callId: id,
  toolName: z.string(),
  arguments: z.unknown(),
  /** One of {@link TOOL_CALL_STATUSES}, or any other string a newer service reports: never refused (§10.1). */
  status: z.string(),
  output: z.string(),
  widget: z.optional(z.unknown()),
  /** Content parts beside `output` (feature `content`, PROTOCOL.md §18.7). */
  content: z.optional(contentList),
  durationMs: z.number().check(z.minimum(0)),
});
/**
 * One tool call of a finished run. `status` is a {@link ToolCallStatus}, or a status this protocol version does not
 * list, passed on as the service wrote it (PROTOCOL.md §10.1).
 */
export type RunToolCall = Omit<z.infer<typeof runToolCallSchema>, 'status'> & {
  status: ToolCallStatus | (string & {});
};

// ---------------------------------------------------------------- service → client

const welcome = z.object({
  type: z.literal('welcome'),
  sessionId: id,
  /** `true` when `hello.sessionId` was accepted and the session resumed. */
  resumed: z.boolean(),
  heartbeatIntervalMs: z.number().check(z.int(), z.minimum(1)),
  maxPayloadBytes: z.number().check(z.int(), z.minimum(1024)),
  sessionGraceMs: z.optional(nonNegativeInt),
  /** The ones of `hello.features` the service uses on this socket; absent: none. */
  features: z.optional(featureList),
  /** With the feature `lease`: how long a call's lease lasts without renewal (PROTOCOL.md §18.4). */
  leaseMs: z.optional(z.number().check(z.int(), z.minimum(1000))),
  /** With the feature `lease`: the longest a leased call may run, from the model's request. */
  maxCallDurationMs: z.optional(z.number().check(z.int(), z.minimum(1))),
});

const toolCall = z.object({
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
  /** Results the service has recorded, acknowledged on the way (as an `ack` frame would; PROTOCOL.md §5.1). */
  acks: z.optional(z.array(id).check(z.maxLength(PROTOCOL_DEFAULTS.maxAcksPerFrame))),
  ...traceFields,
  /** Feature `decisions`: `arguments` are the ones the approver edited (PROTOCOL.md §18.8). */
  argumentsEdited: z.optional(z.literal(true)),
  ...toolCallScope,
});

const cancel = z.object({
  type: z.literal('cancel'),
  callId: id,
  reason: z.optional(z.string()), // `deadline`, `run_cancelled`, … or any text: a plain cancel (PROTOCOL.md §6)
});

/** One result acknowledged (`callId`), or several at once (`callIds`), or both; never neither. */
const ack = z
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
  );

const runStarted = z.object({ type: z.literal('run_started'), requestId: id, runId: id });

/**
 * `run_event` kinds added after the first six of protocol 1. A service sends one of these only to a client that
 * lists it in `hello.runEventKinds`, or whose socket negotiated the feature it belongs to
 * ({@link RUN_EVENT_FEATURES}), so an older client, which refuses kinds it does not know, never gets one
 * (PROTOCOL.md §10.2). `text_delta`: `{ turn, delta }`, a piece of the model's text as it streams; the others
 * are the running calls' (§18).
 */
export const NEGOTIATED_RUN_EVENT_KINDS = [
  'text_delta',
  'tool_progress',
  'tool_preliminary',
  'question_asked',
  'question_answered',
  'tool_event',
] as const;

/** Kinds of `run_event` (PROTOCOL.md §10.2). */
export const RUN_EVENT_KINDS = [
  'turn',
  'message',
  'tool_call',
  'tool_result',
  'approval_requested',
  'approval_decided',
  ...NEGOTIATED_RUN_EVENT_KINDS,
] as const;

const runEvent = z.object({
  type: z.literal('run_event'),
  runId: id,
  /** Numbers the run's events from 1 (PROTOCOL.md §10.2): a client drops one at or below the highest it has. */
  seq: z.optional(positiveInt),
  /** `kind`: one of {@link RUN_EVENT_KINDS}, or any other string; a client ignores a kind it does not know (§10.2). */
  event: z.object({ kind: z.string(), data: z.optional(z.unknown()) }),
});

const runResult = z.object({
  type: z.literal('run_result'),
  runId: id,
  status: z.string(), // `completed`, `failed`, `cancelled`; any other: the run failed (PROTOCOL.md §10.1)
  finalOutput: z.optional(z.unknown()),
  error: z.optional(z.string()),
  /**
   * Why a `failed` run failed, when the service names it (feature `run_codes`, PROTOCOL.md §10.1):
   * `invalid_output` when the final output is not JSON or does not match the agent's `outputSchema`.
   */
  code: z.optional(z.string().check(z.maxLength(64))),
  toolCalls: z.array(runToolCallSchema),
  turns: nonNegativeInt,
  /** The kind of model that played the run, when the service says (the stub: `scripted`, `openai-compatible`). */
  model: z.optional(z.string()),
});

// ---------------------------------------------------------------- both directions

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
] as const;

/** Runtime schema of every frame the service may send. */
export const serviceFrameSchema = z.discriminatedUnion('type', [
  welcome,
  toolCall,
  cancel,
  ack,
  runStarted,
  runEvent,
  runResult,
  answer,
  approvalApplied,
  ping,
  pong,
  errorFrame,
]);

/** A frame sent by a client (its runtime schema: src/wire/client-frames.ts). */
export type ClientFrame = z.infer<typeof clientFrameSchema>;
/** A frame sent by the service. */
export type ServiceFrame = z.infer<typeof serviceFrameSchema>;
/** Selects one frame type by its `type`. */
export type FrameOf<F extends { type: string }, T extends F['type']> = Extract<F, { type: T }>;

/** UTF-8 length of a string in bytes, without allocating (lone surrogates count as U+FFFD, 3 bytes). */
export { utf8Length } from './utf8';
