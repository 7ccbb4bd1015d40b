/**
 * The optional parts of a call, loaded with `import()` so that a page whose tools do not use them never downloads
 * them: the gate and approval (./policies.ts, ./approval.ts), attempts (./retry.ts), per-key concurrency
 * (./concurrency.ts), steps (./steps.ts), questions (./questions.ts) and the widget check (../tool/widget.ts).
 *
 * When each part is loaded:
 * - what a tool's definition or a host's options say a call needs ({@link partsFor}: `needsApproval` or
 *   `allowedAgentNames` → the gate, `retry` → attempts, `concurrency`, the client's `policies` → the gate) starts
 *   loading when the tool is put in a registry (a client's tools, `addTool`) or given to `invokeTool`, and is
 *   awaited by `connect()` before `hello`, within its `connectTimeoutMs` (`close()` also ends that wait);
 * - steps, questions and the widget check load at a page's first `ctx.step()`, `ctx.askQuestion()` or result
 *   carrying a `widget` (the first two return promises anyway);
 * - a call that finds a part it needs not loaded (`invokeTool`, a tool added while the client is connected, a call
 *   the service already rejected) waits for it in that call, under the call's signal and time budget as any other
 *   wait; a plain call never checks more than the fields it already reads.
 *
 * The Node entry (src/node.ts) registers every part at once ({@link registerCallParts}): Node, Bun and Deno load
 * them with the rest of the package and never wait. A part that fails to load (a page offline) is a
 * `ToolwireError` `load_failed`, for the call, `connect()` or `invokeTool` that needed it; the next need tries again.
 *
 * Each part is a {@link CodeOnDemand}: code loaded on need, one load at a time, kept on arrival, forgotten when
 * it fails. The client's own chunks (its runs, decisions, socket questions and tracing, src/client/) are made of
 * the same class, and tests hold or fail any of their loads by name ({@link setCodeLoader}).
 *
 * @module
 */
import { ToolwireError } from '../errors';
import type * as Widget from '../tool/widget';
import type * as Approval from './approval';
import type * as Concurrency from './concurrency';
import type * as Policies from './policies';
import type * as Questions from './questions';
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
];

/**
 * How a test loads code instead of its import ({@link setCodeLoader}), by the code's name: none outside tests
 * (then never made, and a load reads one `undefined`).
 */
let testLoads: Map<string, (importCode: () => Promise<unknown>) => Promise<unknown>> | undefined;

/** The names of the code made so far (each {@link CodeOnDemand}), which {@link setCodeLoader} takes. */
const names = new Set<string>();

/**
 * What `load` imports; a failed import is `ToolwireError` `load_failed`, `toolwire could not load its <what>
 * code: <reason>` (the import's error as `cause`).
 */
function loadCode<T>(what: string, load: () => Promise<T>): Promise<T> {
  return load().catch((error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolwireError('load_failed', `toolwire could not load its ${what} code: ${reason}`, {
      cause: error,
    });
  });
}

/**
 * Code a browser page loads with `import()` at its first need, and the Node entry registers up front: the parts
 * of a call ({@link callParts}) and the client's runs, decisions, socket questions and tracing. `code` once here,
 * `register()` for the Node entry, `load()` for a need. Made once, at module level: a call or a client reads
 * `code` (one field) and pays nothing more.
 */
export class CodeOnDemand<T> {
  /** The code, once registered or loaded; `undefined` before. */
  code: T | undefined;
  readonly #what: string;
  readonly #import: () => Promise<T>;
  #loading: Promise<T> | undefined;

  /**
   * `what` names the code, in a failed load's message (see {@link loadCode}) and for {@link setCodeLoader} (one
   * name per code); `load` imports it.
   */
  constructor(what: string, load: () => Promise<T>) {
    this.#what = what;
    this.#import = load;
    names.add(what);
  }

  /** Makes the code known at once (the Node entry): no need then waits for an import. */
  register(code: T): void {
    this.code = code;
  }

  /**
   * The code, loaded one load at a time: every need while a load runs shares it, and the code is kept when it
   * arrives, even when the need that started the load gave up waiting.
   *
   * @throws (rejects) ToolwireError `load_failed` (the import's error as `cause`); a failed load is forgotten, so
   *   the next need tries again.
   */
  load(): Promise<T> {
    if (this.code !== undefined) return Promise.resolve(this.code);
    if (this.#loading !== undefined) return this.#loading;
    const instead = testLoads?.get(this.#what);
    const load = instead === undefined ? this.#import : () => instead(this.#import) as Promise<T>;
    this.#loading = loadCode(this.#what, load).then(
      (code) => {
        this.code ??= code;
        this.#loading = undefined;
        return this.code;
      },
      (error: unknown) => {
        this.#loading = undefined;
        throw error;
      },
    );
    return this.#loading;
  }
}

/**
 * Internal, for tests only (not exported by any entry): the code named `what` (a {@link CodeOnDemand}: a part of
 * {@link callParts}, `run`, `decision`, `question`, `tracing`) is loaded with `load` instead of its plain
 * `import()` from its next load on, `load` being given that import to call when it chooses (a load held until a
 * test lets it arrive, a page offline); `undefined` puts the import back. Code already here stays.
 *
 * @throws Error when no code of that name was made (a misspelt name would leave the import in place).
 * @internal
 */
export function setCodeLoader(
  what: string,
  load: ((importCode: () => Promise<unknown>) => Promise<unknown>) | undefined,
): void {
  if (!names.has(what))
    throw new Error(`setCodeLoader(): no code is named ${what} (${[...names].join(', ')})`);
  testLoads ??= new Map();
  if (load === undefined) testLoads.delete(what);
  else testLoads.set(what, load);
}

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
}

/** The parts calls of a tool with `internals` need, under host options `options` (their `policies`). */
export function partsFor(
  internals: NeedsOf | undefined,
  options?: Pick<CallOptions, 'policies'>,
): PartName[] {
  const names: PartName[] = [];
  if ((options?.policies?.length ?? 0) > 0) names.push('gate');
  if (internals === undefined) return names;
  if (
    ((internals.needsApproval ?? false) !== false || internals.allowedAgentNames !== undefined) &&
    names.length === 0
  )
    names.push('gate');
  if (internals.retry !== undefined && internals.retry.maxAttempts > 1) names.push('retry');
  if (internals.concurrency !== undefined) names.push('concurrency');
  return names;
}
