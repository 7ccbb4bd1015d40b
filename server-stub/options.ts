/**
 * Options of {@link startStubServer}: one object, one defaults literal, each value checked when the server
 * starts, with a message naming the field and the value.
 *
 * @module
 */
import { OptionsError } from '../src/errors';
import { MAX_TIMEOUT_MS } from '../src/limits';
import type { Logger } from '../src/logger';
import { describeSecret, describeValue, unknownKeysText } from '../src/tool/check-options';
import { ruleOf } from '../src/wire/issue-text';
import {
  type AgentDefinition,
  clientFrames,
  FEATURES,
  type Feature,
  featureOf,
  MIN_HEARTBEAT_INTERVAL_MS,
  PROTOCOL_DEFAULTS,
  type RetiredFeature,
} from '../src/wire/protocol';
import { MAX_WS_PAYLOAD } from '../src/wire/transport';
import { keyProblem } from './auth';
import { type ApiKeyEntry, checkApiKeyEntries, keyOf } from './fleet';
import { describeIssue } from './http-bodies';
import { consoleLogger } from './logger';
import type { Model } from './model';
import { problemsText, scriptedModel } from './scripted-model';

/**
 * Options of {@link startStubServer}. Durations are in milliseconds, sizes in bytes. Every number is an integer: a
 * duration at most 2,147,483,647 (`MAX_TIMEOUT_MS`, the longest timer), a count or a size at most
 * `Number.MAX_SAFE_INTEGER` where its entry says no less; any other value is refused (`OptionsError`
 * `invalid_option`, naming the option, its bound and the value).
 */
export interface StubServerOptions {
  /** TCP port, 0 to 65,535; `0` picks a free one (read it from `url`). @default 0 */
  port?: number;
  /**
   * Interface to bind. Bound to a loopback address, the stub answers only requests addressed to a loopback name
   * (`localhost`, `127.x.x.x`, `[::1]`; 403 `host_not_allowed` otherwise, against DNS rebinding). @default '127.0.0.1'
   */
  host?: string;
  /**
   * Accepted API keys, for both the WebSocket and the HTTP API: each a string (a tenant of its own) or
   * `{ key, tenant }` (a key of a named tenant, as `server.setApiKeys` takes; docs/protocol/keys.md). A key is 1
   * to 4,096 printable ASCII characters without spaces (what a client can send in `Authorization: Bearer <key>`),
   * and may not be listed for two tenants. When absent or empty, any key (or none) is accepted and the server says so
   * through the logger.
   */
  apiKeys?: readonly ApiKeyEntry[];
  /**
   * The key of the operator routes (`/v1/admin/keys`, `/v1/admin/build`: docs/protocol/http-api.md), which change
   * the accepted keys and the current build at run time; 1 to 4,096 printable ASCII characters without spaces,
   * none of `apiKeys`. @default none: the operator routes are off (404)
   */
  adminKey?: string;
  /**
   * Origins of other web pages allowed to call the HTTP API from a browser (CORS), each `scheme://host[:port]`
   * (http or https), e.g. `['http://localhost:5173']`; an address as copied from the address bar (a trailing `/`,
   * capitals, the scheme's default port) is read as the origin a browser sends. Anything else is refused
   * (`OptionsError`). A request that a browser sends from any other
   * origin (its `Origin` header names neither one of these nor the stub itself) is refused with 403
   * `origin_not_allowed`, and no CORS header lets such a page read an answer: a page on another site cannot drive
   * the stub, even one that accepts any key; while it accepts any key, such a page cannot open its WebSocket
   * either. Requests without `Origin` (curl, servers, the SDK) are not affected.
   * @default [] (only the stub's own pages, such as the agent UI)
   */
  corsOrigins?: readonly string[];
  /**
   * The model that plays every run. @default scriptedModel([]): a scripted model with no script, so every run
   * fails with a `no_script` error saying so (give it a script, or a real model such as `openAIChatModel`).
   */
  model?: Model;
  /** Agents that `POST /v1/runs` may start by name. */
  agents?: readonly AgentDefinition[];
  /**
   * Announced in `welcome`; a connection silent for two intervals is closed with 4008. At least 100
   * (`MIN_HEARTBEAT_INTERVAL_MS`). @default 15_000
   */
  heartbeatIntervalMs?: number;
  /** How long a call may go without a result before it is cancelled with status `timeout`. @default 120_000 */
  callDeadlineMs?: number;
  /** How long a dropped session stays resumable. @default 60_000 */
  sessionGraceMs?: number;
  /**
   * With the feature `lease` (docs/protocol/lease.md): how long a call's lease lasts without renewal; a running call
   * whose client keeps renewing it is not cut at `callDeadlineMs`. At least 1,000. @default 45_000
   */
  leaseMs?: number;
  /** With the feature `lease`: the longest a leased call may run, from the model's request. @default 86_400_000 */
  maxCallDurationMs?: number;
  /**
   * Largest frame accepted (a larger one closes the socket with 1009). From 1,024 to 536,870,888 (`MAX_WS_PAYLOAD`:
   * a frame becomes one string, and V8 makes none longer). @default 1_048_576
   */
  maxPayloadBytes?: number;
  /** How long a new connection may take to send `hello` before it is closed with 4003. @default 10_000 */
  helloTimeoutMs?: number;
  /** Sustained frames per second one connection may send before it is closed with 4029. @default 2_000 */
  maxFramesPerSecond?: number;
  /** Frames a connection may send in a burst above the sustained rate. @default 4_000 */
  maxFrameBurst?: number;
  /** Model turns a run may take when `run_start` / `POST /v1/runs` does not say. @default 10 */
  maxTurns?: number;
  /** Deepest nesting of runs (a top-level run has depth 0). @default 8 */
  maxRunDepth?: number;
  /** Runs one session may have in progress at once. @default 64 */
  maxRunsPerSession?: number;
  /** Delay before a call answered "busy" (`retryable`) is offered again when no other client can take it. @default 250 */
  busyRetryMs?: number;
  /**
   * A call handed back to another worker (feature `hand_back`, docs/protocol/fleets.md) may be asked back again
   * once it has waited this long, in milliseconds, since it was last asked: it moves on at most this often, never
   * from worker to worker within a moment. @default 1_000
   */
  handBackAgainMs?: number;
  /**
   * Largest HTTP request body accepted (a larger one gets 413). At most 536,870,888, as `maxPayloadBytes`.
   * @default 1_048_576
   */
  maxHttpBodyBytes?: number;
  /**
   * Unsent bytes a socket may hold before the stub closes it with 1008: a client that stops reading cannot make
   * the stub buffer without bound. @default 16_777_216 (16 MiB)
   */
  maxBufferedBytes?: number;
  /** Where the stub logs. @default consoleLogger() (stderr, no debug) */
  logger?: Logger;
  /**
   * The protocol features (docs/protocol/index.md) the stub uses with clients that offer them; `[]` makes it a plain
   * version-1 service, as an older one would be. A retired name (`agent_name`) is read as the feature that
   * replaced it (`FEATURE_ALIASES`). @default every one of `FEATURES`
   */
  features?: readonly (Feature | RetiredFeature)[];
}

/** Default values of {@link StubServerOptions}. */
export const STUB_DEFAULTS = {
  port: 0,
  host: '127.0.0.1',
  heartbeatIntervalMs: PROTOCOL_DEFAULTS.heartbeatIntervalMs,
  callDeadlineMs: PROTOCOL_DEFAULTS.callDeadlineMs,
  sessionGraceMs: PROTOCOL_DEFAULTS.sessionGraceMs,
  leaseMs: 45_000,
  maxCallDurationMs: 86_400_000,
  maxPayloadBytes: PROTOCOL_DEFAULTS.maxPayloadBytes,
  helloTimeoutMs: 10_000,
  maxFramesPerSecond: 2_000,
  maxFrameBurst: 4_000,
  maxTurns: 10,
  maxRunDepth: 8,
  maxRunsPerSession: 64,
  busyRetryMs: 250,
  handBackAgainMs: 1_000,
  maxHttpBodyBytes: 1_048_576,
  maxBufferedBytes: 16_777_216,
} as const;

/** Options after defaults and checks. */
export interface ResolvedStubOptions
  extends Required<
    Omit<
      StubServerOptions,
      'apiKeys' | 'adminKey' | 'corsOrigins' | 'agents' | 'model' | 'logger' | 'features'
    >
  > {
  /** `undefined`: the operator routes are off. */
  adminKey: string | undefined;
  /** Origins allowed to call the HTTP API from a browser, besides the stub's own. */
  corsOrigins: ReadonlySet<string>;
  /** `undefined`: any key is accepted. */
  apiKeys: readonly ApiKeyEntry[] | undefined;
  agents: ReadonlyMap<string, AgentDefinition>;
  model: Model;
  logger: Logger;
  features: ReadonlySet<Feature>;
}

const KNOWN_KEYS = new Set<string>([
  ...Object.keys(STUB_DEFAULTS),
  'apiKeys',
  'adminKey',
  'corsOrigins',
  'agents',
  'model',
  'logger',
  'features',
]);

/** Names a user may bring from the CLI's flags or other servers, and the option each means here. */
const STUB_OPTION_ALIASES: Readonly<Record<string, string>> = {
  apiKey: 'apiKeys',
  key: 'apiKeys',
  keys: 'apiKeys',
  cors: 'corsOrigins',
  origins: 'corsOrigins',
  script: 'model',
};

/**
 * Applies defaults and checks every option.
 * @throws OptionsError `invalid_option` naming the field and the value.
 */
export function resolveStubOptions(options: StubServerOptions = {}): ResolvedStubOptions {
  const unknown = Object.keys(options).filter((key) => !KNOWN_KEYS.has(key));
  // As the SDK's own options say it: a likely name, else every name (the CLI's `--api-key` is `apiKeys` here).
  if (unknown.length > 0) fail(unknownKeysText(unknown, [...KNOWN_KEYS], { aliases: STUB_OPTION_ALIASES }));
  const numbers = {} as Record<keyof typeof STUB_DEFAULTS, number>;
  for (const key of Object.keys(STUB_DEFAULTS) as Array<keyof typeof STUB_DEFAULTS>) {
    if (key === 'host') continue;
    const value = (options as Record<string, unknown>)[key] ?? STUB_DEFAULTS[key];
    const min = MINIMUMS[key] ?? 1;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
      fail(`${key} must be an integer ≥ ${min}, got ${describe(value)}`);
    }
    const [max, why] = key.endsWith('Ms') ? LONGEST_TIMER : (MAXIMUMS[key] ?? LARGEST_COUNT);
    if (value > max) fail(`${key} must be at most ${max} (${why}), got ${describe(value)}`);
    numbers[key] = value;
  }
  const host = options.host ?? STUB_DEFAULTS.host;
  if (typeof host !== 'string' || host.length === 0)
    fail(`host must be a non-empty string, got ${describe(host)}`);
  let apiKeys: ApiKeyEntry[] | undefined;
  if (options.apiKeys !== undefined) {
    if (!Array.isArray(options.apiKeys))
      // The keys are secrets: shown by kind and size only.
      fail(`apiKeys must be an array of strings, got ${describeSecret(options.apiKeys)}`);
    try {
      apiKeys = checkApiKeyEntries(options.apiKeys, 'apiKeys');
    } catch (error) {
      fail((error as Error).message);
    }
    if (apiKeys?.length === 0) apiKeys = undefined;
  }
  const { adminKey } = options;
  if (adminKey !== undefined) {
    const problem = keyProblem(adminKey);
    // The key is a secret: described by kind and size only.
    if (problem !== undefined) fail(`adminKey ${problem}`);
    if (apiKeys?.some((entry) => keyOf(entry) === adminKey))
      fail("adminKey must not be one of apiKeys: it is no tenant's key");
  }
  const corsOrigins = new Set<string>();
  if (options.corsOrigins !== undefined && !Array.isArray(options.corsOrigins))
    fail(`corsOrigins must be an array of origins, got ${describe(options.corsOrigins)}`);
  for (const [index, given] of (options.corsOrigins ?? []).entries()) {
    const origin = originOf(given);
    if (origin === undefined)
      fail(
        `corsOrigins[${index}] must be an origin, scheme://host[:port] with no path (e.g. "http://localhost:5173"), got ${describe(given)}`,
      );
    corsOrigins.add(origin);
  }
  const { agents, problems: badAgents } = readAgents(options.agents);
  if (badAgents.length > 0) fail(problemsText(badAgents, 'agents'));
  if (options.features !== undefined && !Array.isArray(options.features))
    fail(`features must be an array, got ${describe(options.features)}`);
  const features = new Set<Feature>();
  for (const name of options.features ?? FEATURES) {
    const feature = featureOf(name);
    if (feature === undefined)
      fail(`features: unknown feature ${describe(name)} (known: ${FEATURES.join(', ')})`);
    features.add(feature);
  }
  const model = options.model ?? scriptedModel([]);
  if (typeof model?.nextTurn !== 'function') fail('model must have a nextTurn(request) method');
  return {
    ...numbers,
    host,
    apiKeys,
    adminKey,
    corsOrigins,
    agents,
    model,
    logger: options.logger ?? consoleLogger(),
    features,
  };
}

const MINIMUMS: Partial<Record<keyof typeof STUB_DEFAULTS, number>> = {
  port: 0,
  heartbeatIntervalMs: MIN_HEARTBEAT_INTERVAL_MS,
  sessionGraceMs: 0,
  busyRetryMs: 0,
  handBackAgainMs: 0,
  maxPayloadBytes: 1024,
  maxBufferedBytes: 1024,
  leaseMs: 1000,
};

/** The largest value of an option, and why, as its refusal says it. */
type Maximum = readonly [max: number, why: string];

/**
 * Of a duration: past the longest timer, `setTimeout` fires after 1 ms (a 30-day deadline would end every call at
 * once).
 */
const LONGEST_TIMER: Maximum = [MAX_TIMEOUT_MS, 'the longest timer'];

/**
 * Of a count (turns, depth, runs, frames) and of a number of bytes held: past it, adding 1 changes nothing
 * (2 ** 53 + 1 === 2 ** 53), so a count would never reach its bound.
 */
const LARGEST_COUNT: Maximum = [Number.MAX_SAFE_INTEGER, 'the largest integer a number holds exactly'];

/** The options with a bound of their own; every other one is a duration or a count. */
const MAXIMUMS: Partial<Record<keyof typeof STUB_DEFAULTS, Maximum>> = {
  port: [65_535, 'the largest TCP port'],
  // A frame and a body become one string, which V8 makes of at most 2^29 − 24 UTF-16 units (a UTF-8 byte gives at
  // most one): a larger one would throw where nothing catches it. `ws` reads a larger `maxPayload` as none at all
  // besides (`| 0`: 2^32 is 0).
  maxPayloadBytes: [MAX_WS_PAYLOAD, 'the longest string V8 makes of a frame'],
  maxHttpBodyBytes: [MAX_WS_PAYLOAD, 'the longest string V8 makes of a body'],
};

/**
 * The origin `value` names, as a browser sends it in `Origin` (lower-case, no default port), or `undefined` when it
 * names none: an http(s) address with nothing past its origin but the `/` a copied address ends with.
 */
function originOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    // No path, query, fragment or credentials: the address is its origin and a `/`.
    return url.href === `${url.origin}/` ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/**
 * An agents list (`agents`, an `--agents` file) read: its definitions by name, and every problem at once, each at
 * its place and saying why (`agents[1] is not a valid agent definition: tools must be an array`), so that one who
 * fixes the file fixes them all; {@link problemsText} makes the refusal. A list that is not an array (a file of one
 * definition, or of `null`) is one problem, said as such. `undefined`: no agents.
 */
export function readAgents(given: unknown): { agents: Map<string, AgentDefinition>; problems: string[] } {
  const agents = new Map<string, AgentDefinition>();
  if (given === undefined) return { agents, problems: [] };
  if (!Array.isArray(given))
    return {
      agents,
      problems: [`agents must be an array of agent definitions, got ${describeValue(given)}`],
    };
  const problems: string[] = [];
  for (const [index, agent] of given.entries()) {
    const parsed = clientFrames().agentDefinitionSchema.safeParse(agent, { error: ruleOf });
    if (!parsed.success) {
      const why = parsed.error.issues.map(describeIssue).join('; ');
      problems.push(`agents[${index}] is not a valid agent definition: ${why}`);
    } else if (agents.has(parsed.data.name))
      problems.push(`agents[${index}]: the name "${parsed.data.name}" is used twice`);
    else agents.set(parsed.data.name, parsed.data);
  }
  return { agents, problems };
}

function fail(message: string): never {
  throw new OptionsError('invalid_option', `startStubServer: ${message}`);
}
