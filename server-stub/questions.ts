/**
 * Questions a running call asks the user (docs/protocol/questions.md): `question` from the client the call is assigned
 * to, answers over HTTP (checked against the choices or the schema), `answer` back to the client, and the
 * questions closed when the client withdraws them or the call ends.
 *
 * @module
 */
import { Validator } from '@cfworker/json-schema';
import { type ClientFrame, type FrameOf, QUESTION_LIMITS, type ServiceFrame } from '../src/wire/protocol';
import type { Call } from './call';
import type { CallQuestion } from './call-activity';
import type { Dispatcher } from './dispatcher';
import { fitsFrame, frameBytes } from './fit-frame';
import type { Run } from './run';
import type { Session } from './session';
import type { RunEventKind } from './transcript';

/** Why an answer was refused: HTTP 400, 404, 409, or 413 (its `answer` frame would be over the frame limit), with the code. */
export interface QuestionRefusal {
  status: 400 | 404 | 409 | 413;
  code: 'invalid_answer' | 'unknown_call' | 'unknown_question' | 'not_allowed' | 'too_large';
  message: string;
}

/** A person's reply to a question. */
export type QuestionReply = { answer: unknown } | { declined: true; reason?: string };

/** What questions need from the service. */
export interface QuestionsDeps {
  dispatcher: Dispatcher;
  sessions: ReadonlyMap<string, Session>;
  /** The frame limit announced to clients: an answer whose `answer` frame would be larger is refused. */
  maxPayloadBytes: number;
  /** The run with this id (to accept a nested run's call under an ancestor's id). */
  runOf(runId: string): Run | undefined;
  emit(run: Run, kind: RunEventKind, data: unknown): void;
}

/** Questions of one stub server. */
export class Questions {
  readonly #deps: QuestionsDeps;

  constructor(deps: QuestionsDeps) {
    this.#deps = deps;
  }

  /**
   * `question`: recorded and shown to people; a repeat (the same id in the same dispatch of the call) changes nothing,
   * or gets the answer again. The same id from a later dispatch is a new question. A question about a call not
   * dispatched to `session` is not recorded; a call that ended or is another session's gets
   * `cancel { reason: 'not_dispatched' }` there (server-stub/dispatcher.ts `notDispatched`).
   */
  ask(session: Session, frame: FrameOf<ClientFrame, 'question'>): void {
    const { dispatcher } = this.#deps;
    const call = dispatcher.get(frame.callId);
    if (call?.state !== 'dispatched' || call.sessionId !== session.id) {
      // Nobody would answer it: a call that ended, or is another session's, is stopped there.
      dispatcher.notDispatched(session, [frame.callId]);
      return;
    }
    const { questions } = call.activity;
    const known = questions.get(frame.questionId);
    if (known) {
      if (known.status !== 'open') this.#sendAnswer(call, known);
      return;
    }
    if (call.activity.questionCount >= QUESTION_LIMITS.maxPerCall) {
      // Not recorded: a client asking and withdrawing in turn must not grow the call without bound.
      const reason = `too many questions: a call may ask ${QUESTION_LIMITS.maxPerCall}`;
      const refused: CallQuestion = {
        questionId: frame.questionId,
        question: frame.question,
        askedAt: new Date().toISOString(),
        status: 'cancelled',
        reason,
      };
      this.#sendAnswer(call, refused);
      return;
    }
    const { dispatch } = call.activity;
    const entry: CallQuestion = {
      questionId: frame.questionId,
      ...(dispatch === 1 ? {} : { dispatch }),
      question: frame.question,
      ...(frame.choices === undefined ? {} : { choices: frame.choices }),
      ...(frame.schema === undefined ? {} : { schema: frame.schema }),
      askedAt: new Date().toISOString(),
      status: 'open',
    };
    questions.set(frame.questionId, entry);
    if (call.activity.openQuestions > QUESTION_LIMITS.maxOpenPerCall) {
      this.#close(call, entry, { status: 'cancelled', reason: 'too many open questions', by: 'service' });
      this.#sendAnswer(call, entry);
      return;
    }
    // Waiting for the answer, the call holds no slot in its client: calls waiting for room may go there.
    if (call.activity.openQuestions === 1) this.#deps.dispatcher.retryWaiting();
    this.#deps.emit(call.run, 'question_asked', {
      callId: call.callId,
      toolName: call.toolName,
      questionId: entry.questionId,
      ...(entry.dispatch === undefined ? {} : { dispatch: entry.dispatch }),
      question: entry.question,
      ...(entry.choices === undefined ? {} : { choices: entry.choices }),
      ...(entry.schema === undefined ? {} : { schema: entry.schema }),
    });
  }

  /** `question_cancel`: the client no longer waits; the question is closed. */
  withdraw(session: Session, frame: FrameOf<ClientFrame, 'question_cancel'>): void {
    const call = this.#deps.dispatcher.get(frame.callId);
    if (call?.sessionId !== session.id) return;
    const entry = call.activity.questions.get(frame.questionId);
    if (entry?.status !== 'open') return;
    this.#close(call, entry, { status: 'cancelled', by: 'client' });
    this.#settled(call);
  }

  /**
   * A person's answer (HTTP): checked, recorded, and sent to the client.
   * @param runId - the call's run or one it is nested in.
   * @param dispatch - the dispatch of the call that asked (from the question's event): an answer meant for an
   *   earlier dispatch's question never reaches the current dispatch's question with the same id.
   * @returns `undefined` when applied, else why not.
   */
  answer(
    runId: string,
    callId: string,
    questionId: string,
    reply: QuestionReply,
    dispatch?: number,
  ): QuestionRefusal | undefined {
    const call = this.#deps.dispatcher.get(callId);
    if (!call || !this.#within(call.run, runId)) {
      return {
        status: 404,
        code: 'unknown_call',
        message: `no tool call ${JSON.stringify(callId)} in run ${runId}`,
      };
    }
    const entry = call.activity.question(questionId, dispatch);
    if (!entry) {
      const inDispatch = dispatch === undefined ? '' : ` in dispatch ${dispatch}`;
      return {
        status: 404,
        code: 'unknown_question',
        message: `tool call ${callId} asked no question ${JSON.stringify(questionId)}${inDispatch}`,
      };
    }
    if (entry.status !== 'open') {
      const what =
        entry.status === 'cancelled' ? 'was withdrawn or its call ended' : `was already ${entry.status}`;
      return {
        status: 409,
        code: 'not_allowed',
        message: `question ${questionId} of tool call ${callId} ${what}`,
      };
    }
    if (!('declined' in reply)) {
      const problem = checkAnswer(entry, reply.answer);
      if (problem !== undefined) return { status: 400, code: 'invalid_answer', message: problem };
    }
    // Checked before anything is recorded: a frame over the limit would make the client close 1009, resume, ask
    // again and be sent it again, forever.
    const frame = answerFrame(call.callId, {
      ...entry,
      ...('declined' in reply
        ? { status: 'declined' as const, reason: reply.reason }
        : { status: 'answered' as const, answer: reply.answer }),
    });
    const limit = this.#deps.maxPayloadBytes;
    if (!fitsFrame(frame, limit)) {
      return {
        status: 413,
        code: 'too_large',
        message: `the reply makes an answer frame of ${frameBytes(frame)} bytes for question ${questionId} of tool call ${callId}, over the frame limit of ${limit} bytes`,
      };
    }
    if ('declined' in reply) {
      this.#close(call, entry, { status: 'declined', reason: reply.reason, by: 'http' });
    } else {
      this.#close(call, entry, { status: 'answered', answer: reply.answer, by: 'http' });
    }
    this.#sendAnswer(call, entry);
    this.#settled(call);
    return undefined;
  }

  /**
   * The call ended or left its session: the questions of that dispatch end, the open ones unanswered, and a question
   * the call asks after a re-dispatch is new even when its id is one the old dispatch used.
   */
  closeAll(call: Call): void {
    for (const entry of call.activity.questions.values()) {
      if (entry.status === 'open') this.#close(call, entry, { status: 'cancelled', by: 'service' });
    }
    call.activity.endDispatch();
  }

  /** A question was closed: with none open any more, the call's deadline starts again in full. */
  #settled(call: Call): void {
    if (call.state === 'dispatched' && call.activity.openQuestions === 0)
      this.#deps.dispatcher.restartDeadline(call);
  }

  #close(
    call: Call,
    entry: CallQuestion,
    end: {
      status: CallQuestion['status'];
      answer?: unknown;
      reason?: string | undefined;
      by: 'http' | 'client' | 'service';
    },
  ): void {
    entry.status = end.status;
    if ('answer' in end) entry.answer = end.answer;
    if (end.reason !== undefined) entry.reason = end.reason;
    entry.by = end.by;
    entry.answeredAt = new Date().toISOString();
    this.#deps.emit(call.run, 'question_answered', {
      callId: call.callId,
      toolName: call.toolName,
      questionId: entry.questionId,
      ...(entry.dispatch === undefined ? {} : { dispatch: entry.dispatch }),
      status: end.status,
      ...('answer' in end ? { answer: end.answer } : {}),
      ...(end.reason === undefined ? {} : { reason: end.reason }),
      by: end.by,
    });
  }

  /** Sends a closed question's outcome to the session the call is assigned to (dropped while it is detached). */
  #sendAnswer(call: Call, entry: CallQuestion): void {
    if (entry.status === 'open' || call.sessionId === undefined) return;
    this.#deps.sessions.get(call.sessionId)?.send(answerFrame(call.callId, entry));
  }

  /** `true` when `run` is the run `runId` or nested (at any depth) in it. */
  #within(run: Run, runId: string): boolean {
    for (let current: Run | undefined = run; current; ) {
      if (current.id === runId) return true;
      current = current.parentRunId === undefined ? undefined : this.#deps.runOf(current.parentRunId);
    }
    return false;
  }
}

/** The `answer` frame telling the client how a closed question ended. */
function answerFrame(
  callId: string,
  entry: Pick<CallQuestion, 'questionId' | 'status' | 'answer' | 'reason'>,
): FrameOf<ServiceFrame, 'answer'> {
  return {
    type: 'answer',
    callId,
    questionId: entry.questionId,
    status: entry.status as FrameOf<ServiceFrame, 'answer'>['status'],
    ...(entry.status === 'answered' ? { answer: entry.answer } : {}),
    ...(entry.reason === undefined ? {} : { reason: entry.reason }),
  };
}

/** Why `answer` does not fit the question (its choices, its schema, or a string), or `undefined`. */
function checkAnswer(entry: CallQuestion, answer: unknown): string | undefined {
  if (entry.choices !== undefined) {
    return typeof answer === 'string' && entry.choices.includes(answer)
      ? undefined
      : `answer must be one of: ${entry.choices.join(', ')}`;
  }
  if (entry.schema === undefined) return typeof answer === 'string' ? undefined : 'answer must be a string';
  let result: ReturnType<Validator['validate']>;
  try {
    result = new Validator(
      entry.schema as ConstructorParameters<typeof Validator>[0],
      '2020-12',
      false,
    ).validate(answer);
  } catch (error) {
    return `the question's schema cannot check answers: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (result.valid) return undefined;
  const detail = result.errors
    .slice(0, 3)
    .map((error) => `${error.instanceLocation}: ${error.error}`)
    .join('; ');
  return `answer does not match the question's schema: ${detail}`;
}
