/**
 * fast-check arbitraries of JSON values shaped like a JSON Schema, for property tests that compare a validator
 * with the schema: values at and next to the schema's edges (string lengths around `minLength`/`maxLength`,
 * with surrogate pairs and lone surrogates so that UTF-16 units and code points differ; numbers at, just past
 * and between their bounds and the integer limits), any node sometimes replaced by an awkward JSON value, and
 * objects with missing properties and extra keys (`__proto__`, `constructor` …) as own properties, the way
 * `JSON.parse` makes them.
 */
import fc from 'fast-check';

type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The next double above `x` (below when `direction` is -1). */
function nextDouble(x: number, direction: 1 | -1 = 1): number {
  if (x === 0) return direction * Number.MIN_VALUE;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigInt64(0);
  view.setBigInt64(0, bits + (x > 0 === (direction === 1) ? 1n : -1n));
  return view.getFloat64(0);
}

const LIMITS = [2 ** 31 - 1, 2 ** 32 - 1, 2 ** 53 - 1, 3.4028234663852886e38, Number.MAX_VALUE];
/** Numbers where zod's and a JSON Schema validator's number checks could part: integer and float limits. */
export const EDGE_NUMBERS = [
  0,
  1,
  -1,
  0.5,
  1.5,
  0.1 + 0.2,
  5e-324,
  1e21,
  ...LIMITS.flatMap((limit) => [limit, -limit, nextDouble(limit), -nextDouble(limit), limit + 1, -limit - 1]),
];
/**
 * Strings where checks could part: empty, numeric-looking, boolean-looking, case, blanks, an email, surrogate
 * pairs, lone surrogates.
 */
export const EDGE_STRINGS = [
  '',
  'a',
  'Z',
  'ABC',
  ' a ',
  '3',
  '1.5',
  'true',
  'no',
  'null',
  'ada@example.com',
  '😀',
  'a😀',
  '😀😀',
  '\uD800',
  '\uDC00x',
];
const STRING_UNITS = ['a', 'Z', ' ', '3', 'é', '😀', '\uD800', '\uDC00'];
const EXTRA_KEYS = ['extra', '__proto__', 'constructor', 'toString', 'hasOwnProperty'];

/** Any JSON value, with a bias to the edges above. */
export const awkwardJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...EDGE_STRINGS),
  fc.constantFrom(...EDGE_NUMBERS),
  fc.constantFrom(null, true, false, [], {}),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.jsonValue({ maxDepth: 2 }),
);

const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

function nearString(schema: Schema): fc.Arbitrary<unknown> {
  const min = num(schema.minLength) ?? 0;
  const max = num(schema.maxLength) ?? min + 4;
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .array(fc.constantFrom(...STRING_UNITS), { minLength: Math.max(0, min - 2), maxLength: max + 2 })
        .map((units) => units.join('')),
    },
    { weight: 1, arbitrary: fc.constantFrom(...EDGE_STRINGS) },
  );
}

function nearNumber(schema: Schema, integer: boolean): fc.Arbitrary<unknown> {
  const bounds = [schema.minimum, schema.maximum, schema.exclusiveMinimum, schema.exclusiveMaximum]
    .map(num)
    .filter((bound): bound is number => bound !== undefined && Number.isFinite(bound));
  const around = bounds.flatMap((b) => [b, b - 1, b + 1, b - 0.5, b + 0.5, nextDouble(b), nextDouble(b, -1)]);
  const low = Math.max(-1e6, ...bounds.filter((b) => b < 1e6).map((b) => b - 3));
  const high = Math.min(1e6, ...bounds.filter((b) => b > -1e6).map((b) => b + 3));
  const ranged = Math.ceil(low) <= Math.floor(high);
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...around, ...EDGE_NUMBERS) },
    {
      weight: 3,
      arbitrary: ranged
        ? fc.integer({ min: Math.ceil(low), max: Math.floor(high) })
        : fc.integer({ min: -50, max: 50 }),
    },
    {
      weight: 1,
      arbitrary:
        integer || !ranged
          ? fc.double({ noNaN: true, noDefaultInfinity: true })
          : fc.double({ min: low, max: high, noNaN: true }),
    },
  );
}

/** An object as `JSON.parse` makes it: every key an own property, `__proto__` included. */
function ownObject(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function nearObject(schema: Schema): fc.Arbitrary<unknown> {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const declared = Object.entries(properties).map(([key, child]) =>
    fc.oneof(
      {
        weight: required.has(key) ? 12 : 2,
        arbitrary: nearSchema(child).map((value) => [[key, value] as const]),
      },
      { weight: 1, arbitrary: fc.constant([] as Array<readonly [string, unknown]>) },
    ),
  );
  const extraValue = isSchema(schema.additionalProperties)
    ? nearSchema(schema.additionalProperties)
    : awkwardJson;
  const extras = fc.array(fc.tuple(fc.constantFrom(...EXTRA_KEYS, ...Object.keys(properties)), extraValue), {
    maxLength: 2,
  });
  return fc
    .tuple(
      fc.tuple(...declared),
      fc.oneof({ weight: 3, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: extras }),
    )
    .map(([present, extra]) => ownObject([...present.flat(), ...extra]));
}

function nearArray(schema: Schema): fc.Arbitrary<unknown> {
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems.map(nearSchema) : [];
  const rest = isSchema(schema.items) ? nearSchema(schema.items) : awkwardJson;
  const min = num(schema.minItems) ?? 0;
  const max = num(schema.maxItems) ?? Math.max(min, prefix.length) + 2;
  return fc
    .tuple(
      fc.tuple(...prefix),
      fc.array(rest, { maxLength: max + 1 }),
      fc.integer({ min: Math.max(0, min - 1), max: max + 1 }),
    )
    .map(([head, tail, length]) => [...head, ...tail].slice(0, length));
}

function shaped(schema: Schema): fc.Arbitrary<unknown> {
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return fc.constantFrom(...(schema.enum as unknown[]));
  if ('const' in schema) return fc.constant(schema.const);
  const branches = Array.isArray(schema.anyOf)
    ? schema.anyOf
    : Array.isArray(schema.oneOf)
      ? schema.oneOf
      : null;
  if (branches !== null) return fc.oneof(...branches.map(nearSchema));
  const type = schema.type;
  if (Array.isArray(type)) return fc.oneof(...type.map((t) => shaped({ ...schema, type: t })));
  switch (type) {
    case 'string':
      return nearString(schema);
    case 'number':
    case 'integer':
      return nearNumber(schema, type === 'integer');
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'object':
      return nearObject(schema);
    case 'array':
      return nearArray(schema);
    default:
      return awkwardJson;
  }
}

/**
 * JSON values near `schema`: mostly shaped by it, each node replaced by an awkward value one time in ten.
 *
 * @example
 * ```ts
 * fc.sample(nearSchema({ type: 'string', maxLength: 2 }), 3); // e.g. ['a😀', '\uD800ZZ', '3']
 * ```
 */
export function nearSchema(schema: unknown): fc.Arbitrary<unknown> {
  if (!isSchema(schema)) return awkwardJson;
  return fc.oneof({ weight: 9, arbitrary: shaped(schema) }, { weight: 1, arbitrary: awkwardJson });
}

/** `value` through JSON text and back: what a model's arguments are once decoded. */
export const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;
