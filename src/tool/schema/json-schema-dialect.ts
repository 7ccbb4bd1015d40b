/**
 * The dialect of a plain JSON Schema given as parameters, and its translation to JSON Schema 2020-12, which is
 * what toolwire announces (the service reads every announcement as 2020-12) and what it validates with, so that
 * the two cannot part. The translation says in 2020-12 what the schema says in its own draft:
 *
 * | `$schema`             | read as                                                                                |
 * | --------------------- | -------------------------------------------------------------------------------------- |
 * | draft-04              | `exclusiveMinimum: true` + `minimum: n` → `exclusiveMinimum: n` (same for maximum); `id` → `$id` (`"#name"` → `$anchor`) |
 * | draft-04, -06, -07    | `items: [...]` → `prefixItems`, `additionalItems` → `items`; `definitions` → `$defs`; `dependencies` → `dependentRequired` / `dependentSchemas`; the siblings of a `$ref`, which these drafts ignore, are dropped (annotations kept) |
 * | 2019-09               | `items: [...]` and `additionalItems` as above; `$recursiveRef` → `$ref` when only the root has `$recursiveAnchor`; `dependencies`, split in two by 2019-09, is dropped |
 * | 2020-12               | as written (`additionalItems` and `dependencies`, not 2020-12 keywords, are dropped)  |
 * | none                  | 2020-12, and the forms of earlier drafts that 2020-12 gives no meaning (an `items` array with its `additionalItems`, a boolean `exclusiveMinimum`, `dependencies`, `definitions`) read as those drafts meant them |
 *
 * A keyword a later draft defines and the schema's draft does not (`const` in draft-04, `if` in draft-06,
 * `dependentRequired` in draft-07, `prefixItems` in 2019-09 …) is ignored by that draft, so it is dropped. `$ref`s
 * are rewritten to the keywords' new places (`#/definitions/a` → `#/$defs/a`, `#/items/0` → `#/prefixItems/0`).
 * Any other `$schema` (draft-03, an unknown URI) is refused.
 *
 * @module
 */
import { isPlainObject } from '../../json';
import { SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS } from './subschema-keywords';
import type { JsonObject } from './types';

/** The drafts told apart; `none` when the schema names none. */
export type Dialect = '4' | '6' | '7' | '2019-09' | '2020-12' | 'none';

const DIALECTS: ReadonlyArray<[RegExp, Dialect]> = [
  [/^https?:\/\/json-schema\.org\/draft-04\/schema#?$/, '4'],
  [/^https?:\/\/json-schema\.org\/draft-06\/schema#?$/, '6'],
  [/^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, '7'],
  [/^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/, '2019-09'],
  [/^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/, '2020-12'],
];

/**
 * The dialect `$schema` names.
 *
 * @throws Error for a `$schema` that names another dialect (draft-03, a custom meta-schema).
 */
export function dialectOf(schema: JsonObject): Dialect {
  if (!Object.hasOwn(schema, '$schema')) return 'none';
  const uri = schema.$schema;
  const found = typeof uri === 'string' ? DIALECTS.find(([pattern]) => pattern.test(uri)) : undefined;
  if (found === undefined) {
    throw new Error(
      `#/$schema: ${JSON.stringify(uri)} is not a dialect toolwire reads (draft-04, draft-06, draft-07, 2019-09 or 2020-12)`,
    );
  }
  return found[1];
}

/** Keywords each draft lacks that a later one defines as an assertion or applicator. */
const SINCE_06 = ['const', 'contains', 'propertyNames'];
const SINCE_07 = ['if', 'then', 'else'];
const SINCE_2019 = [
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedItems',
  'unevaluatedProperties',
  'minContains',
  'maxContains',
  '$anchor',
];
const SINCE_2020 = ['prefixItems', '$dynamicRef', '$dynamicAnchor'];
const UNKNOWN: Record<Dialect, ReadonlySet<string>> = {
  '4': new Set([...SINCE_06, ...SINCE_07, ...SINCE_2019, ...SINCE_2020]),
  '6': new Set([...SINCE_07, ...SINCE_2019, ...SINCE_2020]),
  '7': new Set([...SINCE_2019, ...SINCE_2020]),
  '2019-09': new Set([...SINCE_2020, 'dependencies']),
  '2020-12': new Set(['additionalItems', 'dependencies', '$recursiveRef', '$recursiveAnchor']),
  none: new Set(),
};
const ANNOTATIONS = new Set([
  'title',
  'description',
  'examples',
  'default',
  'deprecated',
  '$comment',
  'readOnly',
  'writeOnly',
]);

/** One translation: the dialect, and whether the root alone holds `$recursiveAnchor` (2019-09). */
interface Context {
  dialect: Dialect;
  older: boolean; // draft-04, -06 or -07
}

const failDialect = (pointer: readonly string[], problem: string): never => {
  throw new Error(
    `#${pointer.map((s) => `/${s.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')}: ${problem}`,
  );
};

/** Where a keyword of `node` went in 2020-12 (`undefined`: it stays). */
function renamed(node: JsonObject, keyword: string, ctx: Context): string | undefined {
  const tuple = Array.isArray(node.items);
  if (keyword === 'items' && tuple) return 'prefixItems';
  if (keyword === 'additionalItems' && tuple) return 'items';
  if (
    keyword === 'definitions' &&
    ctx.dialect !== '2019-09' &&
    ctx.dialect !== '2020-12' &&
    !('$defs' in node)
  )
    return '$defs';
  return undefined;
}

function translateNode(schema: unknown, pointer: readonly string[], ctx: Context, root: boolean): unknown {
  if (!isPlainObject(schema)) return schema;
  const { dialect } = ctx;
  const drop = UNKNOWN[dialect];
  const at = (keyword: string) => [...pointer, keyword];
  let source: JsonObject = schema;
  if (ctx.older && typeof schema.$ref === 'string') {
    // Draft-04 to -07 ignore every sibling of $ref; definitions stay, as $refs may point into them.
    source = Object.fromEntries(
      Object.entries(schema).filter(
        ([key]) => key === '$ref' || key === 'definitions' || key === '$defs' || ANNOTATIONS.has(key),
      ),
    );
  }
  if (dialect === '2020-12') {
    if (Array.isArray(source.items))
      failDialect(at('items'), 'an array of schemas is draft 2019-09 and earlier; 2020-12 says prefixItems');
    for (const keyword of ['exclusiveMinimum', 'exclusiveMaximum']) {
      if (typeof source[keyword] === 'boolean')
        failDialect(at(keyword), 'a boolean is draft-04; 2020-12 takes the bound itself');
    }
  }
  const out: JsonObject = {};
  for (const [keyword, value] of Object.entries(source)) {
    if (drop.has(keyword)) continue;
    const name = renamed(source, keyword, ctx) ?? keyword;
    const here = at(keyword);
    if (keyword === 'items' && Array.isArray(value)) {
      out.prefixItems = value.map((item, index) => translateNode(item, [...here, String(index)], ctx, false));
    } else if (keyword === 'additionalItems') {
      if (Array.isArray(source.items)) out.items = translateNode(value, here, ctx, false);
      // Beside an items schema (or none), additionalItems does nothing.
    } else if (keyword === 'items' || SUBSCHEMA_KEYWORDS.includes(keyword)) {
      out[name] = translateNode(value, here, ctx, false);
    } else if (SUBSCHEMA_LIST_KEYWORDS.includes(keyword) && Array.isArray(value)) {
      out[name] = value.map((item, index) => translateNode(item, [...here, String(index)], ctx, false));
    } else if (SUBSCHEMA_MAP_KEYWORDS.includes(keyword) && isPlainObject(value)) {
      const map: JsonObject = {};
      for (const [key, child] of Object.entries(value)) {
        Object.defineProperty(map, key, {
          value: translateNode(child, [...here, key], ctx, false),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      out[name] = map;
    } else if (keyword === 'dependencies' && isPlainObject(value)) {
      for (const [key, dependency] of Object.entries(value)) {
        const target = Array.isArray(dependency) ? 'dependentRequired' : 'dependentSchemas';
        if (!isPlainObject(out[target])) out[target] = {};
        const holder = out[target] as JsonObject;
        holder[key] = Array.isArray(dependency)
          ? dependency
          : translateNode(dependency, [...here, key], ctx, false);
      }
    } else if (keyword === 'id' && dialect === '4' && typeof value === 'string') {
      if (value.startsWith('#')) out.$anchor = value.slice(1);
      else out.$id = value;
    } else if (keyword === '$recursiveRef' && dialect === '2019-09') {
      out.$ref = value;
    } else if (keyword === '$recursiveAnchor' && dialect === '2019-09') {
      if (!root && value === true)
        failDialect(here, 'a $recursiveAnchor below the root is not translated; write the schema in 2020-12');
    } else out[name] = value;
  }
  if (dialect === '4' || (dialect === 'none' && typeof source.exclusiveMinimum === 'boolean'))
    boundsFromDraft4(out, 'minimum', 'exclusiveMinimum');
  if (dialect === '4' || (dialect === 'none' && typeof source.exclusiveMaximum === 'boolean'))
    boundsFromDraft4(out, 'maximum', 'exclusiveMaximum');
  return out;
}

/** Draft-04's `exclusiveMinimum: true` beside `minimum: n` is 2020-12's `exclusiveMinimum: n` (in place). */
function boundsFromDraft4(out: JsonObject, inclusive: string, exclusive: string): void {
  const flag = out[exclusive];
  if (typeof flag !== 'boolean') return;
  if (flag && typeof out[inclusive] === 'number') {
    out[exclusive] = out[inclusive];
    delete out[inclusive];
  } else delete out[exclusive];
}

/** A local `$ref` pointer rewritten to where its keywords went (`#/definitions/a` → `#/$defs/a`). */
function translatePointer(root: JsonObject, ref: string, ctx: Context): string {
  if (!ref.startsWith('#/')) return ref;
  const out: string[] = [];
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    let next = raw;
    if (isPlainObject(node)) {
      const moved = renamed(node, key, ctx);
      if (moved !== undefined) next = moved;
      else if (key === 'dependencies' && isPlainObject(node.dependencies)) next = 'dependentSchemas';
    }
    out.push(next);
    node = isPlainObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
  }
  return `#/${out.join('/')}`;
}

function rewriteRefs(node: unknown, original: JsonObject, ctx: Context): void {
  if (Array.isArray(node)) {
    for (const child of node) rewriteRefs(child, original, ctx);
    return;
  }
  if (!isPlainObject(node)) return;
  if (typeof node.$ref === 'string') node.$ref = translatePointer(original, node.$ref, ctx);
  for (const [key, child] of Object.entries(node)) {
    if (key !== 'enum' && key !== 'const' && key !== 'default' && key !== 'examples')
      rewriteRefs(child, original, ctx);
  }
}

/**
 * The schema in JSON Schema 2020-12, without `$schema` (see the module's TSDoc for what changes).
 *
 * @throws Error naming the JSON Pointer of a form the translation does not take.
 */
export function to202012(schema: JsonObject): JsonObject {
  const dialect = dialectOf(schema);
  const ctx: Context = { dialect, older: dialect === '4' || dialect === '6' || dialect === '7' };
  const { $schema: _dialect, ...rest } = schema;
  const translated = translateNode(rest, [], ctx, true) as JsonObject;
  rewriteRefs(translated, rest, ctx);
  return translated;
}
