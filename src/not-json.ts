/**
 * Why a value is not JSON as written ({@link notJson}): what `client.decide()` checks of edited arguments
 * (src/client/decisions.ts) before it sends them. A file of its own, beside the JSON helpers every layer uses
 * (./json.ts): a browser page loads it with the code of `decide()`, at its first decision.
 *
 * @module
 */
import { isPlainObject } from './json';

/**
 * Why `value` is not JSON as it is, naming the place (`note`, `items[2]`) under `path`: a function, a symbol, a
 * BigInt, `undefined` in an array, a number JSON cannot hold (`NaN`, `Infinity`), an object that is neither a
 * plain object nor an array (a `Date`, a `Map`, a class instance), or a cycle; `undefined` when it is JSON.
 * `JSON.stringify` would drop, empty or rewrite each of those without a word. An object's field that is
 * `undefined` is JSON's way of leaving the field out, and is accepted. Levels past `maxDepth` are not looked at
 * (a depth check says what is wrong with them).
 */
export function notJson(value: unknown, maxDepth: number, path = 'the value'): string | undefined {
  return notJsonAt(value, path, [], maxDepth);
}

/** An object's kind as a message names it: `a Date`, `a Map`, `an object of class Money`. */
export function kindOf(object: object): string {
  let name: unknown;
  try {
    name = (object as { constructor?: { name?: unknown } }).constructor?.name;
  } catch {
    name = undefined;
  }
  if (typeof name !== 'string' || name === '') return 'an object of no class';
  return /^[AEIOU]/.test(name) ? `an ${name}` : `a ${name}`;
}

function notJsonAt(value: unknown, path: string, ancestors: object[], maxDepth: number): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path} is ${value}, which JSON cannot hold`;
    case 'bigint':
      return `${path} is a BigInt`;
    case 'function':
      return `${path} is a function`;
    case 'symbol':
      return `${path} is a symbol`;
    case 'undefined':
      return `${path} is undefined`;
  }
  if (value === null) return undefined;
  const object = value as object;
  if (ancestors.includes(object)) return `${path} holds a cycle`;
  if (ancestors.length >= maxDepth) return undefined;
  ancestors.push(object);
  try {
    if (Array.isArray(object)) {
      for (let index = 0; index < object.length; index += 1) {
        const why = notJsonAt(object[index], `${path}[${index}]`, ancestors, maxDepth);
        if (why !== undefined) return why;
      }
      return undefined;
    }
    if (!isPlainObject(object)) return `${path} is ${kindOf(object)}, not a plain object or an array`;
    for (const key of Object.keys(object)) {
      const item = (object as Record<string, unknown>)[key];
      if (item === undefined) continue;
      const why = notJsonAt(item, `${path}.${key}`, ancestors, maxDepth);
      if (why !== undefined) return why;
    }
    return undefined;
  } finally {
    ancestors.pop();
  }
}
