/**
 * The client's open questions against a service that answers badly: answers for questions never asked, a second
 * answer, an answer after the question was withdrawn, an answer with no value. Nothing settles twice, nothing
 * throws, and a question is settled only by its own answer.
 */
import { describe, expect, it } from 'vitest';
import type { QuestionReply } from '../../src/call/types';
import { SocketQuestions } from '../../src/client/socket-questions';
import { QuestionError } from '../../src/errors';
import { Redactor } from '../../src/logger';
import type { ClientFrame } from '../../src/wire/protocol';

function questions() {
  const sent: ClientFrame[] = [];
  const made = new SocketQuestions({
    send: (frame) => {
      sent.push(frame);
      return true;
    },
    redactor: new Redactor([]),
    maxPayloadBytes: () => 1_048_576,
    enabled: () => true,
  });
  const ask = (callId: string, questionId: string, signal = new AbortController().signal) =>
    made.ask({ callId, runId: 'r1', toolName: 'export', questionId, question: 'Which?', signal });
  return { made, sent, ask };
}

const answer = (callId: string, questionId: string, value: unknown) =>
  ({ type: 'answer', callId, questionId, status: 'answered', answer: value }) as const;

describe('SocketQuestions against a service that answers badly', () => {
  it('ignores answers to questions never asked, and a second answer to one', async () => {
    const { made, ask } = questions();
    const settled: Array<QuestionReply | string> = [];
    const asked = ask('c1', 'q1').then(
      (reply) => settled.push(reply),
      (error: unknown) => settled.push(String(error)),
    );
    made.answer(answer('c1', 'q2', 'wrong question'));
    made.answer(answer('c2', 'q1', 'wrong call'));
    made.answer(answer('c1', 'q1', 'Lyon'));
    made.answer(answer('c1', 'q1', 'Berlin'));
    made.answer({ type: 'answer', callId: 'c1', questionId: 'q1', status: 'cancelled' });
    await asked;
    expect(settled).toEqual([{ answer: 'Lyon' }]);
  });

  it('ignores an answer after the question was withdrawn, which it told the service of', async () => {
    const { made, ask, sent } = questions();
    const stop = new AbortController();
    const asked = ask('c1', 'q1', stop.signal);
    stop.abort();
    await expect(asked).rejects.toThrow(new QuestionError('cancelled', 'the question was withdrawn'));
    made.answer(answer('c1', 'q1', 'late'));
    expect(sent.map((frame) => frame.type)).toEqual(['question', 'question_cancel']);
  });

  it('ignores an answer for a call that ended, and sends nothing again after a reconnect', () => {
    const { made, ask, sent } = questions();
    void ask('c1', 'q1');
    made.forget('c1');
    made.answer(answer('c1', 'q1', 'late'));
    made.reconnected();
    expect(sent.map((frame) => frame.type)).toEqual(['question']);
  });

  it('fails every open question cancelled when a new session begins, and sends none of them again', async () => {
    const { made, ask, sent } = questions();
    const asked = ask('c1', 'q1');
    made.reconnected(false);
    await expect(asked).rejects.toThrow(
      new QuestionError(
        'cancelled',
        'the session was lost: the client reconnected in a new session, which cannot answer a question put to the old one',
      ),
    );
    made.answer(answer('c1', 'q1', 'late'));
    made.reconnected();
    expect(sent.map((frame) => frame.type)).toEqual(['question']);
  });
});
