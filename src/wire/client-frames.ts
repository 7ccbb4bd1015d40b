/**
 * The frames only a client sends (PROTOCOL.md), as runtime schemas: what the service (the stub) decodes with
 * `decodeClientFrame` (src/wire/codec.ts). Their types are src/wire/protocol.ts's `ClientFrame`. Apart from the
 * frames of both directions, so that a client, which only encodes these, does not carry their schemas: a page's
 * bundler leaves this module out of the browser build.
 *
 * @module
 */
import * as z from 'zod/mini';
import { MAX_APPROVAL_REASON_CHARS } from './approval-frames';
import {
  contentList,
  EVENT_LIMITS,
  MAX_LEASE_IDS,
  MAX_PROGRESS_MESSAGE_CHARS,
  QUESTION_LIMITS,
} from './call-frames';
import { id, jsonObject, nonNegativeInt, positiveInt } from './frame-fields';
import { errorFrame, featureList, ping, pong, TOOL_CALL_STATUSES } from './shared-frames';
import { SIDE_EFFECTS, stepKey } from './step-frames';

/** JSON-serialisable definition of a tool, as announced to the service. */
export const toolDefinitionSchema = z.object({
  name: z.string().check(z.regex(/^[a-zA-Z0-9_-]{1,64}$/)),
  description: z.string().check(z.minLength(1)),
  parameters: jsonObject,
  needsApproval: z.boolean(),
  /** Why every call needs approval, for the approver (PROTOCOL.md §18.8); an older service ignores it. */
  approvalReason: z.optional(z.string().check(z.maxLength(MAX_APPROVAL_REASON_CHARS))),
  /** How the tool touches the world (PROTOCOL.md §4.1); absent: not said, treat as `external`. */
  sideEffect: z.optional(z.enum(SIDE_EFFECTS)),
  /** `parameters` are in strict form (PROTOCOL.md §18.13, feature `strict`); an older service ignores it. */
  strict: z.optional(z.boolean()),
});

/** JSON-serialisable definition of an agent, sent with `run_start`. Its tools' `execute` never leaves. */
export const agentDefinitionSchema = z.object({
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
  /** `true` when the client decides approvals itself (`onApproval`): calls are sent undecided. */
  localApprovals: z.optional(z.boolean()),
  /** The client's `maxConcurrency`, a hint for load spreading. */
  maxConcurrency: z.optional(nonNegativeInt),
  /**
   * How many more calls the client queues once `maxConcurrency` run: with `maxConcurrency`, the most calls the
   * client can hold before it answers "busy". The service keeps calls beyond it waiting on its side.
   */
  maxQueue: z.optional(nonNegativeInt),
  /**
   * `run_event` kinds beyond the first six that the client accepts ({@link NEGOTIATED_RUN_EVENT_KINDS}); the
   * service sends those kinds only to clients that list them. Unknown names are ignored.
   */
  runEventKinds: z.optional(z.array(z.string().check(z.maxLength(64))).check(z.maxLength(64))),
  /** The protocol additions the client can use (PROTOCOL.md §2); any strings, unknown ones are ignored. */
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
  /** Content parts beside `output` (feature `content`, PROTOCOL.md §18.7). */
  content: z.optional(contentList),
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
});

const runCancel = z.object({
  type: z.literal('run_cancel'),
  runId: id,
  reason: z.optional(z.string()),
});

// ---------------------------------------------------------------- protocol additions (PROTOCOL.md §18)

const finite = z.number().check(
  z.refine((n) => Number.isFinite(n), { message: 'must be a finite number' }),
  z.minimum(0),
);

/** `tool_progress` (client → service, feature `progress`): how far a running call has got. */
export const toolProgress = z.object({
  type: z.literal('tool_progress'),
  callId: id,
  /** Counted per call by the client, one up per new progress; the service ignores one not above the last. */
  seq: positiveInt,
  progress: finite,
  total: z.optional(
    z.number().check(z.refine((n) => Number.isFinite(n) && n > 0, { message: 'must be a number > 0' })),
  ),
  message: z.optional(z.string().check(z.maxLength(MAX_PROGRESS_MESSAGE_CHARS))),
});

/** `tool_preliminary` (client → service, feature `preliminary`): a snapshot result for people, not the model. */
export const toolPreliminary = z.object({
  type: z.literal('tool_preliminary'),
  callId: id,
  /** Counted per call by the client, one up per new preliminary result. */
  seq: positiveInt,
  output: z.string(),
  widget: z.optional(z.unknown()),
});

/** `lease` (client → service, feature `lease`): these calls still run here; their leases are renewed. */
export const lease = z.object({
  type: z.literal('lease'),
  callIds: z.array(id).check(z.minLength(1), z.maxLength(MAX_LEASE_IDS)),
});

/** `question` (client → service, feature `questions`): the running call asks the user. */
export const question = z.object({
  type: z.literal('question'),
  callId: id,
  /** Chosen by the client, unique within the call. */
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
export const questionCancel = z.object({
  type: z.literal('question_cancel'),
  callId: id,
  questionId: id,
});

/** `tool_event` (client → service, feature `events`): something the running call records in its run. */
export const toolEvent = z.object({
  type: z.literal('tool_event'),
  callId: id,
  /** Counted per call by the client, one up per event; the service records each once, in order. */
  seq: positiveInt,
  event: z.string().check(z.regex(EVENT_LIMITS.namePattern)),
  data: z.optional(z.unknown()),
});

/** `approval_request` (client → service): the client's own policy says a human must approve this call. */
export const approvalRequest = z.object({
  type: z.literal('approval_request'),
  callId: id,
  reason: z.optional(z.string()),
});

/**
 * `approval` (client → service): a human's decision. With the feature `decisions`: `arguments` (edited, only with
 * `approved: true`), `always` (the same decision for the tool's later calls in the run) and `requestId` (the
 * service answers `approval_applied` or an `error` carrying it).
 */
export const approval = z
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
export const stepResult = z.object({
  type: z.literal('step_result'),
  callId: id,
  key: stepKey,
  result: z.unknown(),
});

/** Runtime schema of every frame a client may send. */
export const clientFrameSchema = z.discriminatedUnion('type', [
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
  question,
  questionCancel,
  toolEvent,
  stepResult,
  ping,
  pong,
  errorFrame,
]);
