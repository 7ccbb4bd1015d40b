import { describe, expect, it } from 'vitest';
import { type CallState, canMove, Execution } from '../../src/client/execution';

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
