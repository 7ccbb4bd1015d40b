/**
 * Frames of approvals (PROTOCOL.md §7) and their additions under the feature `decisions` (PROTOCOL.md §18.8):
 * the reason, edited arguments, `always`, and the service's answer to a decision sent over the socket. The
 * client's frames (`approval_request`, `approval`) are in src/wire/client-frames.ts, with every frame only a
 * client sends; src/wire/protocol.ts puts `approval_applied` into its union.
 *
 * @module
 */
import * as z from 'zod/mini';
import { id } from './frame-fields';

/** Longest approval reason (`approval_request.reason`, `ToolDefinition.approvalReason`), in characters. */
export const MAX_APPROVAL_REASON_CHARS = 1_000;

/** `approval_applied` (service → client, feature `decisions`): the `approval` with this `requestId` was applied. */
export const approvalApplied = z.object({
  type: z.literal('approval_applied'),
  requestId: id,
  callId: id,
  approved: z.boolean(),
});
