/**
 * A `CallRunner` wired to a recording socket, and the tools and waiting calls the tests of its parts
 * (incoming.ts, slots.ts, deadlines.ts, approvals.ts, outbox.ts, call-runner.ts) share.
 */
import { expect } from 'vitest';
import { ToolRegistry } from '../../src/call/registry';
import { CallRunner } from '../../src/client/calls';
import type { ToolTracing } from '../../src/client/tracing';
import { Redactor, silentLogger } from '../../src/logger';
import { tool } from '../../src/tool/tool';
import type { ClientFrame } from '../../src/wire/protocol';

export type RunnerOptions = ConstructorParameters<typeof CallRunner>[0];

/** A CallRunner over `tools` that records every frame it sends; `call` delivers a `tool_call`. */
export function recording(
  tools: ConstructorParameters<typeof ToolRegistry>[0],
  overrides: Partial<RunnerOptions> & { writable?: () => boolean } = {},
) {
  const sent: ClientFrame[] = [];
  const calls = new CallRunner({
    registry: new ToolRegistry(tools),
    maxConcurrency: 16,
    maxQueue: 1_000,
    highWaterMarkBytes: 1_048_576,
    socket: {
      send: (frame) => {
        sent.push(frame);
        return true;
      },
      get writable() {
        return overrides.writable?.() ?? true;
      },
      bufferedAmount: 0,
      maxPayloadBytes: 1_048_576,
    },
    contextFor: () => undefined,
    onApproval: undefined,
    extend: {},
    redactor: new Redactor([]),
    logger: silentLogger,
    events: { toolCall() {}, toolResult() {}, approvalRequested() {}, widgetInvalid() {} },
    ...overrides,
  });
  const call = (
    callId: string,
    toolName: string,
    extra: { deadlineMs?: number; approved?: boolean; runId?: string; depth?: number } = {},
  ) => calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName, arguments: {}, ...extra });
  return { calls, call, sent };
}

/** A tool that runs until its `ctx.signal` aborts, telling `onAbort` the call id and the reason. */
export const waitsForAbort = (name: string, onAbort: (callId: string, reason: unknown) => void = () => {}) =>
  tool({
    name,
    description: 'Runs until aborted.',
    execute: (_input, ctx) =>
      new Promise<string>((resolve) =>
        ctx.signal.addEventListener('abort', () => {
          onAbort(ctx.callId, ctx.signal.reason);
          resolve('stopped');
        }),
      ),
  });

/** A synchronous tool that records the calls it ran. */
export function recordsCalls(name: string) {
  const ran: string[] = [];
  const made = tool({
    name,
    description: 'Records the call.',
    execute: (_input, ctx) => {
      ran.push(ctx.callId);
      return ctx.callId;
    },
  });
  return { tool: made, ran };
}

export const nextTask = () => new Promise((resolve) => setImmediate(resolve));

/**
 * The end of the task that a step made now (a lock released, a person's answer) goes on in: its promises settle
 * first, then what they scheduled for the end of their task (the `key_waits` and `approval_waits` frames) is written.
 */
export const taskAfterSettled = async () => {
  await nextTask();
  await nextTask();
};
export const callIds = (sent: ClientFrame[]) => sent.map((frame) => (frame as { callId: string }).callId);
export const statuses = (sent: ClientFrame[]) =>
  sent.map((frame) => `${(frame as { callId: string }).callId}:${(frame as { status: string }).status}`);

/**
 * One slot; `g1` gives it up while it waits (for a decision over the socket, a local approver or a nested run)
 * until `release()`; `stuck` runs until cancelled; `other` answers at once. `ran` lists the calls of `g1`'s tool
 * that went on past the wait.
 */
export interface ParkedSetup extends ReturnType<typeof recording> {
  ran: string[];
  start(): void;
  release(approved?: boolean): void;
}

/** `gated` (needs approval, records the calls that ran), `stuck` and `other`, in one slot. */
export function gatedInOneSlot(overrides: Partial<RunnerOptions> = {}) {
  const ran: string[] = [];
  const gated = tool({
    name: 'gated',
    description: 'Needs approval.',
    needsApproval: true,
    execute: (_input, ctx) => {
      ran.push(ctx.callId);
      return 'done';
    },
  });
  const recorded = recording([gated, waitsForAbort('stuck'), recordsCalls('other').tool], {
    maxConcurrency: 1,
    ...overrides,
  });
  return { ...recorded, ran, start: () => recorded.call('g1', 'gated') };
}

export function parkedOnSocketApproval(): ParkedSetup {
  const setup = gatedInOneSlot();
  return { ...setup, release: (approved = true) => setup.call('g1', 'gated', { approved }) };
}

export function parkedOnLocalApprover(): ParkedSetup {
  const answers: Array<(decision: boolean) => void> = [];
  const setup = gatedInOneSlot({
    onApproval: () => new Promise<boolean>((resolve) => answers.push(resolve)),
  });
  return { ...setup, release: (approved = true) => answers[0]!(approved) };
}

export function parkedOnNestedRun(): ParkedSetup {
  const ran: string[] = [];
  const gates: Array<() => void> = [];
  let runner: CallRunner | undefined;
  const nesting = tool({
    name: 'nesting',
    description: 'Waits for a nested run.',
    execute: async (_input, ctx) => {
      runner!.park(ctx.callId);
      await new Promise<void>((resolve) => gates.push(resolve));
      await runner!.resumeParked(ctx.callId, undefined);
      ran.push(ctx.callId);
      return 'done';
    },
  });
  const recorded = recording([nesting, waitsForAbort('stuck'), recordsCalls('other').tool], {
    maxConcurrency: 1,
  });
  runner = recorded.calls;
  return { ...recorded, ran, start: () => recorded.call('g1', 'nesting'), release: () => gates[0]!() };
}

export const parkers: Array<[string, () => ParkedSetup]> = [
  ['waiting for a decision over the socket', parkedOnSocketApproval],
  ['waiting for a local approver', parkedOnLocalApprover],
  ['waiting for a nested run', parkedOnNestedRun],
];
/** `g1` waits and gives up the slot, `s1` takes it, then `g1` is released (approved or not) while it is busy. */
export async function releasedWhileSlotBusy(setup: ParkedSetup, approved = true): Promise<ParkedSetup> {
  setup.start();
  await nextTask();
  setup.call('s1', 'stuck');
  await nextTask();
  setup.release(approved);
  await nextTask();
  return setup;
}

export const results = (sent: ClientFrame[]) =>
  statuses(sent.filter((frame) => frame.type === 'tool_result'));

/** One call that never ends running, synchronous `charge` calls queued behind it (maxConcurrency 1). */
export function queuedBehindOne() {
  const charge = recordsCalls('charge');
  const runner = recording([waitsForAbort('stuck'), charge.tool], { maxConcurrency: 1 });
  return { ...runner, ran: charge.ran };
}

/**
 * A tracer that records each call's arguments (`call.arguments()`) as its span ends, after `annotate` (a tracer of
 * one's own may change what it is handed).
 */
export function argumentsTracer(annotate: (args: Record<string, unknown>) => void = () => {}): {
  tracing: ToolTracing;
  recorded: unknown[];
} {
  const recorded: unknown[] = [];
  const tracing: ToolTracing = {
    startCall: (call) => ({
      event() {},
      run: (fn) => fn(),
      end() {
        const args = call.arguments();
        annotate(args as Record<string, unknown>);
        recorded.push(args);
      },
    }),
  };
  return { tracing, recorded };
}

/** `expect(actual).toEqual(expected)`, told `where`, asked only when their JSON differs (thousands of steps a test). */
export function same(actual: unknown, expected: unknown, where: string): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) expect([actual, where]).toEqual([expected, where]);
}
