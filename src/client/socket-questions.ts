/**
 * The questions a client's calls put to the service (docs/protocol/questions.md): `question` out, `answer` in,
 * `question_cancel` when the tool stops waiting, and every open question sent again after a reconnect (the
 * service answers a repeat with the answer it has). Only with the feature `questions`.
 *
 * A browser page loads this file with `import()` at its first question put to the service (./call-updates.ts: until
 * then no question is open, so no `answer` is anyone's); the Node entry registers it up front (src/node.ts).
 *
 * @module
 */
import type { QuestionReply, QuestionRequest } from '../call/types';
import { nobodyAnswers, QuestionError } from '../errors';
import type { Redactor } from '../logger';
import { encodeFrame } from '../wire/codec';
import {
  type ClientFrame,
  type FrameOf,
  QUESTION_LIMITS,
  type ServiceFrame,
  utf8Length,
} from '../wire/protocol';

type QuestionFrame = FrameOf<ClientFrame, 'question'>;

interface Pending {
  frame: QuestionFrame;
  /** The choices as the tool gave them, where the frame's are redacted: an answer is read back as one of these. */
  choices: readonly string[] | undefined;
  resolve(reply: QuestionReply): void;
  reject(error: QuestionError): void;
}

/** What the questions need from the client. */
export interface SocketQuestionsOptions {
  send(frame: ClientFrame): boolean;
  redactor: Redactor;
  maxPayloadBytes(): number;
  /** `true` while the service takes questions on the current socket. */
  enabled(): boolean;
  /**
   * A call's first open question was sent (`open`), or its last one closed (answered, withdrawn or failed; not
   * when the call ends): the service holds the call's deadline meanwhile (docs/protocol/questions.md).
   */
  asking?(callId: string, open: boolean): void;
}

const keyOf = (callId: string, questionId: string) => `${callId}\u0000${questionId}`;

/** The open questions of one client's calls. Owned by the call updates; not exported from the package. */
export class SocketQuestions {
  readonly #options: SocketQuestionsOptions;
  readonly #pending = new Map<string, Pending>();
  /** Per call with a question open, how many are. */
  readonly #open = new Map<string, number>();
  /**
   * Withdrawals the socket could not take (it was down): sent at the resume, or the service would hold the
   * question open, and the call's deadline with it, for an answer the tool no longer waits for. Made at the first.
   */
  #unsentWithdrawals: Map<string, FrameOf<ClientFrame, 'question_cancel'>> | undefined;

  constructor(options: SocketQuestionsOptions) {
    this.#options = options;
  }

  /** Puts a question to the service; resolves with the person's reply, or rejects with a `QuestionError`. */
  readonly ask = (request: QuestionRequest): Promise<QuestionReply> => {
    if (!this.#options.enabled()) return Promise.reject(nobodyAnswers());
    // The tool stopped waiting before the question could go (while this code loaded): nothing to withdraw.
    if (request.signal.aborted) return Promise.reject(withdrawn());
    const { redactor } = this.#options;
    const frame: QuestionFrame = {
      type: 'question',
      callId: request.callId,
      questionId: request.questionId,
      question: redactor.text(request.question),
    };
    if (request.choices !== undefined) frame.choices = request.choices.map((choice) => redactor.text(choice));
    if (request.schema !== undefined) frame.schema = redactor.value(request.schema);
    const unfit = unfitOnceRedacted(frame);
    if (unfit !== undefined) return Promise.reject(new QuestionError('failed', unfit));
    const size = utf8Length(encodeFrame(frame));
    if (size > this.#options.maxPayloadBytes()) {
      return Promise.reject(
        new QuestionError(
          'failed',
          `the question is ${size} bytes, over the service's limit of ${this.#options.maxPayloadBytes()}`,
        ),
      );
    }
    const key = keyOf(request.callId, request.questionId);
    return new Promise<QuestionReply>((resolve, reject) => {
      this.#pending.set(key, { frame, choices: request.choices, resolve, reject });
      this.#opened(request.callId);
      // The tool stopped waiting (its call ended or was cancelled, or the question timed out): withdraw it.
      request.signal.addEventListener(
        'abort',
        () => {
          if (!this.#pending.delete(key)) return;
          this.#closed(request.callId);
          const cancel: FrameOf<ClientFrame, 'question_cancel'> = {
            type: 'question_cancel',
            callId: request.callId,
            questionId: request.questionId,
          };
          if (!this.#options.send(cancel)) {
            this.#unsentWithdrawals ??= new Map();
            this.#unsentWithdrawals.set(key, cancel);
          }
          reject(withdrawn());
        },
        { once: true },
      );
      this.#options.send(frame);
    });
  };

  /** `answer` from the service: settles the question it names (an unknown one is ignored). */
  answer(frame: FrameOf<ServiceFrame, 'answer'>): void {
    const key = keyOf(frame.callId, frame.questionId);
    const pending = this.#pending.get(key);
    if (pending === undefined) return;
    this.#pending.delete(key);
    this.#closed(frame.callId);
    if (frame.status === 'answered') pending.resolve({ answer: asGiven(pending, frame.answer) });
    else if (frame.status === 'declined') {
      pending.resolve(
        frame.reason === undefined ? { declined: true } : { declined: true, reason: frame.reason },
      );
    } else {
      const why = frame.reason === undefined ? '' : `: ${frame.reason}`;
      pending.reject(
        new QuestionError('cancelled', `the service closed the question${why}`, { reason: frame.reason }),
      );
    }
  }

  /** A call ended: its open questions are dropped (the service closes them with the call). */
  forget(callId: string): void {
    for (const [key, pending] of this.#pending) {
      if (pending.frame.callId === callId) this.#pending.delete(key);
    }
    this.#open.delete(callId);
    if (this.#unsentWithdrawals === undefined) return;
    for (const [key, cancel] of this.#unsentWithdrawals) {
      if (cancel.callId === callId) this.#unsentWithdrawals.delete(key);
    }
  }

  #opened(callId: string): void {
    const open = (this.#open.get(callId) ?? 0) + 1;
    this.#open.set(callId, open);
    if (open === 1) this.#options.asking?.(callId, true);
  }

  #closed(callId: string): void {
    const open = (this.#open.get(callId) ?? 0) - 1;
    if (open > 0) {
      this.#open.set(callId, open);
      return;
    }
    this.#open.delete(callId);
    this.#options.asking?.(callId, false);
  }

  /**
   * A socket (re)opened: every open question goes again; a service that no longer takes them fails them. A new
   * session (`resumed: false`) fails them too, `cancelled`: they were put to the old session, and the service
   * ignores a question from a session its call is not assigned to (docs/protocol/questions.md), so none would be
   * answered. The withdrawals the socket could not take go now, to the same session (a new one closed the old
   * session's questions itself).
   */
  reconnected(resumed = true): void {
    const unsent = this.#unsentWithdrawals;
    if (unsent !== undefined && unsent.size > 0) {
      for (const [key, cancel] of [...unsent]) {
        if (!resumed || !this.#options.enabled() || this.#options.send(cancel)) unsent.delete(key);
      }
    }
    for (const [key, pending] of [...this.#pending]) {
      if (!resumed) {
        this.#pending.delete(key);
        this.#closed(pending.frame.callId);
        pending.reject(sessionLost());
      } else if (this.#options.enabled()) {
        // A new socket may announce a smaller limit: a question that no longer fits fails rather than wait.
        const size = utf8Length(encodeFrame(pending.frame));
        if (size <= this.#options.maxPayloadBytes()) this.#options.send(pending.frame);
        else {
          this.#pending.delete(key);
          this.#closed(pending.frame.callId);
          pending.reject(
            new QuestionError(
              'failed',
              `the question is ${size} bytes, over the service's limit of ${this.#options.maxPayloadBytes()}`,
            ),
          );
        }
      } else {
        this.#pending.delete(key);
        this.#closed(pending.frame.callId);
        pending.reject(new QuestionError('unsupported', 'the service no longer takes questions'));
      }
    }
  }
}

const withdrawn = () => new QuestionError('cancelled', 'the question was withdrawn');

/** The end of a question put to a session the client no longer has (`welcome.resumed: false`). */
export function sessionLost(): QuestionError {
  return new QuestionError(
    'cancelled',
    'the session was lost: the client reconnected in a new session, which cannot answer a question put to the old one',
  );
}

/**
 * Why a question cannot be sent once redacted, or `undefined`: a replacement made the question or a choice longer
 * than its bound, or made two choices read the same (the answer could not tell them apart). Never quotes them.
 */
function unfitOnceRedacted(frame: QuestionFrame): string | undefined {
  const { maxQuestionChars, maxChoiceChars } = QUESTION_LIMITS;
  if (frame.question.length > maxQuestionChars)
    return `the question is over ${maxQuestionChars} characters once its secrets are redacted`;
  const choices = frame.choices ?? [];
  const index = choices.findIndex((choice) => choice.length > maxChoiceChars);
  if (index !== -1)
    return `choice ${index + 1} is over ${maxChoiceChars} characters once its secrets are redacted`;
  if (new Set(choices).size !== choices.length)
    return 'two choices read the same once their secrets are redacted: the answer could not tell them apart';
  return undefined;
}

/** The answer as the tool reads it: a choice the service names as sent (redacted) is the tool's own choice. */
function asGiven(pending: Pending, answer: unknown): unknown {
  const sent = pending.frame.choices;
  if (pending.choices === undefined || sent === undefined || typeof answer !== 'string') return answer;
  const index = sent.indexOf(answer);
  return index === -1 ? answer : pending.choices[index];
}
