/** `Runs` (src/client/runs.ts) when a reconnect begins a new session (`welcome.resumed: false`, docs/protocol/sessions.md). */
import { describe, expect, it } from 'vitest';
import { Runs } from '../../src/client/runs';
import { RunError } from '../../src/index';
import type { AgentDefinition, ClientFrame } from '../../src/wire/protocol';

const agent: AgentDefinition = { name: 'A', instructions: '', tools: [] };
const options = {
  context: undefined,
  signal: undefined,
  maxTurns: undefined,
  parentRunId: undefined,
  parentCallId: undefined,
};

function runs() {
  const sent: ClientFrame[] = [];
  const made = new Runs(
    (frame) => {
      sent.push(frame);
      return true;
    },
    () => {},
    () => 1_048_576,
  );
  return { made, sent };
}

describe('Runs in a new session', () => {
  it('rejects a started run session_lost, forgets an aborted one, and starts again one never started', async () => {
    const { made, sent } = runs();
    const started = made.start(agent, 'one', options).catch((error: unknown) => error);
    const stop = new AbortController();
    const aborted = made.start(agent, 'two', { ...options, signal: stop.signal });
    aborted.catch(() => {});
    const pending = made.start(agent, 'three', options);
    const [first, second] = sent.map((frame) => (frame as { requestId: string }).requestId);
    made.handle({ type: 'run_started', requestId: first as string, runId: 'r1' });
    made.handle({ type: 'run_started', requestId: second as string, runId: 'r2' });
    stop.abort();
    sent.length = 0;
    made.reconnected(false);
    const error = await started;
    expect(error).toBeInstanceOf(RunError);
    expect(error).toMatchObject({ code: 'session_lost' });
    expect((error as Error).message).toBe(
      'run r1 was lost with its session: the client reconnected and the service began a new session (the old one expired, was replaced or is unknown to it), which cannot follow the run',
    );
    // The aborted run is not cancelled again (its session is gone); the one never started is started again.
    expect(sent).toEqual([expect.objectContaining({ type: 'run_start', input: 'three' })]);
    made.reconnected(true);
    expect(sent.map((frame) => frame.type)).toEqual(['run_start', 'run_start']);
    expect(made.live.has('r1')).toBe(false);
    const third = (sent[0] as { requestId: string }).requestId;
    made.handle({ type: 'run_started', requestId: third, runId: 'r3' });
    made.handle({
      type: 'run_result',
      runId: 'r3',
      status: 'completed',
      finalOutput: 'ok',
      toolCalls: [],
      turns: 1,
    });
    await expect(pending).resolves.toMatchObject({ runId: 'r3', finalOutput: 'ok' });
  });
});

describe('Runs: run_started', () => {
  it('adopts the first run id of a request; a second, other one is ignored, and the run ends with its own result', async () => {
    const { made, sent } = runs();
    const run = made.start(agent, 'one', options);
    const { requestId } = sent[0] as { requestId: string };
    made.handle({ type: 'run_started', requestId, runId: 'r1' });
    made.handle({ type: 'run_started', requestId, runId: 'r2' });
    made.handle({ type: 'run_started', requestId, runId: 'r1' });
    const result = (runId: string, finalOutput: string) =>
      ({ type: 'run_result', runId, status: 'completed', toolCalls: [], turns: 1, finalOutput }) as const;
    made.handle({ ...result('r2', 'not this one'), toolCalls: [] });
    made.handle({ ...result('r1', 'this one'), toolCalls: [] });
    expect(await run).toMatchObject({ runId: 'r1', finalOutput: 'this one' });
  });
});
