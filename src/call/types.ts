/**
 * The shapes of one call: what it puts to the caller's hooks (an approval request and its decision, a policy's
 * call and decision, a dropped widget, progress, preliminary results, events, questions and their replies), its
 * options (`InvokeOptions`, a test's; `CallOptions`, a host's), its result (`ToolCallResult`), and the state the
 * phases of a call share (`CallState`), with the part of `AbortSignal` they listen to.
 *
 * @module
 */

import type { Logger } from '../logger';
import type { Redactor } from '../redact';
import type { ProgressInput, SideEffect, Tool, ToolContext, ToolInternals } from '../tool/tool';
import type { Widget } from '../tool/widget';
import type { ContentPart, ToolCallStatus } from '../wire/protocol';
import type { CallRedaction } from './redaction';
import type { StepRecord } from './steps';

/** What {@link InvokeOptions.approve} is asked: the call and its validated input. */
export interface ApprovalRequest {
  /** Id of the call awaiting approval. */
  callId: string;
  /** Id of its run. */
  runId: string;
  /** Name of the tool. */
  toolName: string;
  /**
   * The validated input `execute` would receive, as a deep-frozen copy (src/call/approval.ts: writing to it
   * throws; an edit goes through the decision's `arguments`), with the value of every field named by the tool's
   * `sensitiveFieldNames` or a policy's `redact` replaced by `"[redacted]"` (at any depth), and the client's
   * `redact` rules applied. An approver who answers with edited `arguments` may send such a field back as
   * `"[redacted]"`: the call then keeps the field's original value (at the same path); any other value is taken
   * as the approver's edit, and redacted from then on like the original.
   */
  input: unknown;
  /** Why approval is needed, when the tool's policy or a client policy said (docs/protocol/approvals.md); redacted as the input. */
  reason?: string;
  /** Name of the agent whose run made the call, when the service said. */
  agentName?: string;
  /**
   * The side-effect class the approval is for: the one the tool's `approvalRequired(reason, sideEffect)` policy
   * was declared with, else the tool's `sideEffect` (`'external'` when it says none).
   */
  sideEffect?: SideEffect;
  /**
   * Aborts when the decision is no longer wanted, with the reason `ctx.signal` would get (a `DOMException` named
   * `AbortError`, or `TimeoutError` for the service's deadline, what caused it in `cause`): the service cancelled
   * the call (its run ended, say), the call passed its deadline, the client closed or handed the call back, the
   * service gave the call to another worker (`session_expired`, `not_dispatched`), or `invokeTool`'s `signal`
   * aborted. Never aborted once the decision has arrived, whatever happens to the call after. For a call the
   * service holds for its own human (the `approval_requested` event of a run this client started), it aborts when
   * the run ends undecided or the client closes. Made when first read: an approver that never reads it pays
   * nothing for it. Not enumerable: `JSON.stringify`, a spread and `structuredClone` leave it out (and do not
   * read it). An approver that read it (and so was told the prompt was moot) is asked again when the
   * service sends the call back to this client; one that never read it is not: its answer decides the call, and
   * its `signal`, read after the call came back, follows that call (not aborted for the call taken back).
   * @see docs/protocol/approvals.md ("When a decision is no longer wanted")
   */
  readonly signal: AbortSignal;
}

/**
 * An approver's answer: `true`/`false`, or an object: `reason` (the model reads it on rejection), `arguments`
 * (with `approved: true`: the call runs with these instead, validated again against the tool's schema and passed
 * through the allowlist and the policies again, whose `requireApproval` the approval itself meets; the model is
 * told they were edited), `always` (the same decision, without asking, for the tool's later calls in
 * the run; OpenAI Agents' `alwaysApprove` / `alwaysReject` are read as `always`).
 */
export type ApprovalDecision =
  | boolean
  | {
      approved: boolean;
      reason?: string;
      arguments?: Record<string, unknown>;
      always?: boolean;
      /** OpenAI Agents' name for `always` with `approved: true`. */
      alwaysApprove?: boolean;
      /** OpenAI Agents' name for `always` with `approved: false`. */
      alwaysReject?: boolean;
    };

/**
 * Why a call ended `rejected`: `declined` (a human said no), `not_allowed` (the tool's `allowedAgentNames`),
 * `blocked` (a policy), `approval_failed` (the approver threw or gave no decision, or none was available).
 */
export type RejectionReason = 'declined' | 'not_allowed' | 'blocked' | 'approval_failed';

/** What a policy is given: the validated call. */
export interface PolicyCall<C = unknown> {
  /** Name of the tool called. */
  toolName: string;
  /** The validated input `execute` would receive, as a deep-frozen copy (writing to it throws). */
  arguments: unknown;
  /** Id of the call. */
  callId: string;
  /** Id of its run. */
  runId: string;
  /** Name of the agent whose run made the call, when the service said (docs/protocol/call-context.md). */
  agentName: string | undefined;
  /** The run context (`ctx.context`). */
  context: C;
}

/**
 * A policy's decision: `undefined` lets the call through (to the next policy); `{ block: text }` refuses it (the
 * model reads `text`, status `rejected`, no later policy runs); `{ requireApproval: reason }` sends it to
 * approval with `reason` even when the tool does not need approval. A blank `block` text is read as
 * `<name> was not run: a policy blocked it.`, a blank `requireApproval` reason as `a policy requires approval`.
 * `{ redact: [fieldNames] }` adds those input fields (at any depth) to the tool's `sensitiveFieldNames` for this
 * call: their values are scrubbed from everything that leaves it, by the same rule (see
 * `ToolOptions.sensitiveFieldNames`; `execute` still gets them).
 */
export type PolicyDecision =
  | undefined
  | { block: string }
  | { requireApproval: string }
  | { redact: readonly string[] };

/**
 * A policy: runs on each validated call, in the order given, before approval and `execute`, under the call's
 * `timeoutMs`. A policy that throws, rejects or answers something that is no {@link PolicyDecision} blocks the
 * call with `<name> was not run: a policy failed while checking the call.` (what it threw is the result's
 * `error`, which a `Client` logs at `warn`).
 */
export type CallPolicy<C = unknown> = (
  call: PolicyCall<C>,
  // biome-ignore lint/suspicious/noConfusingVoidType: a policy with no `return` lets the call through.
) => PolicyDecision | void | Promise<PolicyDecision | void>;

/** Details of a widget dropped because it failed validation. */
export interface WidgetInvalidInfo {
  /** Name of the tool that returned the widget. */
  toolName: string;
  /** Id of the call. */
  callId: string;
  /** Path inside the widget, e.g. `children[0].color` or `(root)`. */
  path: string;
  /** What is wrong there, e.g. `expected string`. */
  message: string;
}

/** One `ctx.progress()` of a call, as given to {@link InvokeOptions.onProgress}. */
export interface ProgressUpdate extends ProgressInput {
  /** Id of the call. */
  callId: string;
  /** Id of its run. */
  runId: string;
  /** Name of the tool. */
  toolName: string;
}

/** A result before the result (a value an `execute` generator yielded), as given to {@link InvokeOptions.onPreliminary}. */
export interface PreliminaryResult {
  /** Id of the call. */
  callId: string;
  /** Id of its run. */
  runId: string;
  /** Name of the tool. */
  toolName: string;
  /** The yielded value written as a result would be (its widget split off). The model never reads it. */
  output: string;
  /** Its validated widget, when it had a valid one. */
  widget?: Widget;
  /** The value as yielded. */
  value: unknown;
}

/** An event a call records (`ctx.emit()`), as given to {@link InvokeOptions.onEmit}. */
export interface ToolEvent {
  /** Id of the call. */
  callId: string;
  /** Id of its run. */
  runId: string;
  /** Name of the tool. */
  toolName: string;
  /** What happened: 1 to 128 letters, digits or `_ . : / -`. */
  event: string;
  /** A JSON value (at most 16,384 bytes of JSON, else `{ truncated: true, bytes }`), when given. */
  data?: unknown;
}

/** A question a call asks (`ctx.askQuestion()`), as given to {@link InvokeOptions.onQuestion}. */
export interface QuestionRequest {
  /** Id of the call. */
  callId: string;
  /** Id of its run. */
  runId: string;
  /** Name of the tool. */
  toolName: string;
  /** Unique within the call: `q1`, `q2`, … */
  questionId: string;
  /** What the tool asks. */
  question: string;
  /** The answer must be one of these, when given. */
  choices?: string[];
  /** A JSON Schema the answer must match, when given. */
  schema?: Record<string, unknown>;
  /** Aborts when the tool stops waiting (the call ended or was cancelled, or the question timed out). */
  signal: AbortSignal;
}

/**
 * The reply to a {@link QuestionRequest}: `{ answer }` (a string, or for a question with a `schema` any JSON value
 * it accepts), a bare string (taken as `{ answer: string }`, as `onApproval` takes a bare `true`), or a refusal
 * `{ declined: true, reason? }`. Anything else rejects the question with `QuestionError` `failed`.
 */
export type QuestionReply = string | { answer: unknown } | { declined: true; reason?: string };

/** Where a call started by the client delivers its result (once). */
export interface ResultSink {
  result(result: ToolCallResult): void;
  /**
   * When the call started (`performance.now()`, ms): the result's `durationMs` counts from it. Kept here, not in
   * the call (a client's call has it already); `startCall` sets it to now when absent.
   */
  started?: number | undefined;
}

/**
 * Options of one {@link invokeTool} call: what a test of a tool passes (its ids and context, a cancellation, an
 * approval, limits, and listeners for what the call reports). Every field is optional.
 */
export interface InvokeOptions<C = unknown> {
  /** Id of the call, given to `ctx.callId` and `ctx.idempotencyKey()`. @default a random UUID */
  callId?: string | undefined;
  /** Id of the run. @default a random UUID */
  runId?: string | undefined;
  /** Nesting depth of the run (`ctx.depth`). @default 0 */
  depth?: number | undefined;
  /** `ctx.context`. */
  context?: C | undefined;
  /**
   * Cancels the call: status `cancelled`, `ctx.signal` aborts, and nothing more runs (no `execute` after an
   * approval that arrives late, no `errorFunction`).
   */
  signal?: AbortSignal | undefined;
  /**
   * `true`: a human already approved this call (`approve` is not asked); `false`: a human already rejected it
   * (status `rejected`, nothing runs).
   */
  approved?: boolean | undefined;
  /** Name of the agent whose run made the call: `ctx.agentName`, for `allowedAgentNames` and policies. @default unknown */
  agentName?: string | undefined;
  /**
   * Run on the validated call, in order, before approval and `execute` (see {@link CallPolicy}).
   * @default no policies
   */
  policies?: readonly CallPolicy<C>[] | undefined;
  /**
   * Asked when the tool needs approval and `approved` is undefined. May take minutes; an abort of `signal`
   * while waiting ends the call as `cancelled` (`execute` never runs) and aborts the request's `signal` with its
   * reason. A throw gives a `rejected` result.
   */
  approve?: ((request: ApprovalRequest) => ApprovalDecision | Promise<ApprovalDecision>) | undefined;
  /**
   * Overrides the tool's `timeoutMs` (milliseconds, a positive integer): one budget for argument validation, the
   * `needsApproval` predicate, `execute`, `outputSchema` and `toModelOutput`, not counting the wait for
   * `approve`. See {@link ToolOptions.timeoutMs}.
   */
  timeoutMs?: number | undefined;
  /**
   * Cap on `output` in UTF-8 bytes (an integer of at least 64): longer text is cut at a character boundary and
   * ends with `\n[truncated: the full output was <n> bytes]`, the whole within the cap. @default no cap
   */
  maxOutputBytes?: number | undefined;
  /** Told about a widget that failed validation and was dropped. @default a `console.warn` naming the path */
  onWidgetInvalid?: ((info: WidgetInvalidInfo) => void) | undefined;
  /**
   * Told about each `ctx.progress()` of the call while it runs, checked, in order (none after the result). A
   * listener that throws is ignored. @default progress is dropped
   */
  onProgress?: ((update: ProgressUpdate) => void) | undefined;
  /**
   * Told about each preliminary result of the call, in order, while it runs: each value an `execute` that is a
   * generator (or returns an async iterable) yields. Not after the result; a listener that throws is ignored.
   * @default preliminary results are dropped
   */
  onPreliminary?: ((result: PreliminaryResult) => void) | undefined;
  /**
   * Told about each `ctx.emit()` of the call while it runs, in order, checked and written as JSON. A listener
   * that throws is ignored. @default events are dropped
   */
  onEmit?: ((event: ToolEvent) => void) | undefined;
  /**
   * Answers `ctx.askQuestion()`: returns a {@link QuestionReply} (the answer as a string, `{ answer }` or
   * `{ declined: true, reason? }`), or a promise of it. The
   * answer is then checked against the question's choices or schema. A throw or a rejection rejects the
   * question with `QuestionError` `failed`. @default questions reject with `QuestionError` `unsupported`
   */
  onQuestion?: ((request: QuestionRequest) => QuestionReply | Promise<QuestionReply>) | undefined;
  /** `ctx.sessionId`: the session that started the run, when there is one. */
  sessionId?: string | undefined;
  /** `ctx.tenantId`: the tenant the run belongs to. @default unknown */
  tenantId?: string | undefined;
  /** `ctx.userId`: the end user the run acts for. @default unknown */
  userId?: string | undefined;
  /** `ctx.agentRevision`: the identity of the agent's definition the run started with. @default unknown */
  agentRevision?: string | undefined;
  /**
   * Results of `ctx.step()`s this call already completed (elsewhere), by key: a step with one of these keys
   * returns it instead of running. @default none
   */
  steps?: Readonly<Record<string, unknown>> | undefined;
  /**
   * Told about each step the call completes, with its result as redacted JSON (to be kept, e.g. by the service,
   * and given back as `steps` when the call runs again). A listener that throws is ignored.
   * @default steps are kept for the call's retries only
   */
  onStep?: ((step: StepRecord) => void) | undefined;
  /** What `ctx.logger` writes to (each line with the call's id, tool and attempt). @default nothing is logged */
  logger?: Logger | undefined;
}

/** The outcome of one call. */
export interface ToolCallResult {
  /** One of `ok`, `error`, `invalid_arguments`, `unknown_tool`, `rejected`, `timeout`, `cancelled`. */
  status: ToolCallStatus;
  /** Exactly what the model reads; always a string. */
  output: string;
  /** With `status: 'rejected'`: why (see {@link RejectionReason}). */
  reason?: RejectionReason;
  /** The validated widget for the UI, when the result had a valid `widget`. The model never sees it. */
  widget?: Widget;
  /**
   * The content parts, when the result (or `toModelOutput`'s) was made with `content()`; `output` is then their
   * text (docs/protocol/call-context.md).
   */
  content?: ContentPart[];
  /**
   * `execute`'s full return value (parsed by `outputSchema` when given), before `toModelOutput` and with its
   * widget; only when `status` is `ok`, or `rejected` by `toModelOutput` after `execute` returned (an AI SDK tool's
   * `execution-denied` answer).
   */
  value?: unknown;
  /**
   * What was thrown, for the developer (its stack, its `cause`), when the call failed because something threw:
   * `execute`, `needsApproval`, `outputSchema`, `toModelOutput` or the approver (`status` `error` or `rejected`),
   * or the `TimeoutError` of a `timeout`. Never sent and never read by the model, which reads only `output`. A
   * `Client` logs it (redacted) with the result at `warn`.
   */
  error?: unknown;
  /** Time from the start of the call to its result, in whole milliseconds (approval waits included). */
  durationMs: number;
}

/** A result without its duration. */
export type CallOutcome = Omit<ToolCallResult, 'durationMs'>;

/**
 * The options a call runs with (`startCall`, for a host such as the client; never checked): those of
 * {@link InvokeOptions}, and what only a host that runs calls for a service gives.
 */
export interface CallOptions extends Omit<InvokeOptions, 'signal'> {
  /** Cancels the call: a caller's `AbortSignal`, or the client's cancellation of the call (src/client/execution.ts). */
  signal?: AbortLike | undefined;
  /**
   * The host's deadline for the call, in milliseconds (the service's `deadlineMs`: the time left when it was sent): a
   * call its signal aborts with a `TimeoutError` before its tool began ends `timeout`, "timed out after <n>ms", `n`
   * being {@link CallOptions.callDeadlineMs} when known, else this.
   */
  deadlineMs?: number | undefined;
  /**
   * The whole deadline the call had, in milliseconds (the service's `welcome.callDeadlineMs`): the figure the model
   * reads when the deadline stopped the call before its tool began, as the service writes it for a call it cut.
   */
  callDeadlineMs?: number | undefined;
  /** Reason of the rejection a decided `tool_call` carries (`approved: false`), appended to the model's text. */
  rejectionReason?: string | undefined;
  /** The arguments are the ones an approver edited (a decided `tool_call` said so, docs/protocol/decisions.md). */
  argumentsEdited?: boolean | undefined;
  /** Scrubs the client's secrets (its API key, its `redact` rules) from what the call writes as the model's text. */
  redactor?: Redactor | undefined;
  /** The host's part in a call's waits for a person that the call goes on after (questions). */
  waits?: CallWaits | undefined;
  /**
   * Told when an attempt of a tool with `retry` failed and another follows after `delayMs` (`attempt`: the one
   * that failed, from 1; `error`: what it threw, or its `TimeoutError`). The client's tracing uses it.
   */
  onRetry?:
    | ((info: { callId: string; attempt: number; delayMs: number; error: unknown }) => void)
    | undefined;
  /**
   * Extra properties for `ctx` (string or symbol keys): the host's own hooks for its tools (the client's nested
   * runs); they never replace a standard `ctx` field and are not enumerable.
   */
  extend?: Readonly<Record<PropertyKey, unknown>> | undefined;
}

/**
 * What a host does while one of its calls waits for a person and then goes on (`ctx.askQuestion()` answered
 * later): the client gives the call's concurrency slot up meanwhile, and takes one back before the tool goes on.
 */
export interface CallWaits {
  /** The wait began (the answer is a promise). */
  park(callId: string): void;
  /**
   * The wait ended, however it ended (an answer, a refusal, a throw, the question's own time limit): resolves
   * `true` once the call may go on (the client: once it holds a slot again; at once for a call that has ended), or
   * `false` when the call was cancelled or timed out while it waited to go on (it ended there, without a slot).
   * With `lane` (a call of a tool with `concurrency` holding its key's permit: the tool's name and the key), it
   * takes its slot in that lane's turn rather than first in line.
   */
  unpark(callId: string, lane?: string): Promise<boolean>;
  /**
   * Whether the call holds its host's slot now: `false` for a call of a tool with `concurrency` that started
   * before a slot was free (its key is known only once its input is validated). Absent: it always does.
   */
  holdsSlot?(callId: string): boolean;
  /**
   * A call of a tool with `concurrency` begins to wait at its gate, its `execute` not begun: for its key's turn
   * (`'key'`: its key is at its limit; it holds no slot), or, holding its key's permit, for a slot in its key's
   * turn (`'slot'`); `undefined`: the wait is over and it goes on to `execute`, holding both. Told only of calls
   * that wait (a call that ends while it waits is not told again). Absent: nothing is told.
   */
  gateWait?(callId: string, waits: 'key' | 'slot' | undefined): void;
  /**
   * The call waits for something it needs before its `execute` begins (`true`): optional code to load
   * (src/call/parts.ts: a browser page that did not have it yet), or its arguments' validation that answers later
   * (an async `refine`, a JSON Schema validator still loading); or that wait is over, however it ended (`false`).
   * Its waits at its concurrency key's gate are told apart ({@link CallWaits.gateWait}). The host may end the call
   * meanwhile (the client hands it back when it stops taking calls). Absent: nothing is told.
   */
  preExecuteWait?(callId: string, waits: boolean): void;
}

/** How a wait on a callback ended (`settleThen`, src/call/signal.ts). */
export type Settled<T> =
  | { kind: 'value'; value: T }
  | { kind: 'error'; error: unknown }
  | { kind: 'aborted' }
  | { kind: 'timeout' };

/** One call in progress: what {@link runCall} needs, and the time left of its budget. */
export interface CallState {
  tool: Tool;
  internals: ToolInternals;
  ctx: ToolContext;
  options: CallOptions;
  /**
   * The call's time limit in milliseconds (`options.timeoutMs`, else the tool's), or none. Not `timeoutMs`: a
   * host's call may be its own options (the client's).
   */
  timeLimitMs: number | undefined;
  /** Milliseconds left of `timeLimitMs`; each timed phase spends what it takes. */
  remainingMs: number | undefined;
  /** Aborts `ctx.signal` with the `TimeoutError` of `timeoutMs` (its time limit ran out). */
  abortWithTimeout(): void;
  /**
   * The stage before `execute` that is running, when it is one the timeout text names (`policy 2`, `the
   * needsApproval check`); `undefined` otherwise.
   */
  stage?: string | undefined;
  /**
   * The arguments an approver edited, when they did: the model reads them (redacted) in a line before the
   * text of the result.
   */
  editedArguments?: object | undefined;
  /**
   * The call's redaction by field name (`sensitiveFieldNames`, a policy's `redact`) over every version of its
   * arguments: src/call/redaction.ts.
   */
  redaction?: CallRedaction | undefined;
  /**
   * Runs `fn` under the call's signal and goes on with `next` when it is over, at once when it answers
   * synchronously (as `settleThen` does, src/call/signal.ts), the call itself being the wait: a call held on its
   * tool's promise keeps no object of its own for the wait. A throw of `next` after an asynchronous answer goes
   * to {@link CallState.fail}. `fn` is called with the call and `arg`, so that a phase needs no closure of its own.
   */
  settle<T, A = undefined>(
    fn: (call: CallState, arg: A) => T | PromiseLike<T>,
    next: (outcome: Settled<Awaited<T>>, call: CallState) => void,
    arg?: A,
  ): void;
  /**
   * Ends the call with the outcome (once; later outcomes are ignored). `wellFormed`: its output holds no lone
   * surrogate (`serializeOutput` wrote it), so it is not made well-formed again.
   */
  done(outcome: CallOutcome, wellFormed?: boolean): void;
  /** Ends the call after a bug in toolwire or a schema library (a step threw): it still gets an answer. */
  fail(error: unknown): void;
  /** Gives a preliminary result to `options.onPreliminary` while the call runs. */
  preliminary(result: Pick<PreliminaryResult, 'output' | 'widget' | 'value'>): void;
  /**
   * Arguments the call will use (raw, validated, or edited by an approver): the values under the call's redacted
   * field names they hold are redacted too. One at a time (no array of them at each call).
   */
  validated(input: unknown): void;
  /**
   * `execute` is about to get `input`, which may be the object its host handed in as the arguments: told only for
   * a tool whose schema may hand back its input (`ToolInternals.sharesInput`), so its host keeps its own of them.
   */
  handsInput(input: unknown): void;
  /** A `ctx` (with a signal of its own) for attempt `number` of a tool with `retry`. */
  newAttempt(number: number): Attempt;
  /**
   * The call waits before its `execute` begins (`true`) for code to load (a part of the call, ./parts.ts) or for
   * its validation to answer (which may load the JSON Schema validator first), or that wait is over (`false`):
   * told to its host ({@link CallWaits.preExecuteWait}), when it has one and the call has an id.
   */
  preExecuteWait(waits: boolean): void;
}

/** One attempt's `ctx`, and the control of its signal (src/call/retry.ts). */
export interface Attempt {
  readonly ctx: ToolContext;
  /** Aborts this attempt's `ctx.signal` only (its time ran out). */
  abort(reason: unknown): void;
  /** The attempt is over: a later cancel of the call no longer reaches its signal. */
  end(): void;
}

/**
 * The part of `AbortSignal` toolwire's steps listen to: `AbortSignal` itself (a caller's `options.signal`) or a
 * {@link Cancellation}.
 */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: AbortListener, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: AbortListener): void;
}

/**
 * A listener, as `EventTarget` takes them: a function, or an object whose `handleEvent()` is called (a wait that
 * already keeps an object listens with it rather than with one more closure per call: `settleThen`, src/call/signal.ts).
 */
export type AbortListener = (() => void) | { handleEvent(): void };
