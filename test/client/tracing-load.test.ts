import { afterEach, describe, expect, it, vi } from 'vitest';
import { Redactor } from '../../src/logger';

/**
 * The browser build's stand-in for the tracer code (src/client/tracing.browser.ts), run in Node with its dynamic
 * import made to fail: `ready()` (which `client.connect()` waits for) rejects, and the next one loads it.
 */
afterEach(() => {
  vi.doUnmock('../../src/client/tracing');
  vi.resetModules();
});

describe('the browser build’s tracer code', () => {
  it('rejects ready() when its code cannot be loaded, and loads it on the next try', async () => {
    let fail = true;
    vi.doMock('../../src/client/tracing', async (importOriginal) => {
      if (fail) throw new Error('the chunk could not be fetched');
      return importOriginal();
    });
    const { callTraces } = await import('../../src/client/tracing.browser');
    const traces = callTraces({ startCall: () => undefined }, new Redactor([]), {
      registry: { get: () => undefined },
      onApproval: undefined,
    });
    await expect(traces.ready()).rejects.toThrow(); // vitest wraps the factory's error in its own
    fail = false;
    await traces.ready();
    expect(traces.ready()).toBeUndefined();
  });
});
