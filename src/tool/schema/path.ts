/**
 * Renders issue paths in one style for every schema kind: `items[0].sku`, `tags["a b"]`, `(root)`.
 *
 * @module
 */

/** The text used for the path of the value itself. */
export const ROOT_PATH = '(root)';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** One path segment: a key, or a Standard Schema `{ key }` segment (valibot uses those). */
export type PathSegmentLike = PropertyKey | { readonly key: PropertyKey };

/**
 * Renders a path: identifier keys joined with `.`, array indices (numbers) as `[0]`, other keys as `["a b"]`.
 *
 * @example
 * ```ts
 * formatPath(['items', 0, 'sku']); // 'items[0].sku'
 * formatPath([]); // '(root)'
 * ```
 */
export function formatPath(segments: readonly PathSegmentLike[] | undefined): string {
  if (segments === undefined || segments.length === 0) return ROOT_PATH;
  let out = '';
  for (const segment of segments) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'symbol') out += `[${String(key)}]`;
    else if (IDENTIFIER.test(key)) out += out === '' ? key : `.${key}`;
    else out += `[${JSON.stringify(key)}]`;
  }
  return out;
}

/**
 * Converts a JSON Pointer in URI fragment form (`#/items/0/sku`, as `@cfworker/json-schema` reports it) to
 * path segments. A segment is an array index only when the value at that point of `instance` is an array, so
 * an object key `"0"` stays a key.
 */
export function pointerToSegments(pointer: string, instance: unknown): PropertyKey[] {
  const body = pointer.startsWith('#') ? pointer.slice(1) : pointer;
  if (body === '' || body === '/') return [];
  const segments: PropertyKey[] = [];
  let current: unknown = instance;
  for (const raw of body.slice(1).split('/')) {
    const key = safeDecode(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(current) && /^(0|[1-9][0-9]*)$/.test(key)) {
      const index = Number(key);
      segments.push(index);
      current = current[index];
    } else {
      segments.push(key);
      current =
        typeof current === 'object' && current !== null
          ? (current as Record<string, unknown>)[key]
          : undefined;
    }
  }
  return segments;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
