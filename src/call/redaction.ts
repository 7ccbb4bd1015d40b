/**
 * One call's redaction by field name: the tool's `sensitiveFieldNames` and the fields a policy asked to redact
 * (`{ redact: [fieldNames] }`), over every version of the arguments the call had (the model's, the validated
 * input, an approver's edit and its validated form), on top of the client's own rules (API key, `redact`).
 *
 * The rule, for a value held under one of the names:
 * - in structured data (the approval request's input, events, widgets, progress, log fields, step results, the
 *   JSON of an output or of an edited-arguments note), the field's whole value is replaced by the placeholder
 *   wherever the field's name appears, whatever its kind (a string, a number, `true`, `null`, an object) or its
 *   length;
 * - in free text (the output, messages, questions, errors, the text inside any string of structured data), the
 *   value is searched for and replaced only when its text (a string as it is, a number's digits) is at least
 *   {@link MIN_SEARCHED_CHARS} characters long: a value such as `1`, `' '`, `'e'` or `0` would take ordinary text
 *   with it, and, inside JSON, break it. Booleans and `null` are never searched for.
 * - a text that is JSON is redacted inside its values and written again as JSON (`redactOutput`, src/redact.ts): it is
 *   never cut through its syntax.
 *
 * The values held under the names are found by {@link sensitiveValues}, at the end of the file. Calls load this
 * module as a part of theirs (./parts.ts `redaction`) when their tool names sensitive fields or the host has
 * policies.
 *
 * @module
 */
import { isError } from '../errors';
import { MAX_REDACT_DEPTH, REDACTED, Redactor, redactOutput, SHORT_SECRET } from '../redact';
import { serializeOutput } from '../tool/output';

/** Shortest value of a sensitive field that is searched for in free text, in characters (4). */
export const MIN_SEARCHED_CHARS = SHORT_SECRET;

/** Most nesting walked in structured data (deeper is left to the redactor, which writes `"[Too deep]"`). */
const MAX_DEPTH = 64;

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/** What stands for a value that cannot be read, as {@link Redactor.value} writes it. */
const UNREADABLE = '[Unreadable]';

/** What a call scrubs with; see the module. One per call, grown as the call learns its names and arguments. */
export class CallRedaction {
  readonly #base: Redactor | undefined;
  readonly #names = new Set<string>();
  readonly #inputs: unknown[] = [];
  readonly #changed: (redactor: Redactor | undefined) => void;
  #redactor: Redactor | undefined;

  /**
   * @param base - the client's redactor (API key, `redact`), if any.
   * @param names - the tool's `sensitiveFieldNames`.
   * @param changed - told the redactor (base and the searched values) each time it changes.
   */
  constructor(
    base: Redactor | undefined,
    names: readonly string[],
    changed: (redactor: Redactor | undefined) => void,
  ) {
    this.#base = base;
    this.#redactor = base;
    this.#changed = changed;
    for (const name of names) this.#names.add(name);
  }

  /** `true` once the call has field names to redact: what it gives out is then scrubbed here. */
  get active(): boolean {
    return this.#names.size > 0;
  }

  /** The base redactor with the searched values of the fields added (what serialisation and errors use). */
  get redactor(): Redactor | undefined {
    return this.#redactor;
  }

  /** What a redacted field's value is replaced with (`[redacted]`, unless a rule matches in it). */
  get placeholder(): string {
    return this.#redactor?.replacement || REDACTED;
  }

  /** More field names to redact (a policy's `{ redact }`). */
  addNames(names: readonly string[]): void {
    const before = this.#names.size;
    for (const name of names) this.#names.add(name);
    if (this.#names.size !== before) this.#rebuild();
  }

  /** More versions of the arguments whose fields' values are secrets (the raw, validated or edited ones). */
  addInputs(...inputs: unknown[]): void {
    this.#inputs.push(...inputs);
    if (this.#names.size > 0) this.#rebuild();
  }

  #rebuild(): void {
    const names = [...this.#names];
    const searched = new Set<string>();
    for (const input of this.#inputs) {
      for (const value of sensitiveValues(input, names))
        if (value.length >= MIN_SEARCHED_CHARS) searched.add(value);
    }
    const values = [...searched];
    const next =
      values.length === 0
        ? this.#base
        : this.#base === undefined
          ? new Redactor(values)
          : this.#base.with(values);
    if (next === this.#redactor) return;
    this.#redactor = next;
    this.#changed(next);
  }

  /** A free text (a message, a question, an error text): the searched values replaced. */
  text(text: string): string {
    return this.#redactor === undefined ? text : this.#redactor.text(text);
  }

  /**
   * A text the model reads: as {@link CallRedaction.text}, but a JSON text stays JSON (`redactOutput`, src/redact.ts),
   * and a JSON object or array holding one of the names has that field's value replaced whole (as
   * {@link CallRedaction.value}), then is written again as compact JSON.
   */
  output(text: string): string {
    return redactOutput(this.#redactor, this.#names.size === 0 ? text : this.#scrubJsonText(text));
  }

  #scrubJsonText(text: string): string {
    const start = text.trimStart()[0];
    if (start !== '{' && start !== '[') return text;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return text;
    }
    const found = { any: false };
    const scrubbed = this.#scrubFields(value, 0, found);
    return found.any ? JSON.stringify(scrubbed) : text;
  }

  /**
   * A copy of structured data with every field of the names replaced whole by the placeholder, at any depth,
   * then the searched values replaced in every string and key ({@link Redactor.value}).
   */
  value<T>(value: T): T {
    const scrubbed = this.#names.size === 0 ? value : (this.#scrubFields(value, 0) as T);
    return this.#redactor === undefined ? scrubbed : this.#redactor.value(scrubbed);
  }

  /** `value` written as JSON (an edited-arguments note), redacted as {@link CallRedaction.value}. */
  json(value: unknown): string {
    return this.output(serializeOutput(this.value(value), this.#redactor));
  }

  /**
   * What was thrown, redacted, whatever its kind ({@link Redactor.error}): the same value when nothing in it needs
   * redacting, else a copy (what was thrown is never changed): an error's message and stack (and its causes')
   * with the searched values replaced, a string's text, a plain object's fields of the names (as
   * {@link CallRedaction.value}) and searched values. Never throws: what cannot be read (a hostile Proxy) is
   * `'[Unreadable]'`, as {@link Redactor.value} writes it.
   */
  error<T>(error: T): T {
    let fields = error;
    if (this.#names.size > 0 && isObject(error) && !isError(error)) {
      const found = { any: false };
      const scrubbed = this.#scrubFields(error, 0, found) as T;
      if (found.any) fields = scrubbed;
    }
    return this.#redactor === undefined ? fields : this.#redactor.error(fields);
  }

  #scrubFields(value: unknown, depth: number, found = { any: false }): unknown {
    if (!isObject(value) || depth > MAX_DEPTH) return value;
    try {
      if (Array.isArray(value)) return value.map((item) => this.#scrubFields(item, depth + 1, found));
      if (value instanceof Error || ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return value;
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') return this.#scrubFields(toJSON.call(value), depth + 1, found);
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        if (this.#names.has(key)) found.any = true;
        const next = this.#names.has(key) ? this.placeholder : this.#scrubFields(item, depth + 1, found);
        Object.defineProperty(out, key, {
          value: next,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    } catch {
      // A value that cannot be read (a hostile Proxy, a getter that throws) may hide a field of the names.
      found.any = true;
      return UNREADABLE;
    }
  }
}

/**
 * A call's arguments (decoded, or the text as given) as everything outside the call is shown them: its approver
 * (`onApproval`, `approval_requested`, whether the client asked or the service holds the call), its trace, a
 * run's events. One view on every path (docs/guide/approvals.md, docs/guide/secrets.md#sensitive-fields):
 *
 * - the values of the sensitive fields replaced as {@link CallRedaction} does (`fields`: the call's own
 *   redaction, which knows a policy's names and every version of the arguments, or the tool's
 *   `sensitiveFieldNames` for a call that has none), on top of `redactor`'s rules;
 * - else `redactor`'s rules (the API key, `redact`) applied: `args` itself when no rule matches in it (a `Date`
 *   or a class instance a schema made stays one), else a redacted copy ({@link Redactor.value}).
 *
 * What an approver edits back is read against this view by {@link restoreShown}.
 */
export function shownArguments(
  args: unknown,
  redactor: Redactor | undefined,
  fields: CallRedaction | readonly string[] | undefined = [],
): unknown {
  const redaction = fields instanceof CallRedaction ? fields : fieldRedaction(redactor, fields, args);
  // The call's redaction applies its base rules (the client's) with the fields' values.
  if (redaction?.active === true)
    return typeof args === 'string' ? redaction.text(args) : redaction.value(args);
  return redactor?.holds(args) === true ? redactor.value(args) : args;
}

/**
 * The redaction of a call's fields of `names` that has none of its own (a call the service holds, a run's event,
 * a call not started), over the values `args` holds there; `undefined` when there are no names.
 */
export function fieldRedaction(
  redactor: Redactor | undefined,
  names: readonly string[],
  args: unknown,
): CallRedaction | undefined {
  if (names.length === 0) return undefined;
  const redaction = new CallRedaction(redactor, names, () => {});
  redaction.addInputs(args);
  return redaction;
}

/**
 * Arguments an approver edited, after it was shown `shown` (the redacted view of `original`: a field of the names
 * as the placeholder, a text or a key with a secret replaced): wherever the edit holds, at the same path, exactly
 * what the approver was shown there, and that differs from `original` there, the original value is put back (the
 * approver left it alone; the guide's `{ ...request.input, amount: 50 }`); so is an object key shown redacted. Any
 * other value is the approver's own and kept as written (redacted from then on like the original). A path the
 * approver added, or one `original` does not have, is kept as written. Used on every path a decision takes: the
 * local approver's and `client.decide()`'s (src/client/approvals.ts).
 */
export function restoreShown(
  edited: Record<string, unknown>,
  original: unknown,
  shown: unknown,
): Record<string, unknown> {
  return restoreAt(edited, original, shown, 0) as Record<string, unknown>;
}

function restoreAt(edited: unknown, original: unknown, shown: unknown, depth: number): unknown {
  if (shown === original || depth > MAX_DEPTH) return edited;
  // A value shown redacted whole (a field of the names, a text or number holding a secret).
  if (!isObject(shown)) return edited === shown ? original : edited;
  if (!isObject(edited) || !isObject(original)) return edited;
  if (Array.isArray(edited) || Array.isArray(shown) || Array.isArray(original)) {
    if (!Array.isArray(edited) || !Array.isArray(shown) || !Array.isArray(original)) return edited;
    return edited.map((item, index) =>
      index < original.length ? restoreAt(item, original[index], shown[index], depth + 1) : item,
    );
  }
  const from = original as Record<string, unknown>;
  const seen = shown as Record<string, unknown>;
  // The redacted view keeps the order of the keys: when it has as many as the original, the one at the same
  // place is the key it showed (a key holding a secret is shown redacted).
  const originalKeys = Object.keys(from);
  const shownKeys = Object.keys(seen);
  const sameShape = originalKeys.length === shownKeys.length;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(edited)) {
    let target = key;
    let next = item;
    if (Object.hasOwn(seen, key)) {
      if (!Object.hasOwn(from, key) && sameShape) target = originalKeys[shownKeys.indexOf(key)] ?? key;
      if (Object.hasOwn(from, target)) next = restoreAt(item, from[target], seen[key], depth + 1);
    }
    Object.defineProperty(out, target, { value: next, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** Most values one input gives (more are not looked for: a bound on the cost of a hostile input). */
export const MAX_SENSITIVE_VALUES = 1_000;

/**
 * Every value found under one of `names` in `input`, at any depth, as the text a redactor matches: a string as
 * it is (the empty string skipped), a finite number or a BigInt as its decimal digits; under such a name, every
 * string and number inside an object or array too. Booleans and `null` are not secrets and are left alone.
 * Property names match exactly (case and all). Cycles are visited once.
 *
 * @example
 * ```ts
 * sensitiveValues({ card: { number: '4242 4242', cvc: 123 }, note: 'hi' }, ['card']); // ['4242 4242', '123']
 * ```
 */
export function sensitiveValues(input: unknown, names: readonly string[]): string[] {
  const found = new Set<string>();
  if (names.length === 0) return [];
  const wanted = new Set(names);
  const seen = new Set<object>();
  const visit = (value: unknown, inside: boolean, depth: number): void => {
    // Nesting deeper than this is not searched (arguments are refused deeper than 64 levels anyway).
    if (found.size >= MAX_SENSITIVE_VALUES || depth > MAX_REDACT_DEPTH) return;
    if (typeof value === 'string') {
      if (inside && value !== '') found.add(value);
      return;
    }
    if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'bigint') {
      if (inside) found.add(String(value));
      return;
    }
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) visit(item, inside, depth + 1);
      return;
    }
    if (value instanceof Map) {
      for (const [key, item] of value) visit(item, inside || wanted.has(String(key)), depth + 1);
      return;
    }
    for (const [key, item] of Object.entries(value)) visit(item, inside || wanted.has(key), depth + 1);
  };
  visit(input, false, 0);
  return [...found];
}
