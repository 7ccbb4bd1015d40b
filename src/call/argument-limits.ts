/**
 * What decoded arguments must be before a schema sees them: at most {@link MAX_ARGUMENT_DEPTH} levels deep (a
 * recursive schema would overflow the stack on deeper ones, and zod keeps memory when it does), with numbers JSON
 * can carry (`1e400` became `Infinity` when parsed), and no integer past 2^53 where the schema says integer (the
 * model's number was rounded when parsed: `12345678901234567890` reads `12345678901234567000`). Every call
 * passes here, so ordinary arguments cost one walk without recursion and without allocating per value. Where the
 * walk finds an unusual number, src/call/number-refusals.ts says which are refused (the browser build loads it
 * then, as a phase of the call).
 *
 * @module
 */
import { MAX_ARGUMENT_DEPTH } from '../limits';

/** A number that is not a safe integer or a finite fraction: Infinity, NaN, or an integer past 2^53. */
export const unusual = (value: number): boolean => !(Math.abs(value) <= Number.MAX_SAFE_INTEGER);

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

/**
 * Checks decoded arguments before validation, in one walk: `too_deep` ends the call before validation; `numbers`
 * means they hold an unusual number (not finite, or an integer past ±(2^53 − 1)), which
 * src/call/number-refusals.ts turns into issues to report with the schema's (see `runCall`); `ok` otherwise.
 *
 * - nested deeper than {@link MAX_ARGUMENT_DEPTH} (objects and arrays alike; a cycle counts as too deep):
 *   `too_deep`;
 * - a getter or a proxy that throws, in an object given to `invokeTool`: `ok` (validation decides).
 */
export function scanArguments(args: object): 'ok' | 'too_deep' | 'numbers' {
  try {
    return scan(args, MAX_ARGUMENT_DEPTH);
  } catch {
    return 'ok';
  }
}
