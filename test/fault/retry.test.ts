/**
 * Retries under a failing network: every failed attempt of each call also drops the client's connection behind a
 * real TCP proxy, so the service re-delivers the calls mid-retry. The client joins the re-delivered call to the
 * execution in flight: no attempt number runs twice for a call, and the steps completed before a drop are not
 * run again by a later attempt.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { tool } from '../../src/index';
import { client, nextEvent, proxyTo, stub } from './harness';

describe('retries through a dropping proxy', () => {
  it('runs each attempt number once per call, and each step once per call', async () => {
    const server = await stub({
      model: scriptedModel([
        { toolCalls: ['a', 'b', 'c'].map((id) => ({ name: 'fetch_page', arguments: { id } })) },
        ({ messages }) => ({
          text: messages
            .filter((message) => message.role === 'tool')
            .map((message) => message.content)
            .join(' | '),
        }),
      ]),
    });
    const proxy = await proxyTo(server);
    const attempts: string[] = [];
    const stepBodies: string[] = [];
    let worker: ReturnType<typeof client> | undefined;
    const fetchPage = tool({
      name: 'fetch_page',
      description: 'Fetches a page.',
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const,
      sideEffect: 'none',
      retry: { maxAttempts: 4, initialDelayMs: 0 },
      execute: async ({ id }, ctx) => {
        attempts.push(`${ctx.callId}#${ctx.attempt}`);
        const token = await ctx.step('token', () => {
          stepBodies.push(ctx.callId);
          return `token-${id}`;
        });
        if (ctx.attempt < 3) {
          // The connection drops while this call is between attempts: the service sends it again on resume.
          const back = nextEvent(worker!, 'connected');
          proxy.dropAll();
          await back;
          throw new Error(`network flake ${ctx.attempt}`);
        }
        return `${id}:${token}:attempt ${ctx.attempt}`;
      },
    });
    worker = client(proxy.url, { tools: [fetchPage] });
    await worker.connect();
    const runId = server.runs.start({ name: 'crawler', instructions: '', tools: ['fetch_page'] }, 'go');
    const transcript = await server.runs.waitFor(runId);

    expect(transcript.finalOutput).toBe('a:token-a:attempt 3 | b:token-b:attempt 3 | c:token-c:attempt 3');
    const callIds = transcript.toolCalls.map((call) => call.callId);
    expect(attempts.length).toBe(9);
    expect(new Set(attempts).size).toBe(attempts.length);
    expect([...attempts].sort()).toEqual(callIds.flatMap((id) => [1, 2, 3].map((n) => `${id}#${n}`)).sort());
    expect([...stepBodies].sort()).toEqual([...callIds].sort());
    expect(proxy.accepted).toBeGreaterThan(1);
  });
});
