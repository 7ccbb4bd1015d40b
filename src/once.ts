/**
 * Values built at their first use: what a process may never need (a schema of frames it never gets, the widget
 * schema of a worker that sends no widget) is not built when the module loads.
 *
 * @module
 */

/**
 * A function that returns `build()`'s value, built at its first call and the same value at every later one
 * (`build` runs at most once; if it throws, the next call builds again). Call it with `@__PURE__` at a module's top
 * level, so that a bundle drops one that nothing calls.
 */
export function once<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => {
    built ??= build();
    return built;
  };
}
