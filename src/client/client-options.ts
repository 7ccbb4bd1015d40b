/**
 * `Client` options: their defaults and the checks made when a client is built.
 *
 * @module
 */
import { OptionsError } from '../errors';
import { MAX_TIMEOUT_MS } from '../limits';
import type { Logger, RedactRule } from '../logger';
import {
  aDuration,
  aFunction,
  anArrayOf,
  anInteger,
  anything,
  aString,
  checkOptions,
  isRecord,
  type OptionsOwner,
  type OptionsSpec,
  type Rule,
} from '../tool/check-options';
import type { Tool } from '../tool/tool';
import type { ReconnectOptions } from '../wire/connection';
import type { WebSocketConstructor } from '../wire/transport';
import { Agent } from './agent';
import type { Approver } from './calls';

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

/** The texts the zod-based checker gave, kept for now. */
function numberSays(min: number, max?: number): (value: unknown) => string {
  return (value) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a finite number';
    if (!Number.isInteger(value) && min > 0) return 'must be an integer';
    if (value < min) return `must be at least ${min}`;
    return `must be at most ${max} ms, the longest timer`;
  };
}

/** A delay of the reconnect policy: any number from 0 to the longest timer. */
const delayMs: Rule = {
  expected: 'a delay in milliseconds',
  test: (value) => typeof value === 'number' && value >= 0 && value <= MAX_TIMEOUT_MS,
  says: numberSays(0, MAX_TIMEOUT_MS),
};

const RECONNECT_OPTIONS: OptionsSpec<ReconnectOptions> = {
  rules: {
    initialDelayMs: delayMs,
    maxDelayMs: delayMs,
    // Infinity, the documented default, is accepted.
    maxAttempts: {
      ...anInteger({ min: 0, infinity: true }),
      says: () => 'must be a whole number or Infinity',
    },
  },
};

const isLogger = (value: unknown) =>
  ['debug', 'info', 'warn', 'error'].every(
    (level) => typeof (value as Record<string, unknown> | null)?.[level] === 'function',
  );

const isRedactRule = (value: unknown) =>
  (typeof value === 'string' && value.length >= 4) ||
  (value instanceof RegExp && !new RegExp(value.source, value.flags.replace('y', '')).test(''));

/** What `new Client()` accepts: one rule per option of {@link ClientOptions}. */
const CLIENT_OPTIONS: OptionsSpec<ClientOptions> = {
  rules: {
    url: {
      ...aString('a ws:// or wss:// URL', { pattern: /^wss?:\/\/./ }),
      says: () => 'must start with ws:// or wss://',
    },
    apiKey: {
      ...aString('printable ASCII', { pattern: /^[\x21-\x7e]+$/ }),
      says: (value) =>
        value === ''
          ? 'must not be empty'
          : 'must be printable ASCII without spaces (it travels in an HTTP header)',
      show: () => '[redacted]',
    },
    tools: {
      ...anArrayOf({
        expected: 'a tool',
        test: (value) => typeof value === 'object' && value !== null && 'definition' in value,
        says: () => 'must be made with tool()',
      }),
      required: true,
    },
    context: anything,
    maxConcurrency: { ...anInteger({ min: 1 }), says: numberSays(1) },
    maxQueue: { ...anInteger({ min: 0 }), says: numberSays(0) },
    heartbeatIntervalMs: { ...aDuration(1), says: numberSays(1, MAX_TIMEOUT_MS) },
    reconnect: {
      expected: 'false or { initialDelayMs?, maxDelayMs?, maxAttempts? }',
      test: (value) => value === false || isRecord(value),
      fields: RECONNECT_OPTIONS,
    },
    connectTimeoutMs: { ...aDuration(1), says: numberSays(1, MAX_TIMEOUT_MS) },
    highWaterMarkBytes: { ...anInteger({ min: 1 }), says: numberSays(1) },
    WebSocket: aFunction,
    logger: {
      expected: 'a logger',
      test: isLogger,
      says: () => 'must have debug, info, warn and error methods',
    },
    redact: anArrayOf({
      expected: 'a string or RegExp',
      test: isRedactRule,
      says: (value) =>
        typeof value === 'string'
          ? 'strings must have at least 4 characters (shorter ones would scrub ordinary words)'
          : value instanceof RegExp
            ? 'a RegExp must not match the empty string'
            : 'items must be strings or RegExps',
    }),
    onApproval: aFunction,
  },
};

const CLIENT_OWNER: OptionsOwner = {
  name: 'new Client(options)',
  error: OptionsError,
  notObjectCode: 'invalid_option',
  unknownCode: 'invalid_option',
  show: describe,
  formats: {
    unknown: (_owner, keys) =>
      `Invalid Client option: unknown option(s) ${JSON.stringify(keys.map(({ key }) => key))}`,
    invalid: (_owner, path, says, shown) => `Invalid Client option: ${path} ${says} (got ${shown})`,
  },
};

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
 * @throws OptionsError `invalid_option` naming the field and the value, or `duplicate_tool`.
 */
export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  if (typeof options !== 'object' || options === null) checkOptions(options, CLIENT_OPTIONS, CLIENT_OWNER);
  const withEnv = {
    ...options,
    url: options.url ?? env('TOOLWIRE_URL'),
    apiKey: options.apiKey ?? env('TOOLWIRE_API_KEY'),
  };
  if (withEnv.url === undefined)
    throw new OptionsError('invalid_option', 'Client option "url" is required (or set TOOLWIRE_URL)');
  if (withEnv.apiKey === undefined) {
    throw new OptionsError('invalid_option', 'Client option "apiKey" is required (or set TOOLWIRE_API_KEY)');
  }
  checkOptions(withEnv, CLIENT_OPTIONS, CLIENT_OWNER);
  const reconnect =
    options.reconnect === false ? false : { ...CLIENT_DEFAULTS.reconnect, ...options.reconnect };
  if (reconnect !== false && reconnect.initialDelayMs > reconnect.maxDelayMs) {
    throw new OptionsError(
      'invalid_option',
      `Invalid Client option: reconnect.initialDelayMs (${reconnect.initialDelayMs}) must not exceed reconnect.maxDelayMs (${reconnect.maxDelayMs})`,
    );
  }
  const seen = new Set<string>();
  for (const item of options.tools) {
    if (seen.has(item.name))
      throw new OptionsError('duplicate_tool', `Client option "tools": two tools are named "${item.name}"`);
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

/** Checks `run()`'s arguments before anything is sent, so a mistake is an immediate, named error. */
export function checkRunArguments(agent: unknown, input: unknown, options: { maxTurns?: number }): void {
  if (!(agent instanceof Agent)) {
    throw new OptionsError('invalid_agent', 'run(): agent must be made with new Agent(...)');
  }
  if (typeof input !== 'string') {
    throw new OptionsError('invalid_input', `run(): input must be a string, got ${typeof input}`);
  }
  const { maxTurns } = options;
  if (maxTurns !== undefined && !(Number.isInteger(maxTurns) && maxTurns >= 1)) {
    throw new OptionsError(
      'invalid_option',
      `run(): maxTurns must be a positive integer, got ${String(maxTurns)}`,
    );
  }
}
