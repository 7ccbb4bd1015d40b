/**
 * Small helpers for JSON values, used by every layer.
 *
 * @module
 */

/** A JSON object (a plain object with string keys). */
export type JsonObject = { [key: string]: unknown };

/** `true` for a plain object (`{}` literal or `Object.create(null)`), the only shape a JSON Schema can have here. */
export function isPlainObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** JSON type name of a value as a model would say it: `array`, `null`, `number`, … */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * `target[key] = value`, except that a `__proto__` key becomes an own property, as `JSON.parse` makes it,
 * instead of replacing the target's prototype (and vanishing from the output).
 */
export function setKey<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else target[key] = value;
}
