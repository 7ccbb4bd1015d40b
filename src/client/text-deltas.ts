/**
 * A run's `text_delta` events redacted as one stream per run and turn: a secret the model's stream splits across
 * deltas reaches no event in pieces.
 *
 * Each delta is redacted together with what is held from the one before. The end of that text that could be the
 * beginning of a secret (the API key, a `redact` string), in any form the redactor finds (as written,
 * JSON-escaped, `\uXXXX`, `\xXX`, `\u{…}`, percent-encoded; lowercased or uppercased), is held until the next delta or the end of the turn
 * decides; so is a whole secret that runs into it. The rest goes out redacted. What is held is handed out,
 * redacted, when the turn ends (its `message`, the next `turn`), when the run ends (its result, an error, an
 * abort), and when the socket drops. The deltas handed out, put together, are the turn's text redacted whole.
 * RegExp rules are applied to each piece as it goes out: a pattern cannot be held for.
 *
 * @module
 */
import {
  backslashRun,
  ESCAPE,
  hexDigits,
  PERCENT,
  PERCENT_BACKSLASH,
  percentAtoms,
  unitAtoms,
} from '../redact';

/** What redacts the deltas: the client's redactor. */
export interface StreamRedactor {
  text(value: string): string;
  readonly secrets: readonly string[];
}

/** One way a part of a secret may be written. */
interface Form {
  /** The form, whole (sticky). */
  whole: RegExp;
  /** A beginning of the form, not all of it, that ends the text (sticky, up to `$`); none for one character. */
  start: RegExp | undefined;
  /** How many parts of the secret it writes (2: a character outside the BMP as `\u{…}` or its UTF-8 bytes). */
  advance: number;
}

/** One part of a secret: a UTF-16 unit, or a run of `run` backslashes. */
interface Part {
  forms: Form[];
  run?: number;
  /** For the first part: the characters it may begin with. */
  firsts: string;
}

const sticky = (pattern: string) => new RegExp(pattern, 'y');

/** A form from its pieces: whole, and its beginnings (the pieces but the last, each run of pieces from the first). */
function form(atoms: readonly string[], advance = 1): Form {
  let start = '';
  for (let i = atoms.length - 2; i >= 0; i--) start = `${atoms[i]}${start === '' ? '' : `(?:${start})?`}`;
  // A byte percent-encoded more than once, cut inside its `%2525…`.
  atoms.forEach((atom, i) => {
    if (atom === PERCENT) start = `${start}|${atoms.slice(0, i).join('')}${PERCENT}2`;
  });
  // An escape's backslash percent-encoded (`%5C`, `%255C`, …), cut inside its last one.
  if (atoms[0] === ESCAPE) start = `${start}|(?:${PERCENT_BACKSLASH})*${PERCENT}[25]?`;
  return {
    whole: sticky(atoms.join('')),
    start: start === '' ? undefined : sticky(`(?:${start})$`),
    advance,
  };
}

/** Every part of `secret` with its forms, as src/redact.ts's `encodedPattern` writes them. */
function parts(secret: string): Part[] {
  const out: Part[] = [];
  const units = secret.split('');
  for (let i = 0; i < units.length; ) {
    const char = units[i] as string;
    if (char === '\\') {
      let run = 0;
      while (units[i + run] === '\\') run += 1;
      i += run;
      // As written (counted in the text), or each backslash escaped; any beginning of either.
      const escaped = backslashRun(run, ESCAPE).replace(/^\(\?:[^|]*\|/, '(?:');
      const begins = `(?:\\\\|u005[cC]|x5[cC]|${PERCENT_BACKSLASH})*(?:u0{0,2}5?|x5?|${PERCENT}[25]?)?$`;
      out.push({
        forms: [{ whole: sticky(escaped), start: sticky(begins), advance: 1 }],
        run,
        firsts: '\\%',
      });
      continue;
    }
    const unit = char.charCodeAt(0);
    const forms = unitAtoms(unit, ESCAPE).map((atoms) => form(atoms));
    const low = units[i + 1];
    if (unit >= 0xd800 && unit <= 0xdbff && low !== undefined && /[\udc00-\udfff]/.test(low)) {
      const point = (secret.codePointAt(i) as number) || 0;
      forms.push(
        form([ESCAPE, 'u', '\\{', '0*', ...hexDigits(point, 1), '\\}'], 2),
        form(percentAtoms(char + low), 2),
      );
    }
    out.push({ forms, firsts: `${char}\\%${unit === 0x20 ? '+' : ''}` });
    i += 1;
  }
  return out;
}

/**
 * Where the part of `text` to hold begins: the earliest place from which the text's end could be the beginning of
 * a secret in one of its forms, moved back to the start of any whole secret that runs across it; `text.length`
 * when nothing is to be held. Found by following every secret's forms from each place at once (a place, a part
 * of the secret: the earliest start that reached it).
 */
function heldFrom(text: string, secrets: readonly Part[][]): number {
  let cut = text.length;
  const spans: Array<[number, number]> = [];
  for (const secret of secrets) {
    const states = new Map<number, Map<number, number>>();
    const reach = (at: number, part: number, start: number) => {
      if (part >= secret.length) {
        spans.push([start, at]);
        return;
      }
      const here = states.get(at) ?? new Map<number, number>();
      states.set(at, here);
      const known = here.get(part);
      if (known === undefined || start < known) here.set(part, start);
    };
    const { firsts } = secret[0] as Part;
    for (let at = 0; at <= text.length; at++) {
      // Most places start no form and continue none: nothing is made for them.
      let here = states.get(at);
      if (here !== undefined) states.delete(at);
      if (at < text.length && here?.has(0) !== true && firsts.includes(text[at] as string)) {
        here ??= new Map<number, number>();
        here.set(0, at);
      }
      if (here === undefined) continue;
      for (const [index, start] of here) {
        if (start >= cut) continue;
        if (at === text.length) {
          // The text ends between two parts of the secret.
          if (index > 0) cut = start;
          continue;
        }
        const part = secret[index] as Part;
        for (const { whole, start: begins, advance } of part.forms) {
          whole.lastIndex = at;
          if (whole.test(text)) reach(whole.lastIndex, index + advance, start);
          if (begins === undefined) continue;
          begins.lastIndex = at;
          if (begins.test(text)) cut = Math.min(cut, start);
        }
        if (part.run !== undefined) {
          for (let n = 1; n <= part.run * 16 && text[at + n - 1] === '\\'; n++) {
            if (n >= part.run) reach(at + n, index + 1, start);
            if (at + n === text.length && n < part.run) cut = Math.min(cut, start);
          }
        }
      }
    }
  }
  for (let moved = true; moved; ) {
    moved = false;
    for (const [start, end] of spans) {
      if (start < cut && cut < end) {
        cut = start;
        moved = true;
      }
    }
  }
  return cut;
}

/** Most streams held at once (runs of other clients' included): past this, the oldest is let go. */
const MAX_STREAMS = 256;

/**
 * Most characters one stream holds back: more than the longest form of a secret of 4,096 characters escaped four
 * times over. A text held longer (a stream of `\u{000…`, whose zeros have no bound) goes out, redacted.
 */
export const MAX_HELD_CHARS = 100_000;

/** Text {@link TextDeltas} lets go of: a stream's held text, redacted. */
export interface Released {
  runId: string;
  turn: number;
  delta: string;
}

/** The held text of each run's current turn. Owned by `Runs`. */
export class TextDeltas {
  readonly #redactor: StreamRedactor;
  /** By run id: the turn and the text held. */
  readonly #held = new Map<string, { turn: number; text: string }>();
  #secrets: readonly string[] | undefined;
  #parts: Part[][] = [];

  constructor(redactor: StreamRedactor) {
    this.#redactor = redactor;
  }

  /**
   * The part of a delta to hand out now, redacted (`''` when all of it is held), and the held text let go first:
   * the run's previous turn's, when this delta is of another turn, and the oldest stream's past
   * {@link MAX_STREAMS}.
   */
  delta(runId: string, turn: number, delta: string): { released: Released[]; now: string } {
    const secrets = this.#redactor.secrets;
    if (secrets !== this.#secrets) {
      this.#secrets = secrets;
      this.#parts = secrets.map(parts);
    }
    const released: Released[] = [];
    const held = this.#held.get(runId);
    let text = delta;
    if (held !== undefined && held.turn !== turn) released.push(this.end(runId) as Released);
    else if (held !== undefined) text = held.text + delta;
    let cut = this.#parts.length === 0 ? text.length : heldFrom(text, this.#parts);
    if (text.length - cut > MAX_HELD_CHARS) cut = text.length;
    this.#held.delete(runId);
    if (cut < text.length) {
      this.#held.set(runId, { turn, text: text.slice(cut) });
      if (this.#held.size > MAX_STREAMS)
        released.push(this.end(this.#held.keys().next().value as string) as Released);
    }
    return { released, now: cut === 0 ? '' : this.#redactor.text(text.slice(0, cut)) };
  }

  /** The run's held text, redacted, let go (its turn or the run ended); `undefined` when none is held. */
  end(runId: string): Released | undefined {
    const held = this.#held.get(runId);
    if (held === undefined) return undefined;
    this.#held.delete(runId);
    return { runId, turn: held.turn, delta: this.#redactor.text(held.text) };
  }

  /** The runs that hold text. */
  holding(): string[] {
    return [...this.#held.keys()];
  }
}
