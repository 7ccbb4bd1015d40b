/**
 * zod's validation with each refinement, check and transform run once per call (zod 4, zod 3, and zod 3 from
 * before Standard Schema).
 *
 * zod's `~standard.validate` parses synchronously first and, when that meets a promise (an async refinement or
 * transform), parses the value again with its async parser: every check and synchronous transform that ran
 * before, and the async function itself, ran twice (a database lookup twice). zod 4 does so at every call; zod 3
 * remembers after its first async call. Here each tool's schema is validated:
 * - with zod's `safeParseAsync` from the first call when its definition holds a function written `async` (a
 *   refinement, `z.check()`, `superRefine` or transform): one run, through the promise zod makes anyway;
 * - else through `~standard.validate`, synchronously, at no cost beyond zod's. When a call's result is a promise
 *   nevertheless, later calls go straight to `safeParseAsync`. Only that first call runs twice what ran before
 *   the promise: a function not written `async` that returns a promise (`.refine((id) => db.exists(id))`, an
 *   `async` function compiled to an older target), and zod 3's `.refine(async …)`, which zod wraps in a function
 *   of its own.
 *
 * @module
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { isPlainObject } from '../../json';
import { isThenable } from '../../maybe';
import type { SchemaAdapter, ValidationResult } from './adapter';
import { failedValidation, type IssueMessageFormatter, renderResult, validateStandard } from './standard';

/** What zod's `safeParseAsync` resolves to, as far as it is read here (zod 3 and 4 alike). */
export type SafeParseResult =
  | { readonly success: true; readonly data: unknown }
  | { readonly success: false; readonly error: { readonly issues: ReadonlyArray<StandardSchemaV1.Issue> } };

/** A zod schema's async parse of one value: `schema.safeParseAsync(value)`, or zod's function of it. */
export type ZodParseAsync = (value: unknown) => Promise<SafeParseResult>;

const keepMessage: IssueMessageFormatter = (issue) => issue.message;

const fromSafeParse = (result: SafeParseResult): ValidationResult =>
  renderResult(result.success ? { value: result.data } : { issues: result.error.issues }, keepMessage);

/**
 * `validate` for a zod schema (see the module's header): synchronous while zod answers synchronously, and
 * `parseAsync` alone once the schema is known to be async (`asyncFromStart`, or a first promise).
 */
export function zodValidate(
  schema: StandardSchemaV1,
  parseAsync: ZodParseAsync,
  asyncFromStart: boolean,
): SchemaAdapter['validate'] {
  let async = asyncFromStart;
  return (value) => {
    if (async) {
      try {
        return parseAsync(value).then(fromSafeParse, failedValidation);
      } catch (error) {
        return failedValidation(error);
      }
    }
    const result = validateStandard(schema, value);
    if (isThenable(result)) async = true;
    return result;
  };
}

/**
 * `validate` for a zod 3 schema: `standard` is the schema itself (3.24 and later) or, from before Standard Schema,
 * the Standard Schema `legacyZod3AsStandard` makes of it; `zod` has `safeParseAsync` either way.
 */
export function zod3Validate(
  zod: { safeParseAsync(value: unknown): Promise<unknown> },
  standard: StandardSchemaV1,
): SchemaAdapter['validate'] {
  const parseAsync = (value: unknown) => zod.safeParseAsync(value) as Promise<SafeParseResult>;
  return zodValidate(standard, parseAsync, holdsAsyncFunction(zod));
}

/** `true` for a function written `async` (or `async function*`), which returns a promise whatever it does. */
function isAsyncFunction(value: unknown): boolean {
  if (typeof value !== 'function') return false;
  const tag = Object.prototype.toString.call(value);
  return tag === '[object AsyncFunction]' || tag === '[object AsyncGeneratorFunction]';
}

/** Definitions visited at most, for a schema of pathological size (beyond it, the schema is taken as sync). */
const MAX_NODES = 10_000;

/**
 * `true` when a zod schema's definition holds a function written `async`, anywhere: in checks (`def.fn`),
 * transforms (`def.transform`, zod 3's `effect.transform` / `effect.refinement`), through objects, arrays,
 * wrappers, pipes and `z.lazy()`. Only data is read, and what zod itself reads to convert a schema (an object's
 * shape, a lazy schema's inner one); never a getter of the definition (zod 4's `defaultValue` calls a function
 * default).
 */
export function holdsAsyncFunction(schema: unknown): boolean {
  const seen = new Set<object>();
  const pending: unknown[] = [schema];
  while (pending.length > 0 && seen.size < MAX_NODES) {
    const node = pending.pop();
    if (isAsyncFunction(node)) return true;
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    const zod4 = (node as { _zod?: { def?: unknown; innerType?: unknown } })._zod;
    const zod3 = (node as { _def?: { typeName?: unknown; getter?: unknown; shape?: unknown } })._def;
    if (typeof zod4 === 'object' && zod4 !== null && isPlainObject(zod4.def)) {
      const def = zod4.def;
      pushData(def, pending);
      // A shape's getters (recursive objects) give their schemas, and a lazy schema its inner one, as zod reads them.
      if (isPlainObject(def.shape))
        for (const key of Object.keys(def.shape)) pending.push(read(def.shape, key));
      if (def.type === 'lazy') pending.push(read(zod4, 'innerType'));
    } else if (typeof zod3 === 'object' && zod3 !== null) {
      pushData(zod3, pending);
      const { typeName, getter, shape } = zod3;
      if (typeName === 'ZodLazy' && typeof getter === 'function') pending.push(call(getter as () => unknown));
      if (typeName === 'ZodObject' && typeof shape === 'function') pending.push(call(shape as () => unknown));
    } else if (Array.isArray(node)) pending.push(...node);
    else if (isPlainObject(node)) pushData(node, pending);
  }
  return false;
}

/** Pushes the values of `object`'s own data properties (never calling a getter). */
function pushData(object: object, pending: unknown[]): void {
  for (const descriptor of Object.values(Object.getOwnPropertyDescriptors(object))) {
    if ('value' in descriptor) pending.push(descriptor.value);
  }
}

/** `object[key]`, or `undefined` when reading it throws (a lazy schema not definable yet says nothing here). */
function read(object: object, key: string): unknown {
  try {
    return (object as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** What `fn()` gives, or `undefined` when it throws. */
function call(fn: () => unknown): unknown {
  try {
    return fn();
  } catch {
    return undefined;
  }
}
