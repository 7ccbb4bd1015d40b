/**
 * Every text that says why a value failed a zod/mini schema: the rule it broke, in words (`must be a string`,
 * `must be at most 256 characters`, `must be an integer`, `must have at most 64 items`), for each issue code zod
 * can raise. The frame decoder (./codec.ts) and the stub's HTTP bodies (server-stub/http-bodies.ts) say their
 * refusals with it.
 *
 * zod/mini ships no message locale, so it would say only "Invalid input"; installing one with `z.config` would
 * change the messages of every zod schema in the process, a user's too. {@link ruleOf} is passed to each parse
 * instead: `schema.safeParse(value, { error: ruleOf })`. A schema that states its rule itself (a pattern's
 * `{ error: 'must be base64' }`, a refinement's message) keeps its words.
 *
 * A rule never quotes the value that broke it (what a peer sent may be a secret), nor a record's key (a value
 * too): its length is bounded by the schema, not by the input.
 *
 * @module
 */
import type * as z from 'zod/mini';

/** What a value of each kind zod names is called in a rule. */
const KIND_NAMES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  bigint: 'a bigint',
  boolean: 'a boolean',
  object: 'an object',
  record: 'an object',
  map: 'a Map',
  set: 'a Set',
  array: 'an array',
  tuple: 'an array',
  null: 'null',
  undefined: 'absent',
  date: 'a date',
  file: 'a file',
  function: 'a function',
  symbol: 'a symbol',
  nonoptional: 'present',
  never: 'absent',
};

/** `a`, `a or b`, `a, b or c`. */
export function either(choices: readonly string[]): string {
  return choices.length <= 1
    ? (choices[0] ?? '')
    : `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}`;
}

/** `1 character`, `2 items`. */
const count = (n: number | bigint, unit: string) => `${n} ${unit}${Number(n) === 1 ? '' : 's'}`;

/**
 * A bound of a string (characters: UTF-16 code units), an array or a set (items), a file (bytes) or a number:
 * `must be at most 256 characters`, `must have at least 1 item`, `must be greater than 0`.
 */
function bound(
  issue: { origin: string; inclusive?: boolean; exact?: boolean },
  side: 'min' | 'max',
  limit: number | bigint,
): string {
  const word = issue.exact ? 'exactly' : side === 'min' ? 'at least' : 'at most';
  if (issue.origin === 'string') return `must be ${word} ${count(limit, 'character')}`;
  if (issue.origin === 'array' || issue.origin === 'set') return `must have ${word} ${count(limit, 'item')}`;
  if (issue.origin === 'file') return `must be ${word} ${count(limit, 'byte')}`;
  if (issue.origin === 'date') return `must be ${side === 'min' ? 'on or after' : 'on or before'} ${limit}`;
  if (issue.inclusive === false) return `must be ${side === 'min' ? 'greater' : 'less'} than ${limit}`;
  return `must be ${word} ${limit}`;
}

/**
 * The rule a value broke, for an issue whose schema states none itself: a zod error map, passed to each parse
 * (`schema.safeParse(value, { error: ruleOf })`), never set for the process.
 */
export function ruleOf(issue: z.core.$ZodRawIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      // JSON carries neither, but a value checked in-process may.
      if (issue.expected === 'number' && (issue.received === 'NaN' || issue.received === 'Infinity'))
        return 'must be a finite number';
      return `must be ${KIND_NAMES[issue.expected] ?? issue.expected}`;
    case 'too_small':
      return bound(issue, 'min', issue.minimum);
    case 'too_big':
      return bound(issue, 'max', issue.maximum);
    case 'invalid_format':
      return formatRule(issue);
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'unrecognized_keys':
      // The keys are the sender's: counted, not quoted.
      return `must have no other fields (it has ${count(issue.keys.length, 'other')})`;
    case 'invalid_value':
      return `must be ${either(issue.values.map(quote))}`;
    case 'invalid_union':
      return unionRule(issue);
    case 'invalid_key':
      return `every key ${nested(issue.issues)}`;
    case 'invalid_element':
      return `every ${issue.origin === 'map' ? 'value' : 'item'} ${nested(issue.issues)}`;
    default:
      return 'is not valid';
  }
}

/** A literal or an enum value of the schema (never the input) as JSON: `"ok"`, `true`, `1`. */
function quote(value: unknown): string {
  return typeof value === 'bigint' ? `${value}n` : value === undefined ? 'absent' : JSON.stringify(value);
}

/** A string format's rule; a pattern whose schema gives it no words is shown as written. */
function formatRule(issue: z.core.$ZodRawIssue<z.core.$ZodIssueInvalidStringFormat>): string {
  switch (issue.format) {
    case 'regex':
      return issue.pattern === undefined
        ? 'must match its pattern'
        : `must match the pattern ${issue.pattern}`;
    case 'starts_with':
      return `must start with ${quote(issue.prefix)}`;
    case 'ends_with':
      return `must end with ${quote(issue.suffix)}`;
    case 'includes':
      return `must include ${quote(issue.includes)}`;
    case 'lowercase':
    case 'uppercase':
      return `must be in ${issue.format}`;
    default:
      return `must be a valid ${issue.format}`;
  }
}

/**
 * A union the value took no form of: a discriminated union names the values its field may take (the issue is at
 * that field); another union, the forms of its options (`must be "auto", "none" or "required", or an object`).
 */
function unionRule(issue: z.core.$ZodRawIssue<z.core.$ZodIssueInvalidUnion>): string {
  if (issue.inclusive === false) return 'must match exactly one of its forms';
  if (issue.discriminator !== undefined) {
    // An older zod (4.1) names no options: the union's own values of the field are read instead.
    const values =
      issue.options ??
      (issue.inst as { _zod?: { propValues?: Record<string, Set<unknown>> } } | undefined)?._zod
        ?.propValues?.[issue.discriminator];
    if (values !== undefined) return `must be ${either([...values].map(quote))}`;
  }
  const forms: string[] = [];
  for (const alternative of issue.errors) {
    const root = alternative.filter((inner) => inner.path.length === 0);
    const rule = root.length === 1 ? root[0]?.message : undefined;
    if (rule === undefined || !rule.startsWith('must be ')) return 'must match one of its forms';
    forms.push(rule.slice('must be '.length));
  }
  if (forms.length === 0) return 'must match one of its forms';
  // A form may list values itself (`"auto", "none" or "required"`): then each is set apart.
  return `must be ${forms.some((form) => form.includes(' or ')) ? forms.join(', or ') : either(forms)}`;
}

/** The rule every key (or item) must keep: its first issue's (`must be at most 256 characters`). */
function nested(issues: readonly z.core.$ZodIssue[]): string {
  const rule = issues[0]?.message;
  return rule?.startsWith('must ') ? rule : 'must be valid';
}

/** One field at fault and the rule it broke. */
export interface Fault {
  /**
   * From the parsed value's root. A record's key at fault is left out (a value the sender chose). zod puts the key
   * in the path of a fault in a record's value, or in a map's entry with a string or number key, too: a schema
   * whose refusals are shown to others keeps its records' values `unknown` and has no maps (the frames do).
   */
  path: PropertyKey[];
  rule: string;
}

/**
 * The faults an issue of a parse with {@link ruleOf} stands for, most {@link MAX_UNION_FAULTS} of them for a
 * union. A union whose value took the shape of one of its forms (an object where `{ type: 'tool', name }` goes)
 * says what is wrong inside that form (`toolChoice.name: must be a string`) rather than that it matches no form.
 * A record's key at fault is reported at the record, the key left out.
 */
export function faultsOf(issue: z.core.$ZodIssue, at: readonly PropertyKey[] = []): Fault[] {
  const path = [...at, ...issue.path];
  if (issue.code === 'invalid_union' && issue.discriminator === undefined) {
    const shaped = issue.errors.find((issues) => issues.length > 0 && issues.every((i) => i.path.length > 0));
    if (shaped !== undefined)
      return shaped.slice(0, MAX_UNION_FAULTS).flatMap((inner) => faultsOf(inner, path));
  }
  // A record's key issue is at the key (one the sender chose); a map's, at the map already.
  if (issue.code === 'invalid_key' && issue.origin === 'record')
    return [{ path: path.slice(0, -1), rule: issue.message }];
  return [{ path, rule: issue.message }];
}

/** Most faults one union issue is reported as. */
export const MAX_UNION_FAULTS = 3;
