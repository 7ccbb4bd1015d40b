/**
 * Ids of calls and runs made when the caller gave none (`invokeTool()` without `callId` / `runId`).
 *
 * @module
 */

/** A random id: `crypto.randomUUID()` where available (it is missing on insecure browser origins). */
export function randomId(): string {
  if (typeof globalThis.crypto?.randomUUID === 'function') return globalThis.crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}
