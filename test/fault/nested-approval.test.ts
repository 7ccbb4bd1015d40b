/**
 * One call held for approval in a nested run (an agent used as a tool) reaches the client's `approval_requested`
 * once, and the client's `run_event` once, however deep it is; the outer run's `onEvent` still gets its copy
 * (docs/protocol/runs.md).
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { Agent, type ApprovalRequest, tool } from '../../src/index';
import { API_KEY, client, stub, until } from './harness';

describe('a nested approval', () => {
  it.each([1, 2])('reaches approval_requested once at nesting depth %i', async (depth) => {
    const refund = tool({
      name: 'refund',
      description: 'Refunds.',
      needsApproval: true,
      execute: () => 'refunded',
    });
    let inner = new Agent({ name: 'A0', instructions: '', tools: [refund] });
    const script: Record<string, unknown[]> = {
      A0: [{ toolCalls: [{ name: 'refund' }] }, { text: 'done 0' }],
    };
    for (let level = 1; level <= depth; level++) {
      const name = `A${level}`;
      const asTool = inner.asTool({ toolName: `ask_${level - 1}`, toolDescription: 'Asks.' });
      script[name] = [
        { toolCalls: [{ name: `ask_${level - 1}`, arguments: { input: 'go' } }] },
        { text: `done ${level}` },
      ];
      inner = new Agent({ name, instructions: '', tools: [asTool] });
    }
    const server = await stub({ model: scriptedModel(script as never) });
    const worker = client(server.url, { tools: [] });
    const requests: ApprovalRequest[] = [];
    worker.on('approval_requested', (request) => requests.push(request));
    const events: string[] = [];
    worker.on('run_event', (event) => {
      if (event.kind === 'approval_requested') events.push(event.runId);
    });
    await worker.connect();
    const outer: string[] = [];
    const running = worker.run(inner, 'go', {
      onEvent: (event) => {
        if (event.kind === 'approval_requested') outer.push(event.runId);
      },
    });
    await until(() => requests.length, 1);
    const [request] = requests as [ApprovalRequest];
    const response = await fetch(`${server.httpUrl}/v1/runs/${request.runId}/approvals/${request.callId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ approved: true }),
    });
    expect(response.status).toBe(200);
    expect((await running).finalOutput).toBe(`done ${depth}`);
    expect(requests.map((r) => [r.callId, r.toolName])).toEqual([[request.callId, 'refund']]);
    expect(events).toEqual([request.runId]);
    // The outer run's own listener still sees it (its copy, naming the nested run in data.runId).
    expect(outer).toHaveLength(1);
    expect(outer[0]).not.toBe(request.runId);
  });
});
