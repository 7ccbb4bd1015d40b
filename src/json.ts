/**
 * Small helpers for JSON values, used by every layer.
 *
 * @module
 */

/** A JSON object (a plain object with string keys). */
export type JsonObject = { [key: string]: unknown };

/**
 * `true` for a plain object (`{}` literal or `Object.create(null)`), the only shape a JSON Schema can have here.
 * Never throws: a value whose prototype cannot be read (a Proxy whose `getPrototypeOf` trap throws, a revoked
 * Proxy) is not one.
 */
export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null) return false;
  try {
    const proto = Object.getPrototypeOf(value);
    return proto === Object.prototype || proto === null;
  } catch {
    return false;
  }
}

/** JSON type name of a value as a model would say it: `array`, `null`, `number`, … */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * A deep copy of JSON data (a JSON Schema, a parsed value): `structuredClone` where the runtime has it, else a trip
 * through JSON text, which copies JSON data alike (React Native and Jest's jsdom environment have no
 * `structuredClone`). Chosen once, when the module loads.
 */
export const cloneJson: <T>(value: T) => T =
  typeof structuredClone === 'function'
    ? (value) => structuredClone(value)
    : (value) => (value === undefined ? value : JSON.parse(JSON.stringify(value)));

/**
 * `target[key] = value`, except that a `__proto__` key becomes an own property, as `JSON.parse` makes it,
 * instead of replacing the target's prototype (and vanishing from the output).
 */
export function setKey<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}

/**
 * `true` when `value` nests objects and arrays more than `max` levels deep (`value` itself, when it is one, is
 * level 1). Iterative, so any depth costs no call stack; for parsed JSON (a cycle would not end). Used where a
 * peer's value meets code that recurses (`JSON.stringify`, `structuredClone`, a JSON Schema check).
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const objects: object[] = [value];
  const depths: number[] = [1];
  for (let current = objects.pop(); current !== undefined; current = objects.pop()) {
    const depth = depths.pop() as number;
    if (depth > max) return true;
    // An array by its indices: `for…in` over one takes V8's slow path (~0.5 µs for a frame's list of acks). An
    // object by `for…in`: no array of its keys is made.
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) {
        const item: unknown = current[i];
        if (typeof item === 'object' && item !== null) {
          objects.push(item);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in current) {
        const item: unknown = (current as Record<string, unknown>)[key];
        if (typeof item === 'object' && item !== null) {
          objects.push(item);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}

/**
 * Deepest level copied. Validated arguments nest at most 64 levels (`MAX_ARGUMENT_DEPTH`) unless a schema
 * transform made them deeper or cyclic: past this level the value is shared as it is, rather than the copy
 * overflowing the stack.
 */
const MAX_COPY_DEPTH = 256;

/**
 * A deep-frozen copy of `value`'s plain objects and arrays (everything else shared): what a call's observers
 * (policies, the `needsApproval` predicate, approvers, `approval_requested` listeners) see of its arguments;
 * see `lazyFrozenCopy` (src/call/approval.ts).
 */
export function frozenCopy<T>(value: T, depth = 1): T {
  if (typeof value !== 'object' || value === null || depth > MAX_COPY_DEPTH) return value;
  if (Array.isArray(value)) {
    const copy: unknown[] = new Array(value.length);
    for (let index = 0; index < value.length; index += 1) copy[index] = frozenCopy(value[index], depth + 1);
    return Object.freeze(copy) as T;
  }
  if (!isPlainObject(value)) return value;
  const source = value as Record<string, unknown>;
  const copy: Record<string, unknown> = Object.getPrototypeOf(value) === null ? Object.create(null) : {};
  for (const key of Object.keys(source)) {
    const item = frozenCopy(source[key], depth + 1);
    // A key `__proto__` (JSON.parse makes it an own key) stays data: assigning it would set the prototype.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true });
    else copy[key] = item;
  }
  return Object.freeze(copy) as T;
}
