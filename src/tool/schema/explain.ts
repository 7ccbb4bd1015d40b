/**
 * What the model reads for arguments its tool refused, in one wording for every kind of schema: each issue is
 * `<path>: expected <what the announced JSON Schema asks there>, received <what was sent>`, found by walking the
 * arguments against the announced schema (the one the model was given), never from a library's own message. The
 * same tool written with zod 4, zod 3, valibot, arktype or a plain JSON Schema announces the same schema, so a
 * bad argument reads the same whichever library checks it. What the announcement cannot say (a refinement)
 * keeps the library's message: see `withAnnounced` in ./announced.ts.
 *
 * The walk reports each path once, at the deepest place that explains the refusal:
 * - a missing required property at its own path (`received nothing`), an unknown one where
 *   `additionalProperties` is `false` (`expected no such property (known: a, b)`);
 * - a value of the wrong type, or not among an `enum` / `const`, at its path, with the whole of what is expected
 *   there (`expected a string of 2 to 5 characters, received 5`);
 * - an `anyOf` / `oneOf`: the branch the value's discriminator (a property every branch fixes with `const` or
 *   `enum`) selects, entered as if it were the schema; a discriminator no branch takes, at its own path; a
 *   structured value only one branch's type takes, that branch entered; else the branches, alphabetically
 *   (`expected a number or a string`; at most {@link MAX_BRANCHES} named, then `or <n> more`).
 *
 * Bounded: at most {@link MAX_ISSUES} issues are found (the model reads the first ten), a description is cut to
 * {@link MAX_DESCRIPTION} characters, values and keys named in full only when short. Loaded with the JSON Schema
 * validator (./validator.ts), never by the core directly.
 *
 * @module
 */
import { type Schema, validate } from '@cfworker/json-schema';
import { cut, formatPath, ROOT_PATH, showKey, type ValidationIssue } from './adapter';

/** Most issues listed for one value (the last marked `more` when there are more); `listIssues` shows ten. */
export const MAX_ISSUES = 100;
/** Most branches of an `anyOf` / `oneOf` named in an expectation. */
export const MAX_BRANCHES = 4;
/** Most values of an `enum` named in an expectation. */
const MAX_VALUES = 8;
/** Most property names listed as the known ones. */
const MAX_NAMES = 10;
/** Longest expectation, in characters (cut with `…`). */
export const MAX_DESCRIPTION = 300;
/** Longest string, pattern or constant shown in full, in characters. */
const MAX_SHOWN = 40;
/** Deepest nesting of schemas described inside one another (an array's items, a union's branches). */
const MAX_DESCRIBE_DEPTH = 2;
/** Most `$ref`s and `allOf`s followed to find what applies at one place. */
const MAX_PARTS = 32;

type Lookup = Record<string, Schema | boolean>;
type Node = Schema | boolean;
type Path = ReadonlyArray<string | number>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const plural = (count: number, word: string) =>
  `${count} ${count === 1 ? word : word === 'property' ? 'properties' : `${word}s`}`;

/** A JSON value as the model reads it: short ones in full, longer ones cut (`"abc…`). */
function show(value: unknown): string {
  try {
    return cut(JSON.stringify(value) ?? String(value), MAX_SHOWN);
  } catch {
    return cut(String(value), MAX_SHOWN);
  }
}

const bounded = (text: string) => cut(text, MAX_DESCRIPTION);

/** The walk's state: the validator's schema lookup and the issues found, one per path. */
class Explanation {
  readonly issues: ValidationIssue[] = [];
  readonly #paths = new Set<string>();
  readonly #lookup: Lookup;

  constructor(lookup: Lookup) {
    this.#lookup = lookup;
  }

  /** One issue past {@link MAX_ISSUES} is looked for, to tell a list cut short from a list of exactly as many. */
  get full(): boolean {
    return this.issues.length > MAX_ISSUES;
  }

  /** `true` when `value` passes `schema` (a subschema of the validator's own, so its `$ref`s resolve). */
  matches(value: unknown, schema: Node): boolean {
    if (typeof schema === 'boolean') return schema;
    try {
      return validate(value, schema, '2020-12', this.#lookup, true).valid;
    } catch {
      return false;
    }
  }

  /** The schema a `$ref` in `schema` points to, as the validator resolved it. */
  #target(schema: Schema): Node | undefined {
    const ref = (schema as { __absolute_ref__?: string }).__absolute_ref__ ?? schema.$ref;
    return typeof ref === 'string' ? this.#lookup[ref] : undefined;
  }

  /** `schema` and what applies with it to the same value: its `$ref`'s target and its `allOf` parts, deeply. */
  parts(schema: Node): Node[] {
    const out: Node[] = [];
    const pending: Node[] = [schema];
    while (pending.length > 0 && out.length < MAX_PARTS) {
      const part = pending.shift() as Node;
      if (out.includes(part)) continue;
      out.push(part);
      if (typeof part === 'boolean') continue;
      if (part.$ref !== undefined) {
        const target = this.#target(part);
        if (target !== undefined) pending.push(target);
      }
      if (Array.isArray(part.allOf)) pending.push(...(part.allOf as Node[]));
    }
    return out;
  }

  /**
   * {@link parts} of `schema`, and what applies to `value` by them, deeply: the `then` or `else` of an `if` (as
   * `value` passes the `if` or not), the `dependentSchemas` of the properties it has.
   */
  applied(value: unknown, schema: Node): Node[] {
    const out = this.parts(schema);
    for (let index = 0; index < out.length && out.length < MAX_PARTS; index += 1) {
      const part = out[index] as Node;
      if (typeof part === 'boolean') continue;
      const more: Node[] = [];
      if (part.if !== undefined) {
        const branch = this.matches(value, part.if as Node) ? part.then : part.else;
        if (branch !== undefined) more.push(branch as Node);
      }
      if (isObject(value) && isObject(part.dependentSchemas)) {
        for (const [key, dependent] of Object.entries(part.dependentSchemas))
          if (Object.hasOwn(value, key)) more.push(dependent as Node);
      }
      for (const node of more)
        for (const found of this.parts(node))
          if (!out.includes(found) && out.length < MAX_PARTS) out.push(found);
    }
    return out;
  }

  add(path: Path, expected: string, received: string): void {
    const rendered = formatPath(path);
    if (this.full || this.#paths.has(rendered)) return;
    // A path inside one already explained says nothing more (its parent's type was wrong, say).
    if (parentsOf(rendered).some((parent) => this.#paths.has(parent))) return;
    this.#paths.add(rendered);
    this.issues.push({ path: rendered, message: `expected ${bounded(expected)}, received ${received}` });
  }

  /** Explains why `value` at `path` fails `schema`; nothing when it passes. */
  walk(value: unknown, schema: Node, path: Path): void {
    if (this.full || this.matches(value, schema)) return;
    const before = this.issues.length;
    const parts = this.applied(value, schema);
    if (!parts.every((part) => this.#shapeFits(value, part))) {
      this.add(path, this.describe({ allOf: parts } as Schema), this.received(value, parts));
      return;
    }
    for (const part of parts) {
      if (typeof part === 'boolean') continue;
      for (const keyword of ['oneOf', 'anyOf'] as const) {
        const branches = part[keyword];
        if (Array.isArray(branches) && !this.matches(value, { [keyword]: branches } as Schema)) {
          this.#alternatives(value, branches as Node[], path);
          return;
        }
      }
    }
    if (isObject(value)) this.#object(value, parts, path);
    else if (Array.isArray(value)) this.#array(value, parts, path);
    if (this.issues.length === before) this.#not(value, parts, path);
    // Described from every part that applies (the `then` or `else` an `if` chose too), not the schema alone.
    if (this.issues.length === before)
      this.add(path, this.describe({ allOf: parts } as Schema), this.received(value, parts));
  }

  /** A value that passes what a part's `not` refuses: `anything but "x"`. */
  #not(value: unknown, parts: Node[], path: Path): void {
    for (const part of parts) {
      if (typeof part === 'boolean' || part.not === undefined || !this.matches(value, part.not as Node))
        continue;
      const refused = this.describe(part.not as Node);
      const expected =
        refused === 'any value' || refused === 'no value'
          ? 'a value its "not" schema refuses'
          : `anything but ${refused}`;
      this.add(path, expected, this.received(value, parts));
      return;
    }
  }

  /** `true` when `value` has a type `part` allows and is among its `enum` / `const`, if it has them. */
  #shapeFits(value: unknown, part: Node): boolean {
    if (typeof part === 'boolean') return part;
    const check: Schema = {};
    if (part.type !== undefined) check.type = part.type;
    if (part.enum !== undefined) check.enum = part.enum;
    if (Object.hasOwn(part, 'const')) check.const = part.const;
    return Object.keys(check).length === 0 || this.matches(value, check);
  }

  #alternatives(value: unknown, branches: Node[], path: Path): void {
    const matching = branches.filter((branch) => this.matches(value, branch));
    if (matching.length > 1) {
      this.add(
        path,
        `exactly one of ${this.#branchList(branches)}`,
        `a value that matches ${matching.length}`,
      );
      return;
    }
    if (isObject(value)) {
      const key = this.#discriminator(branches);
      if (key !== undefined) {
        const chosen = branches.filter((branch) => this.matches(value[key], this.#property(branch, key)));
        if (chosen.length === 1) {
          this.walk(value, chosen[0] as Node, path);
          return;
        }
        if (chosen.length === 0) {
          const values = branches.flatMap((branch) => fixedValues(this.parts(this.#property(branch, key))));
          const expected = `one of ${listValues([...new Set(values.map(show))])}`;
          this.add(
            [...path, key],
            expected,
            Object.hasOwn(value, key) ? this.received(value[key], []) : 'nothing',
          );
          return;
        }
      }
    }
    if (typeof value === 'object' && value !== null) {
      const sameType = branches.filter((branch) =>
        this.parts(branch).every((part) => typeof part !== 'boolean' && this.#typeFits(value, part)),
      );
      if (sameType.length === 1) {
        this.walk(value, sameType[0] as Node, path);
        return;
      }
      // Objects of several shapes: the one that declares the most of the keys sent, when one does.
      if (isObject(value) && sameType.length > 1) {
        const sent = Object.keys(value);
        const scores = sameType.map((branch) => sent.filter((key) => this.#declares(branch, key)).length);
        const best = Math.max(...scores);
        if (best > 0 && scores.indexOf(best) === scores.lastIndexOf(best)) {
          this.walk(value, sameType[scores.indexOf(best)] as Node, path);
          return;
        }
      }
    }
    this.add(path, this.#branchList(branches), this.received(value, []));
  }

  /** `true` when `branch` (or a part of it) names `key` among its `properties`. */
  #declares(branch: Node, key: string): boolean {
    return this.parts(branch).some(
      (part) => typeof part !== 'boolean' && isObject(part.properties) && Object.hasOwn(part.properties, key),
    );
  }

  /** The properties `branch` requires (its parts' `required`), in order, each once. */
  #requiredOf(branch: Node): string[] {
    const names = this.parts(branch).flatMap((part) =>
      typeof part !== 'boolean' && Array.isArray(part.required) ? (part.required as unknown[]) : [],
    );
    return [...new Set(names.filter((name): name is string => typeof name === 'string'))];
  }

  #typeFits(value: unknown, part: Schema): boolean {
    return part.type === undefined || this.matches(value, { type: part.type } as Schema);
  }

  #branchList(branches: Node[], depth = 0): string {
    if (depth >= MAX_DESCRIBE_DEPTH) return `one of ${branches.length} kinds of value`;
    // Branches that each fix their values (`z.union([z.literal(1), z.literal(2)])`, valibot's `union` of
    // literals) are said as the `enum` they equal (`z.enum()`, `picklist()`, a JSON Schema's): `one of 1, 2`.
    const fixed = branches.map((branch) => fixedValues(this.parts(branch)));
    if (fixed.every((values) => values.length > 0)) {
      const shown = [...new Set(fixed.flat().map(show))];
      return shown.length === 1 ? (shown[0] as string) : `one of ${listValues(shown)}`;
    }
    const described = branches.map((branch) => this.describe(branch, depth + 1));
    // Branches that read alike (`an object`, twice) are told apart by the properties each requires.
    if (new Set(described).size < described.length) {
      return alternatives(
        branches.map((branch, index) => {
          const required = this.#requiredOf(branch).map(showKey);
          const own = described[index] as string;
          if (required.length === 0) return own;
          const shown = required.slice(0, MAX_VALUES);
          const more = required.length > shown.length ? ` and ${required.length - shown.length} more` : '';
          return `${own} with ${shown.join(', ')}${more}`;
        }),
      );
    }
    return alternatives(described);
  }

  /** A property every branch fixes (`const`, or a short `enum`) and requires: what tells the branches apart. */
  #discriminator(branches: Node[]): string | undefined {
    const first = branches[0];
    if (first === undefined || typeof first === 'boolean') return undefined;
    const candidates = this.parts(first).flatMap((part) =>
      typeof part === 'boolean' || !isObject(part.properties) ? [] : Object.keys(part.properties),
    );
    return candidates.find((key) =>
      branches.every(
        (branch) => fixedValues(this.parts(this.#property(branch, key)), MAX_DISCRIMINATOR_VALUES).length > 0,
      ),
    );
  }

  /** The schema of property `key` in `branch` (through its `$ref` and `allOf`), `true` when it has none. */
  #property(branch: Node, key: string): Node {
    for (const part of this.parts(branch)) {
      if (typeof part === 'boolean' || !isObject(part.properties)) continue;
      if (Object.hasOwn(part.properties, key)) return part.properties[key] as Node;
    }
    return true;
  }

  #object(value: Record<string, unknown>, parts: Node[], path: Path): void {
    const schemas = parts.filter((part): part is Schema => typeof part !== 'boolean');
    const declared = new Set(
      schemas.flatMap((part) => (isObject(part.properties) ? Object.keys(part.properties) : [])),
    );
    for (const part of schemas) {
      if (!Array.isArray(part.required)) continue;
      for (const name of part.required) {
        if (typeof name === 'string' && !Object.hasOwn(value, name))
          this.add([...path, name], this.describe(this.#childOf(schemas, name)[0] ?? true), 'nothing');
      }
    }
    for (const part of schemas) {
      if (!isObject(part.dependentRequired)) continue;
      for (const [key, names] of Object.entries(part.dependentRequired)) {
        if (!Object.hasOwn(value, key) || !Array.isArray(names)) continue;
        for (const name of names) {
          if (typeof name !== 'string' || Object.hasOwn(value, name)) continue;
          const expected = this.describe(this.#childOf(schemas, name)[0] ?? true);
          this.add([...path, name], `${expected} (as ${showKey(key)} is given)`, 'nothing');
        }
      }
    }
    for (const [key, child] of Object.entries(value)) {
      if (this.full) return;
      const naming = schemas.find(
        (part) => part.propertyNames !== undefined && !this.matches(key, part.propertyNames as Node),
      );
      if (naming !== undefined) {
        const rule = naming.propertyNames as Node;
        const expected =
          rule === false
            ? 'no such property'
            : `a name ${this.describe(rule).replace(/^a (value|string) ?/, '')}`;
        this.add([...path, key], expected.trimEnd(), rule === false ? this.received(child, []) : show(key));
        continue;
      }
      let applied = this.#childOf(schemas, key);
      if (applied.length === 0) {
        // A property nothing else evaluates meets `unevaluatedProperties`, when a part has it.
        const rest = schemas.find((part) => part.unevaluatedProperties !== undefined)?.unevaluatedProperties;
        if (rest !== undefined) applied = [rest as Node];
      }
      if (applied.includes(false)) {
        const known = [...declared].sort();
        const list =
          known.length === 0
            ? ''
            : ` (known: ${known.slice(0, MAX_NAMES).map(showKey).join(', ')}${known.length > MAX_NAMES ? ', …' : ''})`;
        this.add([...path, key], `no such property${list}`, this.received(child, []));
        continue;
      }
      // Several schemas apply to one property (an `allOf`, a `then`): judged and described together.
      if (applied.length === 1) this.walk(child, applied[0] as Node, [...path, key]);
      else if (applied.length > 1) this.walk(child, { allOf: applied } as Schema, [...path, key]);
    }
    for (const part of schemas) {
      const count = Object.keys(value).length;
      const min = part.minProperties;
      const max = part.maxProperties;
      if ((typeof min === 'number' && count < min) || (typeof max === 'number' && count > max))
        this.add(path, this.describe(part), `an object with ${plural(count, 'property')}`);
    }
  }

  /** The schemas that apply to property `key`: its `properties` entry, else matching `patternProperties`, else `additionalProperties`. */
  #childOf(schemas: Schema[], key: string): Node[] {
    const out: Node[] = [];
    for (const part of schemas) {
      if (isObject(part.properties) && Object.hasOwn(part.properties, key)) {
        out.push(part.properties[key] as Node);
        continue;
      }
      let matched = false;
      if (isObject(part.patternProperties)) {
        for (const [pattern, schema] of Object.entries(part.patternProperties)) {
          if (safeTest(pattern, key)) {
            out.push(schema as Node);
            matched = true;
          }
        }
      }
      if (!matched && part.additionalProperties !== undefined) out.push(part.additionalProperties as Node);
    }
    return out;
  }

  #array(value: unknown[], parts: Node[], path: Path): void {
    for (const part of parts) {
      if (typeof part === 'boolean') continue;
      const { minItems } = part;
      const maxItems = maxItemsOf(part);
      if (
        (typeof minItems === 'number' && value.length < minItems) ||
        (maxItems !== undefined && value.length > maxItems)
      ) {
        this.add(path, this.describe(part), this.received(value, []));
        return;
      }
    }
    for (const [index, item] of value.entries()) {
      if (this.full) return;
      for (const part of parts) {
        if (typeof part === 'boolean') continue;
        const prefix = Array.isArray(part.prefixItems) ? (part.prefixItems as Node[]) : [];
        const schema =
          index < prefix.length ? prefix[index] : ((part.items ?? part.unevaluatedItems) as Node | undefined);
        if (schema === false)
          this.add([...path, index], `at most ${plural(prefix.length, 'item')}`, this.received(item, []));
        else if (schema !== undefined) this.walk(item, schema, [...path, index]);
      }
    }
    for (const part of parts) {
      if (typeof part === 'boolean') continue;
      if (part.uniqueItems === true) this.#repeated(value, path);
      if (part.contains === undefined) continue;
      const { contains, minContains, maxContains } = part;
      const rule: Schema = { contains } as Schema;
      if (minContains !== undefined) rule.minContains = minContains;
      if (maxContains !== undefined) rule.maxContains = maxContains;
      if (this.matches(value, rule)) continue;
      const what = this.describe(contains as Node, MAX_DESCRIBE_DEPTH - 1);
      const count = countPhrase(minContains ?? 1, maxContains, 'item');
      const expected =
        count === 'at least 1 item' ? `an array holding ${what}` : `an array holding ${count} each ${what}`;
      this.add(path, expected, this.received(value, []));
    }
  }

  /** The first item of `items` equal to one before it (JSON Schema's `uniqueItems`: objects by their members). */
  #repeated(items: unknown[], path: Path): void {
    const seen = new Set<string>();
    for (const [index, item] of items.entries()) {
      const key = canonicalJson(item);
      if (seen.has(key)) {
        this.add([...path, index], 'an item unlike the ones before it', this.received(item, []));
        return;
      }
      seen.add(key);
    }
  }

  /** What was sent, in words: `nothing` for a missing property is said by the caller. */
  received(value: unknown, parts: Node[]): string {
    if (typeof value === 'string') {
      const aboutLength = parts.some(
        (part) => typeof part !== 'boolean' && (part.minLength !== undefined || part.maxLength !== undefined),
      );
      const length = [...value].length;
      return aboutLength || value.length > MAX_SHOWN
        ? `a string of ${plural(length, 'character')}`
        : show(value);
    }
    if (Array.isArray(value)) return `an array of ${plural(value.length, 'item')}`;
    if (isObject(value)) return 'an object';
    if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
    return `a value JSON cannot hold (${typeof value})`;
  }

  /** What `schema` asks for, in words, e.g. `a string of 2 to 5 characters`, `one of "a", "b"`, `an integer >= 0`. */
  describe(schema: Node, depth = 0): string {
    if (schema === true) return 'any value';
    if (schema === false) return 'no value';
    const parts = this.parts(schema).filter((part): part is Schema => typeof part !== 'boolean');
    if (this.parts(schema).includes(false)) return 'no value';
    const merged: Schema = Object.assign({}, ...parts.slice().reverse());
    const fixed = fixedValues(parts);
    if (parts.some((part) => Object.hasOwn(part, 'const'))) return show(fixed[0]);
    if (parts.some((part) => Array.isArray(part.enum)))
      return fixed.length === 1 ? show(fixed[0]) : `one of ${listValues(fixed.map(show))}`;
    const union = parts.map((part) => part.anyOf ?? part.oneOf).find(Array.isArray) as Node[] | undefined;
    if (union !== undefined) return this.#branchList(union, depth);
    const typed = typesOf(parts);
    if (typed === undefined) {
      const phrases = constraintPhrases(merged);
      return phrases.length === 0 ? 'any value' : `a value ${phrases.join(' ')}`;
    }
    return alternatives(typed.map((type) => this.#describeType(type, merged, depth)));
  }

  #describeType(type: string, schema: Schema, depth: number): string {
    switch (type) {
      case 'string':
        return ['a string', ...lengthPhrase(schema), ...stringPhrases(schema)].join(' ');
      case 'integer':
      case 'number':
        return [type === 'integer' ? 'an integer' : 'a number', ...numberPhrases(schema)].join(' ');
      case 'boolean':
        return 'a boolean';
      case 'null':
        return 'null';
      case 'array': {
        const count = countPhrase(schema.minItems, maxItemsOf(schema), 'item');
        // A tuple's items differ by place: only its length is said.
        const items = Array.isArray(schema.prefixItems) ? undefined : (schema.items as Node | undefined);
        const described =
          items === undefined || items === true || depth >= MAX_DESCRIBE_DEPTH
            ? ''
            : this.describe(items, depth + 1);
        if (described === '') return count === '' ? 'an array' : `an array of ${count}`;
        return count === '' ? `an array, each item ${described}` : `an array of ${count}, each ${described}`;
      }
      case 'object': {
        const count = countPhrase(schema.minProperties, schema.maxProperties, 'property');
        return count === '' ? 'an object' : `an object of ${count}`;
      }
      default:
        return `a ${type}`;
    }
  }
}

/**
 * The rendered paths `path` lies inside: the root, and each cut of it before a `.` or a `[` (`a.b[0]` lies inside
 * the root, `a` and `a.b`); none for the root.
 */
export function parentsOf(path: string): string[] {
  if (path === ROOT_PATH) return [];
  const out = [ROOT_PATH];
  for (let index = 0; index < path.length; index += 1) {
    if (path[index] === '.' || path[index] === '[') out.push(path.slice(0, index));
  }
  return out;
}

/** `value` as JSON with every object's keys sorted: equal JSON values, equal texts. */
function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, member: unknown) =>
      isObject(member)
        ? Object.fromEntries(
            Object.keys(member)
              .sort()
              .map((name) => [name, member[name]]),
          )
        : member,
    ) ?? 'null'
  );
}

function safeTest(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    return false;
  }
}

/**
 * The values the parts allow by `const` or `enum` (the first that says), or `[]` when none fixes them or (with
 * `most`) an `enum` lists more than `most`: a property that tells union branches apart has a few values.
 */
function fixedValues(parts: Node[], most = Number.POSITIVE_INFINITY): unknown[] {
  for (const part of parts) {
    if (typeof part === 'boolean') continue;
    if (Object.hasOwn(part, 'const')) return [part.const];
    if (Array.isArray(part.enum)) return part.enum.length <= most ? part.enum : [];
  }
  return [];
}

/** The most values of a property that tells union branches apart (see `Explanation.#discriminator`). */
const MAX_DISCRIMINATOR_VALUES = MAX_VALUES * 4;

/**
 * Alternatives as the model reads them, whatever order a library announced them in: `a number or a string`,
 * each said once, in alphabetical order, at most {@link MAX_BRANCHES} then `or <n> more`.
 */
function alternatives(descriptions: string[]): string {
  const unique = [...new Set(descriptions)].sort();
  const named = unique.slice(0, MAX_BRANCHES);
  const more = unique.length - named.length;
  if (more > 0) return `${named.join(', ')} or ${more} more`;
  return named.length < 2 ? (named[0] ?? 'no value') : `${named.slice(0, -1).join(', ')} or ${named.at(-1)}`;
}

/** Values as the model reads them (`"a", "b"`), sorted, at most {@link MAX_VALUES} then `or <n> more`. */
function listValues(shown: string[]): string {
  const values = [...new Set(shown)].sort();
  const named = values.slice(0, MAX_VALUES);
  return `${named.join(', ')}${values.length > named.length ? `, or ${values.length - named.length} more` : ''}`;
}

/** The types the parts allow together, or `undefined` when none says. */
function typesOf(parts: Schema[]): string[] | undefined {
  let types: string[] | undefined;
  for (const part of parts) {
    if (part.type === undefined) continue;
    const own = Array.isArray(part.type) ? (part.type as string[]) : [part.type as string];
    types =
      types === undefined
        ? own
        : types.filter((type) => own.includes(type) || (type === 'integer' && own.includes('number')));
  }
  return types;
}

/**
 * The most items `schema` allows: its `maxItems`, or the length of its `prefixItems` when `items` is `false` (a
 * closed tuple, as valibot, arktype and JSON Schema write one; zod writes `maxItems`), whichever is lower.
 */
function maxItemsOf(schema: Schema): number | undefined {
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : undefined;
  if (schema.items !== false) return max;
  const closed = Array.isArray(schema.prefixItems) ? schema.prefixItems.length : 0;
  return max === undefined ? closed : Math.min(max, closed);
}

function countPhrase(min: unknown, max: unknown, word: string): string {
  const low = typeof min === 'number' && min > 0 ? min : undefined;
  const high = typeof max === 'number' ? max : undefined;
  if (low !== undefined && high !== undefined)
    return low === high ? `exactly ${plural(low, word)}` : `${low} to ${plural(high, word)}`;
  if (low !== undefined) return `at least ${plural(low, word)}`;
  if (high !== undefined) return `at most ${plural(high, word)}`;
  return '';
}

function lengthPhrase(schema: Schema): string[] {
  const count = countPhrase(schema.minLength, schema.maxLength, 'character');
  return count === '' ? [] : [`of ${count}`];
}

/**
 * `in the format "email"`, or `matching /^o_\d+$/`: a format says what its pattern (zod announces both) says
 * in a word, so the pattern is named only without one.
 */
function stringPhrases(schema: Schema): string[] {
  if (typeof schema.format === 'string') return [`in the format ${show(schema.format)}`];
  if (typeof schema.pattern !== 'string') return [];
  return [`matching /${cut(schema.pattern, MAX_SHOWN)}/`];
}

/** A bound that says something: zod announces ±(2^53 − 1) for every integer. */
const said = (bound: unknown): bound is number =>
  typeof bound === 'number' && Math.abs(bound) !== Number.MAX_SAFE_INTEGER;

function numberPhrases(schema: Schema): string[] {
  const out: string[] = [];
  const { minimum, exclusiveMinimum, maximum, exclusiveMaximum, multipleOf } = schema;
  if (said(exclusiveMinimum)) out.push(`> ${exclusiveMinimum}`);
  else if (said(minimum)) out.push(`>= ${minimum}`);
  if (said(exclusiveMaximum)) out.push(`< ${exclusiveMaximum}`);
  else if (said(maximum)) out.push(`<= ${maximum}`);
  const bounds = out.length === 2 ? [`${out[0]} and ${out[1]}`] : out;
  return typeof multipleOf === 'number' ? [...bounds, `that is a multiple of ${multipleOf}`] : bounds;
}

/** What a schema without a `type` still asks (`minLength`, bounds …), for `a value …`. */
function constraintPhrases(schema: Schema): string[] {
  return [...lengthPhrase(schema), ...stringPhrases(schema), ...numberPhrases(schema)];
}

/**
 * The issues of `value` against `schema` (the validator's own, annotated schema) with its `lookup`: at least one
 * (`(root): expected …, received …` when the walk finds nothing more precise), at most {@link MAX_ISSUES}, the
 * last marked `more` when the walk stopped there with more to say.
 */
export function explainIssues(value: unknown, schema: Node, lookup: Lookup): ValidationIssue[] {
  const explanation = new Explanation(lookup);
  explanation.walk(value, schema, []);
  const { issues } = explanation;
  if (issues.length === 0)
    explanation.add([], explanation.describe(schema), explanation.received(value, explanation.parts(schema)));
  if (issues.length > MAX_ISSUES) {
    issues.length = MAX_ISSUES;
    issues[MAX_ISSUES - 1] = { ...(issues[MAX_ISSUES - 1] as ValidationIssue), more: true };
  }
  return issues;
}
