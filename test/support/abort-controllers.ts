import { vi } from 'vitest';

/**
 * Runs `body` with the global `AbortController` counted; `made()` tells how many were made so far. Used to pin
 * that no `AbortController` is made for a call whose tool never reads `ctx.signal`.
 */
export function withCountedAbortControllers(body: (made: () => number) => void): void {
  let made = 0;
  vi.stubGlobal(
    'AbortController',
    class extends AbortController {
      constructor() {
        super();
        made += 1;
      }
    },
  );
  try {
    body(() => made);
  } finally {
    vi.unstubAllGlobals();
  }
}
