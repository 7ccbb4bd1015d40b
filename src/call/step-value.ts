/**
 * What a completed step's result becomes (PROTOCOL.md §18.11): the value `ctx.step()` returns, the same whether
 * the step ran now, ran in an earlier attempt of the call, or ran in a process that died. It is the result as
 * the service keeps it: written as JSON (by the rules of a tool's output, src/tool/serialize.ts), redacted, and
 * read back. Kinds JSON has no form for are refused, naming where they are.
 *
 * @module
 */
import { nestsDeeperThan } from '../json';
import { MAX_VALUE_DEPTH } from '../limits';
import type { Redactor } from '../redact';
import { MAX_OUTPUT_DEPTH, MAX_OUTPUT_NODES, serializeOutput } from '../tool/serialize';
import { utf8Length } from '../wire/protocol';

/** A step result as kept: its JSON text and its size in bytes, or why it cannot be kept. */
export type KeptValue = { ok: true; json: string; bytes: number } | { ok: false; reason: string };

/** `$.a[0].b` for a path of keys and indexes. */
function pathText(path: ReadonlyArray<string | number>): string {
  let text = '$';
  for (const part of path)
    text +=
      typeof part === 'number'
        ? `[${part}]`
        : /^[A-Za-z_$][\w$]*$/.test(part)
          ? `.${part}`
          : `[${JSON.stringify(part)}]`;
  return text;
}

/**
 * Why `value` cannot be kept as JSON, or `undefined`: a BigInt (a `BigInt64Array` or `BigUint64Array` too), a
 * function or a symbol anywhere (JSON would turn them into a string or drop them, so the value read back would
 * not be the one returned), a cycle, or nesting deeper than {@link MAX_OUTPUT_DEPTH} levels (written
 * `"[Too deep]"`). Walks arrays, plain objects, `Map` values and `Set` members; other objects are written by
 * their own rules. Stops (answering `undefined`) past {@link MAX_OUTPUT_NODES} values.
 */
export function unkeepable(value: unknown): string | undefined {
  const path: Array<string | number> = [];
  const ancestors: object[] = [];
  let nodes = 0;
  const visit = (item: unknown): string | undefined => {
    nodes += 1;
    if (nodes > MAX_OUTPUT_NODES || path.length > MAX_OUTPUT_DEPTH) return undefined;
    if (typeof item === 'bigint')
      return `${pathText(path)} is a BigInt, which JSON cannot hold (return a string)`;
    if (typeof item === 'function') return `${pathText(path)} is a function, which JSON cannot hold`;
    if (typeof item === 'symbol') return `${pathText(path)} is a symbol, which JSON cannot hold`;
    if (typeof item !== 'object' || item === null) return undefined;
    if (item instanceof BigInt64Array || item instanceof BigUint64Array)
      return `${pathText(path)} is a ${item.constructor.name}, whose BigInts JSON cannot hold (return strings)`;
    if (ancestors.includes(item)) return `${pathText(path)} refers back to its own container (a cycle)`;
    let entries: Iterable<[string | number, unknown]>;
    if (Array.isArray(item)) entries = item.entries();
    else if (item instanceof Map) entries = [...item].map(([key, child]) => [String(key), child]);
    else if (item instanceof Set) entries = [...item].entries();
    else if (Object.getPrototypeOf(item) === Object.prototype || Object.getPrototypeOf(item) === null)
      entries = Object.entries(item);
    else return undefined;
    ancestors.push(item);
    try {
      for (const [key, child] of entries) {
        path.push(key);
        const found = visit(child);
        path.pop();
        if (found !== undefined) return found;
      }
    } finally {
      ancestors.pop();
    }
    return undefined;
  };
  return visit(value);
}

/**
 * The kept form of a step's result: `undefined` becomes `null` (a step that returns nothing is kept, as
 * `null`), everything else its JSON as a tool's output is written (`Date` → ISO string, `Map` → object, `Set` →
 * array, `NaN` → `"NaN"`), redacted with `redactor`. Each reader parses its own copy
 * (`JSON.parse(json)`), as a process the call is re-dispatched to would. Never throws.
 */
export function keptValue(value: unknown, redactor: Redactor | undefined): KeptValue {
  const refused = unkeepable(value);
  if (refused !== undefined) return { ok: false, reason: refused };
  try {
    const json = typeof value === 'string' ? JSON.stringify(value) : serializeOutput(value ?? null);
    const parsed: unknown = JSON.parse(json);
    // Deeper, the redactor would write "[Too deep]" and the service refuse the frame: refused, not cut.
    if (nestsDeeperThan(parsed, MAX_VALUE_DEPTH))
      return {
        ok: false,
        reason: `it nests deeper than ${MAX_VALUE_DEPTH} levels of objects and arrays, the most a kept value may`,
      };
    const kept = JSON.stringify(redactor === undefined ? parsed : redactor.value(parsed));
    return { ok: true, json: kept, bytes: utf8Length(kept) };
  } catch (error) {
    return { ok: false, reason: `it could not be written as JSON (${String(error)})` };
  }
}
