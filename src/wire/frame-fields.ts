/**
 * Field schemas shared by the frames of src/wire/protocol.ts and src/wire/call-frames.ts: ids, counts, JSON
 * objects.
 *
 * @module
 */
import * as z from 'zod/mini';

/** An opaque id (`callId`, `runId`, …): 1 to 256 characters. */
export const id = z.string().check(z.minLength(1), z.maxLength(256));
/** An integer ≥ 0. */
export const nonNegativeInt = z.number().check(z.int(), z.minimum(0));
/** An integer ≥ 1 (a per-call update counter). */
export const positiveInt = z.number().check(z.int(), z.minimum(1));
/** A JSON object. */
export const jsonObject = z.record(z.string(), z.unknown());
