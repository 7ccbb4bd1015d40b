/**
 * `strict: true`: the announced JSON Schema rewritten in the form OpenAI's strict function calling (Structured
 * Outputs) accepts, and the way back for what the model sends.
 *
 * The rewrite: every object lists all its properties in `required` and has `additionalProperties: false`
 * (strict mode requires both of every object); a property that was optional becomes nullable (`type: [t, 'null']`,
 * or `anyOf: [schema, { type: 'null' }]`); a `oneOf` whose branches are told apart by a `const` property becomes
 * `anyOf` (the same thing, then); annotations strict mode refuses (`default`, `examples`, `$comment`, …) are left
 * out. The way back: a `null` sent for a property that was optional is removed before validation, so `execute`
 * sees what it would have seen without `strict` (an `anyOf` branch told apart with the JSON Schema validator).
 *
 * Open objects, one rule. An object that declares properties is narrowed to them, whatever its
 * `additionalProperties` says (`true`, `{}`, a schema, left out, or `false`; zod's `z.looseObject`, `.passthrough()`,
 * `.catchall()`, `z.object`, `z.strictObject` alike): the model in strict mode can send only those keys, and the
 * tool's own validation still reads the original schema (a key beyond them, from a caller other than the model, is
 * accepted or refused as without `strict`). An object that declares no property and does not say
 * `additionalProperties: false` (a record or map, `z.record`, a free-form `{ type: 'object' }`) is refused, at any
 * depth, in arrays and unions too, since strict mode would make it `{}`, an object the model could never fill.
 * The one exception is the root saying nothing of extra keys (`{ type: 'object' }` or `properties: {}`): that is a
 * tool without input. So the announcement and validation accept exactly the same values but for two differences the
 * model cannot see: an optional property is sent as `null` rather than left out, and an object carries no keys
 * beyond its declared properties.
 *
 * The root is one object (OpenAI takes nothing else at the top of a function's parameters): a `$ref` there is
 * replaced by the definition it points to, and a union there is refused, naming the fix (see `strictRoot`).
 *
 * Refused too, naming the JSON Pointer: any keyword strict mode does not support (`minLength`, `allOf`, `not`,
 * `patternProperties`, `propertyNames`, `prefixItems`, …), a `format` it does not know, a schema without a type
 * (`{}`: any value), an array without `items`, and an optional property that also accepts `null` (a `null` would
 * then be ambiguous).
 *
 * In order: what strict mode takes (keywords, formats), {@link NotStrict} and {@link StrictSchema}, the rewrite
 * (a converter that also makes the plan of the way back), {@link strictSchema}, then the way back.
 *
 * @see https://platform.openai.com/docs/guides/structured-outputs#supported-schemas
 * @module
 */
import { isPlainObject } from '../json';
import { andThen, type MaybePromise } from '../maybe';
import { escapeSegment, type JsonObject, unescapeSegment } from './schema/adapter';
import { loadValidation, type Validation } from './schema/optional-parts';
import type { Validator } from './schema/validator';

/** Keywords strict mode accepts, kept as they are (the structural ones are rewritten). */
const KEPT = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  '$ref',
  '$defs',
  'definitions',
  'description',
  'title',
  'pattern',
  'format',
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
]);
/** Annotations: no effect on what validates, refused by strict mode, so left out. */
const DROPPED = new Set([
  '$schema',
  '$id',
  '$comment',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
]);
/** The string formats strict mode knows. */
const FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

const LEAF: Plan = { kind: 'leaf' };

/** A schema that cannot be made strict: the JSON Pointer of the part, and why. */
export class NotStrict extends Error {
  override name = 'NotStrict';
  constructor(
    readonly pointer: string,
    readonly reason: string,
  ) {
    super(`${pointer}: ${reason}`);
  }
}

/** The strict form of a tool's parameters, and the way back for a value the model sent. */
export interface StrictSchema {
  readonly schema: JsonObject;
  /**
   * `args` without the `null`s of properties that were optional (a copy where something was removed). Where an
   * `anyOf` has branches to tell apart, it needs the JSON Schema validator: a promise the first time, when the
   * validator was not registered and is loaded then (see `loadValidation`).
   */
  readonly restore: (args: unknown) => MaybePromise<unknown>;
}

function acceptsNull(node: unknown, root: JsonObject, seen = new Set<unknown>()): boolean {
  if (!isPlainObject(node) || seen.has(node)) return false;
  seen.add(node);
  const { type } = node;
  if (type === 'null' || (Array.isArray(type) && type.includes('null'))) return true;
  if (node.const === null || (Array.isArray(node.enum) && node.enum.includes(null))) return true;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = node[key];
    if (Array.isArray(branches) && branches.some((branch) => acceptsNull(branch, root, seen))) return true;
  }
  if (typeof node.$ref === 'string') return acceptsNull(resolveRef(node.$ref, root), root, seen);
  return false;
}

function resolveRef(ref: string, root: JsonObject): unknown {
  if (ref === '#') return root;
  const match = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (match === null) return undefined;
  const defs = root[match[1] as string];
  const name = unescapeSegment(match[2] as string);
  return isPlainObject(defs) ? defs[name] : undefined;
}

function nullable(node: JsonObject): JsonObject {
  if (Array.isArray(node.anyOf)) return { ...node, anyOf: [...node.anyOf, { type: 'null' }] };
  if (typeof node.type === 'string' && node.enum === undefined && node.const === undefined)
    return { ...node, type: [node.type, 'null'] };
  if (Array.isArray(node.type) && node.enum === undefined && node.const === undefined)
    return { ...node, type: [...node.type, 'null'] };
  return { anyOf: [node, { type: 'null' }] };
}

/** `true` when a `oneOf`'s object branches each fix one shared required property to a different `const`. */
function discriminated(branches: readonly unknown[]): boolean {
  const first = branches[0];
  if (!isPlainObject(first) || !isPlainObject(first.properties)) return false;
  return Object.keys(first.properties).some((key) => {
    const values = branches.map((branch) => {
      if (!isPlainObject(branch) || !isPlainObject(branch.properties)) return undefined;
      const required = Array.isArray(branch.required) && branch.required.includes(key);
      const property = branch.properties[key];
      return required && isPlainObject(property) && 'const' in property
        ? JSON.stringify(property.const)
        : undefined;
    });
    return values.every((value) => value !== undefined) && new Set(values).size === values.length;
  });
}

/**
 * The one rule for open objects: an object that declares no property yet takes other keys (`additionalProperties`
 * `true`, `{}` or a schema, or left out: a record, a map, a free-form object) is refused, since strict mode would
 * announce it as `{}`. An object that declares properties is narrowed to them (see {@link strictSchema}). The root
 * that says nothing of extra keys (`{ type: 'object' }`, `properties: {}`) is a tool without input, not refused.
 * @throws NotStrict naming the object.
 */
function refuseOpenWithoutProperties(node: JsonObject, pointer: string): void {
  const declared = isPlainObject(node.properties) && Object.keys(node.properties).length > 0;
  if (declared || node.additionalProperties === false) return;
  const saysNothing = node.additionalProperties === undefined && node.propertyNames === undefined;
  if (pointer === '#' && saysNothing) return;
  throw new NotStrict(
    pointer,
    'an object without properties takes any keys (a record, a map, a free-form object), which strict mode would narrow to {}',
  );
}

class Converter {
  readonly plans = new Map<string, Plan>();
  constructor(readonly root: JsonObject) {}

  convert(node: unknown, pointer: string): { schema: JsonObject; plan: Plan } {
    if (!isPlainObject(node))
      throw new NotStrict(pointer, 'a boolean schema (strict mode needs an object schema)');
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes('object')) refuseOpenWithoutProperties(node, pointer);
    const out: JsonObject = {};
    let plan: Plan = LEAF;
    for (const [key, value] of Object.entries(node)) {
      if (DROPPED.has(key)) continue;
      if (!KEPT.has(key))
        throw new NotStrict(`${pointer}/${escapeSegment(key)}`, `strict mode does not support "${key}"`);
      out[key] = value;
    }
    if (typeof node.format === 'string' && !FORMATS.has(node.format)) {
      throw new NotStrict(`${pointer}/format`, `strict mode does not support the format "${node.format}"`);
    }
    if (typeof node.$ref === 'string' && resolveRef(node.$ref, this.root) === undefined) {
      throw new NotStrict(
        `${pointer}/$ref`,
        'only "#", "#/$defs/<name>" and "#/definitions/<name>" can be made strict',
      );
    }
    if (typeof node.$ref === 'string') plan = { kind: 'ref', ref: node.$ref };
    for (const key of ['$defs', 'definitions'] as const) {
      const defs = node[key];
      if (defs === undefined) continue;
      if (pointer !== '#') throw new NotStrict(`${pointer}/${key}`, `strict mode needs "${key}" at the root`);
      const converted: JsonObject = {};
      for (const [name, def] of Object.entries(defs as JsonObject)) {
        const made = this.convert(def, `#/${key}/${escapeSegment(name)}`);
        converted[name] = made.schema;
        this.plans.set(`#/${key}/${name}`, made.plan);
      }
      out[key] = converted;
    }
    if (types.includes('object')) plan = this.object(node, out, pointer);
    if (types.includes('array')) {
      if (node.items === undefined) throw new NotStrict(pointer, 'an array needs "items" in strict mode');
      const items = this.convert(node.items, `${pointer}/items`);
      out.items = items.schema;
      plan = { kind: 'array', items: items.plan };
    }
    const union = node.anyOf ?? node.oneOf;
    if (union !== undefined) {
      const key = node.anyOf === undefined ? 'oneOf' : 'anyOf';
      if (!Array.isArray(union)) throw new NotStrict(`${pointer}/${key}`, 'must be an array');
      if (key === 'oneOf' && !discriminated(union)) {
        throw new NotStrict(
          `${pointer}/oneOf`,
          'strict mode supports "oneOf" only as a union told apart by a "const" property',
        );
      }
      const branches = union.map((branch, index) => this.convert(branch, `${pointer}/${key}/${index}`));
      delete out.oneOf;
      out.anyOf = branches.map((branch) => branch.schema);
      plan = {
        kind: 'anyOf',
        branches: branches.map(({ plan: branchPlan, schema }) => ({ plan: branchPlan, schema })),
      };
    }
    if (
      node.type === undefined &&
      union === undefined &&
      node.$ref === undefined &&
      node.enum === undefined &&
      node.const === undefined
    ) {
      throw new NotStrict(
        pointer,
        'a schema without "type" accepts any value, which strict mode cannot express',
      );
    }
    return { schema: out, plan };
  }

  /** An object narrowed to its declared properties, whatever its `additionalProperties` (see the file's header). */
  object(node: JsonObject, out: JsonObject, pointer: string): Plan {
    const properties = isPlainObject(node.properties) ? node.properties : {};
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    const optional = new Set<string>();
    const plans = new Map<string, Plan>();
    const converted: JsonObject = {};
    for (const [key, property] of Object.entries(properties)) {
      const at = `${pointer}/properties/${escapeSegment(key)}`;
      const made = this.convert(property, at);
      plans.set(key, made.plan);
      if (required.has(key)) converted[key] = made.schema;
      else {
        if (acceptsNull(property, this.root)) {
          throw new NotStrict(
            at,
            'an optional property that also accepts null cannot be made strict (a null would mean two things)',
          );
        }
        optional.add(key);
        converted[key] = nullable(made.schema);
      }
    }
    for (const key of required) {
      if (!Object.hasOwn(properties, key))
        throw new NotStrict(`${pointer}/required`, `"${key}" is required but has no schema`);
    }
    out.properties = converted;
    out.required = Object.keys(converted);
    out.additionalProperties = false;
    return { kind: 'object', optional, properties: plans };
  }
}

/** Keywords a root `$ref` may have beside it: what `objectRoot` adds (`type`), the definitions, annotations. */
const BESIDE_ROOT_REF = new Set(['type', '$defs', 'definitions', ...DROPPED, 'description', 'title']);

/**
 * The root as strict mode takes it: one object. A `$ref` at the root (a recursive schema: arktype cycles, a JSON
 * Schema `{ $ref: '#/$defs/A', $defs }`) is replaced by the definition it points to, the definitions kept for the
 * `$ref`s inside (a `#` inside then means that definition, as before). A union at the root (`anyOf` / `oneOf`:
 * `z.union()`, `z.discriminatedUnion()`, valibot `variant()`, arktype `.or()`), or an `enum` / `const` there, is
 * refused: OpenAI takes a function's parameters only as an object with none of them at the top level, strict or not.
 * @throws NotStrict naming the keyword.
 */
function strictRoot(announced: JsonObject): JsonObject {
  let root = announced;
  for (let hops = 0; typeof root.$ref === 'string'; hops++) {
    const { $ref: ref, ...beside } = root;
    const target = ref === '#' || hops > 32 ? undefined : resolveRef(ref, announced);
    if (!isPlainObject(target) || (typeof target.$ref === 'string' && target.$ref === ref)) {
      throw new NotStrict('#/$ref', 'a "$ref" at the root must point to a definition ("#/$defs/<name>")');
    }
    const other = Object.keys(beside).find((key) => !BESIDE_ROOT_REF.has(key));
    if (other !== undefined) {
      throw new NotStrict(
        `#/${escapeSegment(other)}`,
        'strict mode needs the root as one object: a "$ref" there is replaced by its definition, which it cannot be beside other keywords',
      );
    }
    if (target.$defs !== undefined || target.definitions !== undefined) {
      throw new NotStrict(`${ref}/$defs`, 'strict mode needs "$defs" at the root');
    }
    root = { ...beside, ...target };
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (root[key] === undefined) continue;
    throw new NotStrict(
      `#/${key}`,
      `a union at the root cannot be made strict: OpenAI takes a function's parameters only as one object, with no "anyOf" or "oneOf" at the top level; make the union a property of an object (z.object({ input: <the union> }), v.object({ input: … }), type({ input: … }))`,
    );
  }
  for (const key of ['enum', 'const'] as const) {
    if (root[key] === undefined) continue;
    throw new NotStrict(
      `#/${key}`,
      `strict mode needs the root as one object, with no "${key}" at the top level`,
    );
  }
  return root;
}

/**
 * The strict form of an announced parameters schema (an object at the root), and {@link StrictSchema.restore}.
 * @throws NotStrict naming the JSON Pointer of the first part that cannot be made strict.
 */
export function strictSchema(announced: JsonObject): StrictSchema {
  const root = strictRoot(announced);
  const converter = new Converter(root);
  const { schema, plan } = converter.convert(root, '#');
  converter.plans.set('#', plan);
  // Branch schemas are matched with the strict root's definitions (their `$ref`s point there).
  const way: WayBack = { plans: converter.plans, root: schema };
  const restore = [...converter.plans.values()].some(hasBranchesToTellApart)
    ? (args: unknown) =>
        andThen(loadValidation(), (validation) => restoreWith(plan, args, { ...way, validation }, 0))
    : (args: unknown) => restoreWith(plan, args, way, 0);
  return { schema, restore };
}

/*
 * The way back, for what the model sent: a `null` sent for a property that was optional is removed before
 * validation, so `execute` sees what it would have seen without `strict`. The plan says where, per node of the
 * schema; an `anyOf` branch is told apart with the JSON Schema validator.
 */
/** How to take the `null`s of optional properties out of a value, per node of the schema. */
type Plan =
  | { kind: 'leaf' }
  | { kind: 'object'; optional: ReadonlySet<string>; properties: ReadonlyMap<string, Plan> }
  | { kind: 'array'; items: Plan }
  | { kind: 'anyOf'; branches: ReadonlyArray<{ plan: Plan; schema: JsonObject }> }
  | { kind: 'ref'; ref: string };

/**
 * What the way back reads besides the plan: the plans of the root (`#`) and of its definitions
 * (`#/$defs/<name>`), for `$ref`s; the strict schema, whose definitions an `anyOf` branch is matched with; and
 * the validator, there when some `anyOf` has branches to tell apart.
 */
interface WayBack {
  readonly plans: ReadonlyMap<string, Plan>;
  readonly root: JsonObject;
  readonly validation?: Validation;
}

/** `true` when `plan` has an `anyOf` whose branches differ in what they restore: the validator must choose. */
function hasBranchesToTellApart(plan: Plan): boolean {
  switch (plan.kind) {
    case 'anyOf':
      return plan.branches.some((branch) => branch.plan.kind !== 'leaf');
    case 'array':
      return hasBranchesToTellApart(plan.items);
    case 'object':
      return [...plan.properties.values()].some(hasBranchesToTellApart);
    default:
      return false;
  }
}

/** `value` without the `null`s of the properties `plan` marks optional (a copy where something was removed). */
function restoreWith(plan: Plan, value: unknown, way: WayBack, depth: number): unknown {
  if (depth > 64) return value;
  switch (plan.kind) {
    case 'leaf':
      return value;
    case 'ref': {
      const target = way.plans.get(plan.ref);
      return target === undefined ? value : restoreWith(target, value, way, depth + 1);
    }
    case 'array': {
      if (!Array.isArray(value)) return value;
      const items = value.map((item) => restoreWith(plan.items, item, way, depth + 1));
      return items.every((item, index) => item === value[index]) ? value : items;
    }
    case 'anyOf': {
      if (value === null || typeof value !== 'object') return value;
      if (plan.branches.every((branch) => branch.plan.kind === 'leaf')) return value;
      const branch = plan.branches.find(({ schema }) => matches(schema, way, value));
      return branch === undefined ? value : restoreWith(branch.plan, value, way, depth + 1);
    }
    case 'object': {
      if (!isPlainObject(value)) return value;
      let copy: Record<string, unknown> | undefined;
      for (const [key, item] of Object.entries(value)) {
        const next =
          item === null && plan.optional.has(key)
            ? undefined
            : restoreWith(plan.properties.get(key) ?? LEAF, item, way, depth + 1);
        if (next === item) continue;
        copy ??= { ...value };
        if (next === undefined) delete copy[key];
        else copy[key] = next;
      }
      return copy ?? value;
    }
  }
}

function definitionsOf(root: JsonObject): JsonObject {
  const out: JsonObject = {};
  if (root.$defs !== undefined) out.$defs = root.$defs;
  if (root.definitions !== undefined) out.definitions = root.definitions;
  return out;
}

const validators = new WeakMap<object, Validator>();

/** `true` when `value` matches a branch (the validator is made once per branch, from a copy: it annotates its schema). */
function matches(branch: JsonObject, way: WayBack, value: unknown): boolean {
  const { validation } = way;
  if (validation === undefined) return false; // not reached: the validator is there wherever branches differ
  let validator = validators.get(branch);
  if (validator === undefined) {
    const schema = JSON.parse(JSON.stringify({ ...branch, ...definitionsOf(way.root) })) as JsonObject;
    validator = validation.compile(schema);
    validators.set(branch, validator);
  }
  return validator.validate(value).valid;
}
