/**
 * The frames only a client sends (PROTOCOL.md), as runtime schemas: what the service (the stub) decodes with
 * `decodeClientFrame` (src/wire/codec.ts). Their types are src/wire/protocol.ts's `ClientFrame`. Apart from the
 * frames of both directions, so that a client, which only encodes these, does not carry their schemas: a page's
 * bundler leaves this module out of the browser build.
 *
 * @module
 */
import * as z from 'zod/mini';
import { approval, approvalRequest } from './approval-frames';
import {
  contentList,
  lease,
  question,
  questionCancel,
  toolEvent,
  toolPreliminary,
  toolProgress,
} from './call-frames';
import { id, nonNegativeInt } from './frame-fields';
import {
  agentDefinitionSchema,
  errorFrame,
  featureList,
  ping,
  pong,
  TOOL_CALL_STATUSES,
  toolDefinitionSchema,
} from './shared-frames';
import { stepResult } from './step-frames';

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
