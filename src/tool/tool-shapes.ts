/**
 * Tools written for another SDK, read as they are: the keys of an AI SDK tool that mean nothing here (accepted
 * and ignored), an AI SDK `jsonSchema()` object as a schema, and the AI SDK's argument conventions of
 * `needsApproval` and `toModelOutput`. Nothing here imports `ai`: the shapes are recognised structurally.
 *
 * @module
 */
import { ToolDefinitionError } from '../errors';
import { isThenable, type MaybePromise } from '../maybe';
import { aFunction, anything, isRecord, type Rule } from './check-options';
import { type ContentInput, content } from './content';
import { isStandardSchema } from './schema/standard';
import type { ToolContext } from './tool-types';

/**
 * Keys of an AI SDK tool (`ai` 6) that toolwire accepts and ignores: `type` (`'function'` or `'dynamic'`; a
 * provider tool has no `execute` to run here), `providerOptions` and `inputExamples` (for a model provider),
 * `metadata`, `title`, and the streaming hooks `onInputStart`, `onInputDelta`, `onInputAvailable` (a `tool_call` arrives
 * whole: there is no input stream to report).
 */
export interface IgnoredToolKeys {
  type?: 'function' | 'dynamic';
  providerOptions?: unknown;
  metadata?: unknown;
  inputExamples?: unknown;
  title?: string;
  onInputStart?: unknown;
  onInputDelta?: unknown;
  onInputAvailable?: unknown;
}

/** The rules of {@link IgnoredToolKeys}. */
export const IGNORED_TOOL_KEYS: { readonly [K in keyof IgnoredToolKeys]-?: Rule } = {
  type: {
    expected: '"function" or "dynamic" (a provider-executed tool cannot run in this process)',
    test: (value) => value === 'function' || value === 'dynamic',
  },
  providerOptions: anything,
  metadata: anything,
  inputExamples: anything,
  title: anything,
  onInputStart: aFunction,
  onInputDelta: aFunction,
  onInputAvailable: aFunction,
};

const AI_SDK_SCHEMA = Symbol.for('vercel.ai.schema');

/** `true` for what the AI SDK's `jsonSchema()` / `zodSchema()` return (marked with `Symbol.for('vercel.ai.schema')`). */
export function isAiSdkSchema(value: unknown): value is { readonly jsonSchema: unknown } {
  return (
    isRecord(value) && (value as Record<symbol, unknown>)[AI_SDK_SCHEMA] === true && 'jsonSchema' in value
  );
}

/**
 * The schema to resolve: an AI SDK schema object is read as its JSON Schema (toolwire validates against it; the
 * object's own `validate` is not used); anything else as it is.
 * @throws ToolDefinitionError `invalid_parameters` when its JSON Schema is a promise (a lazy remote schema).
 */
export function unwrapSchema(value: unknown, owner: string, field: string): unknown {
  if (!isAiSdkSchema(value) || isStandardSchema(value)) return value;
  const json = value.jsonSchema;
  if (isThenable(json)) {
    throw new ToolDefinitionError(
      'invalid_parameters',
      `${owner}: ${field} is an AI SDK schema whose JSON Schema is a promise; give the JSON Schema itself`,
    );
  }
  return json;
}

/** Keys only an AI SDK tool has: an object with one is read with the AI SDK's argument order. */
const AI_SDK_ONLY_KEYS = [
  'type',
  'providerOptions',
  'inputExamples',
  'onInputStart',
  'onInputDelta',
  'onInputAvailable',
];
/** Keys only toolwire (or an OpenAI Agents tool) has: an object with one is read with toolwire's order. */
const TOOLWIRE_ONLY_KEYS = [
  'parameters',
  'requiresApproval',
  'errorFunction',
  'timeoutMs',
  'allowedAgentNames',
  'sideEffect',
  'retry',
  'sensitiveFieldNames',
];
/**
 * `true` when an object given as a tool is read with the AI SDK's conventions, whether or not it has a `name`
 * (`ai`'s `tool()` returns its argument as it is, so no mark tells an AI SDK tool apart; its keys do):
 *
 * - the AI SDK's: it has a key only an AI SDK tool has (`type: 'function'` or `'dynamic'`, `providerOptions`,
 *   `inputExamples`, `onInputStart`, `onInputDelta`, `onInputAvailable`) or its `inputSchema` is an AI SDK
 *   `jsonSchema()` / `zodSchema()` object;
 * - else toolwire's: it has a key only toolwire has (`parameters`, `requiresApproval`, `errorFunction`,
 *   `timeoutMs`, `allowedAgentNames`, `sideEffect`, `retry`, `sensitiveFieldNames`), or its `inputSchema` is not
 *   a Standard Schema (the AI SDK takes no bare JSON Schema);
 * - else (`inputSchema` a Standard Schema, nothing more) the AI SDK's, whose shape that is, with one exception:
 *   a `needsApproval` function is refused, since `(ctx, input)` read as `(input, options)` would skip approval.
 *
 * @throws ToolDefinitionError `ambiguous_tool_shape` in that exception, naming the tool and saying how to tell.
 */
export function readsAiSdkConventions(given: Record<string, unknown>, owner: string): boolean {
  const schema = given.inputSchema;
  if (AI_SDK_ONLY_KEYS.some((key) => given[key] !== undefined) || isAiSdkSchema(schema)) return true;
  if (TOOLWIRE_ONLY_KEYS.some((key) => given[key] !== undefined) || !isStandardSchema(schema)) return false;
  if (typeof given.needsApproval !== 'function') return true;
  throw new ToolDefinitionError(
    'ambiguous_tool_shape',
    `${owner}: needsApproval is a function, but nothing tells whether it takes (input, options) as in the AI SDK or (ctx, input) as in toolwire; add type: 'function' for the AI SDK's order, or give the schema as parameters (or make the tool with toolwire's tool()) for toolwire's`,
  );
}

type Callback = (...args: never[]) => unknown;

/**
 * `needsApproval(input, options)`, the AI SDK's order, as toolwire's `(ctx, input)`; `ctx` carries the AI SDK's
 * `toolCallId`, `messages` and `experimental_context`.
 */
export function aiSdkApproval(needsApproval: unknown): unknown {
  if (typeof needsApproval !== 'function') return needsApproval;
  const predicate = needsApproval as (input: unknown, options: ToolContext) => unknown;
  return (ctx: ToolContext, input: unknown) => predicate(input, ctx);
}

/**
 * The AI SDK's `execute` and `toModelOutput({ toolCallId, input, output })` as toolwire's: `execute` notes each
 * call's input so that `toModelOutput` can be given it, and its `{ type, value }` answer is mapped by
 * {@link fromAiSdkOutput}.
 */
export function aiSdkModelOutput(
  execute: Callback,
  toModelOutput: unknown,
): { execute: Callback; toModelOutput: ((output: unknown, ctx: ToolContext) => unknown) | undefined } {
  if (typeof toModelOutput !== 'function') return { execute, toModelOutput: undefined };
  const inputs = new WeakMap<object, unknown>();
  const run = execute as (input: unknown, ctx: ToolContext) => unknown;
  const project = toModelOutput as (options: {
    toolCallId: string;
    input: unknown;
    output: unknown;
  }) => unknown;
  return {
    execute: ((input: unknown, ctx: ToolContext) => {
      inputs.set(ctx, input);
      return run(input, ctx);
    }) as Callback,
    toModelOutput: (output, ctx): MaybePromise<unknown> => {
      const answer = project({ toolCallId: ctx.callId, input: inputs.get(ctx), output });
      return isThenable(answer) ? Promise.resolve(answer).then(fromAiSdkOutput) : fromAiSdkOutput(answer);
    },
  };
}

/**
 * An AI SDK tool result output as the value toolwire serialises: `text` its string, `json` its value,
 * `content` toolwire content parts (`text`; `media`, `image-data` and `file-data` as image or file parts),
 * `execution-denied` its reason. `error-text` / `error-json` throw, so the call is an `error` result whose text
 * is `Error running <name>: <value>` (or `errorFunction`'s). Anything else is used as it is.
 */
export function fromAiSdkOutput(answer: unknown): unknown {
  if (!isRecord(answer) || typeof answer.type !== 'string') return answer;
  const { value } = answer;
  switch (answer.type) {
    case 'text':
    case 'json':
      return value;
    case 'error-text':
      throw new Error(String(value));
    case 'error-json':
      throw new Error(JSON.stringify(value));
    case 'execution-denied':
      return typeof answer.reason === 'string' ? answer.reason : 'The tool execution was denied.';
    case 'content':
      return Array.isArray(value) ? content(value.map(contentPart)) : answer;
    default:
      return answer;
  }
}

function contentPart(part: unknown): ContentInput {
  if (!isRecord(part)) return { type: 'json', value: part };
  if (part.type === 'text' && typeof part.text === 'string') return { type: 'text', text: part.text };
  const data = part.data;
  const mediaType = typeof part.mediaType === 'string' ? part.mediaType : 'application/octet-stream';
  if (
    (part.type === 'media' || part.type === 'image-data' || part.type === 'file-data') &&
    typeof data === 'string'
  ) {
    return mediaType.startsWith('image/') && part.type !== 'file-data'
      ? { type: 'image', data, mediaType: mediaType as 'image/png' }
      : {
          type: 'file',
          data,
          mediaType,
          ...(typeof part.filename === 'string' ? { filename: part.filename } : {}),
        };
  }
  return { type: 'json', value: part };
}
