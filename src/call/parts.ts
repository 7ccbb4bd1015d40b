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

/** The parts loaded (or registered) so far. */
export const parts: Partial<CallParts> = {};

/** How each part is imported. */
const IMPORTS: { readonly [K in PartName]: () => Promise<CallParts[K]> } = {
  gate: () =>
    Promise.all([import('./approval'), import('./policies')]).then(([approval, policies]) => ({
      decideApproval: approval.decideApproval,
      lazyFrozenCopy: approval.lazyFrozenCopy,
      passGate: policies.passGate,
    })),
  retry: () => import('./retry'),
  concurrency: () => import('./concurrency'),
  steps: () => import('./steps'),
  questions: () => import('./questions'),
  widget: () => import('../tool/widget'),
};

/** How a part is loaded instead of its import ({@link setPartLoader}): none outside tests. */
let loaders:
  | { [K in PartName]?: (importPart: () => Promise<CallParts[K]>) => Promise<CallParts[K]> }
  | undefined;

const loading: { [K in PartName]?: Promise<void> } = {};

/**
 * Internal, for tests only (not exported by any entry): part `name` is loaded with `load` instead of its plain
 * `import()` from now on, `load` being given that import to call when it chooses (a load held until a test lets
 * it arrive, a page offline); `undefined` puts the import back. Parts already loaded stay.
 *
 * @internal
 */
export function setPartLoader<K extends PartName>(
  name: K,
  load: ((importPart: () => Promise<CallParts[K]>) => Promise<CallParts[K]>) | undefined,
): void {
  loaders ??= {};
  (loaders as Record<PartName, unknown>)[name] = load;
}

/** Part `name`'s load: its import, or what a test set instead. */
function loaderOf<K extends PartName>(name: K): () => Promise<CallParts[K]> {
  const load = loaders?.[name];
  return load === undefined ? IMPORTS[name] : () => load(IMPORTS[name]);
}

/** Registers parts at once (the Node entry: every part), so that no call waits for them. */
export function registerCallParts(given: Partial<CallParts>): void {
  Object.assign(parts, given);
}

/**
 * Part `name`, loaded (one load at a time).
 *
 * @throws (rejects) ToolwireError `load_failed` when the load fails (the import's error as `cause`); the next
 *   call tries again.
 */
export function loadPart(name: PartName): Promise<void> {
  if (parts[name] !== undefined) return Promise.resolve();
  loading[name] ??= loadCode(name, loaderOf(name) as () => Promise<unknown>).then(
    (part) => {
      (parts as Record<PartName, unknown>)[name] = part;
      loading[name] = undefined;
    },
    (error: unknown) => {
      loading[name] = undefined;
      throw error;
    },
  );
  return loading[name];
}

/**
 * What `load` imports; a failed import is `ToolwireError` `load_failed`, `toolwire could not load its <what>
 * code: <reason>` (the import's error as `cause`).
 */
export function loadCode<T>(what: string, load: () => Promise<T>): Promise<T> {
  return load().catch((error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolwireError('load_failed', `toolwire could not load its ${what} code: ${reason}`, {
      cause: error,
    });
  });
}

/**
 * Code a browser page loads with `import()` at its first need, and the Node entry registers up front (the client's
 * runs, decisions, socket questions and tracing; the call parts above have their own table): `code` once here,
 * `register()` for the Node entry, `load()` for a need.
 */
export class CodeOnDemand<T> {
  /** The code, once registered or loaded; `undefined` before. */
  code: T | undefined;
  readonly #what: string;
  readonly #import: () => Promise<T>;
  #loading: Promise<T> | undefined;

  /** `what` names the code in a failed load's message (see {@link loadCode}); `load` imports it. */
  constructor(what: string, load: () => Promise<T>) {
    this.#what = what;
    this.#import = load;
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
    this.#loading ??= loadCode(this.#what, this.#import).then(
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

/** The parts of `names` loaded: `undefined` when all of them already are (nothing to wait for). */
export function loadParts(names: Iterable<PartName>): Promise<void> | undefined {
  const waits: Array<Promise<void>> = [];
  for (const name of names) if (parts[name] === undefined) waits.push(loadPart(name));
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
