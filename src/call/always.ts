/**
 * `always` decisions (OpenAI Agents' `alwaysApprove` / `alwaysReject`): an approver that answers `always: true`
 * is not asked again about the same tool in the same run. Kept per approver function (a client's, or the one
 * given to `invokeTool`), for at most {@link MAX_ALWAYS_RUNS} runs, the oldest forgotten first.
 *
 * @module
 */

/** Most runs whose `always` decisions one approver keeps. */
export const MAX_ALWAYS_RUNS = 1_000;

/** A remembered decision. */
export interface AlwaysDecision {
  approved: boolean;
  reason?: string;
}

type Approver = (...args: never[]) => unknown;

/** Runs (oldest first, as a `Map` keeps insertion order) → tool name → decision, per approver. */
const kept = new WeakMap<Approver, Map<string, Map<string, AlwaysDecision>>>();

/** The `always` decision `approver` gave for `toolName` in `runId`, if any. */
export function alwaysDecision(
  approver: Approver,
  runId: string,
  toolName: string,
): AlwaysDecision | undefined {
  return kept.get(approver)?.get(runId)?.get(toolName);
}

/** Remembers `decision` for `toolName`'s later calls in `runId`. */
export function keepAlways(
  approver: Approver,
  runId: string,
  toolName: string,
  decision: AlwaysDecision,
): void {
  let runs = kept.get(approver);
  if (runs === undefined) {
    runs = new Map();
    kept.set(approver, runs);
  }
  let tools = runs.get(runId);
  if (tools === undefined) {
    tools = new Map();
    runs.set(runId, tools);
    if (runs.size > MAX_ALWAYS_RUNS) runs.delete(runs.keys().next().value as string);
  }
  tools.set(toolName, decision);
}
