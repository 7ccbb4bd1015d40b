/**
 * A proof, made once when a tool is defined, that a zod 4 schema accepts nothing its announced JSON Schema
 * refuses, so that `resolveSchema` can leave out `guardWithAnnounced` (about 3 µs per call). zod may refuse
 * more (a refinement, a transform's issues): its verdict and messages win, as with the guard.
 *
 * The proof walks the definition (`schema._zod.def`, shared by zod and zod/mini) and trusts only what is listed
 * below, each for the stated reason; anything else keeps the guard. zod's translation of these constructs
 * (`~standard.jsonSchema.input`) is trusted as it is; metadata, which can add any keyword to it, is checked
 * apart (see src/tool/schema/zod4-metadata.ts). test/tool/schema/zod4-faithful.test.ts holds a test per construct,
 * test/property/zod4-faithful.test.ts a property test comparing zod and the announcement on generated values.
 *
 * Trusted:
 * - `z.string()` with `.max(n)` and `.min(0 or 1)` / `.nonempty()`: zod counts UTF-16 units (code points in
 *   4.6.7), JSON Schema code points, never more than the units, so only a maximum, or a minimum of at most
 *   one, agrees whatever zod 4 counts.
 * - `z.number()` with `.gt()`, `.gte()`, `.lt()`, `.lte()` (and `.positive()` …) on a finite bound, and
 *   `.int()`, `z.int()`, `z.int32()`, `z.uint32()`, `z.float32()`, `z.float64()`: the same comparisons, and
 *   zod's `Number.isInteger` with a range is `"type": "integer"` with that range or stricter.
 * - `z.boolean()`, `z.null()`, `z.any()`, `z.unknown()`; `z.literal()` and `z.enum()` of strings, finite
 *   numbers, booleans and null (zod's SameValueZero and the validator's equality agree on those).
 * - `z.object()`, `z.looseObject()`, `z.strictObject()`, a catchall of `z.unknown()`, `z.any()` or
 *   `z.never()`, when no key is a name of `Object.prototype`: zod skips a `__proto__` key and finds
 *   `constructor` or `toString` on the prototype, where `required` looks at own properties only.
 * - `z.array()` with `.min()`, `.max()`, `.length()`; `z.tuple()` with or without a rest, when every required
 *   item refuses `undefined` (with a rest, zod does not check the length: it runs an absent item on `undefined`).
 * - `z.union()` (`anyOf`); `z.discriminatedUnion()` (`oneOf`) of `z.object()`s whose discriminator is a
 *   required `z.literal()` or `z.enum()` with values no other option has, so that at most one option's
 *   announcement can match.
 * - `z.record(z.string(), z.unknown())` (or `z.any()`): a record skips an input key `__proto__`, harmless only
 *   when the values may be anything.
 * - `.optional()`, `.exactOptional()`, `.nullable()`, `.nonoptional()`, `.default()`, `.prefault()`,
 *   `.readonly()`: the inner schema, with the optionality announced in `required`.
 * - `.pipe()`, `.transform()` after a schema, `z.codec()`, `z.stringbool()`: the input side (`in`), which is
 *   what is announced; the rest of the pipe only refuses more, as the pipe stops at the input side's first
 *   issue. Not when the input side may report an extra key (a strict object inside): zod goes on past that
 *   issue, and a union after it drops it.
 * - `.refine()`: it only adds an issue, provided no other check follows it on the same schema (it gets the
 *   value, which it could change for a later check). Not `.superRefine()` or `.check(fn)`, whose function
 *   gets the parse itself and can remove the issues found before it.
 *
 * Not trusted, among others: `coerce`; `.catch()`; every string format or pattern (`.email()`, `.regex()`,
 * `.startsWith()`, `.lowercase()`, `z.iso.*` …: the validator compiles `pattern` with the `u` flag, zod its
 * regex with its own flags, which the announcement drops); `.length(n)` and `.min(n > 1)` on strings;
 * overwrites (`.trim()`, `.toLowerCase()`), which rewrite the value later checks read; `.multipleOf()` (zod and
 * the validator compute float remainders differently); a check given its own `when`; `z.xor()` and
 * `unionFallback`; any other record or catchall; `z.lazy()` and any recursion; `z.intersection()`,
 * `z.templateLiteral()`, `z.custom()`; a schema with its own `_zod.toJSONSchema`; a schema parsed by a parser
 * installed on it (`z.withParser()`, `z.compile()`), which zod cannot check against the definition.
 *
 * A schema must not change after the tool is made (zod reads a union's options, a tuple's items, when it
 * parses, while the announcement was made at definition): the proof, like the announcement, holds for the
 * schema as it was then.
 *
 * @module
 */

import {
  ANYTHING,
  checksAreFaithful,
  discriminatesApart,
  hasInstalledParser,
  isCheckedVersion,
  isZodNode,
  mayAcceptUndefined,
  mayReportUnknownKeys,
  valuesAreAnnounced,
  WRAPPERS,
  type ZodDef,
  type ZodNode,
} from './zod4-rules';

/** One walk over a schema: `open` holds the schemas being walked (a repeat is recursion), `done` the results. */
class Walk {
  readonly #open = new Set<object>();
  readonly #done = new Map<object, boolean>();

  faithful(node: unknown): boolean {
    if (!isZodNode(node) || this.#open.has(node)) return false;
    const known = this.#done.get(node);
    if (known !== undefined) return known;
    this.#open.add(node);
    let result: boolean;
    try {
      result =
        isCheckedVersion(node) &&
        node._zod.toJSONSchema === undefined &&
        !hasInstalledParser(node) &&
        (node._zod.parent === undefined || this.faithful(node._zod.parent)) &&
        checksAreFaithful(node) &&
        this.#typeIsFaithful(node);
    } catch {
      result = false; // e.g. a shape getter that throws: no proof
    }
    this.#open.delete(node);
    this.#done.set(node, result);
    return result;
  }

  #all(nodes: readonly unknown[] | undefined): boolean {
    return nodes?.every((node) => this.faithful(node)) === true;
  }

  #typeIsFaithful(node: ZodNode): boolean {
    const def = node._zod.def;
    switch (def.type) {
      case 'string':
      case 'number':
      case 'boolean':
        return def.coerce !== true;
      case 'null':
      case 'any':
      case 'unknown':
        return true;
      case 'literal':
        return Array.isArray(def.values) && valuesAreAnnounced(node, def.values);
      case 'enum':
        return (
          typeof def.entries === 'object' &&
          def.entries !== null &&
          valuesAreAnnounced(node, Object.values(def.entries))
        );
      case 'object':
        return this.#objectIsFaithful(def);
      case 'array':
        return this.faithful(def.element);
      case 'tuple':
        return this.#tupleIsFaithful(def);
      case 'union':
        return this.#unionIsFaithful(def);
      case 'record':
        return this.#recordIsFaithful(def);
      case 'pipe':
        return isZodNode(def.in) && this.faithful(def.in) && !mayReportUnknownKeys(def.in);
      default:
        return def.type !== undefined && WRAPPERS.has(def.type) && this.faithful(def.innerType);
    }
  }

  #tupleIsFaithful(def: ZodDef): boolean {
    const items = def.items;
    return (
      this.#all(items) &&
      items!.every((item) => item._zod.optin !== undefined || !mayAcceptUndefined(item)) &&
      (def.rest === undefined || def.rest === null || this.faithful(def.rest))
    );
  }

  #unionIsFaithful(def: ZodDef): boolean {
    // An exclusive union is announced as `oneOf`, which refuses a value two options accept: trusted only when
    // the announcements of two options cannot both match.
    if (def.inclusive === false) {
      if (def.unionFallback === true || !discriminatesApart(def.options ?? [], def.discriminator))
        return false;
    }
    return this.#all(def.options);
  }

  #recordIsFaithful(def: ZodDef): boolean {
    const { keyType, valueType } = def;
    if (!isZodNode(keyType) || !isZodNode(valueType)) return false;
    const key = keyType._zod.def;
    const plainStringKey =
      key.type === 'string' && key.check === undefined && (key.checks ?? []).length === 0;
    return (
      plainStringKey &&
      ANYTHING.has(valueType._zod.def.type ?? '') &&
      this.faithful(keyType) &&
      this.faithful(valueType)
    );
  }

  #objectIsFaithful(def: ZodDef): boolean {
    const shape = def.shape;
    if (typeof shape !== 'object' || shape === null) return false;
    for (const key of Object.keys(shape)) {
      if (key in Object.prototype || !this.faithful(shape[key])) return false;
    }
    const catchall = def.catchall;
    if (catchall === undefined) return true;
    if (!isZodNode(catchall)) return false;
    const type = catchall._zod.def.type;
    return type === 'never' || (ANYTHING.has(type ?? '') && this.faithful(catchall));
  }
}

/**
 * `true` when every construct in a zod 4 schema's definition is trusted (see the module's TSDoc): then zod
 * refuses whatever zod's own translation of the definition to JSON Schema refuses. Metadata is not looked at
 * here (see `metadataOnlyAnnotates` in src/tool/schema/zod4-metadata.ts). Never throws; `false` for anything that is not a zod 4 schema.
 *
 * @example
 * ```ts
 * zod4DefinitionIsFaithful(z.object({ q: z.string().min(1), n: z.int().positive() })); // true
 * zod4DefinitionIsFaithful(z.object({ n: z.coerce.number() })); // false: "3" passes, "type": "number" refuses
 * ```
 */
export function zod4DefinitionIsFaithful(schema: unknown): boolean {
  return new Walk().faithful(schema);
}
