/**
 * `ctx.askQuestion()` over a bare `ws` service (feature `questions`, docs/protocol/frames-service.md,
 * docs/protocol/questions.md): an `answer` whose
 * `status` is not one the client knows, or not even a string, closes the question as `cancelled` (never refused);
 * an `answer` the client refuses (docs/protocol/errors.md) but whose call and question ids are readable still ends the
 * question.
 */
import { describe, expect, it } from 'vitest';
import { tool } from '../../src/index';
import { client, onCleanup, until } from '../fault/harness';
import { startRawService } from '../fault/raw-service';

const nested = (depth: number): unknown => (depth === 0 ? 'x' : [nested(depth - 1)]);

async function asking(answer: Record<string, unknown>) {
  const service = await startRawService({ welcome: { features: ['questions'] } });
  onCleanup(() => service.close());
  const ask = tool({
    name: 'ask',
    description: 'Asks.',
    execute: (_input, ctx) =>
      ctx.askQuestion('Which?').then(
        (reply) => `answered ${JSON.stringify(reply)}`,
        (error: Error & { code?: string }) => `${error.name}/${error.code}: ${error.message}`,
      ),
  });
  const worker = client(service.url, { tools: [ask], reconnect: { initialDelayMs: 1, maxDelayMs: 5 } });
  worker.on('error', () => {});
  await worker.connect();
  service
    .socket()
    .send(JSON.stringify({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'ask', arguments: {} }));
  await until(() => service.frames.filter((frame) => frame.type === 'question').length, 1);
  const question = service.frames.find((frame) => frame.type === 'question') as { questionId: string };
  service
    .socket()
    .send(JSON.stringify({ type: 'answer', callId: 'c1', questionId: question.questionId, ...answer }));
  await until(() => service.frames.filter((frame) => frame.type === 'tool_result').length, 1);
  const result = service.frames.find((frame) => frame.type === 'tool_result') as { output: string };
  return { output: result.output, refusals: service.frames.filter((frame) => frame.type === 'error') };
}

describe('an answer the client cannot take as it is', () => {
  it.each([
    ['a number', { status: 7 }],
    ['null', { status: null, reason: 'gone' }],
    ['absent', {}],
  ])('a status that is %s closes the question as cancelled, nothing refused', async (_name, answer) => {
    const { output, refusals } = await asking(answer);
    expect(output).toMatch(/^QuestionError\/cancelled: the service closed the question/);
    expect(refusals).toEqual([]);
  });

  it('an answer refused (nested too deep) but naming its question ends it as cancelled, saying why', async () => {
    const { output, refusals } = await asking({ status: 'answered', answer: nested(200) });
    expect(output).toBe(
      "QuestionError/cancelled: the service closed the question: the service's answer could not be read (frame nests deeper than 128 levels)",
    );
    expect(refusals).toMatchObject([{ code: 'invalid_frame', callId: 'c1' }]);
  });
});
