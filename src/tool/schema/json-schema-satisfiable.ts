/**
 * The definition-time check that no part of a plain JSON Schema contradicts itself: a schema object whose own
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
 * Combinations across schemas (`allOf` of two types, a `$ref`) are not judged. It runs on the 2020-12 translation
 * (./json-schema-dialect.ts), after ./json-schema-check.ts has checked every keyword's form.
 *
 * @module
 */
import { isPlainObject } from '../../json';
import type { JsonObject } from './types';

const TYPES = ['array', 'boolean', 'integer', 'null', 'number', 'object', 'string'] as const;
type TypeName = (typeof TYPES)[number];

/** A schema no value can pass, by its own keywords: the message is `<JSON Pointer>: <why>`. */
export class UnsatisfiableSchemaError extends Error {
  override readonly name = 'UnsatisfiableSchemaError';
}

type SchemaPointer = readonly string[];

function failUnsatisfiable(pointer: SchemaPointer, problem: string): never {
  const rendered = pointer
    .map((segment) => `/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`)
    .join('');
  throw new UnsatisfiableSchemaError(`#${rendered}: ${problem}`);
}

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
    node.type === undefined ? TYPES : ((Array.isArray(node.type) ? node.type : [node.type]) as TypeName[]);
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
type Problem = { pointer: SchemaPointer; reason: string } | undefined;

/** `node`'s items schemas an array it allows must hold at least one value for (`minItems`), with their pointers. */
function forcedItems(node: JsonObject, pointer: SchemaPointer): Array<[unknown, SchemaPointer]> {
  const minItems = typeof node.minItems === 'number' ? node.minItems : 0;
  const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : [];
  const forced: Array<[unknown, SchemaPointer]> = prefix
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
function problemIn(node: unknown, pointer: SchemaPointer): Problem {
  if (!isPlainObject(node)) return undefined;
  const reason = contradiction(node);
  if (reason !== undefined) return { pointer, reason };
  const below: Array<[unknown, SchemaPointer]> = [];
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
 * its own keywords (see the module's TSDoc), e.g.
 * `#/properties/n: minimum 5 and maximum 1 leave no number between them`.
 *
 * @throws UnsatisfiableSchemaError naming the JSON Pointer of the first such schema and why.
 */
export function checkSatisfiable(schema: JsonObject): void {
  const problem = problemIn(schema, []);
  if (problem) failUnsatisfiable(problem.pointer, problem.reason);
}
