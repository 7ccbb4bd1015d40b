/**
 * The browser build's src/call/questions.ts (swapped in by browser-build.ts): `ctx.askQuestion()` loads the
 * real code (a chunk of its own) the first time a tool asks.
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import type { AskOptions } from '../tool/context-methods';
import type { QuestionHost } from './questions';

export type { QuestionHost } from './questions';

const real = lazy(() => import('./questions'));

/** See src/call/questions.ts. */
export function askQuestion(
  host: QuestionHost,
  question: string,
  options?: AskOptions<unknown>,
): Promise<unknown> {
  return real.load().then((module) => module.askQuestion(host, question, options));
}
