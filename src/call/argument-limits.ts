/**
 * What decoded arguments must be before a schema sees them: at most {@link MAX_ARGUMENT_DEPTH} levels deep (a
 * recursive schema would overflow the stack on deeper ones, and zod keeps memory when it does), with numbers JSON
 * can carry (`1e400` became `Infinity` when parsed), and no integer past 2^53 where the schema says integer (the
 * model's number was rounded when parsed: `12345678901234567890` reads `12345678901234567000`). Every call
 * passes here, so ordinary arguments cost one walk without recursion and without allocating per value.
 *
 * @module
 */
import { MAX_ARGUMENT_DEPTH } from '../limits';
import type { ValidationIssue } from '../tool/schema/index';
import { integerAt } from '../tool/schema/integer-at';
import { formatPath } from '../tool/schema/path';

/** Why arguments were refused, for the model's text. */
export type ArgumentRefusal = { kind: 'too_deep' } | { kind: 'numbers'; issues: ValidationIssue[] };

/** A number that is not a safe integer or a finite fraction: Infinity, NaN, or an integer past 2^53. */
const unusual = (value: number): boolean => !(Math.abs(value) <= Number.MAX_SAFE_INTEGER);

/**
 * One walk of the arguments: whether they nest deeper than `maxDepth`, and whether they hold an unusual number.
 * Iterative (a stack of objects and one of depths, made only when an object holds another), so any depth costs
 * no call stack; a cycle is too deep. Enumerable keys are walked with `for…in`, inherited ones included (none in
 * parsed JSON), without an array of keys per object.
 */
function scan(root: object, maxDepth: number): 'ok' | 'too_deep' | 'numbers' {
  let numbers = false;
  let objects: object[] | undefined;
  let depths: number[] | undefined;
  let value: object = root;
  let depth = 1;
  for (;;) {
    if (depth > maxDepth) return 'too_deep';
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item === 'object' && item !== null) {
          if (objects === undefined) {
            objects = [];
            depths = [];
          }
          objects.push(item);
          (depths as number[]).push(depth + 1);
        } else if (typeof item === 'number' && unusual(item)) numbers = true;
      }
    } else {
      for (const key in value) {
        const item: unknown = (value as Record<string, unknown>)[key];
        if (typeof item === 'object' && item !== null) {
          if (objects === undefined) {
            objects = [];
            depths = [];
          }
          objects.push(item);
          (depths as number[]).push(depth + 1);
        } else if (typeof item === 'number' && unusual(item)) numbers = true;
      }
    }
    if (objects === undefined || objects.length === 0) return numbers ? 'numbers' : 'ok';
    value = objects.pop() as object;
    depth = (depths as number[]).pop() as number;
  }
}

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
 * Checks decoded arguments before validation: `too_deep` ends the call before validation; `numbers` are issues
 * to report with the schema's (see `runCall`). `undefined` when there is nothing to say.
 *
 * - nested deeper than {@link MAX_ARGUMENT_DEPTH} (objects and arrays alike; a cycle counts as too deep):
 *   `too_deep`;
 * - a number that is not finite (`1e400` parses as `Infinity`; `NaN` only from an object given to
 *   `invokeTool`): refused, whatever the schema;
 * - an integer past ±(2^53 − 1) where `schema` (the tool's announced JSON Schema) says `integer` and nowhere
 *   `number`: refused, since the value sent was rounded. Elsewhere such a number goes on as parsed, as
 *   `JSON.parse` gives it (`6.02214076e23` is a fine number).
 *
 * `-0` and numbers that underflow to `0` go on as parsed.
 */
export function checkArguments(args: object, schema: unknown): ArgumentRefusal | undefined {
  let scanned: ReturnType<typeof scan>;
  try {
    scanned = scan(args, MAX_ARGUMENT_DEPTH);
  } catch {
    return undefined; // a getter or a proxy that throws, in an object given to invokeTool: validation decides
  }
  if (scanned === 'ok') return undefined;
  if (scanned === 'too_deep') return { kind: 'too_deep' };
  const issues: ValidationIssue[] = [];
  for (const { path, value } of unusualNumbers(args)) {
    const message =
      numberIssue(value) ??
      (integerAt(schema, path)
        ? `${String(value)} is past the integers JavaScript holds exactly (±${Number.MAX_SAFE_INTEGER}), so the number sent may have been rounded; send it as a string`
        : undefined);
    if (message !== undefined) issues.push({ path: formatPath(path), message });
  }
  return issues.length > 0 ? { kind: 'numbers', issues } : undefined;
}
