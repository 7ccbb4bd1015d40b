/**
 * The browser build's src/client/questions.ts (swapped in by browser-build.ts): the questions a page's calls
 * put to the service load their code (a chunk of its own) when a tool first asks one. Until then no question
 * is open: an answer, a call's end or a reconnect has nothing to act on. A question withdrawn during the load
 * rejects at once (`QuestionError` `cancelled`); a failed load rejects it with `QuestionError` `load_failed`.
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import type { QuestionReply, QuestionRequest } from '../call/types';
import { QuestionError } from '../errors';
import type { FrameOf, ServiceFrame } from '../wire/protocol';
import type * as Real from './questions';

export type { Questioner } from './questions';

const real = lazy('the questions code', () => import('./questions'), QuestionError);

/** See src/client/questions.ts: the real class, made once its module has loaded. */
export class SocketQuestions {
  readonly #options: Real.SocketQuestionsOptions;
  #questions: Real.SocketQuestions | undefined;

  constructor(options: Real.SocketQuestionsOptions) {
    this.#options = options;
  }

  readonly ask = (request: QuestionRequest): Promise<QuestionReply> => {
    if (this.#questions !== undefined) return this.#questions.ask(request);
    // The tool stops waiting while the code loads: the question is withdrawn before it is sent.
    const stop = {
      signal: request.signal,
      error: () => new QuestionError('cancelled', 'the question was withdrawn'),
    };
    return real.load(stop).then((module) => {
      this.#questions ??= new module.SocketQuestions(this.#options);
      return this.#questions.ask(request);
    });
  };

  answer(frame: FrameOf<ServiceFrame, 'answer'>): void {
    this.#questions?.answer(frame);
  }

  forget(callId: string): void {
    this.#questions?.forget(callId);
  }

  reconnected(resumed = true): void {
    this.#questions?.reconnected(resumed);
  }
}
