/**
 * Code loaded on demand: what a browser page loads with `import()` at its first need, and the Node entry registers
 * up front. The parts of a call (src/call/parts.ts), the client's runs, approvals, decisions, socket questions and
 * tracing (src/client/) and the JSON Schema validator (src/tool/schema/optional-parts.ts) are each one
 * {@link CodeOnDemand}; tests hold or fail any of their loads by name ({@link setCodeLoader}).
 *
 * @module
 */
import { ToolwireError } from './errors';

/**
 * How a test loads code instead of its import ({@link setCodeLoader}), by the code's name: none outside tests
 * (then never made, and a load reads one `undefined`).
 */
let testLoads: Map<string, (importCode: () => Promise<unknown>) => Promise<unknown>> | undefined;

/** The names of the code made so far (each {@link CodeOnDemand}), which {@link setCodeLoader} takes. */
const names = new Set<string>();

/**
 * What `load` imports; a failed import is `ToolwireError` `load_failed`, `toolwire could not load its <what>
 * code[ (<hint>)]: <reason>` (the import's error as `cause`), or, when what failed was other code it needs, that
 * code's own `load_failed`.
 */
function loadCode<T>(what: string, load: () => Promise<T>, hint: string | undefined): Promise<T> {
  return load().catch((error: unknown) => {
    // Code whose load needs other code that failed: that code's own failure names it, said once.
    if (error instanceof ToolwireError && error.code === 'load_failed') throw error;
    const reason = error instanceof Error ? error.message : String(error);
    const why = hint === undefined ? '' : ` (${hint})`;
    throw new ToolwireError('load_failed', `toolwire could not load its ${what} code${why}: ${reason}`, {
      cause: error,
    });
  });
}

/**
 * Code a browser page loads with `import()` at its first need, and the Node entry registers up front (see the
 * module's head for which). `code` once here,
 * `register()` for the Node entry, `load()` for a need. Made once, at module level: a call or a client reads
 * `code` (one field) and pays nothing more.
 */
export class CodeOnDemand<T> {
  /** The code, once registered or loaded; `undefined` before. */
  code: T | undefined;
  readonly #what: string;
  readonly #import: () => Promise<T>;
  readonly #hint: string | undefined;
  #loading: Promise<T> | undefined;

  /**
   * `what` names the code, in a failed load's message (see {@link loadCode}) and for {@link setCodeLoader} (one
   * name per code); `load` imports it; `hint`, when given, follows the name in that message (how to avoid the
   * load).
   */
  constructor(what: string, load: () => Promise<T>, hint?: string) {
    this.#what = what;
    this.#import = load;
    this.#hint = hint;
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
    this.#loading = loadCode(this.#what, load, this.#hint).then(
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
 * a call (src/call/parts.ts), `run`, `approvals`, `decision`, `question`, `tracing`) is loaded with `load` instead of its plain
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
