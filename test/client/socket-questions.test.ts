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
  const socket = { up: true };
  const made = new SocketQuestions({
    send: (frame) => {
      if (!socket.up) return false;
      sent.push(frame);
      return true;
    },
    redactor: new Redactor([]),
    maxPayloadBytes: () => 1_048_576,
    enabled: () => true,
  });
  const ask = (callId: string, questionId: string, signal = new AbortController().signal) =>
    made.ask({ callId, runId: 'r1', toolName: 'export', questionId, question: 'Which?', signal });
  return { made, sent, ask, socket };
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

/**
 * A question the tool stops waiting for while the socket is down (its `timeoutMs`, the tool gave up): the
 * `question_cancel` the socket could not take goes at the resume, or the service would keep the question open (the
 * agent UI asking a person, the call's deadline held) for an answer nobody waits for.
 */
describe('SocketQuestions: a question withdrawn while the socket is down', () => {
  it('sends its question_cancel at the resume, once', async () => {
    const { made, ask, sent, socket } = questions();
    const stop = new AbortController();
    const asked = ask('c1', 'q1', stop.signal);
    socket.up = false;
    stop.abort();
    await expect(asked).rejects.toThrow(new QuestionError('cancelled', 'the question was withdrawn'));
    socket.up = true;
    made.reconnected();
    made.reconnected();
    expect(sent).toEqual([
      expect.objectContaining({ type: 'question', callId: 'c1', questionId: 'q1' }),
      { type: 'question_cancel', callId: 'c1', questionId: 'q1' },
    ]);
  });

  it('keeps it through a failed resend, and drops it for a new session or an ended call', async () => {
    const { made, ask, sent, socket } = questions();
    const stops = [new AbortController(), new AbortController(), new AbortController()];
    const asked = ['c1', 'c2', 'c3'].map((callId, i) => ask(callId, 'q1', stops[i]!.signal).catch(() => {}));
    socket.up = false;
    for (const stop of stops) stop.abort();
    await Promise.all(asked);
    made.reconnected(); // the socket still refuses: kept
    made.forget('c3'); // the call ended: the service closes its questions with it
    socket.up = true;
    made.reconnected();
    expect(sent.filter((frame) => frame.type === 'question_cancel').map((frame) => frame.callId)).toEqual([
      'c1',
      'c2',
    ]);
    const again = new AbortController();
    const late = ask('c4', 'q1', again.signal).catch(() => {});
    socket.up = false;
    again.abort();
    await late;
    socket.up = true;
    made.reconnected(false); // a new session: the old one's questions closed with it
    expect(sent.filter((frame) => frame.type === 'question_cancel')).toHaveLength(2);
  });
});
