/**
 * The browser build's src/call/questions.ts (swapped in by browser-build.ts): `ctx.askQuestion()` loads the
 * real code (a chunk of its own) the first time a tool asks, then asks as it would have. A cancel or timeout of the call during the load rejects with `QuestionError` `cancelled`;
 * a failed load with `QuestionError` `load_failed` (the next question tries again).
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import { QuestionError } from '../errors';
import type { AskOptions } from '../tool/context-methods';
import type { QuestionHost } from './questions';

export type { QuestionHost } from './questions';

const real = lazy('ctx.askQuestion()', () => import('./questions'), QuestionError);

/** See src/call/questions.ts. */
export function askQuestion(
  host: QuestionHost,
  question: string,
  options?: AskOptions<unknown>,
): Promise<unknown> {
  const now = real.now;
  if (now !== undefined) return now.askQuestion(host, question, options);
  const stop = {
    signal: host.ctx.signal,
    error: () => new QuestionError('cancelled', 'the call was cancelled'),
  };
  return real.load(stop).then((module) => module.askQuestion(host, question, options));
}
