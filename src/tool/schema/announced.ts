/**
 * The JSON Schema toolwire announces for a tool's parameters, and what follows from it. In order:
 * - the root: parameters are validated as an object, so they are announced with `"type": "object"` at the top
 *   ({@link objectRoot});
 * - the guard: a library schema's validation is made to refuse whatever its announcement refuses, so that
 *   `execute` never gets a value the model was told is invalid, and its refusals told in the announcement's
 *   words ({@link withAnnounced});
 * - integers: whether the announcement says "integer" at a place in the arguments ({@link integerAt}).
 *
 * @module
 */
import { cloneJson, isPlainObject } from '../../json';
import { andThen, type MaybePromise } from '../../maybe';
import {
  eachSubschema,
  type JsonObject,
  resolvePointer,
  type SchemaAdapter,
  type ValidationResult,
} from './adapter';
import { loadValidation, type Validation, validationIfReady } from './optional-parts';
import type { Validator } from './validator';

/*
 * The root of tool parameters: what it announces, given that validation only ever sees objects there (the
 * arguments are decoded to a JSON object first: `[]` and `42` are refused before validation, `null` becomes
 * `{}`, see src/call/arguments.ts). A root that says "object" in any way JSON Schema can (a `type`, every
 * branch of an `anyOf` / `oneOf` that can hold an object, one part of an `allOf`, a `$ref` to such a schema,
 * as `z.union()` of objects, `.nullable()`, `z.lazy()`, valibot's `lazy()` or an arktype cycle announce it) is
 * announced with `"type": "object"` at the top and without the branches that can hold no object, which refuses
 * the same objects. A root that can hold no object, or that never says so (`{}`, `z.unknown()`), is refused.
 */
/**
 * What a schema says about objects: `object` when every value it accepts is an object (or it accepts none),
 * `none` when it accepts no object, `some` when it may accept objects without saying so.
 */
type ObjectKind = 'object' | 'none' | 'some';

const BRANCHES = ['anyOf', 'oneOf'] as const;
// Keywords that only annotate: a root made of one branch and these is that branch.
const ROOT_ANNOTATIONS = new Set(['title', 'description', 'examples', 'default', 'deprecated', '$comment']);

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
    const target = resolvePointer(root, schema.$ref);
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
    const others = Object.keys(out).filter((key) => key !== keyword && !ROOT_ANNOTATIONS.has(key));
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

/** Removes every `format` keyword (in place): a library that announced a format validates it its own way. */
function withoutFormats(schema: JsonObject): JsonObject {
  eachSubschema(schema, (node) => {
    if (typeof node.format === 'string') delete node.format;
  });
  return schema;
}

/** The library's `result` on `value` judged against the announcement, with the validator `validation`. */
type AnnouncedCheck = (value: unknown, result: ValidationResult) => ValidationResult;

/**
 * Acceptances are checked against `schema` without its formats (the library checks those its own way); a refusal
 * is explained against the whole announcement, formats included, made at the first refusal (or without them,
 * when the validator cannot take them).
 */
function announcedCheck(validation: Validation, announced: JsonObject): AnnouncedCheck {
  const guard = validation.compile(withoutFormats(cloneJson(announced)));
  let whole: Validator | undefined;
  const explaining = () => {
    if (whole !== undefined) return whole;
    try {
      whole = validation.compile(cloneJson(announced));
    } catch {
      whole = guard;
    }
    return whole;
  };
  return (value, result) =>
    result.ok
      ? validation.announcedResult(guard, value, result)
      : validation.refusedResult(explaining(), value, result.issues);
}

/**
 * A library adapter (for parameters) read against its announced JSON Schema, which the library validates first:
 * - a refusal is told in the announcement's words (`refusedResult` in ./validator.ts): the model reads the same
 *   text for the same bad arguments whichever library checks them, the library's own message kept only where
 *   the announcement has nothing to say (a refinement); a library that threw is reported as it is;
 * - with `guard`, an acceptance is checked against the announcement (without `format`, which the library checks
 *   itself), so that `execute` never gets a value the model was told is invalid (e.g. valibot and arktype
 *   accept an array for a record; the announced `"type": "object"` does not). `resolveSchema` leaves the guard
 *   out for an adapter that proved it unneeded ({@link SchemaAdapter.acceptsOnlyAnnounced}): its acceptances
 *   cost nothing more.
 *
 * With `guard`, the validator is made now when it is here (registered by `toolwire/json-schema`, as in Node), else
 * at the first validation that needs it, which loads it first (see `loadValidation`), telling the call that waits
 * (`validate`'s `waiter`): a load that fails fails an acceptance that needed the guard, and leaves a refusal in
 * the library's words; the next one tries again. Without it, only a refusal reads the validator: it is made at the
 * first (most tools never see one), synchronously when it is here; an adapter proved to need no guard (a zod 4
 * schema of trusted constructs) announces nothing the validator cannot take, and should it, the refusal stays in
 * the library's words.
 *
 * @throws Error from the validator, when it is here and `guard` is set, for an announcement it cannot take (see
 *   `compile`).
 */
export function withAnnounced(adapter: SchemaAdapter, guard: boolean): SchemaAdapter {
  const announced = adapter.jsonSchema;
  const ready = guard ? validationIfReady() : undefined;
  let check: AnnouncedCheck | undefined = ready === undefined ? undefined : announcedCheck(ready, announced);
  const loadCheck = () =>
    andThen(loadValidation(), (validation) => (check ??= announcedCheck(validation, announced)));
  const judged = (value: unknown, result: ValidationResult): MaybePromise<ValidationResult> => {
    const here = check === undefined && !guard ? validationIfReady() : undefined;
    if (here !== undefined) {
      try {
        check = announcedCheck(here, announced);
      } catch {
        return result;
      }
    }
    if (check !== undefined) return check(value, result);
    const loaded = andThen(loadCheck(), (made) => made(value, result));
    return result.ok ? loaded : Promise.resolve(loaded).catch(() => result);
  };
  return {
    ...adapter,
    validate: (value) =>
      andThen(adapter.validate(value), (result) =>
        (result.ok && !guard) || (!result.ok && result.threw === true) ? result : judged(value, result),
      ),
  };
}

/*
 * Property names `Object.prototype` also has (`constructor`, `toString`, `valueOf`, …). A library reads an absent
 * property through the prototype (`input.toString` is a function), so an optional property of such a name could
 * never be left out, nor its default applied: `{}` read `toString: expected number, received function`. Where the
 * announcement declares one, the library reads arguments whose objects have no prototype, and `execute` gets
 * ordinary objects back. Other tools pay nothing.
 */
const INHERITED: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/** `true` when `schema` declares, at any depth, a property named as one of `Object.prototype`'s. */
function declaresInherited(schema: JsonObject): boolean {
  return eachSubschema(schema, ({ properties, required }) => {
    if (isPlainObject(properties) && Object.keys(properties).some((name) => INHERITED.has(name))) return true;
    return Array.isArray(required) && required.some((name) => INHERITED.has(name as string));
  });
}

/** `value` with each plain object's prototype set to `proto` (a copy; arrays copied, anything else shared). */
function reprototyped(value: unknown, proto: object | null): unknown {
  if (Array.isArray(value)) return value.map((item) => reprototyped(item, proto));
  if (!isPlainObject(value)) return value;
  const copy = Object.create(proto) as Record<string, unknown>;
  for (const [key, item] of Object.entries(value)) {
    // defineProperty: a key `__proto__` stays data.
    Object.defineProperty(copy, key, {
      value: reprototyped(item, proto),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/**
 * `adapter`, validating arguments whose objects have no prototype when its announcement declares a property
 * `Object.prototype` also has (see {@link INHERITED}); `adapter` itself otherwise.
 */
export function withOwnPropertiesOnly(adapter: SchemaAdapter): SchemaAdapter {
  if (!declaresInherited(adapter.jsonSchema)) return adapter;
  return {
    ...adapter,
    validate: (value) =>
      andThen(adapter.validate(reprototyped(value, null)), (result) =>
        result.ok ? { ...result, value: reprototyped(result.value, Object.prototype) } : result,
      ),
  };
}

/*
 * Whether a tool's JSON Schema says "integer" at a place in its arguments: integers past 2^53 are refused there,
 * because the model's number was rounded when it was parsed (see src/call/arguments.ts).
 */
type Schema = { readonly [key: string]: unknown };

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Schemas to follow at most, for `$ref` loops and combinator explosions. */
const MAX_SCHEMAS = 256;

/** `schema` and every schema it applies through `$ref`, `allOf`, `anyOf` and `oneOf`. */
function expand(root: Schema, schemas: Schema[]): Schema[] {
  const out: Schema[] = [];
  const pending = [...schemas];
  while (pending.length > 0 && out.length < MAX_SCHEMAS) {
    const schema = pending.pop() as Schema;
    if (out.includes(schema)) continue;
    out.push(schema);
    if (typeof schema.$ref === 'string') {
      const target = resolvePointer(root, schema.$ref);
      if (isSchema(target)) pending.push(target);
    }
    for (const keyword of ['allOf', 'anyOf', 'oneOf']) {
      const branches = schema[keyword];
      if (Array.isArray(branches)) pending.push(...branches.filter(isSchema));
    }
  }
  return out;
}

/** The schemas that apply to the value at `key` of a value `schema` applies to. */
function childSchemas(schema: Schema, key: PropertyKey): Schema[] {
  const out: Schema[] = [];
  if (typeof key === 'number') {
    const { prefixItems, items } = schema;
    if (Array.isArray(prefixItems) && key < prefixItems.length) out.push(prefixItems[key] as Schema);
    else if (Array.isArray(items)) out.push((items[key] ?? schema.additionalItems) as Schema);
    else out.push(items as Schema);
    return out.filter(isSchema);
  }
  const name = String(key);
  const { properties, patternProperties, additionalProperties } = schema;
  if (isSchema(properties) && Object.hasOwn(properties, name)) out.push(properties[name] as Schema);
  else {
    let matched = false;
    if (isSchema(patternProperties)) {
      for (const [pattern, sub] of Object.entries(patternProperties)) {
        try {
          if (new RegExp(pattern, 'u').test(name)) {
            out.push(sub as Schema);
            matched = true;
          }
        } catch {
          // a pattern JavaScript cannot read applies to nothing here
        }
      }
    }
    if (!matched) out.push(additionalProperties as Schema);
  }
  return out.filter(isSchema);
}

function types(schema: Schema): string[] {
  const { type } = schema;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((item): item is string => typeof item === 'string') : [];
}

/**
 * `true` when the schemas that apply at `path` of the arguments say `integer` and none says `number`: an
 * integer past 2^53 there was rounded when it was parsed, and no schema would take it as a plain number.
 *
 * @param schema - the tool's announced parameters (`tool.definition.parameters`).
 * @param path - keys and array indices from the root of the arguments.
 */
export function integerAt(schema: unknown, path: readonly PropertyKey[]): boolean {
  if (!isSchema(schema)) return false;
  let at = expand(schema, [schema]);
  for (const key of path) {
    at = expand(
      schema,
      at.flatMap((item) => childSchemas(item, key)),
    );
    if (at.length === 0) return false;
  }
  const said = at.flatMap(types);
  return said.includes('integer') && !said.includes('number');
}
