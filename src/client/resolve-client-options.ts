/**
 * The checks made when a `Client` is built ({@link ClientOptions}), and the options with every default applied.
 *
 * @module
 */

import { OptionsError } from '../errors';
import { displayUrl, secretScrubber } from '../logger';
import {
  aDuration,
  aFunction,
  anArrayOf,
  anInteger,
  anything,
  aString,
  checkOptions,
  describeSecret,
  describeValue,
  isRecord,
  type OptionsOwner,
  type OptionsSpec,
  optionsFault,
} from '../tool/check-options';
import { aToolSet, toTools, uniqueTools } from '../tool/structural';
import type { Tool } from '../tool/tool';
import type { ReconnectOptions } from '../wire/connection';
import { CLIENT_DEFAULTS, type ClientOptions } from './client-options';
import { CLOSE_DEFAULTS } from './run-options';
import type { ToolTracing } from './trace-types';

const RECONNECT_OPTIONS: OptionsSpec<ReconnectOptions> = {
  rules: {
    initialDelayMs: aDuration(0),
    maxDelayMs: aDuration(0),
    maxAttempts: anInteger({ min: 0, infinity: true }),
  },
  aliases: {
    retries: 'maxAttempts',
    maxRetries: 'maxAttempts',
    attempts: 'maxAttempts',
    delayMs: 'initialDelayMs',
    initialDelay: 'initialDelayMs',
    minDelay: 'initialDelayMs',
    minDelayMs: 'initialDelayMs',
    maxDelay: 'maxDelayMs',
  },
};

const SIGNAL_OPTIONS: OptionsSpec<{ timeoutMs?: number }> = {
  rules: { timeoutMs: aDuration(0) },
  aliases: { timeout: 'timeoutMs', drainTimeoutMs: 'timeoutMs' },
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
      required: true,
      whenMissing: '(or set TOOLWIRE_URL)',
      // A token may travel in the query or the userinfo.
      show: (value, redact) => describeValue(typeof value === 'string' ? displayUrl(value) : value, redact),
    },
    apiKey: {
      ...aString('a non-empty string of printable ASCII without spaces (it travels in an HTTP header)', {
        pattern: /^[\x21-\x7e]+$/,
      }),
      required: true,
      whenMissing: '(or set TOOLWIRE_API_KEY)',
      // A secret, even when refused: shown by kind and size only (`got a string of 2 characters`).
      show: describeSecret,
    },
    tools: { ...aToolSet, required: true },
    context: anything,
    maxConcurrency: anInteger({ min: 1 }),
    maxQueue: anInteger({ min: 0 }),
    heartbeatIntervalMs: aDuration(1),
    reconnect: {
      expected: 'false or an object { initialDelayMs?, maxDelayMs?, maxAttempts? }',
      test: (value) => value === false || isRecord(value),
      fields: RECONNECT_OPTIONS,
    },
    connectTimeoutMs: aDuration(1),
    highWaterMarkBytes: anInteger({ min: 1, unit: 'bytes' }),
    // At least the smallest frame limit a service may announce (PROTOCOL.md §15): a frame larger than it is never sent.
    maxBufferedBytes: anInteger({ min: 1_024, unit: 'bytes' }),
    maxOutboxBytes: anInteger({ min: 1, unit: 'bytes' }),
    WebSocket: aFunction,
    logger: { expected: 'a logger with debug, info, warn and error methods', test: isLogger },
    // The rules are secrets themselves: shown by kind and size only.
    redact: {
      ...anArrayOf(
        {
          expected:
            'a string of 4 characters or more (shorter ones would scrub ordinary words) or a RegExp that does not match the empty string',
          test: isRedactRule,
          show: describeSecret,
        },
        'an array of strings and RegExps',
      ),
      show: describeSecret,
    },
    onApproval: aFunction,
    onQuestion: aFunction,
    tracing: {
      expected: 'an object with a startCall method, such as otelTracing() from toolwire/otel',
      test: (value) => typeof (value as Partial<ToolTracing> | null)?.startCall === 'function',
    },
    handleSignals: {
      expected: 'true, false or an object { timeoutMs? }',
      test: (value) => typeof value === 'boolean' || isRecord(value),
      fields: SIGNAL_OPTIONS,
    },
    policies: anArrayOf(aFunction, 'an array of functions'),
  },
  aliases: {
    endpoint: 'url',
    address: 'url',
    baseURL: 'url',
    baseUrl: 'url',
    key: 'apiKey',
    token: 'apiKey',
    authToken: 'apiKey',
    concurrency: 'maxConcurrency',
    maxConcurrentCalls: 'maxConcurrency',
    queueSize: 'maxQueue',
    maxQueueSize: 'maxQueue',
    heartbeatInterval: 'heartbeatIntervalMs',
    pingInterval: 'heartbeatIntervalMs',
    pingIntervalMs: 'heartbeatIntervalMs',
    autoReconnect: 'reconnect',
    retry: 'reconnect',
    timeout: 'connectTimeoutMs',
    connectTimeout: 'connectTimeoutMs',
    timeoutMs: 'connectTimeoutMs',
    highWaterMark: 'highWaterMarkBytes',
    maxBufferedAmount: 'maxBufferedBytes',
    maxOutboxSize: 'maxOutboxBytes',
    webSocketImpl: 'WebSocket',
    WebSocketImpl: 'WebSocket',
    ws: 'WebSocket',
    redactions: 'redact',
    secrets: 'redact',
    approve: 'onApproval',
    approval: 'onApproval',
    askQuestion: 'onQuestion',
    policy: 'policies',
    toolPolicies: 'policies',
    onAsk: 'onQuestion',
    tracer: 'tracing',
    telemetry: 'tracing',
    otel: 'tracing',
    signals: 'handleSignals',
    drainOnSignals: 'handleSignals',
    handleSignal: 'handleSignals',
  },
};

const CLIENT_OWNER: OptionsOwner = { name: 'new Client(options)', error: OptionsError };

/** Options with every default applied. */
export interface ResolvedClientOptions
  extends Required<
    Pick<
      ClientOptions,
      | 'url'
      | 'apiKey'
      | 'maxConcurrency'
      | 'maxQueue'
      | 'connectTimeoutMs'
      | 'highWaterMarkBytes'
      | 'maxBufferedBytes'
      | 'maxOutboxBytes'
      | 'redact'
    >
  > {
  reconnect: ReconnectOptions | false;
  /** How long a drain on a signal may take, in milliseconds; `undefined` without `handleSignals`. */
  signalDrainMs: number | undefined;
  /** `tools` made into tools (src/tool/structural.ts). */
  // biome-ignore lint/suspicious/noExplicitAny: a heterogeneous list of tools; each keeps its own types.
  tools: Tool<any, any, any>[];
}

function env(name: string): string | undefined {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];
}

/**
 * Checks options and applies defaults.
 * @throws OptionsError `invalid_options` (not an object), `unknown_option` (with "did you mean"),
 *   `invalid_option` naming the option and the value, `not_a_tool` or `duplicate_tool`; ToolDefinitionError for
 *   a tool of `tools` that is refused (as `tool()` refuses it, naming the tool and the field). No message shows a
 *   secret: values are scrubbed of the API key and the `redact` rules, `url` is shown without its userinfo,
 *   query and fragment, and the API key and redact rules themselves only by kind and size.
 */
export function resolveClientOptions(options: ClientOptions): ResolvedClientOptions {
  // Options that are no object may be the URL, given alone.
  if (!isRecord(options)) checkOptions(options, CLIENT_OPTIONS, { ...CLIENT_OWNER, redact: displayUrl });
  const withEnv = {
    ...options,
    url: options.url ?? env('TOOLWIRE_URL'),
    apiKey: options.apiKey ?? env('TOOLWIRE_API_KEY'),
  };
  // Every value a message shows is scrubbed of the key and the rules, whatever their length or validity.
  const rules: unknown = withEnv.redact;
  const owner: OptionsOwner = {
    ...CLIENT_OWNER,
    redact: secretScrubber([withEnv.apiKey, ...(Array.isArray(rules) ? rules : [rules])]),
  };
  checkOptions(withEnv, CLIENT_OPTIONS, owner);
  // Field by field: a field given as `undefined` (a spread config) takes its default, as a missing one does.
  const given = options.reconnect;
  const reconnect =
    given === false
      ? false
      : {
          initialDelayMs: given?.initialDelayMs ?? CLIENT_DEFAULTS.reconnect.initialDelayMs,
          maxDelayMs: given?.maxDelayMs ?? CLIENT_DEFAULTS.reconnect.maxDelayMs,
          maxAttempts: given?.maxAttempts ?? CLIENT_DEFAULTS.reconnect.maxAttempts,
        };
  if (reconnect !== false && reconnect.initialDelayMs > reconnect.maxDelayMs) {
    optionsFault(
      owner,
      'invalid_option',
      `reconnect.initialDelayMs (${describeValue(reconnect.initialDelayMs, owner.redact)}) must not exceed reconnect.maxDelayMs (${describeValue(reconnect.maxDelayMs, owner.redact)})`,
    );
  }
  const highWaterMarkBytes = options.highWaterMarkBytes ?? CLIENT_DEFAULTS.highWaterMarkBytes;
  const maxBufferedBytes = options.maxBufferedBytes ?? CLIENT_DEFAULTS.maxBufferedBytes;
  if (maxBufferedBytes < highWaterMarkBytes) {
    optionsFault(
      owner,
      'invalid_option',
      `maxBufferedBytes (${describeValue(maxBufferedBytes, owner.redact)}) must not be less than highWaterMarkBytes (${describeValue(highWaterMarkBytes, owner.redact)})`,
    );
  }
  // The same tool listed twice is kept once; two different tools may not share a name.
  const tools = uniqueTools(toTools(options.tools, CLIENT_OWNER.name), (name) =>
    optionsFault(
      owner,
      'duplicate_tool',
      `two different tools are named ${describeValue(name, owner.redact)}`,
    ),
  );
  return {
    // Both checked above as required.
    url: withEnv.url as string,
    apiKey: withEnv.apiKey as string,
    maxConcurrency: options.maxConcurrency ?? CLIENT_DEFAULTS.maxConcurrency,
    maxQueue: options.maxQueue ?? CLIENT_DEFAULTS.maxQueue,
    connectTimeoutMs: options.connectTimeoutMs ?? CLIENT_DEFAULTS.connectTimeoutMs,
    highWaterMarkBytes,
    maxBufferedBytes,
    maxOutboxBytes: options.maxOutboxBytes ?? CLIENT_DEFAULTS.maxOutboxBytes,
    redact: options.redact ?? [],
    reconnect,
    signalDrainMs: !options.handleSignals
      ? undefined
      : ((options.handleSignals === true ? undefined : options.handleSignals.timeoutMs) ??
        CLOSE_DEFAULTS.timeoutMs),
    tools,
  };
}
