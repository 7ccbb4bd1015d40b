/**
 * Plain JSON Schema as `parameters` (or `outputSchema`): the adapter that `toolwire/json-schema` registers (the
 * Node entry registers it too). A schema given as a JSON object is checked when the tool is made, translated to
 * JSON Schema 2020-12 from the draft its `$schema` names, then announced and validated in that one form with
 * `@cfworker/json-schema` (./validator.ts), so that the announcement and validation cannot part. In order:
 * - the adapter, {@link jsonSchemaAdapter}, which runs the three steps below;
 * - the check of every keyword's form ({@link checkJsonSchema}): what would make every call fail is found now;
 * - the translation to 2020-12 ({@link to202012});
 * - the check that no part contradicts itself ({@link checkSatisfiable}).
 *
 * @see https://github.com/cfworker/cfworker/tree/main/packages/json-schema
 * @module
 */
import { cloneJson, isPlainObject, setKey } from '../../json';
import { kindOf } from '../../not-json';
import {
  ANNOTATION_KEYWORDS,
  eachSubschema,
  JSON_SCHEMA_TYPES,
  type JsonObject,
  renderPointer,
  resolvePointer,
  type SchemaAdapter,
  SUBSCHEMA_KEYWORDS,
  SUBSCHEMA_LIST_KEYWORDS,
  SUBSCHEMA_MAP_KEYWORDS,
  UnsatisfiableSchemaError,
  unescapeSegment,
} from './adapter';
import { schemaLibraryOf } from './index';
import { compile, plainResult } from './validator';

/**
 * Adapter for a plain JSON Schema object. The announced schema is its 2020-12 translation, a JSON copy
 * without `$schema`; the validator works on its own copy of it (it annotates the schema it is given).
 *
 * @throws Error naming the JSON Pointer of the first problem (see {@link checkJsonSchema}), of a form of
 *   its draft the translation does not take, or naming a `$schema` it does not read; UnsatisfiableSchemaError
 *   for a schema no value can pass (see {@link checkSatisfiable}).
 */
export function jsonSchemaAdapter(schema: JsonObject): SchemaAdapter {
  const jsonSchema = to202012(checkJsonSchema(schema));
  // Again on the translation: a `$recursiveRef` or `$dynamicRef` became a `$ref` that may close a cycle.
  checkRefCycles(jsonSchema);
  checkSatisfiable(jsonSchema);
  const validator = compile(cloneJson(jsonSchema));
  return {
    kind: 'json-schema',
    jsonSchema,
    validate: (value) => plainResult(validator, value),
  };
}

/** Where a keyword is: the keys from the root, rendered as a JSON Pointer (`#/properties/a~1b/type`). */
type Pointer = readonly string[];

/** Throws `<JSON Pointer>: <problem>`, the form of every problem the check and the translation find. */
function fail(pointer: Pointer, problem: string): never {
  throw new Error(`${renderPointer(pointer)}: ${problem}`);
}

/*
 * The check of every keyword's form: everything that would otherwise make every call fail (an
 * unknown `type`, a `pattern` the validator cannot compile, `required: true`, a property schema written as a
 * type name, a `$ref` that points nowhere) is found when the tool is made, with the JSON Pointer of the keyword.
 *
 * Only the keywords the validator (`@cfworker/json-schema`) acts on are checked, in every draft's forms
 * (`items` as an array, a boolean `exclusiveMinimum`); unknown keywords (`title`, `nullable`, `x-…`) and data
 * (`enum`, `const`, `default`, `examples`) are left alone, as the specification says.
 */
const TYPE_NAMES: ReadonlySet<string> = new Set(JSON_SCHEMA_TYPES);
const TYPE_LIST = JSON_SCHEMA_TYPES.map((name) => JSON.stringify(name)).join(', ');

const NON_NEGATIVE_INTEGER_KEYWORDS = [
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
  'maxContains',
  'minContains',
];
const STRING_KEYWORDS = ['format', '$ref'];

/** A value as the message shows it: strings quoted, short; containers by kind. */
function show(value: unknown): string {
  if (typeof value === 'string') {
    const quoted = JSON.stringify(value);
    return quoted.length > 60 ? `${quoted.slice(0, 59)}…` : quoted;
  }
  if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  return String(value);
}

/**
 * What to write instead of a `$ref` that is no JSON Pointer into the schema: the pointer of the schema it names by
 * its `$anchor` (`"#item"`) or its `$id` (`"item.json"`, `"https://example.com/s.json#/$defs/a"`), when the
 * schema has one; else what toolwire reads; nothing for a JSON Pointer (it points nowhere). The validator and the
 * models' services take JSON Pointers.
 */
function pointerHint(root: JsonObject, ref: string): string {
  if (ref.startsWith('#/')) return '';
  const hash = ref.indexOf('#');
  const [base, fragment] = hash < 0 ? [ref, ''] : [ref.slice(0, hash), ref.slice(hash + 1)];
  const sameDocument = (id: unknown) =>
    typeof id === 'string' &&
    id !== '' &&
    (id === base || id.endsWith(`/${base}`) || base.endsWith(`/${id}`));
  let target: string | undefined;
  eachSubschema(root, (node, pointer) => {
    if (base === '' && fragment !== '' && !fragment.startsWith('/')) {
      if (node.$anchor === fragment || node.$dynamicAnchor === fragment) target = renderPointer(pointer);
    } else if (base !== '' && sameDocument(node.$id)) {
      const within = fragment.startsWith('/') ? fragment : '';
      if (fragment === '' || within !== '') target = `${renderPointer(pointer)}${within}`;
    }
    return target !== undefined;
  });
  return target === undefined
    ? ' (a $ref is read as a JSON Pointer into the schema, such as "#/$defs/item"; nothing is fetched)'
    : `; write its JSON Pointer, ${JSON.stringify(target)} (a $ref is read as one)`;
}

/** `true` for a schema in either form: an object or a boolean. */
const isSchema = (value: unknown) => isPlainObject(value) || typeof value === 'boolean';

function checkPattern(pattern: string, pointer: Pointer): void {
  try {
    // As the validator compiles it: with the u flag, under which `\-` or `[\w-.]` are syntax errors.
    new RegExp(pattern, 'u');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    fail(pointer, `${show(pattern)} is not a valid regular expression (${reason})`);
  }
}

function checkNames(value: unknown, pointer: Pointer): void {
  if (!Array.isArray(value)) fail(pointer, `expected an array of property names, got ${show(value)}`);
  value.forEach((name, index) => {
    if (typeof name !== 'string') {
      fail([...pointer, String(index)], `expected a property name (a string), got ${show(name)}`);
    }
  });
}

function checkType(type: unknown, pointer: Pointer): void {
  const names = typeof type === 'string' ? [type] : type;
  if (!Array.isArray(names) || names.length === 0) {
    fail(pointer, `expected a type name or a non-empty array of them, got ${show(type)}`);
  }
  names.forEach((name: unknown, index) => {
    if (typeof name === 'string' && TYPE_NAMES.has(name)) return;
    const at = typeof type === 'string' ? pointer : [...pointer, String(index)];
    fail(at, `${show(name)} is not a JSON Schema type (expected one of ${TYPE_LIST})`);
  });
}

/** Checks the keywords of one schema (an object or a boolean) and recurses into its subschemas. */
function checkSchema(schema: unknown, pointer: Pointer, root: JsonObject): void {
  if (typeof schema === 'boolean') return;
  if (!isPlainObject(schema))
    fail(pointer, `expected a schema (an object or a boolean), got ${show(schema)}`);
  const at = (keyword: string) => [...pointer, keyword];
  const has = (keyword: string) => Object.hasOwn(schema, keyword);

  if (has('type')) checkType(schema.type, at('type'));
  if (has('required')) checkNames(schema.required, at('required'));
  if (has('enum') && !Array.isArray(schema.enum))
    fail(at('enum'), `expected an array, got ${show(schema.enum)}`);
  if (has('uniqueItems') && typeof schema.uniqueItems !== 'boolean') {
    fail(at('uniqueItems'), `expected a boolean, got ${show(schema.uniqueItems)}`);
  }
  for (const keyword of STRING_KEYWORDS) {
    if (has(keyword) && typeof schema[keyword] !== 'string') {
      fail(at(keyword), `expected a string, got ${show(schema[keyword])}`);
    }
  }
  for (const keyword of NON_NEGATIVE_INTEGER_KEYWORDS) {
    const value = schema[keyword];
    if (has(keyword) && !(Number.isInteger(value) && (value as number) >= 0)) {
      fail(at(keyword), `expected a non-negative integer, got ${show(value)}`);
    }
  }
  for (const keyword of ['minimum', 'maximum']) {
    if (has(keyword) && !Number.isFinite(schema[keyword])) {
      fail(at(keyword), `expected a number, got ${show(schema[keyword])}`);
    }
  }
  for (const keyword of ['exclusiveMinimum', 'exclusiveMaximum']) {
    const value = schema[keyword];
    if (has(keyword) && !Number.isFinite(value) && typeof value !== 'boolean') {
      fail(at(keyword), `expected a number (or a boolean, in draft 4), got ${show(value)}`);
    }
  }
  if (has('multipleOf') && !(Number.isFinite(schema.multipleOf) && (schema.multipleOf as number) > 0)) {
    fail(at('multipleOf'), `expected a number greater than 0, got ${show(schema.multipleOf)}`);
  }
  if (has('pattern')) {
    if (typeof schema.pattern !== 'string') {
      fail(at('pattern'), `expected a string (a regular expression), got ${show(schema.pattern)}`);
    }
    checkPattern(schema.pattern, at('pattern'));
  }
  if (has('$ref')) {
    const ref = schema.$ref as string;
    if (resolvePointer(root, ref) === undefined)
      fail(at('$ref'), `${show(ref)} does not point inside the schema${pointerHint(root, ref)}`);
  }

  for (const keyword of SUBSCHEMA_KEYWORDS) if (has(keyword)) checkSchema(schema[keyword], at(keyword), root);
  if (has('items')) {
    const { items } = schema;
    if (Array.isArray(items)) {
      for (const [index, item] of items.entries()) checkSchema(item, [...at('items'), String(index)], root);
    } else if (isSchema(items)) checkSchema(items, at('items'), root);
    else
      fail(
        at('items'),
        `expected a schema (an object or a boolean) or an array of schemas, got ${show(items)}`,
      );
  }
  for (const keyword of SUBSCHEMA_LIST_KEYWORDS) {
    if (!has(keyword)) continue;
    const list = schema[keyword];
    if (!Array.isArray(list) || list.length === 0) {
      fail(at(keyword), `expected a non-empty array of schemas, got ${show(list)}`);
    }
    for (const [index, item] of list.entries()) checkSchema(item, [...at(keyword), String(index)], root);
  }
  for (const keyword of SUBSCHEMA_MAP_KEYWORDS) {
    if (!has(keyword)) continue;
    const map = schema[keyword];
    if (!isPlainObject(map)) fail(at(keyword), `expected an object of schemas, got ${show(map)}`);
    for (const [name, child] of Object.entries(map)) {
      if (keyword === 'patternProperties') checkPattern(name, [...at(keyword), name]);
      checkSchema(child, [...at(keyword), name], root);
    }
  }
  if (has('dependentRequired')) {
    const map = schema.dependentRequired;
    if (!isPlainObject(map))
      fail(at('dependentRequired'), `expected an object of name lists, got ${show(map)}`);
    for (const [name, names] of Object.entries(map)) checkNames(names, [...at('dependentRequired'), name]);
  }
  if (has('dependencies')) {
    const map = schema.dependencies;
    if (!isPlainObject(map)) fail(at('dependencies'), `expected an object, got ${show(map)}`);
    for (const [name, dependency] of Object.entries(map)) {
      const where = [...at('dependencies'), name];
      if (Array.isArray(dependency)) checkNames(dependency, where);
      else if (isSchema(dependency)) checkSchema(dependency, where, root);
      else fail(where, `expected a schema or an array of property names, got ${show(dependency)}`);
    }
  }
}

// Keywords that apply their subschemas to the value itself, not to a part of it.
const SAME_VALUE_ONE = ['not', 'if', 'then', 'else'];
const SAME_VALUE_LIST = ['allOf', 'anyOf', 'oneOf'];

/**
 * Refuses a `$ref` cycle that never moves into a part of the value (`{ "$defs": { "a": { "$ref": "#/$defs/a" } } }`,
 * or through `allOf` …): every validation of it would recurse until the stack overflows.
 */
function checkRefCycles(root: JsonObject): void {
  const done = new Set<unknown>();
  // `pointer`: where the node is in the document; `via`: the keyword that led to it, named when it closes a cycle.
  const visit = (node: unknown, pointer: Pointer, via: Pointer, open: Set<unknown>): void => {
    if (!isPlainObject(node) || done.has(node)) return;
    if (open.has(node)) fail(via, 'this $ref leads back to itself without moving into the value');
    open.add(node);
    if (typeof node.$ref === 'string') {
      const ref = node.$ref;
      const target = resolvePointer(root, ref);
      const at = ref === '#' || ref === '' ? [] : ref.slice(2).split('/').map(unescapeSegment);
      visit(target, at, [...pointer, '$ref'], open);
    }
    // A pointer is made only for a schema entered (visit leaves anything else at once).
    for (const keyword of SAME_VALUE_ONE) {
      if (isPlainObject(node[keyword])) visit(node[keyword], [...pointer, keyword], via, open);
    }
    for (const keyword of SAME_VALUE_LIST) {
      const list = node[keyword];
      if (Array.isArray(list)) {
        for (const [index, item] of list.entries())
          if (isPlainObject(item)) visit(item, [...pointer, keyword, String(index)], via, open);
      }
    }
    open.delete(node);
  };
  eachSubschema(root, (node, pointer) => {
    visit(node, pointer, pointer, new Set());
    done.add(node);
  });
}

/**
 * Why `value`, met in a JSON Schema, is not JSON whose meaning survives `JSON.stringify`: a schema library's
 * schema (zod, valibot, arktype: a Standard Schema, or zod 3 before it; zod 4's would turn into its internals,
 * `{"def":…,"type":"string"}`), or an instance of a class without `toJSON` (a Map would turn into `{}`);
 * `undefined` for JSON values and for objects that say what they are in JSON (a Date).
 */
function notJsonReason(value: unknown): string | undefined {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  const library = schemaLibraryOf(value);
  if (library !== undefined) {
    return (
      `it holds ${/^[aeiou]/.test(library) ? 'an' : 'a'} ${library} schema, which a plain JSON Schema cannot: write the whole parameters with ` +
      `${library} (its object schema around this one), or this part as JSON Schema`
    );
  }
  if (typeof value === 'function' || Array.isArray(value) || isPlainObject(value)) return undefined;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return undefined;
  return `it holds ${kindOf(value)}, which is not JSON`;
}

/**
 * A deep copy that is plain JSON, or an error describing why the schema is not one.
 *
 * @throws Error when the schema is not JSON-serialisable (a cycle, a BigInt, a function value), or holds what
 *   would change in the copy (a schema library's schema, a class instance: see {@link notJsonReason}), naming
 *   its JSON Pointer.
 */
function jsonCopy(schema: JsonObject): JsonObject {
  let text: string;
  // Where each object met so far sits, for the message: JSON.stringify meets a holder before its values.
  const pointers = new Map<object, Pointer>();
  try {
    text = JSON.stringify(schema, function (this: Record<string, unknown>, key, value: unknown) {
      const raw = this[key];
      const pointer = key === '' && !pointers.has(this) ? [] : [...(pointers.get(this) ?? []), key];
      const reason = notJsonReason(raw);
      if (reason !== undefined) fail(pointer, reason);
      if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
        throw new Error(`it holds a ${typeof value}, which is not JSON`);
      }
      if (typeof value === 'object' && value !== null) pointers.set(value, pointer);
      return value;
    });
  } catch (error) {
    // JSON.stringify throws a TypeError for a cycle (a shared, non-cyclic subschema is fine).
    if (error instanceof TypeError) throw new Error('it is not JSON (it refers to itself)');
    throw error;
  }
  return JSON.parse(text) as JsonObject;
}

/**
 * Checks a JSON Schema before any call and returns the plain-JSON copy that will be announced and validated
 * with. The problem is named with the JSON Pointer of the keyword, e.g.
 * `#/properties/kind/type: "enum" is not a JSON Schema type (expected one of "array", …)`,
 * `#/properties/code/pattern: "(" is not a valid regular expression (…)` or
 * `#/properties/a/$ref: "#/$defs/missing" does not point inside the schema` (nothing is fetched), or
 * `#/$defs/a/$ref: this $ref leads back to itself without moving into the value`.
 *
 * @throws Error describing the first problem found.
 */
export function checkJsonSchema(schema: JsonObject): JsonObject {
  const copy = jsonCopy(schema);
  checkSchema(copy, [], copy);
  checkRefCycles(copy);
  return copy;
}

/*
 * The dialect of a plain JSON Schema given as parameters, and its translation to JSON Schema 2020-12, which is
 * what toolwire announces (the service reads every announcement as 2020-12) and what it validates with, so that
 * the two cannot part. The translation says in 2020-12 what the schema says in its own draft:
 *
 * | `$schema`             | read as                                                                                |
 * | --------------------- | -------------------------------------------------------------------------------------- |
 * | draft-04              | `exclusiveMinimum: true` + `minimum: n` → `exclusiveMinimum: n` (same for maximum); `id` → `$id` (`"#name"` → `$anchor`) |
 * | draft-04, -06, -07    | `items: [...]` → `prefixItems`, `additionalItems` → `items`; `definitions` → `$defs`; `dependencies` → `dependentRequired` / `dependentSchemas`; the siblings of a `$ref`, which these drafts ignore, are dropped (annotations kept) |
 * | 2019-09               | `items: [...]` and `additionalItems` as above; `$recursiveRef` → `$ref` when only the root has `$recursiveAnchor`; `dependencies`, split in two by 2019-09, is dropped |
 * | 2020-12               | as written (`additionalItems` and `dependencies`, not 2020-12 keywords, are dropped), but `$dynamicRef` → `$ref: "#"` when it names the root's `$dynamicAnchor` (refused elsewhere, and a `$dynamicAnchor` below the root) |
 * | none                  | 2020-12, and the forms of earlier drafts that 2020-12 gives no meaning (an `items` array with its `additionalItems`, a boolean `exclusiveMinimum`, `dependencies`, `definitions`) read as those drafts meant them |
 *
 * A keyword a later draft defines and the schema's draft does not (`const` in draft-04, `if` in draft-06,
 * `dependentRequired` in draft-07, `prefixItems` in 2019-09 …) is ignored by that draft, so it is dropped. `$ref`s
 * are rewritten to the keywords' new places (`#/definitions/a` → `#/$defs/a`, `#/items/0` → `#/prefixItems/0`).
 * Any other `$schema` (draft-03, an unknown URI) is refused.
 */
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

/**
 * One translation: the dialect, whether it is draft-04, -06 or -07 (where `$ref` ignores its siblings), and the
 * root's `$dynamicAnchor` (2020-12), the one a `$dynamicRef` is read against.
 */
interface Context {
  dialect: Dialect;
  older: boolean;
  dynamicAnchor?: string;
}

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
        ([key]) => key === '$ref' || key === 'definitions' || key === '$defs' || ANNOTATION_KEYWORDS.has(key),
      ),
    );
  }
  if (dialect === '2020-12') {
    if (Array.isArray(source.items))
      fail(at('items'), 'an array of schemas is draft 2019-09 and earlier; 2020-12 says prefixItems');
    for (const keyword of ['exclusiveMinimum', 'exclusiveMaximum']) {
      if (typeof source[keyword] === 'boolean')
        fail(at(keyword), 'a boolean is draft-04; 2020-12 takes the bound itself');
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
    } else if (keyword === 'items' || SUBSCHEMA_KEYWORDS.has(keyword)) {
      out[name] = translateNode(value, here, ctx, false);
    } else if (SUBSCHEMA_LIST_KEYWORDS.has(keyword) && Array.isArray(value)) {
      out[name] = value.map((item, index) => translateNode(item, [...here, String(index)], ctx, false));
    } else if (SUBSCHEMA_MAP_KEYWORDS.has(keyword) && isPlainObject(value)) {
      const map: JsonObject = {};
      for (const [key, child] of Object.entries(value))
        setKey(map, key, translateNode(child, [...here, key], ctx, false));
      out[name] = map;
    } else if (keyword === 'dependencies' && isPlainObject(value)) {
      for (const [key, dependency] of Object.entries(value)) {
        const target = Array.isArray(dependency) ? 'dependentRequired' : 'dependentSchemas';
        if (!isPlainObject(out[target])) out[target] = {};
        // setKey: a dependency on a property named `__proto__` stays one.
        setKey(
          out[target] as JsonObject,
          key,
          Array.isArray(dependency) ? dependency : translateNode(dependency, [...here, key], ctx, false),
        );
      }
    } else if (keyword === 'id' && dialect === '4' && typeof value === 'string') {
      if (value.startsWith('#')) out.$anchor = value.slice(1);
      else out.$id = value;
    } else if (keyword === '$recursiveRef' && dialect === '2019-09') {
      out.$ref = value;
    } else if (keyword === '$recursiveAnchor' && dialect === '2019-09') {
      if (!root && value === true)
        fail(here, 'a $recursiveAnchor below the root is not translated; write the schema in 2020-12');
    } else if (keyword === '$dynamicRef' && !drop.has(keyword)) {
      // The validator does not read $dynamicRef: one that names the root's $dynamicAnchor is a $ref to the root
      // (no other scope declares one), as 2019-09's $recursiveRef is; any other would be announced and not checked.
      if (value !== `#${ctx.dynamicAnchor}` || '$ref' in source)
        fail(
          here,
          "a $dynamicRef is read only beside no $ref, naming the root's $dynamicAnchor; write the recursion with $defs and $ref",
        );
      out.$ref = '#';
    } else if (keyword === '$dynamicAnchor' && !drop.has(keyword)) {
      if (!root)
        fail(
          here,
          'a $dynamicAnchor below the root is not translated; write the recursion with $defs and $ref',
        );
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

/** A local `$ref` pointer rewritten to where its keywords went (`#/definitions/a` → `#/$defs/a`; `""` → `#`). */
function translatePointer(root: JsonObject, ref: string, ctx: Context): string {
  // The document itself: announced in the form every reader of a `$ref` takes.
  if (ref === '') return '#';
  if (!ref.startsWith('#/')) return ref;
  const out: string[] = [];
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = unescapeSegment(raw);
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

function rewriteRefs(schema: JsonObject, original: JsonObject, ctx: Context): void {
  eachSubschema(schema, (node) => {
    if (typeof node.$ref === 'string') node.$ref = translatePointer(original, node.$ref, ctx);
  });
}

/**
 * The schema in JSON Schema 2020-12, without `$schema` (see the table above for what changes).
 *
 * @throws Error naming the JSON Pointer of a form the translation does not take.
 */
export function to202012(schema: JsonObject): JsonObject {
  const dialect = dialectOf(schema);
  const { $schema: _dialect, ...rest } = schema;
  const ctx: Context = {
    dialect,
    older: dialect === '4' || dialect === '6' || dialect === '7',
    ...(typeof rest.$dynamicAnchor === 'string' && { dynamicAnchor: rest.$dynamicAnchor }),
  };
  const translated = translateNode(rest, [], ctx, true) as JsonObject;
  rewriteRefs(translated, rest, ctx);
  return translated;
}

/*
 * The check that no part of the schema contradicts itself: a schema object whose own
 * keywords no value can pass is always a mistake (bounds written the wrong way round, a required property the
 * schema forbids), since JSON Schema says "nothing" with `false` or `not: {}`. Such a schema is refused when the
 * tool is made, with the JSON Pointer of the schema and the keywords at odds, instead of failing every call.
 *
 * Each schema object is judged alone, by type: it passes no value when every type its `type` allows (all seven
 * without one) is ruled out by its own keywords. So `{ "minimum": 5, "maximum": 1 }` without a `type` still takes
 * strings, as JSON Schema says, and is accepted. What is ruled out, for a type:
 *
 * | type               | ruled out by                                                                               |
 * | ------------------ | ------------------------------------------------------------------------------------------ |
 * | number, integer    | `minimum` / `exclusiveMinimum` above (or, when exclusive, at) `maximum` / `exclusiveMaximum`; for integer alone, bounds with no integer between them |
 * | string             | `minLength` above `maxLength`                                                              |
 * | array              | `minItems` above `maxItems`; with `contains`, `minContains` above `maxContains` or `maxItems` |
 * | object             | `minProperties` above `maxProperties`; more `required` names than `maxProperties`; a required name whose `properties` schema is `false`, or that neither `properties` nor `patternProperties` names while `additionalProperties` is `false` |
 * | every type         | `enum: []`, or an `enum` or `const` with no value of a type left                           |
 *
 * Only places every value must pass are judged (see `problemIn`): under `not`, `if`, `$defs`, `propertyNames`,
 * `additionalProperties` or a dead `anyOf` branch, a schema that takes nothing is an idiom or harmless.
 * Combinations across schemas (`allOf` of two types, a `$ref`) are not judged. It runs on the 2020-12 translation,
 * after the check of every keyword's form.
 */
type TypeName = (typeof JSON_SCHEMA_TYPES)[number];

const num = (node: JsonObject, keyword: string): number | undefined => {
  const value = node[keyword];
  return typeof value === 'number' ? value : undefined;
};

/** The tightest bound on one side: its value, whether it is exclusive, and the keyword that sets it. */
interface Bound {
  value: number;
  exclusive: boolean;
  keyword: string;
}

function bound(node: JsonObject, inclusive: string, exclusive: string, lower: boolean): Bound | undefined {
  const a = num(node, inclusive);
  const b = num(node, exclusive);
  if (a === undefined) return b === undefined ? undefined : { value: b, exclusive: true, keyword: exclusive };
  if (b === undefined) return { value: a, exclusive: false, keyword: inclusive };
  // The tighter one: the higher lower bound, the lower upper bound (exclusive wins a tie).
  const bTighter = lower ? b >= a : b <= a;
  return bTighter
    ? { value: b, exclusive: true, keyword: exclusive }
    : { value: a, exclusive: false, keyword: inclusive };
}

/** The number types ruled out by the bounds, with why. */
function numbers(node: JsonObject, out: Map<TypeName, string>): void {
  const low = bound(node, 'minimum', 'exclusiveMinimum', true);
  const high = bound(node, 'maximum', 'exclusiveMaximum', false);
  if (low === undefined || high === undefined) return;
  const pair = `${low.keyword} ${low.value} and ${high.keyword} ${high.value}`;
  const none = low.value > high.value || (low.value === high.value && (low.exclusive || high.exclusive));
  if (none) {
    out.set('number', `${pair} leave no number between them`);
    out.set('integer', `${pair} leave no number between them`);
    return;
  }
  const first = low.exclusive ? Math.floor(low.value) + 1 : Math.ceil(low.value);
  const last = high.exclusive ? Math.ceil(high.value) - 1 : Math.floor(high.value);
  if (first > last) out.set('integer', `${pair} leave no integer between them`);
}

function above(node: JsonObject, min: string, max: string): string | undefined {
  const low = num(node, min);
  const high = num(node, max);
  return low !== undefined && high !== undefined && low > high
    ? `${min} ${low} is above ${max} ${high}`
    : undefined;
}

function arrays(node: JsonObject, out: Map<TypeName, string>): void {
  let reason = above(node, 'minItems', 'maxItems');
  if (reason === undefined && node.contains !== undefined) {
    const minContains = num(node, 'minContains') ?? 1;
    const maxContains = num(node, 'maxContains');
    const maxItems = num(node, 'maxItems');
    if (maxContains !== undefined && minContains > maxContains)
      reason = `minContains ${minContains} is above maxContains ${maxContains}`;
    else if (maxItems !== undefined && minContains > maxItems)
      reason = `contains needs ${minContains} item${minContains === 1 ? '' : 's'}, above maxItems ${maxItems}`;
  }
  if (reason !== undefined) out.set('array', reason);
}

/** Whether an object may hold the property `name`, by `properties`, `patternProperties` and `additionalProperties`. */
function forbids(node: JsonObject, name: string): string | undefined {
  const properties = isPlainObject(node.properties) ? node.properties : {};
  if (Object.hasOwn(properties, name)) {
    return properties[name] === false ? `the required property "${name}" is false in properties` : undefined;
  }
  const patterns = isPlainObject(node.patternProperties) ? Object.keys(node.patternProperties) : [];
  if (patterns.some((pattern) => new RegExp(pattern, 'u').test(name))) return undefined;
  return node.additionalProperties === false
    ? `the required property "${name}" is not in properties, and additionalProperties is false`
    : undefined;
}

function objects(node: JsonObject, out: Map<TypeName, string>): void {
  let reason = above(node, 'minProperties', 'maxProperties');
  const required = Array.isArray(node.required) ? [...new Set(node.required as string[])] : [];
  const maxProperties = num(node, 'maxProperties');
  if (reason === undefined && maxProperties !== undefined && required.length > maxProperties) {
    reason = `${required.length} properties are required, above maxProperties ${maxProperties}`;
  }
  for (const name of required) {
    if (reason !== undefined) break;
    reason = forbids(node, name);
  }
  if (reason !== undefined) out.set('object', reason);
}

function typeOf(value: unknown): TypeName {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as TypeName;
}

/** Whether a value of JSON type `type` passes `type` keyword's `allowed` (an integer is a number too). */
const fits = (type: TypeName, allowed: ReadonlySet<TypeName>) =>
  allowed.has(type) || (type === 'integer' && allowed.has('number'));

/** Why no value passes `node` by its own keywords, or `undefined`. */
function contradiction(node: JsonObject): string | undefined {
  const given =
    node.type === undefined
      ? JSON_SCHEMA_TYPES
      : ((Array.isArray(node.type) ? node.type : [node.type]) as TypeName[]);
  const ruledOut = new Map<TypeName, string>();
  numbers(node, ruledOut);
  if (node.minLength !== undefined || node.maxLength !== undefined) {
    const reason = above(node, 'minLength', 'maxLength');
    if (reason !== undefined) ruledOut.set('string', reason);
  }
  arrays(node, ruledOut);
  objects(node, ruledOut);
  const left = new Set(given.filter((type) => !ruledOut.has(type)));
  if (left.size === 0) return [...new Set(given.map((type) => ruledOut.get(type)))].join('; ');
  if (Array.isArray(node.enum)) {
    if (node.enum.length === 0) return 'enum is empty';
    if (!node.enum.some((value) => fits(typeOf(value), left))) {
      return `no value of enum is ${describeTypes(left)}`;
    }
  }
  if (Object.hasOwn(node, 'const') && !fits(typeOf(node.const), left)) {
    return `const is ${article(typeOf(node.const))}, not ${describeTypes(left)}`;
  }
  return undefined;
}

const article = (type: string) =>
  type === 'array' || type === 'integer' || type === 'object' ? `an ${type}` : `a ${type}`;

function describeTypes(types: ReadonlySet<TypeName>): string {
  const names = [...types].map(article);
  return names.length === 1 ? (names[0] as string) : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
}

/** The first schema object, at a place every value must pass, that no value passes: its pointer and why. */
type Problem = { pointer: Pointer; reason: string } | undefined;

/** `node`'s items schemas an array it allows must hold at least one value for (`minItems`), with their pointers. */
function forcedItems(node: JsonObject, pointer: Pointer): Array<[unknown, Pointer]> {
  const minItems = typeof node.minItems === 'number' ? node.minItems : 0;
  const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : [];
  const forced: Array<[unknown, Pointer]> = prefix
    .slice(0, minItems)
    .map((item, index) => [item, [...pointer, 'prefixItems', String(index)]]);
  if (minItems > prefix.length && Object.hasOwn(node, 'items'))
    forced.push([node.items, [...pointer, 'items']]);
  return forced;
}

/**
 * The first schema object no value passes among `node` and the places below it a value must pass too: its
 * declared `properties`, each of `allOf`, the items `minItems` makes it hold, and `anyOf`/`oneOf` when none of
 * their branches can pass. Not judged: `not`, `if`/`then`/`else`, `$defs`, `propertyNames`, `additionalProperties`,
 * `patternProperties`, `contains`, a lone dead branch: there a schema that takes nothing says something (an
 * empty object or array, "always else", a definition nothing uses) or costs nothing.
 */
function problemIn(node: unknown, pointer: Pointer): Problem {
  if (!isPlainObject(node)) return undefined;
  const reason = contradiction(node);
  if (reason !== undefined) return { pointer, reason };
  const below: Array<[unknown, Pointer]> = [];
  if (isPlainObject(node.properties)) {
    for (const [name, child] of Object.entries(node.properties))
      below.push([child, [...pointer, 'properties', name]]);
  }
  if (Array.isArray(node.allOf)) {
    for (const [index, child] of node.allOf.entries())
      below.push([child, [...pointer, 'allOf', String(index)]]);
  }
  below.push(...forcedItems(node, pointer));
  for (const [child, at] of below) {
    const found = problemIn(child, at);
    if (found) return found;
  }
  for (const keyword of ['anyOf', 'oneOf']) {
    const branches = node[keyword];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const found = branches.map((branch, index) => problemIn(branch, [...pointer, keyword, String(index)]));
    if (found.every((problem) => problem !== undefined)) return found[0];
  }
  return undefined;
}

/**
 * Refuses a JSON Schema (2020-12, keyword forms already checked) holding a schema object that no value can pass by
 * its own keywords (see the table above), e.g.
 * `#/properties/n: minimum 5 and maximum 1 leave no number between them`.
 *
 * @throws UnsatisfiableSchemaError naming the JSON Pointer of the first such schema and why.
 */
export function checkSatisfiable(schema: JsonObject): void {
  const problem = problemIn(schema, []);
  if (problem) throw new UnsatisfiableSchemaError(`${renderPointer(problem.pointer)}: ${problem.reason}`);
}
