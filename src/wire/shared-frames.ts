/**
 * The parts of the wire protocol both directions use: the frames either side sends (`ping`, `pong`, `error`), and
 * the fields src/wire/protocol.ts (the service's frames) and src/wire/client-frames.ts (the client's) share, here
 * so that client-frames.ts need not import protocol.ts (which takes the client's frame types from it).
 *
 * @module
 */
import * as z from 'zod/mini';

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
