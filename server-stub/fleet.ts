/**
 * The stub's fleet state (docs/protocol/keys.md), in memory: the API keys it accepts now and their tenants
 * (changed at run time), the build each run is pinned to and the operator's current build, and the fleet-wide
 * limits of each tool (calls in flight and calls per second, across every session of a tenant).
 *
 * @module
 */

import { timeoutText } from '../src/tool/model-text';
import {
  BUILD_ID_PATTERN,
  type FleetLimits,
  MAX_BUILD_ID_CHARS,
  sameFleetLimits,
  type ToolDefinition,
} from '../src/wire/protocol';
import { keyAccepted, keyProblem } from './auth';
import type { Run } from './run';
import type { Session } from './session';

/** A key the stub accepts: a string is its own tenant; `{ key, tenant }` is a key of that tenant (a rotation). */
export type ApiKeyEntry = string | { key: string; tenant: string };

/** The key of an entry. */
export function keyOf(entry: ApiKeyEntry): string {
  return typeof entry === 'string' ? entry : entry.key;
}

/** The tenant of an entry: a key listed alone is a tenant of its own. */
export function tenantOfEntry(entry: ApiKeyEntry): string {
  return typeof entry === 'string' ? entry : entry.tenant;
}

/**
 * Checks a list of keys: each a non-empty string or `{ key, tenant }` of non-empty strings, each key one a client
 * can send (`Authorization: Bearer <key>`: 1 to 4,096 printable ASCII characters without spaces, as the client
 * checks its own).
 * @throws TypeError naming the entry at fault (`apiKeys[2]`), never a key; and as {@link repeatedKeyProblem}.
 */
export function checkApiKeyEntries(entries: readonly unknown[], where: string): ApiKeyEntry[] {
  for (const [index, entry] of entries.entries()) {
    const isObject = typeof entry === 'object' && entry !== null;
    const key: unknown = isObject ? (entry as { key?: unknown }).key : entry;
    const tenant: unknown = isObject ? (entry as { tenant?: unknown }).tenant : entry;
    if (typeof key !== 'string' || key === '' || typeof tenant !== 'string' || tenant === '')
      throw new TypeError(
        `${where}[${index}] must be a non-empty string or { key, tenant } of non-empty strings`,
      );
    // A key no client can send (a space, a non-ASCII character) would be accepted here and never matched.
    const problem = keyProblem(key);
    if (problem !== undefined) throw new TypeError(`${where}[${index}]${isObject ? '.key' : ''} ${problem}`);
  }
  const checked = entries as readonly ApiKeyEntry[];
  const repeated = repeatedKeyProblem(checked, where);
  if (repeated !== undefined) throw new TypeError(repeated);
  return [...checked];
}

/**
 * Why the list cannot be accepted: a key listed for two tenants (which would make every session of one of them
 * the other's); `undefined` when none is. The same key listed twice for the same tenant is harmless. Names the
 * entries by index (`keys[3]`), never a key.
 */
export function repeatedKeyProblem(entries: readonly ApiKeyEntry[], where: string): string | undefined {
  const seen = new Map<string, { index: number; tenant: string }>();
  for (const [index, entry] of entries.entries()) {
    const key = keyOf(entry);
    const tenant = tenantOfEntry(entry);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, { index, tenant });
    else if (first.tenant !== tenant)
      return `${where}[${index}] lists the key of ${where}[${first.index}] for another tenant: a key belongs to one tenant`;
  }
  return undefined;
}

/** How a run no client started is pinned to a build (`welcome.buildPolicy`). */
export type BuildPolicy = 'first_call' | 'current';

/** A tenant as the stub holds it: a string, or `undefined` for the one tenant of a stub that accepts any key. */
export type Tenant = string | undefined;

/** What a new key list did to the tenants that had keys before, besides keeping or renaming them. */
export interface KeyChange {
  /** Each tenant that goes on as another one, and that one: its sessions, runs and the rest are that tenant's now. */
  merged: Map<Tenant, Tenant>;
  /** The tenants left with no key under any name: closed, their sessions and runs end. */
  closed: Tenant[];
}

/**
 * The accepted keys and their tenants; `undefined` keys: any key is accepted and everyone is one tenant.
 *
 * A tenant is an account. The lists name it (a key listed alone names a tenant after itself), but sessions, runs
 * and the rest of the stub hold the tenant itself, which outlives a change of names and keys: the same name, or a
 * key it had, carries it into the next list (docs/protocol/keys.md, "Rotating API keys"). So a rotation resumes
 * its sessions and finishes its runs however the operator writes it, as long as the name or a key stays.
 */
export class KeyRing {
  /** Each accepted key's tenant. */
  #tenants: Map<string, string> | undefined;
  /** Each tenant by the name the list gives it. */
  #named = new Map<string, string>();
  /** Every tenant there has been: a new tenant never takes the identity of an old one (`<name>\0<n>` then). */
  readonly #used = new Set<string>();
  #made = 0;

  constructor(entries: readonly ApiKeyEntry[] | undefined) {
    this.#tenants = undefined;
    if (entries !== undefined) this.set(entries);
  }

  /**
   * Replaces the accepted keys (an empty list accepts any key, as no `apiKeys` does), and says what became of the
   * tenants that had keys before:
   * - A name listed before names the same tenant; a key listed now under another tenant that goes on under its
   *   own name has moved to that tenant (the sessions opened with it are the old tenant's).
   * - Another tenant goes on where the first of its keys still listed is listed now: named anew when that name is
   *   new to the list and the tenant is the first one there (a rename), else merged into the tenant of that name
   *   (its keys listed under other names have moved). Its keys split between two new names: the first one
   *   listed continues it.
   * - A tenant none of whose keys is listed is closed. A name listed later starts a new tenant.
   * - With no keys checked before, the one tenant's keys are `presented`, the keys its clients are connected with
   *   (oldest first): it merges into the tenant of the first one listed now. An empty list merges every tenant
   *   into the one tenant of a stub that accepts any key.
   * @throws TypeError as {@link checkApiKeyEntries}; the keys stay as they were.
   */
  set(entries: readonly ApiKeyEntry[], presented: readonly string[] = []): KeyChange {
    const checked = checkApiKeyEntries(entries, 'apiKeys');
    const merged = new Map<Tenant, Tenant>();
    const previous = this.#tenants;
    if (checked.length === 0) {
      for (const tenant of new Set(previous?.values())) merged.set(tenant, undefined);
      this.#tenants = undefined;
      this.#named = new Map();
      return { merged, closed: [] };
    }
    // The keys each tenant had: the list's, or the keys the one tenant of a stub that accepted any key was used with.
    const before = new Map<string, Tenant>(previous ?? presented.map((key) => [key, undefined]));
    const keysOf = new Map<string, string[]>();
    for (const entry of checked) {
      const name = tenantOfEntry(entry);
      const keys = keysOf.get(name) ?? [];
      keys.push(keyOf(entry));
      keysOf.set(name, keys);
    }
    const named = new Map<string, string>();
    for (const name of keysOf.keys()) {
      const tenant = this.#named.get(name);
      if (tenant !== undefined) named.set(name, tenant);
    }
    const kept = new Set<Tenant>(named.values());
    // Each other tenant's first key listed now, in the order of the list: the name it goes on under.
    const goesTo = new Map<Tenant, string>();
    for (const [name, keys] of keysOf)
      for (const key of keys) {
        if (!before.has(key)) continue;
        const tenant = before.get(key);
        if (!kept.has(tenant) && !goesTo.has(tenant)) goesTo.set(tenant, name);
      }
    for (const [tenant, name] of goesTo)
      if (tenant !== undefined && !named.has(name)) named.set(name, tenant);
    for (const name of keysOf.keys()) {
      if (named.has(name)) continue;
      let tenant = name;
      while (this.#used.has(tenant)) tenant = `${name}\0${++this.#made}`;
      named.set(name, tenant);
      this.#used.add(tenant);
    }
    for (const [tenant, name] of goesTo) {
      const into = named.get(name);
      if (into !== tenant) merged.set(tenant, into);
    }
    const olds = previous === undefined ? [undefined] : new Set(previous.values());
    const closed = [...olds].filter((tenant) => !kept.has(tenant) && !goesTo.has(tenant));
    const tenants = new Map<string, string>();
    for (const [name, keys] of keysOf) for (const key of keys) tenants.set(key, named.get(name) as string);
    this.#tenants = tenants;
    this.#named = named;
    return { merged, closed };
  }

  /** How many distinct keys are accepted (0: any key). */
  get size(): number {
    return this.#tenants?.size ?? 0;
  }

  /** `true` when keys are checked at all. */
  get checked(): boolean {
    return this.#tenants !== undefined;
  }

  /** The accepted keys, for the comparisons of server-stub/auth.ts. */
  get keys(): ReadonlySet<string> | undefined {
    return this.#tenants === undefined ? undefined : new Set(this.#tenants.keys());
  }

  accepts(key: string): boolean {
    return keyAccepted(this.keys, key);
  }

  /** The tenant the list names `name` (a key listed alone names its own), or `undefined` when no key has it. */
  tenantNamed(name: string): string | undefined {
    return this.#named.get(name);
  }

  /**
   * The tenant of `key`: `undefined` when keys are not checked (one tenant for all); `null` (no tenant) when they
   * are and `key` is not accepted, or absent. Not a check in constant time: authenticate with {@link accepts}.
   */
  tenantOf(key: string | undefined): Tenant | null {
    if (this.#tenants === undefined) return undefined;
    return key === undefined ? null : (this.#tenants.get(key) ?? null);
  }

  /** Each accepted key with its tenant, in the order of the list (none while any key is accepted). */
  entries(): Array<[key: string, tenant: string]> {
    return [...(this.#tenants ?? [])];
  }
}

/** What a build id must be, for the messages that refuse one. */
export const BUILD_ID_RULE = `1 to ${MAX_BUILD_ID_CHARS} printable ASCII characters without spaces`;

/** Why `buildId` is no build id (`must be …, got …`), never echoing it; `undefined` when it is one. */
export function buildIdProblem(buildId: unknown): string | undefined {
  if (typeof buildId === 'string' && BUILD_ID_PATTERN.test(buildId)) return undefined;
  const got =
    typeof buildId === 'string'
      ? `a string of ${buildId.length} characters`
      : buildId === null
        ? 'null'
        : typeof buildId;
  return `must be ${BUILD_ID_RULE}, got ${got}`;
}

/** `welcome.buildPolicy` and `welcome.currentBuildId` for a tenant whose current build is `current`. */
export function buildPolicyOf(current: string | undefined): {
  buildPolicy: BuildPolicy;
  currentBuildId?: string;
} {
  return current === undefined
    ? { buildPolicy: 'first_call' }
    : { buildPolicy: 'current', currentBuildId: current };
}

/** What the model reads of a call whose deadline passed while its tool's fleet-wide limits held it back. */
export function fleetHeldText(toolName: string, deadlineMs: number, limits: string): string {
  return `${timeoutText(toolName, deadlineMs)}: the tool's fleet-wide limit (${limits}) held it back`;
}

/** The text a call that waited in vain for a worker of its run's build ends with. */
export function noBuildText(toolName: string, buildId: string, deadlineMs: number): string {
  return `Error running ${toolName}: no worker of build ${buildId} was connected within ${deadlineMs}ms`;
}

/** `true` when the session may run calls of `run`: the run is pinned to no build, or to the session's. */
export function sameBuild(run: Run, session: Session): boolean {
  return run.buildId === undefined || run.buildId === session.buildId;
}

/** `true` when a live session of the run's tenant and build offers the tool. */
export function buildOffers(run: Run, toolName: string, sessions: ReadonlyMap<string, Session>): boolean {
  for (const session of sessions.values()) {
    if (
      session.state !== 'expired' &&
      !session.left &&
      session.tenant === run.tenant &&
      sameBuild(run, session) &&
      session.tools.has(toolName)
    )
      return true;
  }
  return false;
}

export function describeLimits(limits: FleetLimits | undefined): string {
  if (limits === undefined) return 'none';
  const parts: string[] = [];
  if (limits.concurrency !== undefined) parts.push(`concurrency ${limits.concurrency}`);
  if (limits.perSecond !== undefined) parts.push(`perSecond ${limits.perSecond}`);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

/**
 * Why `tools`, announced by a session of `tenant`, cannot join the fleet: the first tool whose `fleet` limits
 * differ from those a connected session of the tenant announced (not `self`, a session being resumed or
 * updated), or `undefined` when they agree. A detached session does not count (it is checked when it resumes), nor
 * one whose client has left (server-stub/session.ts `left`).
 */
export function fleetConflict(
  tools: readonly ToolDefinition[],
  tenant: string | undefined,
  sessions: ReadonlyMap<string, Session>,
  self: Session | undefined,
): string | undefined {
  return fleetConflicts(tools, tenant, sessions, self)[0]?.reason;
}

/** Every tool of `tools` whose `fleet` limits disagree with the fleet's, and why (see {@link fleetConflict}). */
export function fleetConflicts(
  tools: readonly ToolDefinition[],
  tenant: string | undefined,
  sessions: ReadonlyMap<string, Session>,
  self: Session | undefined,
): Array<{ toolName: string; fleet: FleetLimits | undefined; reason: string }> {
  const found: Array<{ toolName: string; fleet: FleetLimits | undefined; reason: string }> = [];
  for (const tool of tools) {
    for (const other of sessions.values()) {
      if (other === self || other.state !== 'connected' || other.left || other.tenant !== tenant) continue;
      const theirs = other.tools.get(tool.name);
      if (theirs === undefined || sameFleetLimits(theirs.fleet, tool.fleet)) continue;
      // Short: a close reason fits in 123 bytes.
      const reason = `fleet limits of ${tool.name} disagree: this worker ${describeLimits(tool.fleet)}, the fleet ${describeLimits(theirs.fleet)}`;
      found.push({ toolName: tool.name, fleet: tool.fleet, reason });
      break;
    }
  }
  return found;
}

interface Bucket {
  readonly tenant: Tenant;
  readonly toolName: string;
  inFlight: number;
  /** The times (ms) of the last starts, oldest first: cut to `max(1, ⌊perSecond⌋)` of them at each start. */
  starts: number[];
}

/**
 * Counts calls of each (tenant, tool) with `fleet` limits: in flight (dispatched, no worker's result yet) and
 * started, over a sliding window: at most `n = max(1, ⌊perSecond⌋)` starts in any `n / perSecond` seconds (with an
 * integer `perSecond`, at most `perSecond` starts in any 1,000 ms), never a burst of twice that at first.
 */
export class FleetLimiter {
  readonly #buckets = new Map<string, Bucket>();
  /** The bucket each counted call is in and the session running it, by call id. */
  readonly #counted = new Map<string, { bucket: string; sessionId: string | undefined }>();
  readonly #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
  }

  /**
   * `0` when a call of this tool may be dispatched now; else how many milliseconds until it may be tried again
   * (`Infinity`: when a call in flight ends).
   */
  waitFor(tenant: string | undefined, toolName: string, limits: FleetLimits): number {
    const bucket = this.#bucket(tenant, toolName);
    if (limits.concurrency !== undefined && bucket.inFlight >= limits.concurrency)
      return Number.POSITIVE_INFINITY;
    if (limits.perSecond !== undefined) {
      const { size, windowMs } = rateWindow(limits.perSecond);
      const oldest = bucket.starts.length >= size ? bucket.starts[bucket.starts.length - size] : undefined;
      if (oldest !== undefined) {
        const waitMs = Math.ceil(oldest + windowMs - this.#now());
        if (waitMs > 0) return waitMs;
      }
    }
    return 0;
  }

  /** A call was dispatched to `sessionId`: it counts until {@link release} or {@link releaseSession}. */
  started(
    callId: string,
    tenant: string | undefined,
    toolName: string,
    limits: FleetLimits,
    sessionId?: string,
  ): void {
    const name = bucketName(tenant, toolName);
    const counted = this.#counted.get(callId);
    if (counted !== undefined) {
      // Sent again after its worker held it for a decision: it has counted since its first dispatch.
      counted.sessionId = sessionId;
      return;
    }
    const bucket = this.#bucket(tenant, toolName);
    bucket.inFlight += 1;
    if (limits.perSecond !== undefined) {
      bucket.starts.push(this.#now());
      const { size } = rateWindow(limits.perSecond);
      if (bucket.starts.length > size) bucket.starts.splice(0, bucket.starts.length - size);
    }
    this.#counted.set(callId, { bucket: name, sessionId });
  }

  /** Whether the call counts now: dispatched, and neither released nor its session ended. */
  counts(callId: string): boolean {
    return this.#counted.has(callId);
  }

  /**
   * The call has its worker's result, or left its session: it no longer counts. With `sessionId`, only when it
   * counts for that session (a late result from a session the call was taken from frees nothing). `true` when it
   * counted.
   */
  release(callId: string, sessionId?: string): boolean {
    const counted = this.#counted.get(callId);
    if (counted === undefined || (sessionId !== undefined && counted.sessionId !== sessionId)) return false;
    this.#counted.delete(callId);
    const bucket = this.#buckets.get(counted.bucket);
    if (bucket !== undefined) bucket.inFlight -= 1;
    return true;
  }

  /** The session ended: the calls it still ran (ended for the model or not) no longer count. How many did. */
  releaseSession(sessionId: string): number {
    let released = 0;
    for (const [callId, counted] of this.#counted) {
      if (counted.sessionId === sessionId && this.release(callId)) released += 1;
    }
    return released;
  }

  /** The tenant `from` merged into `into` ({@link KeyRing.set}): its calls count with `into`'s now. */
  merge(from: Tenant, into: Tenant): void {
    for (const [name, bucket] of [...this.#buckets]) {
      if (bucket.tenant !== from) continue;
      this.#buckets.delete(name);
      const { toolName } = bucket;
      const target = this.#bucket(into, toolName);
      target.inFlight += bucket.inFlight;
      target.starts = [...target.starts, ...bucket.starts].sort((a, b) => a - b);
      const moved = bucketName(into, toolName);
      for (const counted of this.#counted.values()) if (counted.bucket === name) counted.bucket = moved;
    }
  }

  /** Calls of this tool in flight across the fleet. */
  inFlight(tenant: string | undefined, toolName: string): number {
    return this.#buckets.get(bucketName(tenant, toolName))?.inFlight ?? 0;
  }

  #bucket(tenant: string | undefined, toolName: string): Bucket {
    const name = bucketName(tenant, toolName);
    let bucket = this.#buckets.get(name);
    if (bucket === undefined) {
      bucket = { tenant, toolName, inFlight: 0, starts: [] };
      this.#buckets.set(name, bucket);
    }
    return bucket;
  }
}

/** The sliding window of a `perSecond` limit: at most `size` starts in any `windowMs`. */
function rateWindow(perSecond: number): { size: number; windowMs: number } {
  const size = Math.max(1, Math.floor(perSecond));
  return { size, windowMs: (size * 1000) / perSecond };
}

function bucketName(tenant: string | undefined, toolName: string): string {
  return `${tenant ?? ''}\u0000${toolName}`;
}
