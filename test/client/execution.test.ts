import { describe, expect, it } from 'vitest';
import {
  type CallState,
  canMove,
  Execution,
  READ_LATER,
  type ToolCallFrame,
} from '../../src/client/execution';

const STATES: CallState[] = ['queued', 'running', 'parked', 'resuming', 'finished'];

describe('Execution state', () => {
  it('allows exactly the transitions of its table', () => {
    const allowed = STATES.flatMap((from) =>
      STATES.filter((to) => canMove(from, to)).map((to) => `${from} → ${to}`),
    );
    expect(allowed).toEqual([
      'queued → running',
      'queued → finished',
      'running → parked',
      'running → finished',
      'parked → running',
      'parked → resuming',
      'parked → finished',
      'resuming → running',
      'resuming → parked',
      'resuming → finished',
    ]);
  });

  it('refuses an illegal transition and stays where it is', () => {
    const execution = new Execution(
      { type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 't', arguments: {} },
      { finished() {} },
    );
    expect(execution.state).toBe('queued');
    expect(execution.moveTo('parked')).toBeUndefined();
    expect(execution.state).toBe('queued');
    expect(execution.moveTo('running')).toBe('queued');
    expect(execution.moveTo('finished')).toBe('running');
    expect(execution.moveTo('running')).toBeUndefined();
    expect(execution.state).toBe('finished');
  });
});

describe('Execution frame', () => {
  const owner = { finished() {} };
  const base: ToolCallFrame = {
    type: 'tool_call',
    callId: 'c1',
    runId: 'r1',
    toolName: 't',
    arguments: { a: 1 },
  };
  /** A value of the right kind for each field read after arrival. */
  const LATER_VALUES: Partial<Record<keyof ToolCallFrame, unknown>> = {
    depth: 1,
    approved: false,
    reason: 'no',
    argumentsEdited: true,
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    tracestate: 'a=b',
    sessionId: 's1',
    agentName: 'Support',
    steps: { fetch: 1 },
  };

  it('keeps its ids, tool and arguments, and not the frame when it carries nothing read later', () => {
    const execution = new Execution({ ...base, deadlineMs: 30_000, depth: 0, acks: ['c0'] }, owner);
    expect([execution.callId, execution.runId, execution.toolName, execution.arguments]).toEqual([
      'c1',
      'r1',
      't',
      { a: 1 },
    ]);
    expect(execution.fullFrame).toBeUndefined();
    expect(execution.frame).toStrictEqual(base);
  });

  it('keeps the frame as received when it carries any field read later', () => {
    const later = Object.entries(READ_LATER)
      .filter(([, read]) => read)
      .map(([key]) => key);
    expect(later.sort()).toEqual(Object.keys(LATER_VALUES).sort());
    for (const key of later) {
      const frame = { ...base, [key]: LATER_VALUES[key as keyof ToolCallFrame] } as ToolCallFrame;
      const execution = new Execution(frame, owner);
      expect(execution.fullFrame, key).toBe(frame);
      expect(execution.frame, key).toBe(frame);
    }
  });
});
