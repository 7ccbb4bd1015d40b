/**
 * Who answers a call's `ctx.askQuestion()` in this process, and how a waiting call gives its slot up. The
 * questions put to the service are in src/client/questions.ts.
 *
 * @module
 */
import type { CallWaits, QuestionReply, QuestionRequest } from '../call/types';
import { QuestionError } from '../errors';

/** Who answers a call's `ctx.askQuestion()` in this process (the client's `onQuestion`). */
export type Questioner = (request: QuestionRequest) => QuestionReply | Promise<QuestionReply>;

/**
 * Puts a call's question to `answerer` (the client's `onQuestion`, else the service).
 * @throws QuestionError `unsupported` when nobody can answer.
 */
function askInPlace(
  answerer: Questioner | undefined,
  request: QuestionRequest,
): QuestionReply | Promise<QuestionReply> {
  if (answerer === undefined) {
    throw new QuestionError(
      'unsupported',
      'nobody can answer: the client has no onQuestion and the service does not take questions',
    );
  }
  return answerer(request);
}

/**
 * `onQuestion` and `waits` for every call of a runner (one pair of functions, not a closure per call): `answerer`
 * answers; a call waiting for an answer gives its concurrency slot up, and however the wait ends (the question's
 * own time limit too, while `answerer` still runs) it takes one back before the tool goes on.
 */
export function questionHooks(
  answerer: Questioner | undefined,
  calls: { park(callId: string): void; resumeParked<T>(callId: string, value: T): Promise<T> },
): { onQuestion: Questioner; waits: CallWaits } {
  return {
    onQuestion: (request) => askInPlace(answerer, request),
    waits: {
      park: (callId) => calls.park(callId),
      unpark: (callId) => calls.resumeParked(callId, undefined),
    },
  };
}
