/**
 * What the shared test helpers open (stubs, clients, proxies, child processes) is closed when the test that opened
 * it ends: {@link afterTest} keeps it, and test/setup.ts's `afterEach` (set up for every file) closes it, last
 * opened first. A helper module must not register its own `afterEach`: with `isolate: false` it is evaluated once
 * per worker, so its hook belongs to the first file that imported it, and what later files open is never closed.
 */
const pending: Array<() => Promise<void> | void> = [];

/** Runs `cleanup` when the current test ends (after every test of a file's `beforeAll`: at the next test's end). */
export function afterTest(cleanup: () => Promise<void> | void): void {
  pending.push(cleanup);
}

/** Runs the cleanups kept so far, last kept first; each runs even if one before it threw (the first error is thrown). */
export async function runAfterTest(): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const cleanup of pending.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure !== undefined) throw failure.error;
}
