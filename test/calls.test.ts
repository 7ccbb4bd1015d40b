import { describe, expect, it } from 'vitest';
import { CallRunner } from '../src/calls';
import { Redactor, silentLogger } from '../src/logger';
import type { ClientFrame } from '../src/protocol';
import { ToolRegistry } from '../src/registry';
import { tool } from '../src/tool';

function runner() {
  const executed: string[] = [];
  const sent: ClientFrame[] = [];
  const echo = tool({
    name: 'echo',
    description: 'Echoes the call id.',
    execute: (_input, ctx) => {
      executed.push(ctx.callId);
      return ctx.callId;
    },
  });
  const calls = new CallRunner({
    registry: new ToolRegistry([echo]),
    maxConcurrency: 16,
    maxQueue: 1_000,
    highWaterMarkBytes: 1_048_576,
    send: (frame) => {
      sent.push(frame);
      return true;
    },
    writable: () => true,
    bufferedAmount: () => 0,
    maxPayloadBytes: () => 1_048_576,
    contextFor: () => undefined,
    onApproval: undefined,
    extend: () => ({}),
    redactor: new Redactor([]),
    logger: silentLogger,
    events: { toolCall() {}, toolResult() {}, approvalRequested() {}, widgetInvalid() {} },
  });
  const call = (callId: string) =>
    calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName: 'echo', arguments: {} });
  return { calls, call, executed, sent };
}

describe('CallRunner', () => {
  it('refuses a re-delivery of any of the last 10,000 finished and acked calls, and forgets older ones', async () => {
    const { calls, call, executed } = runner();
    for (let i = 0; i < 10_001; i++) {
      call(`c${i}`);
      await new Promise((resolve) => setImmediate(resolve));
      calls.ack(`c${i}`);
    }
    expect(executed).toHaveLength(10_001);
    expect(calls.unacked).toBe(0);
    call('c1'); // among the last 10,000: ignored
    call('c10000');
    call('c0'); // the oldest, forgotten: runs again
    await new Promise((resolve) => setImmediate(resolve));
    expect(executed.slice(10_001)).toEqual(['c0']);
  });
});
