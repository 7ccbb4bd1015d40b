/**
 * The `QuestionError` a tool catches is redacted as every error the client rejects with (docs/guide/secrets.md):
 * an `onQuestion` that throws, or a person's decline, may quote a secret.
 */
import { describe, expect, it } from 'vitest';
import { Client, tool } from '../../src/index';
import { FAKE_URL, fakeWebSocket, useFakeService } from './fake-service';

const { service, clients } = useFakeService();
const KEY = 'sk-question-secret-9876';

describe('a question that fails with a secret in its words', () => {
  it.each([
    ['onQuestion throws', () => Promise.reject(new Error(`vault ${KEY} is sealed`))],
    ['the person declines', () => ({ declined: true as const, reason: `not with ${KEY}` })],
  ])('%s: the tool catches it redacted', async (_case, onQuestion) => {
    const caught: string[] = [];
    const asking = tool({
      name: 'asking',
      description: 'Asks a question.',
      execute: async (_input, ctx) => {
        try {
          await ctx.askQuestion('Go on?');
        } catch (error) {
          caught.push(`${(error as Error).message} | ${String((error as Error).stack)}`);
        }
        return 'asked';
      },
    });
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: KEY,
      tools: [asking],
      onQuestion,
      reconnect: false,
    });
    clients.push(client);
    const connection = await service.connect(client);
    const answered = connection.next('tool_result');
    connection.send({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'asking', arguments: {} });
    await answered;
    expect(caught).toHaveLength(1);
    expect(caught[0]).toContain('[redacted]');
    expect(caught[0]).not.toContain(KEY);
  });
});
