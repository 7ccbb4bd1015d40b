/**
 * The protocol additions for durable steps and the call's scope (PROTOCOL.md §18.11, §18.12): the bounds of steps,
 * the `tool_call` fields that carry kept steps, the run's session and agent, and the side-effect class of a tool
 * definition. src/wire/protocol.ts puts them into its frames; the `step_result` frame, which only a client sends,
 * is in src/wire/client-frames.ts.
 *
 * @module
 */
import * as z from 'zod/mini';
import { id } from './frame-fields';

/** The side-effect classes a tool definition may announce (PROTOCOL.md §4.1). */
export const SIDE_EFFECTS = ['none', 'idempotent', 'external'] as const;

/** Bounds of durable steps (PROTOCOL.md §18.11). */
export const STEP_LIMITS = {
  /** Longest step key, in characters. */
  maxKeyChars: 256,
  /** Largest result of one step the service keeps, in bytes of JSON. */
  maxResultBytes: 16_384,
  /** Most steps the service keeps for one call. */
  maxPerCall: 32,
} as const;

export const stepKey = z.string().check(z.minLength(1), z.maxLength(STEP_LIMITS.maxKeyChars));

/** The steps of a call the service kept, by key (`tool_call.steps`). */
export const keptSteps = z.record(stepKey, z.unknown());

/** Fields of `tool_call` from these features; optional, sent only where negotiated. */
export const toolCallScope = {
  /** Feature `call_context`: the session that started the call's run (absent for a run started over HTTP). */
  sessionId: z.optional(id),
  /** Feature `call_context`: the name of the agent whose run made the call. */
  agentName: z.optional(z.string().check(z.maxLength(128))),
  /** Feature `steps`: the call's completed steps the service kept (a re-dispatched call), by key. */
  steps: z.optional(keptSteps),
};
