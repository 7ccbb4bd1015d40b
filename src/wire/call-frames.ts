/**
 * Frames and names of the protocol additions for long-running and talking calls (PROTOCOL.md §18), each switched
 * on per socket by a feature negotiated in `hello`/`welcome` (PROTOCOL.md §2), and their bounds. The frames only
 * a client sends (`tool_progress`, `tool_preliminary`, `lease`, `question`, `question_cancel`, `tool_event`) are
 * in src/wire/client-frames.ts; src/wire/protocol.ts puts `answer` into its union.
 *
 * @module
 */
import * as z from 'zod/mini';
import { id } from './frame-fields';

/** Most call ids one `lease` frame carries. */
export const MAX_LEASE_IDS = 1_000;

/** Every feature this version of the protocol defines (PROTOCOL.md §2). */
export const FEATURES = [
  'progress',
  'preliminary',
  'lease',
  'questions',
  'events',
  'content',
  'event_replay',
  'trace_context',
  'decisions',
  'steps',
  'call_context',
  'strict',
  'run_codes',
] as const;
/** One of {@link FEATURES}. */
export type Feature = (typeof FEATURES)[number];

/**
 * Retired feature names, read as the feature that replaced them wherever a peer lists features (`hello`,
 * `welcome`, the stub's `features` option), so that an older peer still works (PROTOCOL.md §2). `agent_name`
 * carried `tool_call.agentName` alone; it is part of `call_context`, which carries the session too.
 */
export const FEATURE_ALIASES: Readonly<Record<RetiredFeature, Feature>> = { agent_name: 'call_context' };
/** A retired feature name, still read as its feature ({@link FEATURE_ALIASES}). */
export type RetiredFeature = 'agent_name';

/**
 * The feature a listed name means: itself when it is one of {@link FEATURES}, the feature it is an alias of
 * ({@link FEATURE_ALIASES}), else `undefined` (a name this version does not know, or not a string).
 */
export function featureOf(name: unknown): Feature | undefined {
  if (typeof name !== 'string') return undefined;
  if ((FEATURES as readonly string[]).includes(name)) return name as Feature;
  return Object.hasOwn(FEATURE_ALIASES, name) ? FEATURE_ALIASES[name as RetiredFeature] : undefined;
}

/**
 * `welcome.features`: each name of `offered` (`hello.features`) whose feature is among `used`, as the client
 * wrote it (a retired name too, so that an older client sees its feature on), once each.
 */
export function answeredFeatures(offered: readonly unknown[], used: ReadonlySet<Feature>): string[] {
  const answered = new Set<string>();
  for (const name of offered) {
    const feature = featureOf(name);
    if (feature !== undefined && used.has(feature)) answered.add(name as string);
  }
  return [...answered];
}

/** The features a peer's list means ({@link featureOf} of each name), in order, once each; unknown names ignored. */
export function featuresOf(names: readonly unknown[] | undefined): Set<Feature> {
  const features = new Set<Feature>();
  for (const name of names ?? []) {
    const feature = featureOf(name);
    if (feature !== undefined) features.add(feature);
  }
  return features;
}

/** Longest `tool_call.traceparent` and `tool_call.tracestate`, in characters (PROTOCOL.md §18.10). */
export const MAX_TRACE_FIELD_CHARS = 512;

const traceField = z.optional(z.string().check(z.maxLength(MAX_TRACE_FIELD_CHARS)));

/**
 * `tool_call.traceparent` and `tool_call.tracestate` (feature `trace_context`): the W3C Trace Context of the
 * service's span of the call. Informative: a client ignores a value it cannot parse (PROTOCOL.md §18.10).
 */
export const traceFields = { traceparent: traceField, tracestate: traceField };

/** The feature a `run_event` kind belongs to: it is sent only to a session that negotiated it. */
export const RUN_EVENT_FEATURES: Readonly<Record<string, Feature>> = {
  tool_progress: 'progress',
  tool_preliminary: 'preliminary',
  question_asked: 'questions',
  question_answered: 'questions',
  tool_event: 'events',
};

/** A client sends at most one `tool_progress` per call in this many milliseconds (the last one always). */
export const PROGRESS_INTERVAL_MS = 250;
/** Longest `tool_progress.message`, in characters. */
export const MAX_PROGRESS_MESSAGE_CHARS = 1_000;

/** Bounds of a `question` (PROTOCOL.md §18.5). */
export const QUESTION_LIMITS = {
  /** Longest question, in characters. */
  maxQuestionChars: 4_000,
  /** Most choices. */
  maxChoices: 50,
  /** Longest choice, in characters. */
  maxChoiceChars: 200,
  /** Most questions of one call open at once. */
  maxOpenPerCall: 8,
  /** Most questions one call asks in all. */
  maxPerCall: 64,
} as const;

/** How a question ended. */
export const ANSWER_STATUSES = ['answered', 'declined', 'cancelled'] as const;

/** `answer` (service → client, feature `questions`): the user's answer to a `question`. */
export const answer = z.object({
  type: z.literal('answer'),
  callId: id,
  questionId: id,
  /**
   * One of {@link ANSWER_STATUSES}; any other, or none (a status that is not a string is dropped, as informative),
   * is taken as `cancelled` (PROTOCOL.md §4.3, §18.5), never refused.
   */
  status: z.optional(z.string()),
  /** With `answered`: the answer (a string, one of the choices, or a value matching the schema). */
  answer: z.optional(z.unknown()),
  /** With `declined` or `cancelled`: why, when known. */
  reason: z.optional(z.string()),
});

/** Bounds of `tool_event` (PROTOCOL.md §18.6). */
export const EVENT_LIMITS = {
  /** A name of 1 to 128 letters, digits and `_ . : / -`. */
  namePattern: /^[A-Za-z0-9_.:/-]{1,128}$/,
  /** Largest `data`, in bytes of JSON. */
  maxDataBytes: 16_384,
  /** Most events one call records. */
  maxPerCall: 256,
} as const;

/** Bounds of content parts (PROTOCOL.md §18.7). */
export const CONTENT_LIMITS = {
  /** Most parts in one result. */
  maxParts: 64,
  /** The media types an image part may have. */
  imageTypes: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
} as const;

const base64 = z.string().check(z.regex(/^[A-Za-z0-9+/]*={0,2}$/));

/** One content part of a result (PROTOCOL.md §18.7). */
export const contentPartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), data: base64, mediaType: z.enum(CONTENT_LIMITS.imageTypes) }),
  z.object({
    type: z.literal('file'),
    data: base64,
    mediaType: z.string().check(z.minLength(1), z.maxLength(255)),
    filename: z.optional(z.string().check(z.maxLength(255))),
  }),
  z.object({ type: z.literal('json'), value: z.unknown() }),
]);
/** A content part: `text`, `image` (base64), `file` (base64) or `json`. */
export type ContentPart = z.infer<typeof contentPartSchema>;

/** `tool_result.content` and `RunToolCall.content`: at most {@link CONTENT_LIMITS.maxParts} parts. */
export const contentList = z.array(contentPartSchema).check(z.maxLength(CONTENT_LIMITS.maxParts));
