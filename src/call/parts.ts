/**
 * The optional parts of a call, loaded with `import()` so that a page whose tools do not use them never downloads
 * them: the gate and approval (./policies.ts, ./approval.ts), attempts (./retry.ts), per-key concurrency
 * (./concurrency.ts), steps (./steps.ts), questions (./questions.ts), the widget check (../tool/widget.ts) and
 * redaction by field name (./redaction.ts).
 *
 * When each part is loaded:
 * - what a tool's definition or a host's options say a call needs ({@link partsFor}: `needsApproval` or
 *   `allowedAgentNames` → the gate, `retry` → attempts, `concurrency`, `sensitiveFieldNames` → redaction, the
 *   client's `policies` → the gate and redaction) starts
 *   loading when the tool is put in a registry (a client's tools, `addTool`) or given to `invokeTool`, and is
 *   awaited by `connect()` before `hello`, within its `connectTimeoutMs` (`close()` also ends that wait);
 * - steps, questions and the widget check load at a page's first `ctx.step()`, `ctx.askQuestion()` or result
 *   carrying a `widget` (the first two return promises anyway);
 * - a call that finds a part it needs not loaded (`invokeTool`, a tool added while the client is connected, a call
 *   the service already rejected) waits for it in that call, under the call's signal and time budget as any other
 *   wait, its `execute` not begun: the client hands it back at `close()` (`CallWaits.preExecuteWait`); a plain
 *   call never checks more than the fields it already reads.
 *
 * The Node entry (src/node.ts) registers every part at once ({@link registerCallParts}): Node, Bun and Deno load
 * them with the rest of the package and never wait. A part that fails to load (a page offline) is a
 * `ToolwireError` `load_failed`, for the call, `connect()` or `invokeTool` that needed it; the next need tries again.
 *
 * Each part is a {@link CodeOnDemand} (src/code-on-demand.ts): code loaded on need, one load at a time, kept on
 * arrival, forgotten when it fails.
 *
 * @module
 */
import { CodeOnDemand } from '../code-on-demand';
import type * as Widget from '../tool/widget';
import type * as Approval from './approval';
import type * as Concurrency from './concurrency';
import type * as Policies from './policies';
import type * as Questions from './questions';
import type * as Redaction from './redaction';
import type * as Retry from './retry';
import type * as Steps from './steps';
import type { CallOptions } from './types';

/** The parts, each the module that holds it. */
export interface CallParts {
  /** The allowlist, the policies and approval: ./policies.ts and ./approval.ts. */
  gate: Pick<typeof Approval, 'decideApproval' | 'lazyFrozenCopy'> & Pick<typeof Policies, 'passGate'>;
  retry: typeof Retry;
  concurrency: typeof Concurrency;
  steps: typeof Steps;
  questions: typeof Questions;
  widget: typeof Widget;
  /** Redaction by field name (`sensitiveFieldNames`, a policy's `redact`): ./redaction.ts. */
  redaction: typeof Redaction;
}

/** A part's name. */
export type PartName = keyof CallParts;

/** The parts' names. */
export const PART_NAMES: readonly PartName[] = [
  'gate',
  'retry',
  'concurrency',
  'steps',
  'questions',
  'widget',
  'redaction',
];

/** Each part's code, by name; `code` is the part once registered or loaded. */
export const callParts: { readonly [K in PartName]: CodeOnDemand<CallParts[K]> } = {
  gate: new CodeOnDemand('gate', () =>
    Promise.all([import('./approval'), import('./policies')]).then(([approval, policies]) => ({
      decideApproval: approval.decideApproval,
      lazyFrozenCopy: approval.lazyFrozenCopy,
      passGate: policies.passGate,
    })),
  ),
  retry: new CodeOnDemand('retry', () => import('./retry')),
  concurrency: new CodeOnDemand('concurrency', () => import('./concurrency')),
  steps: new CodeOnDemand('steps', () => import('./steps')),
  questions: new CodeOnDemand('questions', () => import('./questions')),
  widget: new CodeOnDemand('widget', () => import('../tool/widget')),
  redaction: new CodeOnDemand('redaction', () => import('./redaction')),
};

/** Registers parts at once (the Node entry: every part), so that no call waits for them. */
export function registerCallParts(given: Partial<CallParts>): void {
  for (const name of PART_NAMES) {
    const part = given[name];
    if (part !== undefined) (callParts[name] as CodeOnDemand<unknown>).register(part);
  }
}

/** The parts of `names` loaded: `undefined` when all of them already are (nothing to wait for). */
export function loadParts(names: Iterable<PartName>): Promise<void> | undefined {
  const waits: Array<Promise<unknown>> = [];
  for (const name of names) if (callParts[name].code === undefined) waits.push(callParts[name].load());
  return waits.length === 0 ? undefined : Promise.all(waits).then(() => undefined);
}

/** Starts loading `names` now; a failure is reported to whoever needs the part later. */
export function preloadParts(names: Iterable<PartName>): void {
  loadParts(names)?.catch(() => {});
}

/** What a tool's definition needs of a tool (`internals`: see `ToolInternals`). */
interface NeedsOf {
  readonly needsApproval?: unknown;
  readonly allowedAgentNames?: unknown;
  readonly retry?: { readonly maxAttempts: number } | undefined;
  readonly concurrency?: unknown;
  readonly sensitiveFieldNames?: readonly string[];
}

/**
 * Whether calls of a tool with `internals`, under host options `options`, may ask for approval: its `needsApproval`
 * is set, or a policy may require it. A tool with only `allowedAgentNames` passes the gate without asking.
 */
export function mayAskApproval(
  internals: NeedsOf | undefined,
  options?: Pick<CallOptions, 'policies'>,
): boolean {
  return (options?.policies?.length ?? 0) > 0 || (internals?.needsApproval ?? false) !== false;
}

/** The parts calls of a tool with `internals` need, under host options `options` (their `policies`). */
export function partsFor(
  internals: NeedsOf | undefined,
  options?: Pick<CallOptions, 'policies'>,
): PartName[] {
  const names: PartName[] = [];
  if ((options?.policies?.length ?? 0) > 0) names.push('gate', 'redaction');
  if (internals === undefined) return names;
  if (
    ((internals.needsApproval ?? false) !== false || internals.allowedAgentNames !== undefined) &&
    names.length === 0
  )
    names.push('gate');
  if (internals.retry !== undefined && internals.retry.maxAttempts > 1) names.push('retry');
  if (internals.concurrency !== undefined) names.push('concurrency');
  if ((internals.sensitiveFieldNames?.length ?? 0) > 0) names.push('redaction');
  return names;
}
