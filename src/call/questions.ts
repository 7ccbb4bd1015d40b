/**
 * `ctx.askQuestion()`: the question checked, put to whoever answers (`onQuestion`: the client's own handler,
 * the service through the client, or a test's), and the answer checked against the choices or the schema.
 * Cancelling the call, or the question's own `timeoutMs`, stops the wait; the tool gets a `QuestionError` and
 * decides what to do.
 *
 * @module
 */
import { nobodyAnswers, QuestionError, ToolDefinitionError } from '../errors';
import { nestsDeeperThan } from '../json';
import { MAX_TIMEOUT_MS, MAX_VALUE_DEPTH } from '../limits';
import { isThenable } from '../maybe';
import {
  anything,
  checkOptions,
  describeValue,
  isOptionsObject,
  type OptionsOwner,
  type OptionsSpec,
  show,
} from '../tool/check-options';
import { listIssues } from '../tool/model-text';
import { resolveSchema, type SchemaAdapter } from '../tool/schema';
import { ROOT_PATH } from '../tool/schema/adapter';
import type { AskOptions, ToolContext } from '../tool/tool';
import { QUESTION_LIMITS } from '../wire/protocol';
import { settleThen } from './signal';
import type { CallOptions, QuestionReply, QuestionRequest } from './types';

/**
 * The mark of a reply whose answer was asked as one field of a form (an MCP form elicitation asks a question
 * whose schema is not an object as `{ answer }`): the answer's issues are reported at that field (`answer`,
 * `answer.zip`, `answer[0]`), where the person who filled the form saw it, not at `(root)`.
 */
export const ANSWER_FIELD: unique symbol = Symbol('toolwire.answerField');

/** `path` (rendered, `(root)` for the value itself) under the form field `field`. */
function underField(field: string, path: string): string {
  if (path === ROOT_PATH) return field;
  return path.startsWith('[') ? `${field}${path}` : `${field}.${path}`;
}

/** What a question needs of its call. */
export interface QuestionHost {
  readonly ctx: ToolContext;
  readonly options: CallOptions;
  /** `true` once the call has its result. */
  readonly finished: boolean;
  /** `q1`, `q2`, … for this call. */
  nextQuestionId(): string;
}

interface Checked {
  question: string;
  choices: string[] | undefined;
  schema: SchemaAdapter | undefined;
  timeoutMs: number | undefined;
}

/**
 * The keys of `ctx.askQuestion()`'s options: a misspelt one (`timeout`, `options`) is refused with "did you mean"
 * rather than ignored (a question without its time limit or its choices). The values are checked below.
 */
const ASK_OPTIONS: OptionsSpec<AskOptions<unknown>> = {
  rules: { choices: anything, schema: anything, timeoutMs: anything },
  aliases: {
    options: 'choices',
    enum: 'choices',
    answers: 'choices',
    answerSchema: 'schema',
    responseSchema: 'schema',
    requestedSchema: 'schema',
  },
};
const ASK_OWNER: OptionsOwner = {
  name: 'ctx.askQuestion()',
  error: ToolDefinitionError,
  invalidCode: 'invalid_question',
  unknownCode: 'invalid_question',
};

function invalid(message: string): never {
  throw new ToolDefinitionError('invalid_question', `ctx.askQuestion(): ${message}`);
}

/** @throws ToolDefinitionError `invalid_question` naming what is wrong. */
function checkQuestion(question: unknown, options: AskOptions<unknown>): Checked {
  const { maxQuestionChars, maxChoices, maxChoiceChars } = QUESTION_LIMITS;
  if (typeof question !== 'string' || question.trim() === '' || question.length > maxQuestionChars) {
    invalid(
      `question must be a non-empty string of at most ${maxQuestionChars} characters, got ${show(question)}`,
    );
  }
  if (!isOptionsObject(options as unknown))
    invalid(`options must be an object, got ${describeValue(options)}`);
  checkOptions(options, ASK_OPTIONS, ASK_OWNER);
  const { choices, schema, timeoutMs } = options;
  if (choices !== undefined) {
    if (!Array.isArray(choices) || choices.length === 0 || choices.length > maxChoices) {
      invalid(`choices must be an array of 1 to ${maxChoices} strings, got ${show(choices)}`);
    }
    for (const [index, choice] of choices.entries()) {
      if (typeof choice !== 'string' || choice === '' || choice.length > maxChoiceChars) {
        invalid(`each choice must be a string of 1 to ${maxChoiceChars} characters, got ${show(choice)}`);
      }
      // Two buttons with one text: the user cannot tell them apart, nor the tool which was meant.
      if (choices.indexOf(choice) !== index) invalid(`choices must differ, got ${show(choice)} twice`);
    }
  }
  if (
    timeoutMs !== undefined &&
    !(Number.isInteger(timeoutMs) && timeoutMs > 0 && timeoutMs <= MAX_TIMEOUT_MS)
  ) {
    invalid(`timeoutMs must be a positive integer of milliseconds, got ${show(timeoutMs)}`);
  }
  let adapter: SchemaAdapter | undefined;
  if (schema !== undefined) {
    try {
      adapter = resolveSchema(schema, { owner: 'ctx.askQuestion()', field: 'schema', requireObject: false });
    } catch (error) {
      invalid(error instanceof Error ? error.message.replace(/^ctx\.askQuestion\(\): /, '') : String(error));
    }
  }
  // The schema travels in the `question` frame, which the service refuses past its nesting limit.
  if (adapter !== undefined && nestsDeeperThan(adapter.jsonSchema, MAX_VALUE_DEPTH)) {
    invalid(`the schema nests deeper than ${MAX_VALUE_DEPTH} levels`);
  }
  return { question, choices: choices === undefined ? undefined : [...choices], schema: adapter, timeoutMs };
}

/** The reply, checked: the answer (parsed by the schema), or the `QuestionError` the question rejects with. */
function accept(
  checked: Checked,
  reply: unknown,
  done: (outcome: { ok: true; value: unknown } | { ok: false; error: QuestionError }) => void,
): void {
  const fail = (code: string, message: string, reason?: string) =>
    done({ ok: false, error: new QuestionError(code, message, { reason }) });
  const field =
    typeof reply === 'object' && reply !== null
      ? (reply as { [ANSWER_FIELD]?: unknown })[ANSWER_FIELD]
      : undefined;
  // A bare string is the answer itself, as a bare `true` is a decision for `onApproval`.
  if (typeof reply === 'string') reply = { answer: reply };
  if (typeof reply !== 'object' || reply === null || !('answer' in reply || 'declined' in reply)) {
    fail(
      'failed',
      `the question got ${show(reply)}, not a string, { answer } or { declined: true, reason? }`,
    );
    return;
  }
  if ((reply as { declined?: unknown }).declined === true) {
    const reason = (reply as { reason?: unknown }).reason;
    const text = typeof reason === 'string' && reason !== '' ? reason : undefined;
    fail('declined', `the user declined to answer${text === undefined ? '' : `: ${text}`}`, text);
    return;
  }
  const answer = (reply as { answer?: unknown }).answer;
  const { choices, schema } = checked;
  if (choices !== undefined && !(typeof answer === 'string' && choices.includes(answer))) {
    fail('invalid_answer', `the answer ${show(answer)} is not one of the choices: ${choices.join(', ')}`);
    return;
  }
  if (schema === undefined) {
    if (typeof answer === 'string') done({ ok: true, value: answer });
    else fail('invalid_answer', `the answer must be a string, got ${show(answer)}`);
    return;
  }
  const judge = (result: Awaited<ReturnType<SchemaAdapter['validate']>>) => {
    if (result.ok) done({ ok: true, value: result.value });
    else {
      const issues =
        typeof field === 'string'
          ? result.issues.map((issue) => ({ ...issue, path: underField(field, issue.path) }))
          : result.issues;
      fail('invalid_answer', `the answer does not match the schema: ${listIssues(issues)}`);
    }
  };
  const validated = schema.validate(answer);
  if (isThenable(validated)) {
    Promise.resolve(validated).then(judge, (error: unknown) =>
      fail('invalid_answer', `the schema could not check the answer: ${String(error)}`),
    );
  } else judge(validated);
}

/** `ctx.askQuestion()` of one call. Rejects as {@link ContextMethods.askQuestion} says; never throws. */
export function askQuestion(
  host: QuestionHost,
  question: string,
  options: AskOptions<unknown> = {},
): Promise<unknown> {
  let checked: Checked;
  try {
    checked = checkQuestion(question, options);
  } catch (error) {
    // The refusal may quote the question or a choice, secrets and all: redacted as every error the tool catches.
    return Promise.reject(host.options.redactor?.error(error) ?? error);
  }
  const handler = host.options.onQuestion;
  if (host.finished) return Promise.reject(new QuestionError('cancelled', 'the call has already ended'));
  if (handler === undefined) return Promise.reject(nobodyAnswers());
  const { ctx } = host;
  const stop = new AbortController();
  const request: QuestionRequest = {
    callId: ctx.callId,
    runId: ctx.runId,
    toolName: ctx.toolName,
    questionId: host.nextQuestionId(),
    question: checked.question,
    signal: stop.signal,
  };
  if (checked.choices !== undefined) request.choices = checked.choices;
  if (checked.schema !== undefined) request.schema = checked.schema.jsonSchema;
  const { waits } = host.options;
  let parked = false;
  const ask = (): QuestionReply | Promise<QuestionReply> => {
    const reply = handler(request);
    // An answer that takes time: the call waits without its host's resources (the client's slot) meanwhile.
    if (waits !== undefined && isThenable(reply)) {
      waits.park(ctx.callId);
      parked = true;
    }
    return reply;
  };
  // What the tool catches is redacted as every error the client rejects with: an approver's or a person's words
  // (`onQuestion` threw, a decline's reason) may quote a secret.
  const { redactor } = host.options;
  return new Promise((resolve, settleReject) => {
    const reject =
      redactor === undefined ? settleReject : (error: unknown) => settleReject(redactor.error(error));
    const settleOptions = { signal: ctx.signal, timeoutMs: checked.timeoutMs };
    settleThen<QuestionReply>(ask, settleOptions, (settled) => {
      if (settled.kind !== 'value') stop.abort();
      const goOn = () => {
        if (settled.kind === 'value') {
          accept(checked, settled.value, (outcome) =>
            outcome.ok ? resolve(outcome.value) : reject(outcome.error),
          );
        } else if (settled.kind === 'aborted')
          reject(new QuestionError('cancelled', 'the call was cancelled'));
        else if (settled.kind === 'timeout') {
          reject(new QuestionError('timeout', `no answer within ${checked.timeoutMs}ms`));
        } else if (settled.error instanceof QuestionError) reject(settled.error);
        else {
          const message = settled.error instanceof Error ? settled.error.message : String(settled.error);
          reject(
            new QuestionError('failed', `the question could not be answered: ${message}`, {
              cause: settled.error,
            }),
          );
        }
      };
      // However the wait ended, even by the question's own time limit while `onQuestion` still runs, the tool
      // goes on only once its host lets it (back in a slot). A cancelled call has ended: nothing to take back; nor
      // for one cancelled or timed out while in line for its slot: the question ends `cancelled` there.
      if (parked && settled.kind !== 'aborted')
        void waits?.unpark(ctx.callId).then((inSlot) => {
          if (inSlot) goOn();
          else reject(new QuestionError('cancelled', 'the call was cancelled'));
        });
      else goOn();
    });
  });
}
