/**
 * The root of tool parameters: what it announces, given that validation only ever sees objects there (the
 * arguments are decoded to a JSON object first: `[]` and `42` are refused before validation, `null` becomes
 * `{}`, see src/call/arguments.ts). A root that says "object" in any way JSON Schema can (a `type`, every
 * branch of an `anyOf` / `oneOf` that can hold an object, one part of an `allOf`, a `$ref` to such a schema,
 * as `z.union()` of objects, `.nullable()`, `z.lazy()`, valibot's `lazy()` or an arktype cycle announce it) is
 * announced with `"type": "object"` at the top and without the branches that can hold no object, which refuses
 * the same objects. A root that can hold no object, or that never says so (`{}`, `z.unknown()`), is refused.
 *
 * @module
 */
import { isPlainObject } from '../../json';
import type { JsonObject } from './types';

/**
 * What a schema says about objects: `object` when every value it accepts is an object (or it accepts none),
 * `none` when it accepts no object, `some` when it may accept objects without saying so.
 */
type ObjectKind = 'object' | 'none' | 'some';

const BRANCHES = ['anyOf', 'oneOf'] as const;
// Keywords that only annotate: a root made of one branch and these is that branch.
const ANNOTATIONS = new Set(['title', 'description', 'examples', 'default', 'deprecated', '$comment']);

/** The value a local JSON Pointer (`#/$defs/node`) points to in `root`, or `undefined`. */
function resolveLocal(root: JsonObject, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    if (!isPlainObject(current)) return undefined;
    let key: string;
    try {
      key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (!Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

function typeKind(type: unknown): ObjectKind | undefined {
  if (type === undefined) return undefined;
  const names = Array.isArray(type) ? type : [type];
  return names.includes('object') ? 'object' : 'none';
}

function valuesKind(values: readonly unknown[]): ObjectKind {
  return values.some(isPlainObject) ? (values.every(isPlainObject) ? 'object' : 'some') : 'none';
}

/** The kind of `schema`, following local `$ref`s (`seen` stops a `$ref` cycle, which says nothing). */
function kindOf(schema: unknown, root: JsonObject, seen: ReadonlySet<string>): ObjectKind {
  if (schema === false) return 'none';
  if (!isPlainObject(schema)) return 'some';
  const kinds: ObjectKind[] = [];
  const push = (kind: ObjectKind | undefined) => kind !== undefined && kinds.push(kind);
  push(typeKind(schema.type));
  if (Object.hasOwn(schema, 'const')) push(valuesKind([schema.const]));
  if (Array.isArray(schema.enum)) push(valuesKind(schema.enum));
  if (schema.not === true || (isPlainObject(schema.not) && Object.keys(schema.not).length === 0))
    push('none');
  for (const keyword of BRANCHES) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    const open = branches.map((branch) => kindOf(branch, root, seen)).filter((kind) => kind !== 'none');
    push(open.length === 0 ? 'none' : open.every((kind) => kind === 'object') ? 'object' : 'some');
  }
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) push(kindOf(part, root, seen));
  if (typeof schema.$ref === 'string' && !seen.has(schema.$ref)) {
    const target = resolveLocal(root, schema.$ref);
    if (target !== undefined) push(kindOf(target, root, new Set([...seen, schema.$ref])));
  }
  if (kinds.includes('none')) return 'none';
  return kinds.includes('object') ? 'object' : 'some';
}

/**
 * `schema` as the root of parameters: with `"type": "object"`, the `anyOf` / `oneOf` branches that can hold no
 * object left out (a single one left merged into the root when nothing else constrains there), or `undefined`
 * when the schema does not describe objects.
 *
 * @example
 * ```ts
 * objectRoot({ anyOf: [{ type: 'object', properties: {} }, { type: 'null' }] }); // { type: 'object', properties: {} }
 * objectRoot({ $ref: '#/$defs/node', $defs: { node: { type: 'object' } } }); // { type: 'object', $ref: …, $defs: … }
 * objectRoot({ type: 'string' }); // undefined
 * ```
 */
export function objectRoot(schema: JsonObject): JsonObject | undefined {
  if (kindOf(schema, schema, new Set()) !== 'object') return undefined;
  let out: JsonObject = { ...schema };
  for (const keyword of BRANCHES) {
    const branches = out[keyword];
    if (!Array.isArray(branches)) continue;
    const open = branches.filter((branch) => kindOf(branch, schema, new Set()) !== 'none');
    const others = Object.keys(out).filter((key) => key !== keyword && !ANNOTATIONS.has(key));
    const only = open[0];
    if (open.length === 1 && others.length === 0 && isPlainObject(only) && !Object.hasOwn(only, '$defs')) {
      const { [keyword]: _branches, ...annotations } = out;
      out = { ...annotations, ...only };
    } else out[keyword] = open;
  }
  if (out.type === 'object') return out;
  const { type: _types, ...rest } = out;
  return { type: 'object', ...rest };
}
