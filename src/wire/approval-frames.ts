/**
 * Frames of approvals (PROTOCOL.md §7) and their additions under the feature `decisions` (PROTOCOL.md §18.8):
 * the reason, edited arguments, `always`, and the service's answer to a decision sent over the socket.
 * src/wire/protocol.ts puts these frames into its unions; nothing else declares them.
 *
 * @module
 */
import * as z from 'zod/mini';
import { id, jsonObject } from './frame-fields';

/** Longest approval reason (`approval_request.reason`, `ToolDefinition.approvalReason`), in characters. */
export const MAX_APPROVAL_REASON_CHARS = 1_000;

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

/** `approval_applied` (service → client, feature `decisions`): the `approval` with this `requestId` was applied. */
export const approvalApplied = z.object({
  type: z.literal('approval_applied'),
  requestId: id,
  callId: id,
  approved: z.boolean(),
});
