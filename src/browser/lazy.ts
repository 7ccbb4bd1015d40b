/**
 * A module the browser build loads on first use (see browser-build.ts, `LAZY_MODULES`): the `.browser.ts`
 * stand-ins keep one of these for the real module. One load at a time; a failed load (the chunk could not be
 * fetched) fails the use that needed it, and the next use tries again.
 *
 * @module
 */

/** A module loaded by a dynamic `import()` when first asked for. */
export interface Lazy<M> {
  /** The module once loaded, else `undefined` (never starts a load). */
  readonly now: M | undefined;
  /** The module, loading it first if needed. @throws (rejects) when the load fails. */
  load(): Promise<M>;
}

/** Wraps `importer` (`() => import('./real-module')`) so that it runs once, when first needed. */
export function lazy<M>(importer: () => Promise<M>): Lazy<M> {
  let loaded: M | undefined;
  let loading: Promise<M> | undefined;
  return {
    get now() {
      return loaded;
    },
    load() {
      if (loaded !== undefined) return Promise.resolve(loaded);
      loading ??= importer().then(
        (module) => {
          loaded = module;
          return module;
        },
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
  };
}

/**
 * Runs `use` with the module, now when it is loaded, else once it is; a failed load ends the call as a bug
 * (`fail`), as an exception in toolwire's own code would.
 */
export function withModule<M>(
  module: Lazy<M>,
  fail: (error: unknown) => void,
  use: (loaded: M) => void,
): void {
  const now = module.now;
  if (now !== undefined) {
    use(now);
    return;
  }
  module.load().then(use, fail);
}
