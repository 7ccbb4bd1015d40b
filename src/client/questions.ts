/**
 * Questions this client puts to the service for its running calls (PROTOCOL.md §18.5): `question` out,
 * `answer` in, `question_cancel` when the tool stops waiting, and every open question sent again after a
 * reconnect (the service answers a repeat with the answer it has). Only with the feature `questions`.
 *
 * @module
 */
import type { QuestionReply, QuestionRequest } from '../call/types';
import { QuestionError } from '../errors';
import type { Redactor } from '../logger';
import { encodeFrame } from '../wire/codec';
import { type ClientFrame, type FrameOf, type ServiceFrame, utf8Length } from '../wire/protocol';

type QuestionFrame = FrameOf<ClientFrame, 'question'>;

export type { Questioner } from './question-hooks';

interface Pending {
  frame: QuestionFrame;
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
}

const keyOf = (callId: string, questionId: string) => `${callId}\u0000${questionId}`;

/** The open questions of one client's calls. Owned by the call updates; not exported from the package. */
export class SocketQuestions {
  readonly #options: SocketQuestionsOptions;
  readonly #pending = new Map<string, Pending>();

  constructor(options: SocketQuestionsOptions) {
    this.#options = options;
  }

  /** Puts a question to the service; resolves with the person's reply, or rejects with a `QuestionError`. */
  readonly ask = (request: QuestionRequest): Promise<QuestionReply> => {
    if (!this.#options.enabled()) {
      return Promise.reject(
        new QuestionError(
          'unsupported',
          'nobody can answer: the client has no onQuestion and the service does not take questions',
        ),
      );
    }
    const { redactor } = this.#options;
    const frame: QuestionFrame = {
      type: 'question',
      callId: request.callId,
      questionId: request.questionId,
      question: redactor.text(request.question),
    };
    if (request.choices !== undefined) frame.choices = request.choices;
    if (request.schema !== undefined) frame.schema = request.schema;
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
      this.#pending.set(key, { frame, resolve, reject });
      // The tool stopped waiting (its call ended or was cancelled, or the question timed out): withdraw it.
      request.signal.addEventListener(
        'abort',
        () => {
          if (!this.#pending.delete(key)) return;
          this.#options.send({
            type: 'question_cancel',
            callId: request.callId,
            questionId: request.questionId,
          });
          reject(new QuestionError('cancelled', 'the question was withdrawn'));
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
    if (frame.status === 'answered') pending.resolve({ answer: frame.answer });
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
  }

  /**
   * A socket (re)opened: every open question goes again; a service that no longer takes them fails them. A new
   * session (`resumed: false`) fails them too, `cancelled`: they were put to the old session, and the service
   * ignores a question from a session its call is not assigned to (PROTOCOL.md §18.5), so none would be answered.
   */
  reconnected(resumed = true): void {
    for (const [key, pending] of [...this.#pending]) {
      if (!resumed) {
        this.#pending.delete(key);
        pending.reject(
          new QuestionError(
            'cancelled',
            'the session was lost: the client reconnected in a new session, which cannot answer a question put to the old one',
          ),
        );
      } else if (this.#options.enabled()) this.#options.send(pending.frame);
      else {
        this.#pending.delete(key);
        pending.reject(new QuestionError('unsupported', 'the service no longer takes questions'));
      }
    }
  }
}
