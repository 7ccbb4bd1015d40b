/**
 * Waits for a promise at most `timeoutMs` milliseconds (the client's drain on `close()`).
 *
 * @module
 */

/** `true` when `promise` settled within `timeoutMs`, `false` when the time ran out first. */
export async function withTimeout(promise: Promise<void>, timeoutMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([promise.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
