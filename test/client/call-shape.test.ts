/**
 * The calls of a client, and their results, keep their hidden class, and the optimised code that reads them, through
 * a full collection made while no call or result is held (an idle client), as V8 makes one when allocation slows:
 * see src/client/calls.ts `ClientExecution.kept`, and `Entry.kept` and `AnsweredCall.kept` of the result path. V8's own checks (`--allow-natives-syntax`, set at run time as test/support/gc.ts sets
 * `--expose-gc`) tell whether two objects have one hidden class and whether a function still runs optimised code.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Outbox } from '../../src/client/outbox';
import { tool } from '../../src/tool/tool';
import { nextTask, recording } from './call-runner-harness';

setFlagsFromString('--allow-natives-syntax');
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
// Made after the flag is set: V8 reads `%` calls only in code it parses from then on.
const sameClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
const optimiseOnNextCall = new Function(
  'f',
  '%PrepareFunctionForOptimization(f); f(arguments[1]); f(arguments[1]); %OptimizeFunctionOnNextCall(f);',
) as (f: (value: object) => unknown, value: object) => void;
const runsOptimised = new Function(
  'f',
  // V8's `OptimizationStatus`: bit 4 (16) is set while the function has optimised code attached.
  'return (%GetOptimizationStatus(f) & 16) !== 0',
) as (f: (value: object) => unknown) => boolean;

const add = tool({
  name: 'add',
  description: 'Adds two numbers.',
  execute: () => 3,
});

const hold = (release: Promise<void>) =>
  tool({
    name: 'hold',
    description: 'Waits until released.',
    execute: () => release.then(() => 'released'),
  });

/** A runner whose calls' objects (its `contextFor` gets each) go to `seen`. */
function runner(seen: object[], release: Promise<void> = Promise.resolve()) {
  return recording([add, hold(release)], {
    contextFor: (execution) => {
      seen.push(execution);
      return undefined;
    },
  });
}

/** A runner whose `hold` calls wait until `release()`, its calls' objects in `seen`. */
function heldRunner() {
  const seen: object[] = [];
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { seen, ...runner(seen, held), release: () => release() };
}

/**
 * Runs a held call and ten calls answered at once to their acks, and has V8 optimise `read` for what it reads of
 * them: optimised over an answered call, it still runs optimised code once it read the held call, during its wait
 * and after its end (one hidden class for all). Returns whether it did.
 */
async function optimisedOverCalls(read: (execution: object) => unknown): Promise<boolean> {
  const { seen, calls, call, release } = heldRunner();
  call('held', 'hold', { deadlineMs: 60_000 });
  for (let i = 0; i < 10; i++) {
    call(`c${i}`, 'add', { deadlineMs: 60_000 });
    calls.ack(`c${i}`);
  }
  optimiseOnNextCall(read, seen[1] as object);
  read(seen[0] as object);
  release();
  await nextTask();
  calls.ack('held');
  read(seen[0] as object);
  // The runner lives on (its deadline timer holds it), and with it what its `contextFor` holds.
  seen.length = 0;
  return calls.running === 0 && runsOptimised(read);
}

/**
 * The outbox of a runner made by `make` (the first whose `add` runs: a call that ends adds its result), for what
 * it keeps of answered calls until their ack (src/client/outbox.ts `HeldResult`), which the runner never hands out.
 */
function outboxOf(make: () => void): Outbox {
  const add = Outbox.prototype.add;
  let found: Outbox | undefined;
  Outbox.prototype.add = function (this: Outbox, ...args: Parameters<Outbox['add']>) {
    found ??= this;
    return add.apply(this, args);
  };
  try {
    make();
  } finally {
    Outbox.prototype.add = add;
  }
  if (found === undefined) throw new Error('no call ended with a result');
  return found;
}

/**
 * Answers ten calls, has V8 optimise `read` for what the outbox keeps of them until their ack, then acks them all:
 * nothing of theirs is left but in this function's frame, which has returned when the caller collects.
 */
async function optimisedOverAnsweredCalls(read: (call: object) => unknown): Promise<boolean> {
  let calls!: ReturnType<typeof runner>['calls'];
  const outbox = outboxOf(() => {
    const made = runner([]);
    calls = made.calls;
    for (let i = 0; i < 10; i++) made.call(`a${i}`, 'add', { deadlineMs: 60_000 });
  });
  await nextTask();
  const kept = Array.from({ length: 10 }, (_, i) => outbox.callOf(`a${i}`) as object);
  expect(kept.every((call) => call !== undefined)).toBe(true);
  optimiseOnNextCall(read, kept[0] as object);
  read(kept[1] as object);
  for (let i = 0; i < 10; i++) calls.ack(`a${i}`);
  kept.length = 0;
  return outbox.size === 0 && runsOptimised(read);
}

describe('the hidden class of results', () => {
  // Before the calls' tests: their last one leaves results unacked, which would keep the hidden classes alive.
  it('outlives a full collection made while no result waits for its ack', async () => {
    const seen: object[] = [];
    const { calls, call, sent } = runner(seen);
    const readStatus = (frame: object) => (frame as { status: string }).status;
    for (let i = 0; i < 10; i++) call(`r${i}`, 'add', { deadlineMs: 60_000 });
    await nextTask();
    const results = sent.filter((frame) => frame.type === 'tool_result');
    expect(results).toHaveLength(10);
    optimiseOnNextCall(readStatus, results[0] as object);
    readStatus(results[1] as object);
    for (let i = 0; i < 10; i++) calls.ack(`r${i}`);
    sent.length = 0;
    results.length = 0;
    seen.length = 0;
    expect(runsOptimised(readStatus)).toBe(true);
    await nextTask();
    gc();
    gc();
    expect(runsOptimised(readStatus)).toBe(true);
  });

  // Before the calls' tests too: a result they leave unacked keeps its answered call, and so the hidden class.
  it('of answered calls outlives a full collection made while no result waits for its ack', async () => {
    const readToolName = (call: object) => (call as { toolName: string }).toolName;
    expect(await optimisedOverAnsweredCalls(readToolName)).toBe(true);
    await nextTask();
    gc();
    gc();
    expect(runsOptimised(readToolName)).toBe(true);
  });
});

describe('the hidden class of calls', () => {
  // First: a call still reachable from an earlier test would keep the hidden classes alive on its own.
  it('outlives a full collection made while no call is held: code that reads calls stays optimised', async () => {
    const readCallId = (execution: object) => (execution as { callId: string }).callId;
    expect(await optimisedOverCalls(readCallId)).toBe(true);
    // Every call has ended and is acked: none is held, not even by this function's frame (the calls were made in
    // another, which has returned).
    await nextTask();
    gc();
    gc();
    expect(runsOptimised(readCallId)).toBe(true);
  });

  it('is one for a call answered at once and a held call, before and after it ends', async () => {
    const { seen, calls, call, release } = heldRunner();
    call('c1', 'add', { deadlineMs: 60_000 });
    call('c2', 'hold', { deadlineMs: 60_000 });
    const [answered, held] = seen as [object, object];
    expect(sameClass(held, answered)).toBe(true);
    release();
    await nextTask();
    expect(calls.running).toBe(0);
    expect(sameClass(held, answered)).toBe(true);
  });

  it('has 23 fields, none of them the call itself: each is 8 B more for every call held (bench/held.ts)', () => {
    const { seen, call } = heldRunner();
    call('c1', 'hold', { deadlineMs: 60_000 });
    const held = seen[0] as object;
    expect(Object.getOwnPropertyNames(held)).toHaveLength(23);
    // Its signal is the call itself, read through a getter (options made over it have it as their own).
    expect(Object.hasOwn(held, 'signal')).toBe(false);
    expect((held as { signal: object }).signal).toBe(held);
  });

  it('with options of its own (a redactor of its fields) is still cancelled through its signal', async () => {
    const waiting = tool({
      name: 'secretive',
      description: 'Waits until cancelled.',
      parameters: z.object({ pin: z.string() }),
      sensitiveFieldNames: ['pin'],
      // Not `ctx.signal`: the call's own wait is what the cancel ends.
      execute: () => new Promise(() => {}),
    });
    const { calls, sent } = recording([waiting]);
    // A value long enough to be learned as a secret: the call gets a redactor, and options, of its own.
    const args = { pin: 'pin-QXzK-wvyu-secret' };
    calls.receive({ type: 'tool_call', callId: 's1', runId: 'r1', toolName: 'secretive', arguments: args });
    await nextTask();
    expect(calls.running).toBe(1);
    calls.cancel('s1', 'service');
    await nextTask();
    expect(sent.filter((frame) => frame.type === 'tool_result')).toMatchObject([
      { callId: 's1', status: 'cancelled' },
    ]);
  });
});
