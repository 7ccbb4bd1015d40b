/**
 * Per-tool concurrency in one process (`tool({ concurrency: { limit, key } })`): at most `limit` calls of the
 * tool run `execute` at once per key. A call over the limit waits after validation, approval and the policies,
 * just before `execute`, and gives its host's slot up meanwhile (`CallWaits`: a client's `maxConcurrency` slot),
 * so that a key at its limit never holds slots that other keys' calls could use: keys do not wait for each
 * other, and a busy key cannot starve a quiet one. Within a key calls go in the order they came.
 *
 * A tool without `concurrency` never enters this file: the gate is decided when the tool is defined.
 *
 * @module
 */
import { type ConcurrencyGate, MAX_CONCURRENCY_KEY_CHARS, type Waiter } from '../tool/concurrency';
import { errorText } from '../tool/model-text';
import { type Settled, timed } from './signal';
import type { CallState } from './types';

/** The permit each call holds, by call: given back when the call ends ({@link releasePermit}). */
const permits = new WeakMap<CallState, { gate: ConcurrencyGate; key: string }>();

/** `true` when the call holds its permit (it goes on to `execute`). */
export function holdsPermit(call: CallState): boolean {
  return permits.has(call);
}

/** The call ended: its permit, if any, goes to the next call of its key. */
export function releasePermit(call: CallState): void {
  const permit = permits.get(call);
  if (permit === undefined) return;
  permits.delete(call);
  permit.gate.leave(permit.key);
}

/**
 * Runs `go` once the call holds a permit of its tool's gate: at once when one is free, else after waiting (its
 * host's slot given up meanwhile, taken back before `go`). A key function that throws or returns no valid key
 * ends the call `error`; a cancel or the tool's `timeoutMs` while waiting ends it as in any phase (`stopped`).
 */
export function enterGate(
  call: CallState,
  gate: ConcurrencyGate,
  input: unknown,
  go: () => void,
  stopped: (call: CallState, outcome: Exclude<Settled<unknown>, { kind: 'value' }>) => void,
): void {
  let key: unknown = '';
  if (gate.key !== undefined) {
    try {
      key = gate.key(input, call.ctx as never);
    } catch (error) {
      const message = `concurrency.key threw: ${error instanceof Error ? error.message : String(error)}`;
      call.done({ status: 'error', output: errorText(call.tool.name, message), error });
      return;
    }
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_CONCURRENCY_KEY_CHARS) {
      const got = typeof key === 'string' ? `a string of ${key.length} characters` : typeof key;
      const message = `concurrency.key must return a string of 1 to ${MAX_CONCURRENCY_KEY_CHARS} characters, got ${got}`;
      call.done({ status: 'error', output: errorText(call.tool.name, message) });
      return;
    }
  }
  const permit = { gate, key: key as string };
  if (gate.tryEnter(permit.key)) {
    permits.set(call, permit);
    go();
    return;
  }
  const { waits } = call.options;
  const callId = call.ctx.callId;
  let waiter: Waiter | undefined;
  waits?.park(callId);
  timed(
    call,
    () =>
      new Promise<void>((resolve) => {
        waiter = {
          call,
          gone: false,
          grant: () => {
            permits.set(call, permit);
            if (waits === undefined) resolve();
            else void waits.unpark(callId).then(resolve);
          },
        };
        gate.enqueue(permit.key, waiter);
      }),
    (outcome) => {
      if (outcome.kind === 'value') go();
      else {
        if (waiter !== undefined) waiter.gone = true;
        stopped(call, outcome);
      }
    },
  );
}
