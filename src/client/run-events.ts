/**
 * Run events and a run's tool calls as the application gets them: typed, one shape per kind.
 *
 * On the wire a run event is `{ type: 'run_event', runId, seq?, event: { kind, data } }` with `data` anything
 * (docs/protocol/, runs). Here it becomes one flat object, a union discriminated on `kind`, so that
 * `if (event.kind === 'tool_progress') event.progress` type-checks with no cast. The data of each known kind is
 * checked against its shape when it arrives: a malformed optional field is dropped, an event whose required
 * fields are malformed is not delivered (as a kind this version does not know is not).
 *
 * A run's tool call also carries its result part (`result`, feature `result_parts`): the kind of the result
 * (`text`, `json`, `error-text`, `error-json`, `content`) and its value, so the application tells text from JSON
 * and gets the full result of a tool whose `toModelOutput` showed the model less.
 *
 * @module
 */
import * as z from 'zod/mini';
import { once } from '../once';
import type { SideEffect } from '../tool/tool';
import {
  type ContentPart,
  contentPartSchema,
  type FrameOf,
  RUN_EVENT_KINDS,
  type ServiceFrame,
  SIDE_EFFECTS,
  type ToolCallStatus,
  type RunToolCallFrame as WireRunToolCall,
} from '../wire/protocol';

/** What every run event has: the run it belongs to, and its number in that run. */
interface RunEventBase {
  /** The run whose listener gets the event (for the copy of a nested run's event: the outer run). */
  runId: string;
  /** Numbers the run's recorded events from 1; absent on `text_delta` (not recorded). */
  seq?: number;
}

/** Fields of the events about one tool call. */
interface CallEventBase extends RunEventBase {
  callId: string;
  toolName: string;
}

/** Fields of the approval and question events a nested run's copy on an outer run has. */
interface NestedOrigin {
  /** Set on the copy an outer run gets of a nested run's approval or question: the nested run's id. */
  nestedRunId?: string;
}

/** A model turn starts (`turn` counts from 1). */
export interface TurnEvent extends RunEventBase {
  kind: 'turn';
  turn: number;
}

/** The assistant message a turn added: its text, and the tool calls it asked for. */
export interface MessageEvent extends RunEventBase {
  kind: 'message';
  role: 'assistant';
  content: string;
  toolCalls?: Array<{ id: string; name: string; arguments: unknown }>;
  /** The kind of model that wrote it (the stub's: `scripted`, `openai-compatible`). */
  model?: string;
}

/** The next piece of a streaming model's text in turn `turn`, before that turn's `message`. */
export interface TextDeltaEvent extends RunEventBase {
  kind: 'text_delta';
  turn: number;
  delta: string;
}

/** The model called a tool (`arguments` as the model wrote them). */
export interface ToolCallRunEvent extends CallEventBase {
  kind: 'tool_call';
  arguments: unknown;
  /** Nesting depth of the run: 0 for a top-level run. */
  depth: number;
  strict?: boolean;
}

/** A tool call ended: what the model read (`output`), and the result's kind and full value (`result`). */
export interface ToolResultEvent extends CallEventBase {
  kind: 'tool_result';
  status: ToolCallStatus | (string & {});
  output: string;
  widget?: unknown;
  content?: ContentPart[];
  /** The result's kind and value (see {@link ToolResultPart}); absent when the service does not report it. */
  result?: ToolResultPart;
  durationMs: number;
}

/** A call waits for a human's decision. */
export interface ApprovalRequestedEvent extends CallEventBase, NestedOrigin {
  kind: 'approval_requested';
  arguments: unknown;
  /** `definition` (the tool says `needsApproval: true`) or `client` (the client's own check asked). */
  requestedBy: 'definition' | 'client' | (string & {});
  reason?: string;
  /** The call's side-effect class, as its tool declares it (or its `approvalRequired` policy). */
  sideEffect?: SideEffect;
}

/** A human decided. */
export interface ApprovalDecidedEvent extends CallEventBase, NestedOrigin {
  kind: 'approval_decided';
  approved: boolean;
  /** `socket`, `http` or `always`. */
  by: string;
  reason?: string;
  arguments?: unknown;
  always?: boolean;
}

/** A running call reported progress (`ctx.progress()`). */
export interface ToolProgressEvent extends CallEventBase {
  kind: 'tool_progress';
  progress: number;
  total?: number;
  message?: string;
}

/** A running call yielded a preliminary result, for people (not the model). */
export interface ToolPreliminaryEvent extends CallEventBase {
  kind: 'tool_preliminary';
  output: string;
  widget?: unknown;
}

/** A running call recorded an event (`ctx.emit(event, data)`). */
export interface ToolEventEvent extends CallEventBase {
  kind: 'tool_event';
  event: string;
  data?: unknown;
}

/** A running call asked the user a question. */
export interface QuestionAskedEvent extends CallEventBase, NestedOrigin {
  kind: 'question_asked';
  questionId: string;
  question: string;
  choices?: string[];
  schema?: Record<string, unknown>;
}

/** A question ended: `answered`, `declined` or `cancelled`. */
export interface QuestionAnsweredEvent extends CallEventBase, NestedOrigin {
  kind: 'question_answered';
  questionId: string;
  status: 'answered' | 'declined' | 'cancelled' | (string & {});
  answer?: unknown;
  reason?: string;
  /** `http`, `client` or `service`. */
  by: string;
}

/**
 * An event of a run this client started, as `onEvent` and the client's `run_event` event get it: one flat object
 * per kind, told apart by `kind`.
 *
 * @example
 * ```ts
 * import type { RunEvent } from 'toolwire';
 *
 * function show(event: RunEvent): string | undefined {
 *   if (event.kind === 'tool_progress') return `${event.toolName}: ${event.progress}/${event.total ?? '?'}`;
 *   if (event.kind === 'tool_result') return `${event.toolName} ${event.status} in ${event.durationMs} ms`;
 *   return undefined;
 * }
 * ```
 */
export type RunEvent =
  | TurnEvent
  | MessageEvent
  | TextDeltaEvent
  | ToolCallRunEvent
  | ToolResultEvent
  | ApprovalRequestedEvent
  | ApprovalDecidedEvent
  | ToolProgressEvent
  | ToolPreliminaryEvent
  | ToolEventEvent
  | QuestionAskedEvent
  | QuestionAnsweredEvent;

/** One of the run event kinds this version knows. */
export type RunEventKind = RunEvent['kind'];

/** The event of kind `K`. */
export type RunEventOf<K extends RunEventKind> = Extract<RunEvent, { kind: K }>;

/**
 * A result's kind and value, as the application gets it (feature `result_parts`):
 * - `text`: `execute` returned a string (the value);
 * - `json`: it returned anything else; the value is the result as JSON (secrets redacted, its `widget` apart);
 * - `content`: it returned content parts (`content()`); the value is the parts;
 * - `error-text`: the call did not succeed; the value is the text the model read;
 * - `error-json`: `execute` threw a plain JSON value (not an `Error`); the value is that value.
 *
 * For a tool with `toModelOutput`, `output` is what the model read and `value` the full result.
 */
export type ToolResultPart =
  | { type: 'text'; value: string }
  | { type: 'json'; value: unknown }
  | { type: 'content'; value: ContentPart[] }
  | { type: 'error-text'; value: string }
  | { type: 'error-json'; value: unknown };

/**
 * One tool call of a finished run: what the model read (`output`), and the result's kind and value (`result`). In a
 * result that would not fit the frame limit the service cuts the largest parts: a long `output` ends with the
 * truncation marker and large `arguments` read `{ truncated: true, bytes }` (docs/protocol/runs.md); its
 * transcript keeps them whole.
 */
export type RunToolCall = Omit<WireRunToolCall, 'result'> & {
  /** The result's kind and value; absent when the service does not report it (an older service). */
  result?: ToolResultPart;
};

/*
 * The shape of each kind's data, checked when an event arrives: built at the first event that needs it (a worker that
 * starts no run never does, issue 28).
 */
function buildDataShapes(): Readonly<Record<RunEventKind, z.ZodMiniType>> {
  /** An optional field: dropped when malformed (informative), rather than costing the event. */
  const optional = <T extends z.core.SomeType>(schema: T) => z.catch(z.optional(schema), undefined);
  const text = z.string();
  const count = z.number();
  /** A model turn: a whole number from 1. */
  const turn = z.number().check(z.int(), z.minimum(1));
  /** A nesting depth: a whole number from 0. */
  const depth = z.number().check(z.int(), z.minimum(0));
  /** A duration in milliseconds: not negative. */
  const duration = z.number().check(z.minimum(0));
  const call = { callId: text, toolName: text };
  const nested = { runId: optional(text) };
  /** Any value, or none. */
  const any = z.optional(z.unknown());

  return {
    turn: z.object({ turn }),
    message: z.object({
      role: z.literal('assistant'),
      content: text,
      toolCalls: optional(z.array(z.object({ id: text, name: text, arguments: any }))),
      model: optional(text),
    }),
    text_delta: z.object({ turn, delta: text }),
    tool_call: z.object({ ...call, arguments: any, depth, strict: optional(z.boolean()) }),
    tool_result: z.object({
      ...call,
      status: text,
      output: text,
      widget: any,
      content: optional(z.array(contentPartSchema())),
      result: optional(z.object({ type: text, value: any })),
      durationMs: duration,
    }),
    approval_requested: z.object({
      ...call,
      ...nested,
      arguments: any,
      requestedBy: text,
      reason: optional(text),
      sideEffect: optional(z.enum(SIDE_EFFECTS)),
    }),
    approval_decided: z.object({
      ...call,
      ...nested,
      approved: z.boolean(),
      by: text,
      reason: optional(text),
      arguments: any,
      always: optional(z.boolean()),
    }),
    tool_progress: z.object({ ...call, progress: count, total: optional(count), message: optional(text) }),
    tool_preliminary: z.object({ ...call, output: text, widget: any }),
    tool_event: z.object({ ...call, event: text, data: any }),
    question_asked: z.object({
      ...call,
      ...nested,
      questionId: text,
      question: text,
      choices: optional(z.array(text)),
      schema: optional(z.record(z.string(), z.unknown())),
    }),
    question_answered: z.object({
      ...call,
      ...nested,
      questionId: text,
      status: text,
      answer: any,
      reason: optional(text),
      by: text,
    }),
  };
}

/** Each kind's data shape ({@link buildDataShapes}), built at the first run event. */
const dataShapes = /* @__PURE__ */ once(buildDataShapes);

const KNOWN: ReadonlySet<string> = new Set(RUN_EVENT_KINDS);

/** Why {@link toRunEvent} did not make an event. */
export type NotARunEvent = { unknown: true } | { malformed: string };

/**
 * The typed event of a `run_event` frame: its data checked against its kind's shape, fields left `undefined`
 * removed, a nested run's `data.runId` named `nestedRunId`, and a tool result's part made whole
 * ({@link resultPartOf}). A kind this version does not know, or data its kind's shape refuses, gives why not.
 */
export function toRunEvent(frame: FrameOf<ServiceFrame, 'run_event'>): RunEvent | NotARunEvent {
  const { kind } = frame.event;
  if (!KNOWN.has(kind)) return { unknown: true };
  const checked = z.safeParse(dataShapes()[kind as RunEventKind], frame.event.data);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return { malformed: `${issue?.path.join('.') || 'data'}: ${issue?.message ?? 'invalid'}` };
  }
  const data = checked.data as Record<string, unknown>;
  const event: Record<string, unknown> = { kind, runId: frame.runId };
  if (frame.seq !== undefined) event.seq = frame.seq;
  for (const key of Object.keys(data)) {
    const value = data[key];
    if (value === undefined) continue;
    if (key === 'runId') {
      if (value !== frame.runId) event.nestedRunId = value;
    } else event[key] = value;
  }
  if (kind === 'tool_result') {
    const part = resultPartOf(event as unknown as WireRunToolCall);
    if (part === undefined) delete event.result;
    else event.result = part;
  }
  return event as unknown as RunEvent;
}

/**
 * A tool call's result part as the application gets it, from what the service reported: the value is taken from
 * `output` (a `text` or `error-text`; a `json` output parsed) or `content` when the part does not carry it.
 * `undefined` when the service reported no part, one of a type this version does not know, or a `json` part whose
 * output is not JSON any more (cut to fit a frame).
 */
export function resultPartOf(
  call: Pick<WireRunToolCall, 'output' | 'content' | 'result'>,
): ToolResultPart | undefined {
  const part = call.result;
  if (part === undefined) return undefined;
  const given = Object.hasOwn(part, 'value');
  switch (part.type) {
    case 'text':
    case 'error-text':
      return { type: part.type, value: given && typeof part.value === 'string' ? part.value : call.output };
    case 'json':
    case 'error-json': {
      if (given) return { type: part.type, value: part.value };
      try {
        return { type: part.type, value: JSON.parse(call.output) as unknown };
      } catch {
        return undefined;
      }
    }
    case 'content':
      return call.content === undefined ? undefined : { type: 'content', value: call.content };
    default:
      return undefined;
  }
}

/** A run's tool calls with their result parts made whole ({@link resultPartOf}). */
export function publicToolCalls(calls: readonly WireRunToolCall[]): RunToolCall[] {
  return calls.map((wire) => {
    if (wire.result === undefined) return wire as RunToolCall;
    const { result: _, ...rest } = wire;
    const part = resultPartOf(wire);
    return part === undefined ? rest : { ...rest, result: part };
  });
}
