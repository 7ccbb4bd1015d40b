/**
 * Whether a tool's JSON Schema says "integer" at a place in its arguments: integers past 2^53 are refused there,
 * because the model's number was rounded when it was parsed (see src/call/argument-limits.ts).
 *
 * @module
 */

type Schema = { readonly [key: string]: unknown };

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Schemas to follow at most, for `$ref` loops and combinator explosions. */
const MAX_SCHEMAS = 256;

/** The schema a local `$ref` (`#/$defs/Id`, `#/definitions/Id`, `#`) points to in `root`. */
function resolveRef(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let at: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    at = isSchema(at) ? at[key] : Array.isArray(at) ? at[Number(key)] : undefined;
  }
  return isSchema(at) ? at : undefined;
}

/** `schema` and every schema it applies through `$ref`, `allOf`, `anyOf` and `oneOf`. */
function expand(root: Schema, schemas: Schema[]): Schema[] {
  const out: Schema[] = [];
  const pending = [...schemas];
  while (pending.length > 0 && out.length < MAX_SCHEMAS) {
    const schema = pending.pop() as Schema;
    if (out.includes(schema)) continue;
    out.push(schema);
    if (typeof schema.$ref === 'string') {
      const target = resolveRef(root, schema.$ref);
      if (target !== undefined) pending.push(target);
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
