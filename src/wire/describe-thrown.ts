/**
 * What a socket or a callback threw, as text.
 *
 * @module
 */

/** What was thrown, as text; never throws itself (a socket may throw anything, even an object with no `toString`). */
export function describeThrown(error: unknown): string {
  try {
    if (error instanceof Error) return String(error.message);
    return typeof error === 'string' ? error : String(error);
  } catch {
    return 'a value that cannot be shown as text';
  }
}
