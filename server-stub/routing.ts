/**
 * Which client gets a call (docs/protocol/index.md docs/protocol/routing.md), and which tools the clients offer.
 *
 * @module
 */
import type { Call } from './call';
import { agreesWithShown } from './definitions';
import { sameBuild } from './fleet';
import type { Run } from './run';
import type { Session } from './session';

/** The slots one call of `toolName` takes on `session`: the tool's announced `slots`, else 1. */
export function slotsOf(session: Session, toolName: string): number {
  return session.tools.get(toolName)?.slots ?? 1;
}

/**
 * Where the call goes: the session it is assigned to (after its approval request) if that one is still around;
 * else the session that started the run, if it offers the tool (the run's context lives there); else the
 * connected session offering the tool with the fewest slots in flight (each call counts its tool's `slots`; ties:
 * the one sent a call least recently, then the oldest), those with free slots for the call first. Sessions that
 * just answered "busy" for this call are skipped, and so are sessions already holding all the service gives them
 * ({@link capacityOf}): the call waits in the service, for whichever worker has room first. `undefined`: wait.
 * A session whose definition of the tool takes other arguments than the one the model was shown
 * (server-stub/definitions.ts) is sent the call only while no connected session that takes them could be: the
 * call waits for those rather than fail on a worker that would refuse its arguments, or drop a field.
 * A session without free slots for the call that cannot hand calls back (no feature `hand_back`) is sent it to
 * queue only while it is the one connected session that could be (docs/protocol/routing.md): queued there, the call
 * would wait behind that session's running calls however idle the others are.
 */
export function pickSession(
  call: Call,
  sessions: ReadonlyMap<string, Session>,
  slotsInFlight: (session: Session) => number,
): Session | undefined {
  const usable = (session: Session) => mayTake(session, call, slotsInFlight);
  if (call.sessionId !== undefined) {
    const assigned = sessions.get(call.sessionId);
    if (assigned && assigned.state !== 'expired') return usable(assigned) ? assigned : undefined;
  }
  const ownerId = call.run.ownerSessionId;
  const owner = ownerId === undefined ? undefined : sessions.get(ownerId);
  if (owner && owner.state !== 'expired' && owner.tools.has(call.toolName)) {
    return usable(owner) ? owner : undefined;
  }
  let best: Session | undefined;
  let bestKey: Key | undefined;
  let differing: Session | undefined;
  let differingKey: Key | undefined;
  /** Sessions that could be sent the call once they have room: those that take the shown arguments, the others. */
  let agreeingThere = 0;
  let differingThere = 0;
  for (const session of sessions.values()) {
    const agrees = agreesWithShown(session, call);
    if (mayBeSent(session, call)) {
      if (agrees) agreeingThere += 1;
      else differingThere += 1;
    }
    if (!usable(session)) continue;
    const used = slotsInFlight(session);
    const full = !hasFreeSlots(session, used, slotsOf(session, call.toolName));
    // Of the sessions without free slots, those that can hand the call back come first (queuesThere).
    const stuck = full && !session.features.has('hand_back');
    const key: Key = [full ? 1 : 0, stuck ? 1 : 0, used, session.lastDispatch, session.seq];
    if (agrees) {
      if (!bestKey || compareKeys(key, bestKey) < 0) {
        best = session;
        bestKey = key;
      }
    } else if (!differingKey || compareKeys(key, differingKey) < 0) {
      differing = session;
      differingKey = key;
    }
  }
  if (agreeingThere > 0) return queuesThere(bestKey, agreeingThere) ? best : undefined;
  return queuesThere(differingKey, differingThere) ? differing : undefined;
}

/**
 * The order of the sessions a call may go to ({@link pickSession}), least first: without free slots for it, without
 * them and unable to hand it back, slots in flight, when last sent a call, age.
 */
type Key = [number, number, number, number, number];

/**
 * `true` when the session chosen (its {@link Key}) may be sent the call: it has free slots for it, or can hand it
 * back (feature `hand_back`) when another session has room, or is the one session that could be sent it
 * (`sessionsThere`).
 */
function queuesThere(key: Key | undefined, sessionsThere: number): boolean {
  return key !== undefined && (key[1] === 0 || sessionsThere === 1);
}

/**
 * `true` when `session` may be sent `call` now: connected, of the run's tenant and build, offering the tool, not
 * busy for this call, never told it was not its own (`not_dispatched`), and with room for it.
 */
export function mayTake(session: Session, call: Call, slotsInFlight: (session: Session) => number): boolean {
  return mayBeSent(session, call) && !atCapacity(session, slotsInFlight, slotsOf(session, call.toolName));
}

/**
 * `true` when `session` may be sent `call` once it has room: connected (its client has not left), of the run's
 * tenant and build, offering the tool, and not busy for this call.
 */
function mayBeSent(session: Session, call: Call): boolean {
  return (
    session.state === 'connected' &&
    !session.left &&
    session.tenant === call.run.tenant &&
    sameBuild(call.run, session) &&
    session.tools.has(call.toolName) &&
    !call.busyFrom.has(session.id)
  );
}

/**
 * `true` when a call of `weight` slots sent to the session now begins at once there: it announced no
 * `maxConcurrency` (nothing is known), has nothing in flight, or has `weight` slots free of the `used` ones.
 */
export function hasFreeSlots(session: Session, used: number, weight: number): boolean {
  const max = session.maxConcurrency;
  return max === undefined || max === 0 || used === 0 || used + weight <= max;
}

/**
 * The most slots the service keeps in flight on a session (docs/protocol/routing.md): its `maxConcurrency`
 * (the calls it runs) plus one more round queued behind them, `min(maxQueue, maxConcurrency)`, so that a slot
 * that frees has its next call at hand. The backlog past that waits in the service, where any worker (one that
 * connects later too) takes it as it has room. `Infinity` for a session that announced no `maxConcurrency` (or 0).
 */
export function capacityOf(session: Session): number {
  const { maxConcurrency, maxQueue } = session;
  if (maxConcurrency === undefined || maxConcurrency === 0) return Number.POSITIVE_INFINITY;
  return maxConcurrency + Math.min(maxQueue ?? maxConcurrency, maxConcurrency);
}

/**
 * `true` when the session cannot be sent a call of `weight` slots now: it has calls in flight and the call would
 * take it past {@link capacityOf}.
 */
export function atCapacity(
  session: Session,
  slotsInFlight: (session: Session) => number,
  weight = 1,
): boolean {
  const capacity = capacityOf(session);
  if (capacity === Number.POSITIVE_INFINITY) return false;
  const used = slotsInFlight(session);
  return used > 0 && used + weight > capacity;
}

/**
 * The live sessions (connected, or detached within their grace period; not one whose client has left) of the run's
 * tenant whose tools the run sees: with `buildId`, only the sessions of that build (docs/protocol/builds.md). Connected sessions come first,
 * each group oldest first (which definition the model is shown: server-stub/definitions.ts).
 */
export function sessionsSeen(
  run: Run,
  sessions: ReadonlyMap<string, Session>,
  buildId: string | undefined = run.buildId,
): Session[] {
  const connected: Session[] = [];
  const detached: Session[] = [];
  for (const session of sessions.values()) {
    if (session.state === 'expired' || session.left || session.tenant !== run.tenant) continue;
    if (buildId !== undefined && session.buildId !== buildId) continue;
    (session.state === 'connected' ? connected : detached).push(session);
  }
  return [...connected, ...detached];
}

/**
 * `true` when the call may yet find a session: a live session of its run's build offers the tool, or (no session
 * of that build is live: its workers may come back, docs/protocol/builds.md) a live session of its tenant does.
 * A pinned run whose build is connected but lacks the tool cannot be served.
 */
export function mayServe(call: Call, sessions: ReadonlyMap<string, Session>): boolean {
  const ofBuild = sessionsSeen(call.run, sessions);
  if (ofBuild.length > 0) return ofBuild.some((session) => session.tools.has(call.toolName));
  return sessionsSeen(call.run, sessions, undefined).some((session) => session.tools.has(call.toolName));
}

/** The run's agent's tools that some live session of the run's tenant (and build) offers, in the agent's order. */
export function offeredTools(run: Run, sessions: ReadonlyMap<string, Session>): string[] {
  const offered = new Set<string>();
  for (const session of sessionsSeen(run, sessions))
    for (const name of session.tools.keys()) offered.add(name);
  return run.agent.tools.filter((name) => offered.has(name));
}

/**
 * `true` when a live session of the run's tenant (and build) offers the tool as strict
 * (docs/protocol/call-context.md).
 */
export function offeredStrict(run: Run, toolName: string, sessions: ReadonlyMap<string, Session>): boolean {
  return sessionsSeen(run, sessions).some((session) => session.tools.get(toolName)?.strict === true);
}

function compareKeys(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}
