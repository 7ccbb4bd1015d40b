/**
 * The version of the zod the tests import: the locked one under `vitest.config.ts`, the oldest one
 * package.json's range admits under `vitest.zod-lowest.config.ts` (which resolves `zod` to `zod-lowest`).
 * Tests that pin what only a newer zod does (its own wording or JSON Schema form, a construct a later minor
 * added, toolwire's proof checked against one minor) skip below that version with {@link zodBefore}, saying why.
 */
import { z } from 'zod';

const { major, minor, patch } = z.core.version;

/**
 * `true` when the zod the tests import is older than `version` (`'4.5.0'`).
 *
 * @example
 * ```ts
 * it.skipIf(zodBefore('4.3.0'))('takes .exactOptional() (added in zod 4.3)', () => {});
 * ```
 */
export function zodBefore(version: string): boolean {
  const [wantMajor = 0, wantMinor = 0, wantPatch = 0] = version.split('.').map(Number);
  if (major !== wantMajor) return major < wantMajor;
  if (minor !== wantMinor) return minor < wantMinor;
  return patch < wantPatch;
}
