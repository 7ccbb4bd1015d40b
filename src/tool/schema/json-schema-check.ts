/**
 * The definition-time check of a plain JSON Schema: everything that would otherwise make every call fail (an
 * unknown `type`, a `pattern` the validator cannot compile, `required: true`, a property schema written as a
 * type name, a `$ref` that points nowhere) is found when the tool is made, with the JSON Pointer of the keyword.
 *
 * Only the keywords the validator (`@cfworker/json-schema`) acts on are checked, in every draft's forms
 * (`items` as an array, a boolean `exclusiveMinimum`); unknown keywords (`title`, `nullable`, `x-…`) and data
 * (`enum`, `const`, `default`, `examples`) are left alone, as the specification says.
 *
 * @module
 */

import { SUBSCHEMA_KEYWORDS, SUBSCHEMA_LIST_KEYWORDS, SUBSCHEMA_MAP_KEYWORDS } from './subschema-keywords';
import type { JsonObject } from './types';

/** The type names JSON Schema defines. */
export const JSON_SCHEMA_TYPES = [
  'array',
  'boolean',
  'integer',
  'null',
  'number',
  'object',
  'string',
] as const;

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

/** Where a keyword is: a local JSON Pointer in URI fragment form (`#/properties/a~1b/type`). */
type Pointer = readonly string[];

function render(pointer: Pointer): string {
  return `#${pointer.map((segment) => `/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')}`;
}

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

function fail(pointer: Pointer, problem: string): never {
  throw new Error(`${render(pointer)}: ${problem}`);
}

const isObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isSchema = (value: unknown) => isObject(value) || typeof value === 'boolean';

/** The value a local JSON Pointer (`#/$defs/item`) points to in `root`, or `undefined`. */
function resolvePointer(root: unknown, ref: string): unknown {
  let current: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    if (typeof current !== 'object' || current === null) return undefined;
    let key: string;
    try {
      key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    } catch {
      return undefined;
    }
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

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
  if (!isObject(schema)) fail(pointer, `expected a schema (an object or a boolean), got ${show(schema)}`);
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
    const local = ref === '#' || (ref.startsWith('#/') && resolvePointer(root, ref) !== undefined);
    if (!local) fail(at('$ref'), `${show(ref)} does not point inside the schema`);
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
    if (!isObject(map)) fail(at(keyword), `expected an object of schemas, got ${show(map)}`);
    for (const [name, child] of Object.entries(map)) {
      if (keyword === 'patternProperties') checkPattern(name, [...at(keyword), name]);
      checkSchema(child, [...at(keyword), name], root);
    }
  }
  if (has('dependentRequired')) {
    const map = schema.dependentRequired;
    if (!isObject(map)) fail(at('dependentRequired'), `expected an object of name lists, got ${show(map)}`);
    for (const [name, names] of Object.entries(map)) checkNames(names, [...at('dependentRequired'), name]);
  }
  if (has('dependencies')) {
    const map = schema.dependencies;
    if (!isObject(map)) fail(at('dependencies'), `expected an object, got ${show(map)}`);
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
    if (!isObject(node) || done.has(node)) return;
    if (open.has(node)) fail(via, 'this $ref leads back to itself without moving into the value');
    open.add(node);
    if (typeof node.$ref === 'string') {
      const ref = node.$ref;
      const target = ref === '#' ? root : resolvePointer(root, ref);
      const at =
        ref === '#'
          ? []
          : ref
              .slice(2)
              .split('/')
              .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
      visit(target, at, [...pointer, '$ref'], open);
    }
    for (const keyword of SAME_VALUE_ONE) visit(node[keyword], [...pointer, keyword], via, open);
    for (const keyword of SAME_VALUE_LIST) {
      const list = node[keyword];
      if (Array.isArray(list)) {
        for (const [index, item] of list.entries())
          visit(item, [...pointer, keyword, String(index)], via, open);
      }
    }
    open.delete(node);
  };
  const walk = (node: unknown, pointer: Pointer): void => {
    if (Array.isArray(node))
      for (const [index, item] of node.entries()) walk(item, [...pointer, String(index)]);
    if (!isObject(node)) return;
    visit(node, pointer, pointer, new Set());
    done.add(node);
    for (const [key, child] of Object.entries(node)) {
      if (key !== 'enum' && key !== 'const' && key !== 'default' && key !== 'examples')
        walk(child, [...pointer, key]);
    }
  };
  walk(root, []);
}

/**
 * A deep copy that is plain JSON, or an error describing why the schema is not one.
 *
 * @throws Error when the schema is not JSON-serialisable (a cycle, a BigInt, a function value).
 */
function jsonCopy(schema: JsonObject): JsonObject {
  let text: string;
  try {
    text = JSON.stringify(schema, (_key, value: unknown) => {
      if (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') {
        throw new Error(`it holds a ${typeof value}, which is not JSON`);
      }
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
