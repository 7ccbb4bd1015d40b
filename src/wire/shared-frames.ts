/**
 * The parts of the wire protocol both directions use: the frames either side sends (`ping`, `pong`, `error`), and
 * the fields src/wire/protocol.ts (the service's frames) and src/wire/client-frames.ts (the client's) share. Both
 * import them from here, so that neither imports the other.
 *
 * @module
 */
import * as z from 'zod/mini';
import { MAX_APPROVAL_REASON_CHARS } from './approval-frames';
import { jsonObject } from './frame-fields';
import { SIDE_EFFECTS } from './step-frames';

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

/** A list of feature names (PROTOCOL.md §2): at most 64 names of at most 64 characters. */
export const featureList = z.array(z.string().check(z.maxLength(64))).check(z.maxLength(64));

export const ping = z.object({ type: z.literal('ping'), id: z.optional(z.string()) });
export const pong = z.object({ type: z.literal('pong'), id: z.optional(z.string()) });

export const errorFrame = z.object({
  type: z.literal('error'),
  code: z.string(), // one of ERROR_CODES; a receiver takes any other as a plain error (PROTOCOL.md §13)
  message: z.string(),
  callId: z.optional(z.string()),
  requestId: z.optional(z.string()),
  runId: z.optional(z.string()),
});
