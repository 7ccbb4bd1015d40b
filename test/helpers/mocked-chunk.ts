/**
 * A module that the core loads with `import()` (a chunk of a browser build), mocked for a test: the loads begun
 * and done are counted; each waits for `arrived`, then fails while `offline()`, else gives the real module.
 */
import { vi } from 'vitest';

/**
 * Mocks the module at `path` (absolute, as `import()` resolves it) until `vi.doUnmock(path)`.
 * @returns the counts of loads begun (`count`) and done (`done`), live.
 */
export function mockChunk(
  path: string,
  offline: () => boolean = () => false,
  arrived: Promise<void> = Promise.resolve(),
): { count: number; done: number } {
  const loads = { count: 0, done: 0 };
  vi.doMock(path, async (importOriginal) => {
    loads.count += 1;
    await arrived;
    if (offline()) throw new Error('the network is down');
    const loaded = await importOriginal();
    loads.done += 1;
    return loaded;
  });
  return loads;
}
