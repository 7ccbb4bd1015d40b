/**
 * Ids as the stand-in service makes them (server-stub/runs.ts): a call's `call_` and a random UUID, a run's `run_`
 * and one, 41 and 40 characters of mostly random hex. Every bench that plays the service sends these, so that a
 * client's work on ids (hashing them, looking them up, writing them back) costs what a service's ids cost, not what
 * a short `c123` does.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

/** A call id as the stub makes one (server-stub/runs.ts `newCallId`): `call_` and a random UUID. */
export const newCallId = (): string => `call_${randomUUID()}`;

/** A run id as the stub makes one (server-stub/runs.ts): `run_` and a random UUID. */
export const newRunId = (): string => `run_${randomUUID()}`;
