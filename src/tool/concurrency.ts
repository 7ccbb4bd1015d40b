/**
 * The permits of a tool with `concurrency` (`tool({ concurrency: { limit, key } })`), made when the tool is
 * defined and shared by every client and `invokeTool` of this process that runs it. How a call waits for one:
 * src/call/concurrency.ts.
 *
 * @module
 */

/** Longest concurrency key, in characters. */
export const MAX_CONCURRENCY_KEY_CHARS = 256;

export interface Waiter {
  readonly call: object;
  /** Set when the call ended while it waited: it is skipped. */
  gone: boolean;
  grant(): void;
}

/** What a gate counts, for `client.stats`. */
export interface GateStats {
  /** Calls holding a permit (running `execute`). */
  running: number;
  /** Calls waiting for a permit. */
  waiting: number;
}

/** The permits of one tool in this process, shared by every client and `invokeTool` that runs it. */
export class ConcurrencyGate {
  readonly limit: number;
  readonly key: ((input: unknown, ctx: never) => unknown) | undefined;
  readonly #running = new Map<string, number>();
  /** Waiting calls by key, each in arrival order; a key is present only while it has waiters. */
  readonly #waiting = new Map<string, Waiter[]>();
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
    if (line === undefined) this.#waiting.set(key, [waiter]);
    else line.push(waiter);
    this.#waitingTotal += 1;
  }

  /** Gives a permit of `key` back; the next live waiter of that key takes it. */
  leave(key: string): void {
    const running = (this.#running.get(key) ?? 1) - 1;
    this.#runningTotal -= 1;
    if (running === 0) this.#running.delete(key);
    else this.#running.set(key, running);
    this.#grantNext(key);
  }

  #grantNext(key: string): void {
    const line = this.#waiting.get(key);
    while (line !== undefined && line.length > 0) {
      const waiter = line.shift() as Waiter;
      this.#waitingTotal -= 1;
      if (line.length === 0) {
        // Leaves the rotation; a key that comes back joins at its end (Map order): keys are served in turn.
        this.#waiting.delete(key);
      }
      if (waiter.gone) continue;
      this.#running.set(key, (this.#running.get(key) ?? 0) + 1);
      this.#runningTotal += 1;
      waiter.grant();
      return;
    }
  }
}
