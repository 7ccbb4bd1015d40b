/**
 * Per-tool concurrency in one process (`tool({ concurrency: { limit, key } })`): at most `limit` calls of the
 * tool run `execute` at once per key. A call over the limit waits after validation, approval and the policies,
 * just before `execute`, and gives its host's slot up meanwhile (`CallWaits`: a client's `maxConcurrency` slot),
 * so that a key at its limit never holds slots that other keys' calls could use: keys do not wait for each
 * other, and a busy key cannot starve a quiet one. Within a key calls go in the order they came.
 *
 * Each key has permits of its own, so a freed permit has one taker, the next live call of its key: there is no
 * choice between keys to make here, and no key's waiting calls can delay another key's. Where keys do compete is
 * for the host's slots: a call holding its permit without a slot (`CallWaits.holdsSlot`: it started before one
 * was free, its key being unknown until its input was validated) waits for one in the lane of its tool and key,
 * and the client serves lanes in turn (src/client/slots.ts). So a key with many calls waiting delays another
 * key's call by one call per turn, whatever the limits.
 *
 * The permits of a tool live in one gate per tool definition, shared by every client and `invokeTool` of this
 * process that runs it, made at the tool's first call. A tool without `concurrency` never enters this file.
 *
 * @module
 */
import { isThenable } from '../maybe';
import { errorText } from '../tool/model-text';
import { thrownMessage } from '../tool/output';
import type { ToolInternals } from '../tool/tool';
import { type Settled, timed } from './signal';
import type { CallState, CallWaits } from './types';

/** Longest concurrency key, in characters. */
const MAX_CONCURRENCY_KEY_CHARS = 256;

interface Waiter {
  grant(): void;
}

/** What a gate counts, for `client.stats`. */
export interface GateStats {
  /** Calls holding a permit (running `execute`, or about to: waiting for their host's slot). */
  running: number;
  /** Calls waiting for a permit. */
  waiting: number;
}

/** The permits of one tool in this process, shared by every client and `invokeTool` that runs it. */
class ConcurrencyGate {
  readonly limit: number;
  readonly key: ((input: unknown, ctx: never) => unknown) | undefined;
  readonly #running = new Map<string, number>();
  /**
   * Waiting calls by key, each in arrival order (a `Set` keeps it, and lets a call that stops waiting leave from
   * anywhere in its line at once); a key is present only while it has waiters.
   */
  readonly #waiting = new Map<string, Set<Waiter>>();
  #runningTotal = 0;
  #waitingTotal = 0;

  constructor(limit: number, key: ((input: unknown, ctx: never) => unknown) | undefined) {
    this.limit = limit;
    this.key = key;
  }

  get stats(): GateStats {
    return { running: this.#runningTotal, waiting: this.#waitingTotal };
  }

  /** Takes a permit for `key` now when one is free and nobody of that key waits. */
  tryEnter(key: string): boolean {
    const running = this.#running.get(key) ?? 0;
    if (running >= this.limit || this.#waiting.has(key)) return false;
    this.#running.set(key, running + 1);
    this.#runningTotal += 1;
    return true;
  }

  enqueue(key: string, waiter: Waiter): void {
    const line = this.#waiting.get(key);
    if (line === undefined) this.#waiting.set(key, new Set([waiter]));
    else line.add(waiter);
    this.#waitingTotal += 1;
  }

  /**
   * The waiter's call ended while it waited (cancelled, timed out, handed back, dropped by the service): it leaves
   * its line now, and the count with it, rather than when its key's permit is next free (which may be never, or a
   * long-running call away). One granted its permit already is not in the line: nothing to do.
   */
  withdraw(key: string, waiter: Waiter): void {
    const line = this.#waiting.get(key);
    if (line === undefined || !line.delete(waiter)) return;
    this.#waitingTotal -= 1;
    if (line.size === 0) this.#waiting.delete(key);
  }

  /** Gives a permit of `key` back; the next live waiter of that key takes it. */
  leave(key: string): void {
    const running = (this.#running.get(key) ?? 1) - 1;
    this.#runningTotal -= 1;
    if (running === 0) this.#running.delete(key);
    else this.#running.set(key, running);
    this.#grantNext(key);
  }

  /** The first waiter of `key` (every one in the line is live: {@link ConcurrencyGate.withdraw}) takes a permit. */
  #grantNext(key: string): void {
    const line = this.#waiting.get(key);
    if (line === undefined) return;
    const waiter = line.values().next().value as Waiter;
    this.withdraw(key, waiter);
    this.#running.set(key, (this.#running.get(key) ?? 0) + 1);
    this.#runningTotal += 1;
    waiter.grant();
  }
}

/** A tool's `concurrency` as `tool()` kept it. */
type Concurrency = NonNullable<ToolInternals['concurrency']>;

/** The gate of each tool definition's `concurrency` (a copy of a tool, e.g. a replayed one, keeps the object). */
const gates = new WeakMap<Concurrency, ConcurrencyGate>();

function gateOf(concurrency: Concurrency): ConcurrencyGate {
  let gate = gates.get(concurrency);
  if (gate === undefined) {
    gate = new ConcurrencyGate(concurrency.limit, concurrency.key);
    gates.set(concurrency, gate);
  }
  return gate;
}

/** What the gate of a tool's `concurrency` counts now (nothing running or waiting before its first call). */
export function concurrencyStats(concurrency: Concurrency): GateStats {
  return gates.get(concurrency)?.stats ?? { running: 0, waiting: 0 };
}

/**
 * A call's permit: its gate and key, and whether the call went on from the gate (`began`: its `execute` began), so
 * that one ending while its tool still runs keeps the permit until the tool returns ({@link releasePermit}).
 */
interface Permit {
  gate: ConcurrencyGate;
  key: string;
  began: boolean;
}

/** The permit each call holds, by call: given back when the call ends ({@link releasePermit}). */
const permits = new WeakMap<CallState, Permit>();

/** Calls waiting at a gate: for a permit, or holding one, for their host's slot (their `execute` has not begun). */
const atGate = new WeakSet<CallState>();

/**
 * `true` while the call waits at its tool's gate (see {@link enterGate}): a host that stops may hand it back to the
 * service, as it never ran (src/client/calls.ts).
 */
export function waitingAtGate(call: CallState): boolean {
  return atGate.has(call);
}

/** `true` when the call holds its permit (it goes on to `execute`). */
export function holdsPermit(call: CallState): boolean {
  return permits.has(call);
}

/**
 * The call ended, or (`stillRunning` `false`) its tool returned after it ended: its permit, if any, goes to the next
 * call of its key. `stillRunning`: the call ended (cancelled, timed out) while a phase of it is still pending; once
 * its `execute` began, the permit is kept until that returns (the pipeline calls this again then): a tool that
 * ignores `ctx.signal` never runs beside more than `limit - 1` others of its key, as it keeps its host's slot.
 */
export function releasePermit(call: CallState, stillRunning = false): void {
  const permit = permits.get(call);
  if (permit === undefined || (stillRunning && permit.began)) return;
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
  concurrency: Concurrency,
  input: unknown,
  go: () => void,
  stopped: Stopped,
): void {
  const gate = gateOf(concurrency);
  let key: unknown = '';
  if (gate.key !== undefined) {
    try {
      key = gate.key(input, call.ctx as never);
    } catch (error) {
      const message = `concurrency.key threw: ${thrownMessage(error, 'it')}`;
      call.done({ status: 'error', output: errorText(call.tool.name, message), error });
      return;
    }
    if (typeof key !== 'string' || key.length === 0 || key.length > MAX_CONCURRENCY_KEY_CHARS) {
      const got =
        typeof key === 'string'
          ? `a string of ${key.length} characters`
          : isThenable(key)
            ? 'a promise (the key is read synchronously)'
            : typeof key;
      const message = `concurrency.key must return a string of 1 to ${MAX_CONCURRENCY_KEY_CHARS} characters, got ${got}`;
      call.done({ status: 'error', output: errorText(call.tool.name, message) });
      return;
    }
  }
  const permit: Permit = { gate, key: key as string, began: false };
  const begin = go;
  go = () => {
    permit.began = true;
    begin();
  };
  const { waits } = call.options;
  const callId = call.ctx.callId;
  // The host's lane for this tool and key (one per tool definition's name and key, never empty).
  const lane = `${call.tool.name}\u0000${permit.key}`;
  if (gate.tryEnter(permit.key)) {
    permits.set(call, permit);
    // A call that started without a host slot (it would have waited for one: src/client/slots.ts) takes one now,
    // in its key's turn; any other holds its slot and goes on at once.
    if (waits?.holdsSlot === undefined || waits.holdsSlot(callId)) go();
    else {
      waits.gateWait?.(callId, 'slot');
      waitThen(call, () => backInSlot(waits, callId, lane), goOn(waits, callId, go), stopped, undefined);
    }
    return;
  }
  let waiter: Waiter | undefined;
  waits?.park(callId);
  waits?.gateWait?.(callId, 'key');
  waitThen(
    call,
    () =>
      new Promise<void>((resolve) => {
        waiter = {
          grant: () => {
            permits.set(call, permit);
            if (waits === undefined) resolve();
            else void backInSlot(waits, callId, lane).then(resolve);
          },
        };
        gate.enqueue(permit.key, waiter);
      }),
    goOn(waits, callId, go),
    stopped,
    () => {
      if (waiter !== undefined) gate.withdraw(permit.key, waiter);
    },
  );
}

/**
 * The call takes its host's slot in its key's lane (`CallWaits.unpark`). One cancelled or timed out in line has
 * ended there (`false`): its wait at the gate ended at the abort, before this, so the wait never goes on to `go`.
 */
function backInSlot(waits: CallWaits, callId: string, lane: string): Promise<void> {
  return waits.unpark(callId, lane).then((inSlot) => (inSlot ? undefined : new Promise<void>(() => {})));
}

/** `go`, after telling the host that the call's wait at its gate is over (`CallWaits.gateWait`). */
function goOn(waits: CallWaits | undefined, callId: string, go: () => void): () => void {
  if (waits?.gateWait === undefined) return go;
  return () => {
    waits.gateWait?.(callId, undefined);
    go();
  };
}

/** How a call that stopped while it waited for a permit or a slot ends (the pipeline's `stopped`). */
type Stopped = (call: CallState, outcome: Exclude<Settled<unknown>, { kind: 'value' }>) => void;

/**
 * Waits on `wait` as a phase of the call (a cancel or the tool's `timeoutMs` ends it): then `go`, or, when the
 * wait ended otherwise, `gone` (if any) and `stopped`. The call is at its gate ({@link waitingAtGate}) meanwhile.
 */
function waitThen(
  call: CallState,
  wait: () => Promise<void>,
  go: () => void,
  stopped: Stopped,
  gone: (() => void) | undefined,
): void {
  atGate.add(call);
  timed(call, wait, (outcome) => {
    atGate.delete(call);
    if (outcome.kind === 'value') go();
    else {
      gone?.();
      stopped(call, outcome);
    }
  });
}
