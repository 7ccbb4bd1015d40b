/**
 * Questions of the calls this client runs: who answers a call's `ctx.askQuestion()` (the client's `onQuestion`,
 * else the service) and how a call waiting for an answer gives its slot up (`questionHooks`). The questions put to
 * the service are ./socket-questions.ts, which a browser page loads at its first question.
 *
 * @module
 */
import type { CallWaits, QuestionReply, QuestionRequest } from '../call/types';

/** Who answers a call's `ctx.askQuestion()` (the client's `onQuestion`, else the service). */
export type Questioner = (request: QuestionRequest) => QuestionReply | Promise<QuestionReply>;

/**
 * `onQuestion` and `waits` for every call of a runner (one pair of functions, not a closure per call): `answerer`
 * answers; a call waiting for an answer gives its concurrency slot up, and however the wait ends (the question's
 * own time limit too, while `answerer` still runs) it takes one back before the tool goes on. A call waiting at its
 * concurrency key's gate tells the runner (`gateWait`), and so does one waiting for anything else before its
 * `execute` begins: code, or its validation (`preExecuteWait`).
 */
export function questionHooks(
  answerer: Questioner,
  calls: {
    park(callId: string): void;
    unpark(callId: string, lane?: string): Promise<boolean>;
    holdsSlot(callId: string): boolean;
    gateWait(callId: string, waits: 'key' | 'slot' | undefined): void;
    preExecuteWait(callId: string, waits: boolean): void;
  },
): { onQuestion: Questioner; waits: CallWaits } {
  return {
    onQuestion: answerer,
    waits: {
      park: (callId) => calls.park(callId),
      unpark: (callId, lane) => calls.unpark(callId, lane),
      holdsSlot: (callId) => calls.holdsSlot(callId),
      gateWait: (callId, waits) => calls.gateWait(callId, waits),
      preExecuteWait: (callId, waits) => calls.preExecuteWait(callId, waits),
    },
  };
}
