/**
 * The rules the zod 4 faithfulness proof (./zod4-faithful.ts) applies to one construct: the shape of a zod 4
 * definition as read here, which zod versions the rules were checked against, and per-construct predicates
 * (checks, optionality, unknown keys, discriminated unions). Each predicate is conservative: when unsure it
 * answers so that the guard stays.
 *
 * @module
 */

/** The part of a zod 4 schema (or check) this module reads. */
export interface ZodNode {
  _zod: {
    def: ZodDef;
    version?: { major?: unknown; minor?: unknown };
    optin?: string;
    parent?: ZodNode;
    values?: ReadonlySet<unknown>;
    toJSONSchema?: unknown;
    run?: unknown;
    bag?: { fallbackRun?: unknown; validator?: unknown };
    constr?: new (def: { check: string }) => ZodNode;
  };
}
export interface ZodDef {
  type?: string;
  check?: string;
  checks?: ZodNode[];
  coerce?: boolean;
  when?: unknown;
  minimum?: unknown;
  value?: unknown;
  format?: unknown;
  values?: unknown[];
  entries?: Record<string, unknown>;
  shape?: Record<string, ZodNode>;
  catchall?: ZodNode;
  element?: ZodNode;
  items?: ZodNode[];
  rest?: ZodNode | null;
  options?: ZodNode[];
  discriminator?: unknown;
  unionFallback?: boolean;
  inclusive?: boolean;
  keyType?: ZodNode;
  valueType?: ZodNode;
  innerType?: ZodNode;
  in?: ZodNode;
  out?: ZodNode;
}

export function isZodNode(value: unknown): value is ZodNode {
  const zod = (value as { _zod?: { def?: unknown } } | null)?._zod;
  return typeof zod === 'object' && zod !== null && typeof zod.def === 'object' && zod.def !== null;
}

// Wrappers announced as their inner schema (optionality goes to the parent's `required` or `minItems`).
export const WRAPPERS = new Set(['optional', 'nullable', 'nonoptional', 'default', 'prefault', 'readonly']);
// Integer and float formats checked as `Number.isInteger` (for the int ones) and a range, both announced.
const NUMBER_FORMATS = new Set(['safeint', 'int32', 'uint32', 'float32', 'float64']);
export const ANYTHING = new Set(['any', 'unknown']);

/**
 * The zod 4 minor whose behaviour the trust below was checked against (test/property/zod4-faithful.test.ts
 * runs on the installed zod). zod's semantics move between minors (string lengths counted in UTF-16 units, then
 * in code points): a schema from another minor (a user's own copy of zod, zod 3.25's `zod/v4`) keeps the check
 * against its announcement until this is checked again and raised.
 */
const CHECKED_ZOD_MINOR = 6;

export function isCheckedVersion(node: ZodNode): boolean {
  const version = node._zod.version;
  return version?.major === 4 && version.minor === CHECKED_ZOD_MINOR;
}

/**
 * `true` when zod parses the schema with a parser installed on it (`z.withParser()`, `z.compile()`, zod's global
 * compile mode) instead of its definition: zod cannot check that such a parser agrees with the definition, and
 * `z.withParser(z.string(), String)` accepts `0`, so the proof does not hold for it.
 */
export function hasInstalledParser(node: ZodNode): boolean {
  const run = node._zod.run as ({ __originalRun?: unknown } & object) | undefined;
  const bag = node._zod.bag;
  return (
    (typeof run === 'function' && (run as { __originalRun?: unknown }).__originalRun !== undefined) ||
    bag?.fallbackRun !== undefined ||
    bag?.validator !== undefined
  );
}

/** `true` for a string, a finite number, a boolean or null: values zod and the validator compare alike. */
function isPlainValue(value: unknown): boolean {
  const type = typeof value;
  return (
    value === null || type === 'string' || type === 'boolean' || (type === 'number' && Number.isFinite(value))
  );
}

// zod's own `when` for its length checks (run on anything with a `length`), one per check class.
const defaultWhens = new WeakMap<object, unknown>();

/**
 * `true` when the values zod compares with (a set made when the schema was) are plain and all among those the
 * announcement is made from (the definition's, read now): an array given to `z.literal()` or `z.enum()` and
 * changed afterwards must not let zod accept a value that is no longer announced.
 */
export function valuesAreAnnounced(node: ZodNode, announced: readonly unknown[]): boolean {
  const values = node._zod.values;
  return (
    values !== undefined && [...values].every((value) => isPlainValue(value) && announced.includes(value))
  );
}

/** `true` when a check runs whenever its schema's type check passed: no `when`, or zod's default one. */
function runsAlways(check: ZodNode): boolean {
  const when = check._zod.def.when;
  if (when === undefined) return true;
  const Check = check._zod.constr;
  if (typeof Check !== 'function') return false;
  if (!defaultWhens.has(Check)) {
    let reference: unknown;
    try {
      reference = new Check({ check: String(check._zod.def.check) })._zod.def.when;
    } catch {
      reference = undefined;
    }
    defaultWhens.set(Check, reference);
  }
  return when === defaultWhens.get(Check);
}

/** `true` when a non-custom check, on a schema of type `type`, refuses at least what it announces. */
function checkIsFaithful(type: string | undefined, def: ZodDef): boolean {
  switch (def.check) {
    case 'max_length':
      return type === 'string' || type === 'array';
    case 'min_length':
      return type === 'array' || (type === 'string' && typeof def.minimum === 'number' && def.minimum <= 1);
    case 'length_equals':
      return type === 'array';
    case 'greater_than':
    case 'less_than':
      return type === 'number' && typeof def.value === 'number' && Number.isFinite(def.value);
    case 'number_format':
      return type === 'number' && NUMBER_FORMATS.has(String(def.format));
    default:
      return false;
  }
}

/**
 * `true` for `.refine(fn)` (and `z.refine`): a check that calls `fn` with the value alone and adds an issue when
 * it returns false. `.superRefine()` and `.check(fn)` are not: their function gets the parse itself, and can
 * remove the issues found before it (an extra key of a strict object, a failed `.max()`), `when` or not.
 */
function isRefinement(check: ZodNode): boolean {
  const def = check._zod.def as ZodDef & { fn?: unknown };
  return def.type === 'custom' && typeof def.fn === 'function';
}

/** `true` when every check of the schema is trusted; a format schema (`z.int()`) is its own first check. */
export function checksAreFaithful(node: ZodNode): boolean {
  const def = node._zod.def;
  const checks = def.check === undefined ? (def.checks ?? []) : [node, ...(def.checks ?? [])];
  let customSeen = false;
  for (const check of checks) {
    if (!isZodNode(check)) return false;
    if (check._zod.def.check === 'custom') {
      if (!isRefinement(check)) return false;
      customSeen = true;
      continue;
    }
    if (customSeen || !runsAlways(check) || !checkIsFaithful(def.type, check._zod.def)) return false;
  }
  return true;
}

/** `true` unless the schema surely refuses `undefined` (conservative: `true` when unsure). */
export function mayAcceptUndefined(node: ZodNode): boolean {
  const def = node._zod.def;
  switch (def.type) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
    case 'object':
    case 'array':
    case 'tuple':
    case 'record':
      return false;
    case 'literal':
    case 'enum':
      return node._zod.values?.has(undefined) !== false;
    // `.nonoptional()` refuses only a result that is still undefined: a default inside takes undefined.
    case 'nonoptional':
    case 'nullable':
    case 'readonly':
      return def.innerType === undefined || mayAcceptUndefined(def.innerType);
    case 'pipe':
      return def.in === undefined || mayAcceptUndefined(def.in);
    case 'union':
      return (def.options ?? []).some(mayAcceptUndefined);
    default:
      return true;
  }
}

/**
 * `true` when the schema may report an extra key (a strict object, a `never` catchall, anywhere inside). A pipe
 * stops at any other issue, but goes on past that one, and a union after it returns its option's own result,
 * without the issue: `z.strictObject(…).pipe(z.union(…))` accepts an extra key its announcement refuses.
 */
export function mayReportUnknownKeys(node: ZodNode, seen = new Set<object>()): boolean {
  if (seen.has(node)) return false;
  seen.add(node);
  const def = node._zod.def;
  if (def.type === 'object' && isZodNode(def.catchall) && def.catchall._zod.def.type === 'never') return true;
  const children = [
    ...Object.values(def.type === 'object' && def.shape ? def.shape : {}),
    def.catchall,
    def.element,
    ...(def.items ?? []),
    def.rest,
    ...(def.options ?? []),
    def.keyType,
    def.valueType,
    def.innerType,
    def.in,
    def.out,
  ];
  return children.some((child) => isZodNode(child) && mayReportUnknownKeys(child, seen));
}

/** The values a discriminated union's option claims, or `undefined` when they are not plain and required. */
function discriminatorValues(option: ZodNode, discriminator: string): ReadonlySet<unknown> | undefined {
  const def = option._zod.def;
  if (def.type !== 'object' || def.shape === undefined || !Object.hasOwn(def.shape, discriminator)) return;
  const field = def.shape[discriminator];
  if (!isZodNode(field)) return;
  const type = field._zod.def.type;
  if (type !== 'literal' && type !== 'enum') return;
  const values = field._zod.values;
  return values !== undefined && [...values].every(isPlainValue) ? values : undefined;
}

/** `true` when at most one option's announcement can match: the options claim disjoint discriminator values. */
export function discriminatesApart(options: readonly ZodNode[], discriminator: unknown): boolean {
  if (typeof discriminator !== 'string') return false;
  const claimed = new Set<unknown>();
  for (const option of options) {
    const values = discriminatorValues(option, discriminator);
    if (values === undefined) return false;
    for (const value of values) {
      if (claimed.has(value)) return false;
      claimed.add(value);
    }
  }
  return true;
}
