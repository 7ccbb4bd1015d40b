/**
 * A key the apiKey function returns that cannot travel in a header is refused naming what to fix: its size, and
 * the first character that is not printable ASCII (by position and code point), never the key.
 */
import { describe, expect, it, vi } from 'vitest';
import { readApiKey } from '../../src/wire/api-key';

describe('readApiKey', () => {
  it.each([
    ['sk-live-…', 'a string of 9 characters; character 9 is U+2026, not printable ASCII'],
    ['sk live', 'a string of 7 characters; character 3 is U+0020 (a space), not printable ASCII'],
    ['sk-live\n', 'a string of 8 characters; character 8 is U+000A (a line break), not printable ASCII'],
    ['', 'a string of 0 characters'],
  ])('refuses %j, naming the character to fix', async (key, got) => {
    const read = await readApiKey(() => key, undefined);
    expect(read).toMatchObject({
      ok: false,
      error: {
        code: 'api_key_failed',
        message: `the apiKey function must return a non-empty string of printable ASCII without spaces, at most 4096 characters; got ${got}`,
      },
    });
  });

  it('takes a key of printable ASCII', async () => {
    expect(await readApiKey(() => 'sk-live-example', undefined)).toEqual({
      ok: true,
      key: 'sk-live-example',
    });
  });

  it('stops waiting for a hung key once its attempt is given up, its timer cleared', async () => {
    vi.useFakeTimers();
    try {
      const givenUp = new AbortController();
      const reading = readApiKey(
        () => new Promise<string>(() => {}),
        undefined,
        10_000,
        undefined,
        givenUp.signal,
      );
      await vi.advanceTimersByTimeAsync(1_000);
      givenUp.abort();
      expect(await reading).toMatchObject({
        ok: false,
        error: {
          code: 'api_key_failed',
          message: 'the apiKey function was not waited for: the attempt was given up',
        },
      });
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
