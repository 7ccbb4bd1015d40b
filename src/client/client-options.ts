/**
 * `Client` options: their defaults and the checks made when a client is built.
 *
 * @module
 */
import * as z from 'zod/mini';
import { ToolDefinitionError } from '../errors';
import { MAX_TIMEOUT_MS } from '../limits';
import type { Logger, RedactRule } from '../logger';
import type { Tool } from '../tool/tool';
import type { ReconnectOptions } from '../wire/connection';
import type { WebSocketConstructor } from '../wire/transport';
import type { Approver } from './approvals';

/** Information about a call, given to a `context` function. */
export interface CallInfo {
  callId: string;
  runId: string;
  toolName: string;
}

/** Options of `new Client(...)`. Every duration is in milliseconds. */
export interface ClientOptions<C = unknown> {
  /** WebSocket URL of the service (`ws://` or `wss://`). @default process.env.TOOLWIRE_URL */
  url?: string;
  /** API key; sent as `Authorization: Bearer` where the runtime allows, else in `hello`. @default process.env.TOOLWIRE_API_KEY */
  apiKey?: string;
  /** The tools this process runs. Names must be unique. */
  // biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list of tools; each keeps its own types.
  tools: ReadonlyArray<Tool<any, any, any>>;
  /**
   * `ctx.context` for calls of runs this client did not start (for example runs started over HTTP), or a function
   * of the call returning it (or a promise of it). Runs started with `client.run()` use the context given there.
   * A function that throws or rejects fails the call (status `error`) without running the tool. Never sent.
   */
  context?: C | ((call: CallInfo) => C | Promise<C>);
  /**
   * Calls executing at once; the rest wait in order. A call waiting for a human's approval (over the socket, or
   * from an `onApproval` that returns a promise) or for a nested agent run does not count: it holds no slot
   * until it goes on, and then (approved, or given its nested run's answer) it is first in line for one, so no
   * more than this many ever execute. @default 16
   */
  maxConcurrency?: number;
  /**
   * Calls waiting for a slot. Calls running, waiting, and results not yet acknowledged together stay within
   * `maxConcurrency + maxQueue`; past that the service is told the client is busy (a retryable result).
   * @default 1000
   */
  maxQueue?: number;
  /** Overrides the heartbeat interval the service announces. @default the service's (15_000 with the stub) */
  heartbeatIntervalMs?: number;
  /** Reconnect policy, or `false` to never reconnect. @default { initialDelayMs: 100, maxDelayMs: 10_000, maxAttempts: Infinity } */
  reconnect?: Partial<ReconnectOptions> | false;
  /** `connect()` rejects if no `welcome` arrived within this time. @default 30_000 */
  connectTimeoutMs?: number;
  /** Results wait while the socket buffers more than this many bytes. @default 1_048_576 */
  highWaterMarkBytes?: number;
  /** WebSocket constructor. @default the global `WebSocket`, else the `ws` package */
  WebSocket?: WebSocketConstructor;
  /** A pino-compatible logger. @default a logger that discards everything */
  logger?: Logger;
  /** Strings and patterns scrubbed from every output, widget and log line (the API key always is). @default [] */
  redact?: RedactRule[];
  /**
   * Decide approvals in this process (a CLI prompt, a policy) instead of asking the service's human.
   * Returns `true`/`false` or `{ approved, reason }`, or a promise of it; while the promise is pending the call
   * gives up its `maxConcurrency` slot (the service's deadline keeps running: it does not know a human is
   * deciding). A throw or a rejection rejects the call.
   */
  onApproval?: Approver;
}

/** Default values of {@link ClientOptions}. */
export const CLIENT_DEFAULTS = {
  maxConcurrency: 16,
  maxQueue: 1_000,
  connectTimeoutMs: 30_000,
  highWaterMarkBytes: 1_048_576,
  reconnect: { initialDelayMs: 100, maxDelayMs: 10_000, maxAttempts: Number.POSITIVE_INFINITY },
} as const;

const positiveInt = z.number().check(z.int(), z.minimum(1));
/** A duration that a timer can hold: past 2,147,483,647 ms, `setTimeout` fires after 1 ms instead. */
const timerMs = z
  .number()
  .check(z.maximum(MAX_TIMEOUT_MS, `must be at most ${MAX_TIMEOUT_MS} ms, the longest timer`));
const positiveTimerMs = z
  .number()
  .check(
    z.int(),
    z.minimum(1),
    z.maximum(MAX_TIMEOUT_MS, `must be at most ${MAX_TIMEOUT_MS} ms, the longest timer`),
  );
const fn = z.custom<(...args: unknown[]) => unknown>(
  (value) => typeof value === 'function',
  'must be a function',
);

const optionsSchema = z.strictObject({
  url: z.string().check(z.regex(/^wss?:\/\/./, 'must start with ws:// or wss://')),
  apiKey: z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces (it travels in an HTTP header)'),
    ),
  tools: z.array(
    z.custom(
      (value) => typeof value === 'object' && value !== null && 'definition' in value,
      'must be made with tool()',
    ),
  ),
  context: z.optional(z.unknown()),
  maxConcurrency: z.optional(positiveInt),
  maxQueue: z.optional(z.number().check(z.int(), z.minimum(0))),
  heartbeatIntervalMs: z.optional(positiveTimerMs),
  reconnect: z.optional(
    z.union(
      [
        z.literal(false),
        z.strictObject({
          initialDelayMs: z.optional(timerMs.check(z.minimum(0))),
          maxDelayMs: z.optional(timerMs.check(z.minimum(0))),
          maxAttempts: z.optional(
            z.number().check(
              z.minimum(0),
              z.refine(
                (value) => Number.isInteger(value) || value === Number.POSITIVE_INFINITY,
                'must be a whole number or Infinity',
              ),
            ),
          ),
        }),
      ],
      { error: 'must be false or { initialDelayMs?, maxDelayMs?, maxAttempts? }' },
    ),
  ),
  connectTimeoutMs: z.optional(positiveTimerMs),
  highWaterMarkBytes: z.optional(positiveInt),
  WebSocket: z.optional(fn),
  logger: z.optional(
    z.custom(
      (value) =>
        ['debug', 'info', 'warn', 'error'].every(
          (level) => typeof (value as Record<string, unknown> | null)?.[level] === 'function',
        ),
      'must have debug, info, warn and error methods',
    ),
  ),
  redact: z.optional(
    z.array(
      z.union(
        [
          z
            .string()
            .check(
              z.minLength(
                4,
                'strings must have at least 4 characters (shorter ones would scrub ordinary words)',
              ),
            ),
          z
            .instanceof(RegExp)
            .check(
              z.refine(
                (rule) => !new RegExp(rule.source, rule.flags.replace('y', '')).test(''),
                'a RegExp must not match the empty string',
              ),
            ),
        ],
        { error: 'items must be strings or RegExps' },
      ),
    ),
  ),
  onApproval: z.optional(fn),
});

/** Options with every default applied. */
export interface ResolvedClientOptions
  extends Required<
    Pick<
      ClientOptions,
      'url' | 'apiKey' | 'maxConcurrency' | 'maxQueue' | 'connectTimeoutMs' | 'highWaterMarkBytes' | 'redact'
    >
  > {
  reconnect: ReconnectOptions | false;
}

function env(name: string): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
}

/**
 * Checks options and applies defaults.
 * @throws ToolDefinitionError `invalid_option` naming the field and the value, or `duplicate_tool`.
 */
export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ToolDefinitionError(
      'invalid_option',
      `new Client(options): options must be an object, got ${describe(options)}`,
    );
  }
  const withEnv = {
    ...options,
    url: options.url ?? env('TOOLWIRE_URL'),
    apiKey: options.apiKey ?? env('TOOLWIRE_API_KEY'),
  };
  if (withEnv.url === undefined)
    throw new ToolDefinitionError('invalid_option', 'Client option "url" is required (or set TOOLWIRE_URL)');
  if (withEnv.apiKey === undefined) {
    throw new ToolDefinitionError(
      'invalid_option',
      'Client option "apiKey" is required (or set TOOLWIRE_API_KEY)',
    );
  }
  const parsed = optionsSchema.safeParse(withEnv);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field =
      issue?.path
        .map((key, index) =>
          typeof key === 'number' ? `[${key}]` : index === 0 ? String(key) : `.${String(key)}`,
        )
        .join('') || '(options)';
    const value = issue?.path.reduce<unknown>(
      (at, key) => (at as Record<PropertyKey, unknown>)?.[key],
      withEnv,
    );
    const shown = field === 'apiKey' ? '[redacted]' : describe(value);
    const detail =
      issue?.code === 'unrecognized_keys'
        ? `unknown option(s) ${JSON.stringify((issue as { keys?: string[] }).keys)}`
        : `${field} ${issueText(issue)} (got ${shown})`;
    throw new ToolDefinitionError('invalid_option', `Invalid Client option: ${detail}`);
  }
  const reconnect =
    options.reconnect === false ? false : { ...CLIENT_DEFAULTS.reconnect, ...options.reconnect };
  if (reconnect !== false && reconnect.initialDelayMs > reconnect.maxDelayMs) {
    throw new ToolDefinitionError(
      'invalid_option',
      `Invalid Client option: reconnect.initialDelayMs (${reconnect.initialDelayMs}) must not exceed reconnect.maxDelayMs (${reconnect.maxDelayMs})`,
    );
  }
  const seen = new Set<string>();
  for (const item of options.tools) {
    if (seen.has(item.name))
      throw new ToolDefinitionError(
        'duplicate_tool',
        `Client option "tools": two tools are named "${item.name}"`,
      );
    seen.add(item.name);
  }
  return {
    url: withEnv.url,
    apiKey: withEnv.apiKey,
    maxConcurrency: options.maxConcurrency ?? CLIENT_DEFAULTS.maxConcurrency,
    maxQueue: options.maxQueue ?? CLIENT_DEFAULTS.maxQueue,
    connectTimeoutMs: options.connectTimeoutMs ?? CLIENT_DEFAULTS.connectTimeoutMs,
    highWaterMarkBytes: options.highWaterMarkBytes ?? CLIENT_DEFAULTS.highWaterMarkBytes,
    redact: options.redact ?? [],
    reconnect,
  };
}

function issueText(
  issue: { code: string; message: string; expected?: unknown; minimum?: unknown } | undefined,
): string {
  if (!issue) return 'is invalid';
  if (issue.message && issue.message !== 'Invalid input') return issue.message;
  if (issue.code === 'invalid_type') {
    return issue.expected === 'number' ? 'must be a finite number' : `must be ${String(issue.expected)}`;
  }
  if (issue.code === 'too_small') return `must be at least ${String(issue.minimum)}`;
  return 'is invalid';
}

function describe(value: unknown): string {
  if (
    typeof value === 'number' ||
    typeof value === 'bigint' ||
    value === undefined ||
    value instanceof RegExp
  ) {
    return String(value);
  }
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
