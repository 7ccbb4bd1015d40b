/**
 * A module the browser build loads on first use (see browser-build.ts, `LAZY_MODULES`): the `.browser.ts`
 * stand-ins keep one of these for the real module. One load at a time; a failed load (the chunk could not be
 * fetched) fails the use that needed it with a toolwire error of code `load_failed` (docs/ERRORS.md), and the next
 * use tries again. A wait for a load ends early when what bounds the operation ends it (see {@link Stop}).
 *
 * @module
 */
import { ToolwireError, type ToolwireErrorOptions } from '../errors';

/** The error class of the operation that needs the module: its load failure is one of these, `load_failed`. */
export type LoadFailure = new (code: string, message: string, options?: ToolwireErrorOptions) => Error;

/**
 * Something that ends a wait for a module (the load itself goes on, for the next use): when `signal` aborts, the
 * wait rejects with `error(signal.reason)`. `signal` may be absent (nothing to stop on).
 */
export interface Stop {
  readonly signal: AbortSignal | undefined;
  error(reason: unknown): unknown;
}

/** A module loaded by a dynamic `import()` when first asked for. */
export interface Lazy<M> {
  /** The module once loaded, else `undefined` (never starts a load). */
  readonly now: M | undefined;
  /**
   * The module, loading it first if needed; the wait ends early when one of `stops` aborts.
   * @throws (rejects) the operation's error class `load_failed` (the import's error as `cause`, the message
   *   naming the chunk) when the load fails; a stop's error when it aborts first.
   */
  load(...stops: Stop[]): Promise<M>;
}

/**
 * Wraps `importer` (`() => import('./real-module')`) so that it runs once, when first needed. `chunk` names the
 * code in a failure's message (`the tracing code`); `Failure` is the error class of the operation that needs it.
 */
export function lazy<M>(
  chunk: string,
  importer: () => Promise<M>,
  Failure: LoadFailure = ToolwireError,
): Lazy<M> {
  let loaded: M | undefined;
  let loading: Promise<M> | undefined;
  const start = (): Promise<M> =>
    (loading ??= importer().then(
      (module) => {
        loaded = module;
        return module;
      },
      (error: unknown) => {
        loading = undefined;
        const message = `the browser build could not load its chunk with ${chunk}: ${error instanceof Error ? error.message : String(error)}`;
        throw new Failure('load_failed', message, { cause: error });
      },
    ));
  return {
    get now() {
      return loaded;
    },
    load(...stops) {
      if (loaded !== undefined) return Promise.resolve(loaded);
      const stopped = stops.find((stop) => stop.signal?.aborted === true);
      if (stopped !== undefined) return Promise.reject(stopped.error(stopped.signal?.reason));
      const loading = start();
      const bounded = stops.filter((stop) => stop.signal !== undefined);
      if (bounded.length === 0) return loading;
      return new Promise<M>((resolve, reject) => {
        const listeners = bounded.map((stop) => {
          const signal = stop.signal!;
          const onAbort = () => {
            forget();
            reject(stop.error(signal.reason));
          };
          signal.addEventListener('abort', onAbort, { once: true });
          return () => signal.removeEventListener('abort', onAbort);
        });
        const forget = () => {
          for (const remove of listeners) remove();
        };
        loading.then(
          (module) => {
            forget();
            resolve(module);
          },
          (error: unknown) => {
            forget();
            reject(error);
          },
        );
      });
    },
  };
}
