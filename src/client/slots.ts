/**
 * `Slots`: at most `maxConcurrency` calls run at once. The rest wait in line; a call waiting for a human or a
 * nested run gives its slot up (it is parked), and when it may go on it takes a slot again, first in line if none
 * is free.
 *
 * Calls waiting for their first slot wait in lanes, served in turn (round robin: one call of each lane, then
 * again from the first), each lane in the order its calls came. Calls of tools without `concurrency` share one
 * lane. A call of a tool with `concurrency` that would wait starts at once without a slot
 * ({@link Slots.startEarly}): its key needs its validated input (src/call/concurrency.ts), and once it holds its
 * key's permit it waits for a slot in the lane of its tool and key. So a tenant with a thousand calls waiting
 * delays another tenant's call by one call per turn, not by a thousand. A client without such tools has one lane:
 * its calls start in the order they came.
 *
 * Every change of a call's state goes through {@link Slots.#move}, which refuses what {@link canMove} does not
 * allow and counts the slots held as it goes: the count cannot drift from the calls' states.
 *
 * A call of a tool with `slots: n` takes `n` slots ({@link Slots.weighBy}); a client none of whose tools has
 * it counts one a call, without asking.
 *
 * A result leaves before the next call starts when the call took long: the transport corks the writes of a task
 * until it ends, and a synchronous tool blocks the event loop, so a line of them drained in one task would send
 * every result at the end of the last (the service, hearing nothing, closes the socket). A call that ran
 * {@link SLOW_CALL_MS} or more ({@link Slots.finish}'s `slow`: its duration is measured anyway) makes the next
 * calls, new ones too, wait for a later task, where the results have left and the frames that came are read.
 * Quick calls are unaffected: no clock is read here.
 *
 * @module
 */
import { afterIo } from '../wire/heartbeat';
import type { CallState, canMove, Execution } from './execution';

/** A call that ran this long (milliseconds) lets its result out before the next call starts (see the module). */
export const SLOW_CALL_MS = 50;

/** Dependencies of {@link Slots}. */
export interface SlotsOptions {
  maxConcurrency: number;
  /**
   * Begins a call that just took its first slot (it is `running`). `now`: the clock as its caller read it in this
   * turn (`performance.now()`), when the call starts on its arrival ({@link Slots.admit}).
   */
  start(execution: Execution, now?: number): void;
  /**
   * `false` while no call may take its first slot (the outbox is full): queued calls wait, calls going on after
   * a wait do not. Call {@link Slots.reopen} when it may again. @default always `true`
   */
  mayStart?(): boolean;
  /**
   * Asked when a call that waited for its first slot (or, keyed, for its turn) may start: when it is past its
   * deadline (the service has told the model it timed out) this ends it where it waits, without a slot, and
   * returns `true`. Absent: calls never expire here.
   */
  expireIfOverdue?(execution: Execution): boolean;
  /**
   * Told when a new call starts waiting for its first slot (`'waits'`), and when it stops: it is `'taken'` from the
   * line to start (or to end there, past its deadline: {@link SlotsOptions.expireIfOverdue} is asked next), or it
   * `'ended'` in line (cancelled). Calls going on after a wait are not told. Absent: nobody is told.
   */
  lined?(execution: Execution, change: 'waits' | 'taken' | 'ended'): void;
}

/** The slots one call takes (`tool({ slots })`), from 1 to `maxConcurrency`. */
export type WeightOf = (execution: Execution) => number;

export class Slots {
  readonly #maxConcurrency: number;
  readonly #start: (execution: Execution, now?: number) => void;
  readonly #mayStart: () => boolean;
  readonly #expireIfOverdue: ((execution: Execution) => boolean) | undefined;
  readonly #lined: SlotsOptions['lined'];
  /** Calls going on after a wait (`resuming`): first in line, in the order they may go on. */
  readonly #first: Execution[] = [];
  /**
   * Those of {@link Slots.#first} whose tool has not begun (approved after a wait for a decision): they start only
   * as a queued call may ({@link SlotsOptions.mayStart}). Made at the first.
   */
  #firstNotBegun: WeakSet<Execution> | undefined;
  /** The lane of calls not keyed: `queued`, in the order they came. */
  readonly #queue: Execution[] = [];
  /**
   * Lanes with calls waiting for a first slot, in the order of their turns (a lane served goes to the end): `''`
   * is {@link Slots.#queue}; the others hold the `resuming` calls of one tool and concurrency key.
   */
  readonly #lanes = new Map<string, Execution[]>();
  /**
   * The lane of each call waiting in a keyed lane. Weak, as the other maps of calls here: a `Map` whose keys come and
   * go would keep them through young-generation collections (./call-map.ts).
   */
  readonly #laneOf = new WeakMap<Execution, string>();
  /** Calls waiting in line, first in line and lanes together. */
  #queued = 0;
  /** Set once a tool with `concurrency` is added: whether a call starts before its first slot. */
  #startsEarly: ((execution: Execution) => boolean) | undefined;
  /** Slots held. */
  #running = 0;
  /** Calls holding slots (equal to {@link Slots.#running} while every call weighs one). */
  #calls = 0;
  /** Set once a tool with `slots` is run; until then every call weighs one and nothing is asked. */
  #weightOf: WeightOf | undefined;
  /** The slots each running call took, once weights are on. */
  readonly #weights = new WeakMap<Execution, number>();
  /**
   * Calls that gave their slot up to wait for a human or a nested run ({@link Slots.park}), until they go on or end:
   * the service counts them in no slot, nor does the room for new calls (see {@link Slots.waiting}). Weak, with
   * their count apart: a `Set` whose members come and go keeps them through young-generation collections
   * (./call-map.ts).
   */
  readonly #waiting = new WeakSet<Execution>();
  #waitingCount = 0;
  /**
   * Calls that had their result while their tool still ran (cancelled, timed out: the service was answered at
   * once), with the slots they keep until it returns ({@link Slots.release}).
   */
  readonly #lingering = new WeakMap<Execution, number>();
  /** {@link Slots.#drainQueue} is running (a synchronous call finishing inside it must not start another). */
  #draining = false;
  /** A drain is scheduled (see {@link Slots.#scheduleDrain}). */
  #drainDue = false;
  /** A slow call ended in this task: calls start in a later one ({@link SLOW_CALL_MS}). */
  #yielding = false;

  constructor(options: SlotsOptions) {
    this.#maxConcurrency = options.maxConcurrency;
    this.#start = options.start;
    this.#mayStart = options.mayStart ?? (() => true);
    this.#expireIfOverdue = options.expireIfOverdue;
    this.#lined = options.lined;
  }

  /** {@link SlotsOptions.mayStart} may have turned `true`: queued calls start if slots are free. */
  reopen(): void {
    this.#scheduleDrain();
  }

  /** Calls holding slots. */
  get running(): number {
    return this.#calls;
  }

  /** Slots held: {@link Slots.running} plus the extra slots of heavy calls. */
  get held(): number {
    return this.#running;
  }

  /** Whether calls are weighed (a tool with `slots` was added). */
  get weighted(): boolean {
    return this.#weightOf !== undefined;
  }

  /** From now on a call takes `weightOf(call)` slots (a tool with `slots` was added). */
  weighBy(weightOf: WeightOf): void {
    this.#weightOf = weightOf;
  }

  /**
   * From now on a call for which `keyed(call)` is `true` (a call of a tool with `concurrency`) starts at once when
   * it would wait for a first slot, without one: it comes back through {@link Slots.whenInSlot} with its lane.
   */
  startEarly(keyed: (execution: Execution) => boolean): void {
    this.#startsEarly = keyed;
  }

  /** Calls waiting in line for a slot. */
  get queued(): number {
    return this.#queued;
  }

  /**
   * Calls that gave their slot up to wait for a human (a decision, an answer) or a nested run ({@link Slots.park}):
   * neither running nor in line. The room for new calls leaves them out: a nested run's own calls come to this
   * client, and would be refused "busy" once its waiting callers filled `maxConcurrency + maxQueue` (a deadlock
   * until the deadline).
   */
  get waiting(): number {
    return this.#waitingCount;
  }

  /**
   * A new call: it starts now if a slot is free and nobody is in line; a keyed one that would wait starts without
   * a slot (see {@link Slots.startEarly}); any other waits in its lane. Returns `true` when it did not get a
   * slot (it waits, or waits after its key is known). `now`: the clock as read on its arrival, for a call that
   * starts now ({@link SlotsOptions.start}).
   */
  admit(execution: Execution, now?: number): boolean {
    // Calls start in their turn: while others wait (a drain is due), a new one waits behind them.
    const weight = this.#weightOf === undefined ? 1 : this.#weightOf(execution);
    if (
      this.#running + weight <= this.#maxConcurrency &&
      this.#queued === 0 &&
      !this.#yielding &&
      this.#mayStart()
    ) {
      // As `#begin`, written out: one call less on every call's arrival.
      this.#move(execution, 'running');
      this.#start(execution, now);
      return false;
    }
    this.#notNow(execution, now);
    return true;
  }

  /**
   * A new call that may not take a slot now ({@link Slots.admit}): a keyed one starts without one, any other waits.
   * Apart from `admit`, which V8 then inlines whole into what calls it on every call's arrival.
   */
  #notNow(execution: Execution, now: number | undefined): void {
    if (this.#startsEarly?.(execution) === true && !this.#yielding && this.#mayStart()) {
      this.#move(execution, 'parked');
      this.#start(execution, now);
    } else this.#enqueue(execution, '');
  }

  /**
   * A running call gives up its slot while it waits (for a human, or a nested run whose own calls come to this
   * client too, and would otherwise queue behind the calls waiting for them: a deadlock once `maxConcurrency`
   * calls are agents-as-tools). Only a `running` call has a slot to give up: a `queued` one has not started, and a
   * `parked` or `resuming` one (a second nested run of the same call) gave its slot up already, and keeps its place.
   */
  park(execution: Execution): void {
    if (execution.state !== 'running') return;
    this.#move(execution, 'parked');
    if (!this.#waiting.has(execution)) {
      this.#waiting.add(execution);
      this.#waitingCount += 1;
    }
    this.#scheduleDrain();
  }

  /**
   * Runs `go(true)` once the call holds a slot again: at once if one is free, else first in line for the next. A
   * cancel or a timeout there ends the call without one ({@link Slots.leaveLine}, {@link Slots.finish}): then
   * `go(false)`, so that what waits on it (a tool's `await`) settles rather than hangs. A call that ended
   * meanwhile, or never gave its slot up, goes on at once (`go(true)`).
   *
   * With `lane` (a call of a tool with `concurrency` holding its key's permit; not empty, one per tool and key),
   * the call waits for its turn in that lane instead, as a new call would: at once only if a slot is free and
   * nobody is in line.
   *
   * An approved call, whose tool has not begun, goes by {@link Slots.whenApprovedInSlot} instead.
   */
  whenInSlot(execution: Execution, go: (inSlot: boolean) => void, lane?: string): void {
    this.#whenInSlot(execution, go, lane, false);
  }

  /**
   * {@link Slots.whenInSlot} for a call approved after a wait for a decision (its tool has not begun): first in line
   * too, but it starts only as a queued call may: not while the socket is down and the service is to say which calls
   * it still owes (docs/protocol/calls-no-longer-held.md), since it may have given this one to another worker
   * meanwhile.
   */
  whenApprovedInSlot(execution: Execution, go: (inSlot: boolean) => void): void {
    this.#whenInSlot(execution, go, undefined, true);
  }

  #whenInSlot(
    execution: Execution,
    go: (inSlot: boolean) => void,
    lane: string | undefined,
    notBegun: boolean,
  ): void {
    const { state } = execution;
    if (state === 'parked') {
      const weight = this.#weightOf === undefined ? 1 : this.#weightOf(execution);
      const free = this.#running + weight <= this.#maxConcurrency;
      // Going on after a wait: first in line. Keyed, for its first slot: only when nobody waits before it.
      const now =
        lane === undefined
          ? free && (!notBegun || this.#mayStart())
          : free && this.#queued === 0 && this.#mayStart();
      if (now && lane !== undefined && this.#expireIfOverdue?.(execution) === true) {
        go(false);
        return;
      }
      if (now) {
        this.#move(execution, 'running');
        go(true);
      } else {
        this.#move(execution, 'resuming');
        execution.resume = go;
        if (lane === undefined) {
          this.#first.push(execution);
          this.#queued += 1;
          if (notBegun) {
            this.#firstNotBegun ??= new WeakSet();
            this.#firstNotBegun.add(execution);
          }
        } else this.#enqueue(execution, lane);
      }
    } else if (state === 'resuming') {
      // Already in line (two nested runs of one call ended): one place, both go on with it.
      const first = execution.resume as (inSlot: boolean) => void;
      execution.resume = (inSlot) => {
        first(inSlot);
        go(inSlot);
      };
    } else go(true);
  }

  /** {@link Slots.whenInSlot} as a promise: `true` back in a slot, `false` when the call left the line without one. */
  backInSlot(execution: Execution, lane?: string): Promise<boolean> {
    return new Promise<boolean>((resolve) => this.whenInSlot(execution, resolve, lane));
  }

  /**
   * A call in line to go on is cancelled: it leaves the line and ends where it waited, without a slot; what waited
   * for it to go on is told so (`resume(false)`).
   */
  leaveLine(execution: Execution): void {
    if (execution.state !== 'resuming') return;
    this.#move(execution, 'parked');
    this.#remove(execution, 'resuming');
    Slots.#leftLine(execution);
  }

  /** A call left the line without a slot: its continuation, if any, is told (`false`) and dropped. */
  static #leftLine(execution: Execution): void {
    const resume = execution.resume;
    if (resume === undefined) return;
    execution.resume = undefined;
    resume(false);
  }

  /**
   * The call has its result: its slot, or its place in line, is free; but a running call whose tool still runs
   * (`stillRunning`: it was cancelled or timed out, and answered at once) keeps its slot until the tool returns
   * ({@link Slots.release}), so that no more than `maxConcurrency` tools ever run. Returns the state it was in, or
   * `undefined` when it had finished already (a second result is refused).
   */
  finish(execution: Execution, stillRunning = false, slow = false): CallState | undefined {
    const from = this.#move(execution, 'finished');
    if (slow && !this.#yielding) {
      // Its result goes out when this task ends: the next call starts in a later one.
      this.#yielding = true;
      afterIo(() => {
        this.#yielding = false;
        this.#scheduleDrain();
      });
    }
    if (from === 'running' && stillRunning) {
      const weight = this.#weightOf === undefined ? 1 : (this.#weights.get(execution) ?? 1);
      this.#lingering.set(execution, weight);
      this.#running += weight;
      this.#calls += 1;
    }
    if (from === 'queued' || from === 'resuming') {
      // Ended in line (cancelled while queued, or its own timeout while resuming): it must not take a slot later.
      this.#remove(execution, from);
      Slots.#leftLine(execution);
    }
    if (from !== undefined) this.#scheduleDrain();
    return from;
  }

  /** The tool of a call that had its result while it ran has returned: the slots it kept are free. */
  release(execution: Execution): void {
    const weight = this.#lingering.get(execution);
    if (weight === undefined) return;
    this.#lingering.delete(execution);
    this.#running -= weight;
    this.#calls -= 1;
    this.#scheduleDrain();
  }

  /**
   * The one place a call changes state: refused (`undefined`) unless {@link canMove} allows it; the slot count
   * follows the calls entering and leaving `running`. Returns the state the call left.
   */
  #move(execution: Execution, to: CallState): CallState | undefined {
    const from = execution.moveTo(to);
    if (from === 'parked' && this.#waitingCount > 0 && this.#waiting.delete(execution))
      this.#waitingCount -= 1;
    if (from === 'running') {
      // What it took when it entered (its tool may have been removed or replaced since).
      this.#running -= this.#weightOf === undefined ? 1 : (this.#weights.get(execution) ?? 1);
      this.#calls -= 1;
    } else if (to === 'running' && from !== undefined) {
      if (this.#weightOf === undefined) this.#running += 1;
      else {
        const weight = this.#weightOf(execution);
        this.#weights.set(execution, weight);
        this.#running += weight;
      }
      this.#calls += 1;
    }
    return from;
  }

  #begin(execution: Execution, now?: number): void {
    this.#move(execution, 'running');
    this.#start(execution, now);
  }

  /** A call waits in `lane` (`''`: the calls not keyed), its lane taking its turn after those waiting now. */
  #enqueue(execution: Execution, lane: string): void {
    let line: Execution[] | undefined;
    if (lane === '') line = this.#queue;
    else {
      line = this.#lanes.get(lane);
      this.#laneOf.set(execution, lane);
    }
    if (line === undefined) this.#lanes.set(lane, [execution]);
    else {
      line.push(execution);
      if (line.length === 1) this.#lanes.set(lane, line);
    }
    this.#queued += 1;
    if (lane === '') this.#lined?.(execution, 'waits');
  }

  /** A call leaves the line (it ended, or was cancelled) from where it waited, a state `from`. */
  #remove(execution: Execution, from: CallState): void {
    // `queued`: in the lane of calls not keyed; `resuming`: first in line, or in its keyed lane.
    const lane = from === 'resuming' ? this.#laneOf.get(execution) : '';
    const line = lane === undefined ? this.#first : lane === '' ? this.#queue : this.#lanes.get(lane);
    const index = line === undefined ? -1 : line.indexOf(execution);
    if (line === undefined || index === -1) return;
    line.splice(index, 1);
    this.#queued -= 1;
    if (lane === undefined) return;
    if (lane === '') this.#lined?.(execution, 'ended');
    if (lane !== '') this.#laneOf.delete(execution);
    if (line.length === 0) this.#lanes.delete(lane);
  }

  /** The lane whose turn it is, `undefined` when no call waits in one. */
  #turn(): string | undefined {
    // Only the calls not keyed wait (every client without a tool with `concurrency`): no turns to take.
    if (this.#lanes.size === 1 && this.#queue.length > 0) return '';
    for (const lane of this.#lanes.keys()) return lane;
    return undefined;
  }

  /**
   * Starts queued calls once the current task is done (a microtask), not at once: the frames that came with
   * the one that freed the slot (a burst of `cancel`s, `close()` aborting every call) are handled first, so a
   * call cancelled while queued never starts. A cancel read in a later task comes too late for this: a service
   * cancels a run's queued calls before its running ones, and the runner ends the run's calls waiting here at its
   * first `run_cancelled` (docs/protocol/deadlines.md, src/client/calls.ts `cancel`).
   */
  #scheduleDrain(): void {
    if (this.#drainDue || this.#queued === 0 || this.#yielding) return;
    this.#drainDue = true;
    void Promise.resolve().then(() => {
      this.#drainDue = false;
      this.#drainQueue();
    });
  }

  /**
   * Starts queued calls while a slot is free. A call that finishes synchronously inside this loop frees its slot
   * before the loop looks again; the loop does not recurse (a queue of thousands of synchronous calls would
   * otherwise overflow the stack).
   */
  #drainQueue(): void {
    if (this.#draining) return;
    this.#draining = true;
    try {
      // One call per free slot: a call that ended while queued (cancelled) has left the queue without one. None
      // after a slow call: the line is drained again in a later task.
      while (!this.#yielding && this.#running < this.#maxConcurrency) {
        const first = this.#first.length > 0;
        const lane = first ? undefined : this.#turn();
        const line = first ? this.#first : lane === '' ? this.#queue : this.#lanes.get(lane as string);
        if (line === undefined) break;
        // First in line, an approved call whose tool has not begun waits while none may start; a call going on
        // after a wait, behind it, goes on meanwhile (its tool began: the service still owes it a result).
        const notBegun = first ? this.#firstNotBegun : undefined;
        const at =
          notBegun?.has(line[0] as Execution) === true && !this.#mayStart()
            ? line.findIndex((call) => !notBegun.has(call))
            : 0;
        const next = line[at];
        if (next === undefined) break;
        // A heavy call waits at the head until it fits (those behind it too: order is kept).
        if (this.#weightOf !== undefined && this.#running + this.#weightOf(next) > this.#maxConcurrency)
          break;
        // A call waiting for its first slot waits on while none may start (those behind it too: order is kept).
        if (!first && !this.#mayStart()) break;
        if (at === 0) line.shift();
        else line.splice(at, 1);
        if (first) this.#firstNotBegun?.delete(next);
        this.#queued -= 1;
        if (lane !== undefined) {
          // Its lane's turn is over: it goes to the end of the turns, or leaves them when nobody waits in it.
          if (line.length === 0) this.#lanes.delete(lane);
          else if (this.#lanes.size > 1) {
            this.#lanes.delete(lane);
            this.#lanes.set(lane, line);
          }
          if (lane !== '') this.#laneOf.delete(next);
          if (lane === '') this.#lined?.(next, 'taken');
          // Its deadline passed while it waited: the model was told it timed out; it ends without starting.
          if (this.#expireIfOverdue?.(next) === true) continue;
        }
        if (next.state === 'queued') this.#begin(next);
        else {
          const resume = next.resume as (inSlot: boolean) => void;
          next.resume = undefined;
          this.#move(next, 'running');
          resume(true);
        }
      }
    } finally {
      this.#draining = false;
    }
  }
}
