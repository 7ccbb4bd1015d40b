/**
 * A tool's definitions across a tenant's workers (docs/protocol/routing.md, "Workers that disagree on a
 * definition"): workers may announce one tool name differently (a rolling deploy without `buildId`). Here: the
 * digest that tells two definitions apart, made once per announcement; which definition the model is shown (the
 * run's own client's, else the newest: the one whose definition appeared last in the tenant); whether a session
 * takes the arguments the model was shown a schema for; which definition holds a call for approval; and the one
 * warning an operator gets when connected workers begin to disagree.
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { Logger } from '../src/logger';
import type { ToolDefinition } from '../src/wire/protocol';
import type { Call } from './call';
import type { Session } from './session';

/**
 * Fields left out of the comparison: `slots` weighs a call against one worker's own `maxConcurrency`, which is
 * per worker too; the model never sees it and no call is treated otherwise for it.
 */
const NOT_COMPARED: ReadonlySet<string> = new Set(['slots']);

/** Each announced definition's digest, made at its announcement ({@link ToolDefinitions.announce}). */
const digests = new WeakMap<ToolDefinition, string>();

/**
 * The definition's digest: SHA-256 (base64url) of its canonical JSON (object keys sorted at every depth), every
 * field but `slots`. Two definitions are the same when their digests are. Made once per definition object (each
 * announcement decodes new ones) and kept with it.
 */
export function digestOf(definition: ToolDefinition): string {
  let digest = digests.get(definition);
  if (digest === undefined) {
    const compared = Object.fromEntries(
      Object.entries(definition).filter(([field]) => !NOT_COMPARED.has(field)),
    );
    digest = createHash('sha256').update(canonicalJson(compared)).digest('base64url');
    digests.set(definition, digest);
  }
  return digest;
}

/** Each announced definition's digest of what its arguments must be (`parameters`, `strict`). */
const argumentDigests = new WeakMap<ToolDefinition, string>();

/**
 * The digest of what `definition` takes as arguments: its `parameters` and `strict`, in canonical JSON. Two
 * workers whose definitions differ only in words (a description) or approval take the same arguments.
 */
export function argumentsDigestOf(definition: ToolDefinition): string {
  let digest = argumentDigests.get(definition);
  if (digest === undefined) {
    const { parameters, strict } = definition;
    digest = createHash('sha256').update(canonicalJson({ parameters, strict })).digest('base64url');
    argumentDigests.set(definition, digest);
  }
  return digest;
}

/** The top-level fields whose values differ between two definitions of a tool, sorted (`slots` left out). */
export function differingFields(a: ToolDefinition, b: ToolDefinition): string[] {
  const fields = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...fields]
    .filter(
      (field) =>
        !NOT_COMPARED.has(field) &&
        canonicalJson((a as Record<string, unknown>)[field]) !==
          canonicalJson((b as Record<string, unknown>)[field]),
    )
    .sort();
}

/**
 * `true` when `session`'s definition of the call's tool takes the arguments of the one the model was shown when it
 * asked for the call (`call.shown`: the same `parameters` and `strict`), or nothing was shown, or the session does
 * not offer the tool (it is not asked).
 */
export function agreesWithShown(session: Session, call: Call): boolean {
  const { shown } = call;
  if (shown === undefined) return true;
  const own = session.tools.get(call.toolName);
  return own === undefined || own === shown || argumentsDigestOf(own) === argumentsDigestOf(shown);
}

/**
 * The definition that holds a call of `toolName` for a person: `shown` when it says `needsApproval`, else the first
 * of `seen` (the live sessions whose tools the run sees) whose own says so; `undefined` when none does. While one
 * worker gates a tool, no call of it runs undecided on another (a restarted old worker included).
 */
export function gateOf(
  toolName: string,
  shown: ToolDefinition | undefined,
  seen: readonly Session[],
): ToolDefinition | undefined {
  if (shown?.needsApproval === true) return shown;
  for (const session of seen) {
    const definition = session.tools.get(toolName);
    if (definition?.needsApproval === true) return definition;
  }
  return undefined;
}

/** Definitions of one tool remembered per tenant, by when each first appeared: older ones are forgotten past it. */
const REMEMBERED_DEFINITIONS = 16;

/**
 * The definitions the tenants' sessions announce, as a fleet: when each one first appeared in its tenant (which one
 * is the newest), and the disagreements already reported to the operator.
 */
export class ToolDefinitions {
  readonly #sessions: ReadonlyMap<string, Session>;
  readonly #logger: Logger;
  /**
   * Per tenant, per tool, per definition digest: the announcement at which that definition first appeared (a count:
   * the higher, the newer). Kept while a live session of the tenant offers the tool, and past the sessions that
   * announced it: a worker of the old code that restarts during a deploy (a crash, a rescheduled pod) does not make
   * its definition the newest again. At most {@link REMEMBERED_DEFINITIONS} per tool, the oldest forgotten first.
   */
  readonly #firstSeen = new Map<string | undefined, Map<string, Map<string, number>>>();
  #announcements = 0;
  /**
   * Per tenant: the disagreements reported (`tool \0 digest \0 digest`), kept while both definitions are live, so
   * that each is reported once, not again at a resume.
   */
  readonly #reported = new Map<string | undefined, Set<string>>();

  constructor(sessions: ReadonlyMap<string, Session>, logger: Logger) {
    this.#sessions = sessions;
    this.#logger = logger;
  }

  /**
   * `session` announces `tools` (`hello`, a resume's `hello`, `tools_update`): they replace what it offered
   * (`Session.setTools`, whose duplicate names are returned), each definition's digest is made, and a
   * disagreement with another connected session of its tenant and build that is new is logged, once.
   */
  announce(session: Session, tools: readonly ToolDefinition[]): string[] {
    const duplicates = session.setTools(tools);
    const announcement = ++this.#announcements;
    let tenant = this.#firstSeen.get(session.tenant);
    if (tenant === undefined) {
      tenant = new Map();
      this.#firstSeen.set(session.tenant, tenant);
    }
    for (const [name, definition] of session.tools) {
      let byDigest = tenant.get(name);
      if (byDigest === undefined) {
        byDigest = new Map();
        tenant.set(name, byDigest);
      }
      const digest = digestOf(definition);
      if (byDigest.has(digest)) continue;
      byDigest.set(digest, announcement);
      // Insertion order is the order they first appeared: the first key is the oldest.
      if (byDigest.size > REMEMBERED_DEFINITIONS) byDigest.delete(byDigest.keys().next().value as string);
    }
    this.#forget(session.tenant);
    if (session.state === 'connected') this.#report(session);
    return duplicates;
  }

  /**
   * A session ended: the disagreements it alone kept alive are forgotten (one that comes back is new), and so are
   * the tools no live session of its tenant offers any more.
   */
  ended(session: Session): void {
    this.#forget(session.tenant);
  }

  /**
   * The tenant `from` merged into `into` (server-stub/fleet.ts `KeyRing`): when each definition first appeared is
   * the earlier of the two tenants' records, and the disagreements either reported stay reported.
   */
  mergeTenant(from: string | undefined, into: string | undefined): void {
    const theirs = this.#firstSeen.get(from);
    if (theirs !== undefined) {
      const ours = this.#firstSeen.get(into) ?? new Map<string, Map<string, number>>();
      for (const [name, byDigest] of theirs) {
        const both = new Map(ours.get(name));
        for (const [digest, seen] of byDigest) both.set(digest, Math.min(seen, both.get(digest) ?? seen));
        // Oldest first, as announce keeps them.
        const sorted = [...both].sort((a, b) => a[1] - b[1]).slice(-REMEMBERED_DEFINITIONS);
        ours.set(name, new Map(sorted));
      }
      this.#firstSeen.set(into, ours);
      this.#firstSeen.delete(from);
    }
    const reported = this.#reported.get(from);
    if (reported !== undefined) {
      this.#reported.set(into, new Set([...(this.#reported.get(into) ?? []), ...reported]));
      this.#reported.delete(from);
    }
  }

  /**
   * The definition of `toolName` the model is shown: `owner`'s (the live session that started the run, its
   * calls go there) when it offers the tool; else, among `seen` (the live sessions whose tools the run sees,
   * server-stub/routing.ts `sessionsSeen`), the newest of the connected sessions', else of the detached ones'.
   */
  shown(toolName: string, seen: readonly Session[], owner: Session | undefined): ToolDefinition | undefined {
    const own = owner?.tools.get(toolName);
    if (own !== undefined) return own;
    let best: ToolDefinition | undefined;
    let bestConnected = false;
    let bestSeen = -1;
    for (const session of seen) {
      const definition = session.tools.get(toolName);
      if (definition === undefined) continue;
      const connected = session.state === 'connected';
      const firstSeen = this.#firstSeen.get(session.tenant)?.get(toolName)?.get(digestOf(definition)) ?? 0;
      if (bestConnected && !connected) continue;
      if (connected === bestConnected && firstSeen <= bestSeen) continue;
      best = definition;
      bestConnected = connected;
      bestSeen = firstSeen;
    }
    return best;
  }

  /**
   * Logs one warning per tool of `session` whose definition differs from a connected session's of the same
   * tenant and build in a way not reported yet: the tool, the two sessions, the fields that differ. Never a
   * value (a description or a schema may hold anything) nor the tenant (a key listed alone is its own tenant).
   */
  #report(session: Session): void {
    for (const [name, definition] of session.tools) {
      const digest = digestOf(definition);
      let first: { other: Session; fields: string[] } | undefined;
      for (const other of this.#sessions.values()) {
        if (
          other === session ||
          other.state !== 'connected' ||
          other.tenant !== session.tenant ||
          other.buildId !== session.buildId
        )
          continue;
        const theirs = other.tools.get(name);
        if (theirs === undefined || digestOf(theirs) === digest) continue;
        const pair = [name, ...[digest, digestOf(theirs)].sort()].join('\0');
        let reported = this.#reported.get(session.tenant);
        if (reported?.has(pair) === true) continue;
        if (reported === undefined) {
          reported = new Set();
          this.#reported.set(session.tenant, reported);
        }
        reported.add(pair);
        first ??= { other, fields: differingFields(definition, theirs) };
      }
      if (first === undefined) continue;
      const { other, fields } = first;
      this.#logger.warn(
        {
          toolName: name,
          sessionId: session.id,
          otherSessionId: other.id,
          fields,
          ...(session.buildId === undefined ? {} : { buildId: session.buildId }),
        },
        disagreementText(name, fields),
      );
    }
  }

  /**
   * Forgets the reported disagreements of `tenant` whose two definitions are not both offered by live sessions, and
   * when the definitions of a tool first appeared, for the tools no live session of it offers.
   */
  #forget(tenant: string | undefined): void {
    const live = new Set<string>();
    const offered = new Set<string>();
    for (const session of this.#sessions.values()) {
      if (session.state === 'expired' || session.tenant !== tenant) continue;
      for (const [name, definition] of session.tools) {
        live.add(`${name}\0${digestOf(definition)}`);
        offered.add(name);
      }
    }
    const firstSeen = this.#firstSeen.get(tenant);
    if (firstSeen !== undefined) {
      for (const name of firstSeen.keys()) if (!offered.has(name)) firstSeen.delete(name);
      if (firstSeen.size === 0) this.#firstSeen.delete(tenant);
    }
    const reported = this.#reported.get(tenant);
    if (reported === undefined) return;
    for (const pair of reported) {
      const [name, a, b] = pair.split('\0');
      if (!live.has(`${name}\0${a}`) || !live.has(`${name}\0${b}`)) reported.delete(pair);
    }
    if (reported.size === 0) this.#reported.delete(tenant);
  }
}

/** The warning's words: what the model is shown, and what the differing fields change for the tool's calls. */
function disagreementText(toolName: string, fields: readonly string[]): string {
  let text = `workers disagree on tool ${toolName} (${fields.join(', ')}): the model is shown the newest definition`;
  if (fields.includes('parameters') || fields.includes('strict')) {
    text += '; its calls wait for the workers that take its arguments';
  }
  if (fields.includes('needsApproval'))
    text += '; its calls are held for approval while any worker asks for it';
  return text;
}

/**
 * JSON with the keys of every object sorted, and every `required` list of names: the same text for the same value,
 * whatever the order of the keys or of the required names (zod lists them in the order of the fields).
 */
function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (key, item: unknown) => {
      if (Array.isArray(item)) {
        return key === 'required' && item.every((name) => typeof name === 'string') ? [...item].sort() : item;
      }
      if (typeof item !== 'object' || item === null) return item;
      const record = item as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(record)
          .sort()
          .map((key) => [key, record[key]]),
      );
    }) ?? 'undefined'
  );
}
