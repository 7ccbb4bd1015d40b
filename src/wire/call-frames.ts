/**
 * Frames and names of the protocol additions for long-running and talking calls (PROTOCOL.md §18), each switched
 * on per socket by a feature negotiated in `hello`/`welcome` (PROTOCOL.md §2). src/wire/protocol.ts puts these
 * frames into its unions; nothing else declares them.
 *
 * @module
 */
import * as z from 'zod/mini';
import { id, positiveInt } from './frame-fields';

/** Most call ids one `lease` frame carries. */
export const MAX_LEASE_IDS = 1_000;

/** Every feature this version of the protocol defines (PROTOCOL.md §2). */
export const FEATURES = ['progress', 'preliminary', 'lease', 'event_replay'] as const;
/** One of {@link FEATURES}. */
export type Feature = (typeof FEATURES)[number];

/** The feature a `run_event` kind belongs to: it is sent only to a session that negotiated it. */
export const RUN_EVENT_FEATURES: Readonly<Record<string, Feature>> = {
  tool_progress: 'progress',
  tool_preliminary: 'preliminary',
};

/** A client sends at most one `tool_progress` per call in this many milliseconds (the last one always). */
export const PROGRESS_INTERVAL_MS = 250;
/** Longest `tool_progress.message`, in characters. */
export const MAX_PROGRESS_MESSAGE_CHARS = 1_000;

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
