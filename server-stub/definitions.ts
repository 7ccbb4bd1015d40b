/**
 * A tool's definitions across a tenant's workers (docs/protocol/tool-calls.md, "Workers that disagree on a
 * definition"): workers may announce one tool name differently (a rolling deploy without `buildId`). Here: the
 * digest that tells two definitions apart, made once per announcement; which definition the model is shown (the
 * run's own client's, else the newest); whether a session agrees with what the model was shown when it asked for
 * a call; and the one warning an operator gets when connected workers begin to disagree.
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
 * `true` when `session`'s definition of the call's tool is the one the model was shown when it asked for the call
 * (`call.shown`), or nothing was shown, or the session does not offer the tool (it is not asked).
 */
export function agreesWithShown(session: Session, call: Call): boolean {
  const { shown } = call;
  if (shown === undefined) return true;
  const own = session.tools.get(call.toolName);
  return own === undefined || own === shown || digestOf(own) === digestOf(shown);
}

/**
 * The definitions the tenants' sessions announce, as a fleet: when each one first appeared among the live sessions
 * of its tenant (which one is the newest), and the disagreements already reported to the operator.
 */
export class ToolDefinitions {
  readonly #sessions: ReadonlyMap<string, Session>;
  readonly #logger: Logger;
  /**
   * Per session, per tool: the announcement at which its definition first appeared among the live sessions of
   * its tenant (a count: the higher, the newer). A resume, or a worker announcing a definition that another live
   * session already has, keeps the older count.
   */
  readonly #firstSeen = new WeakMap<Session, Map<string, number>>();
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
    const before = session.tools;
    const seenBefore = this.#firstSeen.get(session);
    const duplicates = session.setTools(tools);
    const announcement = ++this.#announcements;
    const seen = new Map<string, number>();
    for (const [name, definition] of session.tools) {
      const digest = digestOf(definition);
      const previous = before.get(name);
      const kept =
        previous !== undefined && digestOf(previous) === digest ? seenBefore?.get(name) : undefined;
      seen.set(name, kept ?? this.#heldSince(session, name, digest) ?? announcement);
    }
    this.#firstSeen.set(session, seen);
    this.#forget(session.tenant);
    if (session.state === 'connected') this.#report(session);
    return duplicates;
  }

  /** A session ended: the disagreements it alone kept alive are forgotten (one that comes back is new). */
  ended(session: Session): void {
    this.#forget(session.tenant);
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
      const firstSeen = this.#firstSeen.get(session)?.get(toolName) ?? 0;
      if (bestConnected && !connected) continue;
      if (connected === bestConnected && firstSeen <= bestSeen) continue;
      best = definition;
      bestConnected = connected;
      bestSeen = firstSeen;
    }
    return best;
  }

  /** The oldest count of another live session of `session`'s tenant that offers `digest` as `toolName`. */
  #heldSince(session: Session, toolName: string, digest: string): number | undefined {
    let since: number | undefined;
    for (const other of this.#sessions.values()) {
      if (other === session || other.state === 'expired' || other.tenant !== session.tenant) continue;
      const theirs = other.tools.get(toolName);
      if (theirs === undefined || digestOf(theirs) !== digest) continue;
      const count = this.#firstSeen.get(other)?.get(toolName);
      if (count !== undefined && (since === undefined || count < since)) since = count;
    }
    return since;
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
        `workers disagree on tool ${name} (${fields.join(', ')}): its calls go first to the workers whose definition the model is shown`,
      );
    }
  }

  /** Forgets the reported disagreements of `tenant` whose two definitions are not both offered by live sessions. */
  #forget(tenant: string | undefined): void {
    const reported = this.#reported.get(tenant);
    if (reported === undefined) return;
    const live = new Set<string>();
    for (const session of this.#sessions.values()) {
      if (session.state === 'expired' || session.tenant !== tenant) continue;
      for (const [name, definition] of session.tools) live.add(`${name}\0${digestOf(definition)}`);
    }
    for (const pair of reported) {
      const [name, a, b] = pair.split('\0');
      if (!live.has(`${name}\0${a}`) || !live.has(`${name}\0${b}`)) reported.delete(pair);
    }
    if (reported.size === 0) this.#reported.delete(tenant);
  }
}

/** JSON with the keys of every object sorted: the same text for the same value, whatever the key order. */
function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) return item;
      const record = item as Record<string, unknown>;
      return Object.fromEntries(
        Object.keys(record)
          .sort()
          .map((key) => [key, record[key]]),
      );
    }) ?? 'undefined'
  );
}
