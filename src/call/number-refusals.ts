/**
 * Which unusual numbers of a call's arguments are refused (src/call/argument-limits.ts found at least one), with
 * the issue to report beside the schema's: a separate module, which the browser build loads only for a call whose
 * arguments hold such a number (src/call/number-refusals.browser.ts).
 *
 * @module
 */
import type { ValidationIssue } from '../tool/schema/index';
import { integerAt } from '../tool/schema/integer-at';
import { formatPath } from '../tool/schema/path';
import { unusual } from './argument-limits';
import type { CallState } from './types';

/** Own enumerable keys, or none when reading them throws (a hostile object given to `invokeTool`). */
function keysOf(value: object): string[] {
  try {
    return Object.keys(value);
  } catch {
    return [];
  }
}

function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** At most this many numbers are named in one refusal. */
const MAX_NAMED = 10;

/** Where the unusual numbers are (a second walk, with paths, run only when the first found one). */
function unusualNumbers(root: object): Array<{ path: PropertyKey[]; value: number }> {
  const found: Array<{ path: PropertyKey[]; value: number }> = [];
  const pending: Array<{ value: object; path: PropertyKey[] }> = [{ value: root, path: [] }];
  while (pending.length > 0 && found.length < MAX_NAMED * 10) {
    const { value, path } = pending.pop() as { value: object; path: PropertyKey[] };
    const entries: Array<[PropertyKey, unknown]> = Array.isArray(value)
      ? value.map((item, index) => [index, item])
      : keysOf(value).map((key) => [key, read(value, key)]);
    for (const [key, item] of entries.reverse()) {
      if (typeof item === 'object' && item !== null) pending.push({ value: item, path: [...path, key] });
      else if (typeof item === 'number' && unusual(item)) found.push({ path: [...path, key], value: item });
    }
  }
  return found;
}

function numberIssue(value: number): string | undefined {
  if (Number.isNaN(value)) return 'NaN is not a number JSON can carry';
  if (!Number.isFinite(value)) {
    return `the number is too large for JavaScript (past ±1.8e308); it became ${String(value)}`;
  }
  return undefined;
}

/**
 * The refusals of the unusual numbers of `args` (src/call/argument-limits.ts `scanArguments` said `numbers`),
 * given to `next` (`undefined` when none is refused; here at once, in the browser build once this module loaded):
 *
 * - a number that is not finite (`1e400` parses as `Infinity`; `NaN` only from an object given to
 *   `invokeTool`): refused, whatever the schema;
 * - an integer past ±(2^53 − 1) where `schema` (the tool's announced JSON Schema) says `integer` and nowhere
 *   `number`: refused, since the value sent was rounded. Elsewhere such a number goes on as parsed, as
 *   `JSON.parse` gives it (`6.02214076e23` is a fine number).
 *
 * `-0` and numbers that underflow to `0` go on as parsed.
 */
export function refuseNumbers(
  _call: CallState,
  args: object,
  schema: unknown,
  next: (refused: ValidationIssue[] | undefined) => void,
): void {
  const issues: ValidationIssue[] = [];
  for (const { path, value } of unusualNumbers(args)) {
    const message =
      numberIssue(value) ??
      (integerAt(schema, path)
        ? `${String(value)} is past the integers JavaScript holds exactly (±${Number.MAX_SAFE_INTEGER}), so the number sent may have been rounded; send it as a string`
        : undefined);
    if (message !== undefined) issues.push({ path: formatPath(path), message });
  }
  next(issues.length > 0 ? issues : undefined);
}
