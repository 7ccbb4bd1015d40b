/**
 * Logging and redaction. toolwire logs nothing unless given a logger; everything it logs or sends passes
 * through a {@link Redactor} first, so the API key and user-named secrets never leave the process.
 *
 * @module
 */
import { setKey } from './json';

/** A pino-compatible logger: each method takes a structured object and a message. */
export interface Logger {
  debug(object: Record<string, unknown>, message: string): void;
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
  error(object: Record<string, unknown>, message: string): void;
}

/** The default logger: discards everything. */
export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/** What to scrub: exact strings (e.g. secrets) and patterns. */
export type RedactRule = string | RegExp;

/** Replacement for every redacted span. */
export const REDACTED = '[redacted]';

/**
 * Replaces every occurrence of a rule in text. Strings shorter than 4 characters are ignored as rules (they would
 * scrub ordinary words); RegExps are applied globally.
 */
export class Redactor {
  readonly #rules: RegExp[];

  constructor(rules: readonly RedactRule[]) {
    this.#rules = rules.flatMap((rule) => {
      if (typeof rule === 'string') {
        return rule.length >= 4 ? [new RegExp(rule.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'g')] : [];
      }
      return [new RegExp(rule.source, rule.flags.includes('g') ? rule.flags : `${rule.flags}g`)];
    });
  }

  /** `true` when there is nothing to redact. */
  get empty(): boolean {
    return this.#rules.length === 0;
  }

  /** The text with every match replaced by {@link REDACTED}. */
  text(value: string): string {
    let out = value;
    for (const rule of this.#rules) {
      rule.lastIndex = 0;
      out = out.replace(rule, REDACTED);
    }
    return out;
  }

  /** A deep copy of a JSON-like value with every string redacted. */
  value<T>(value: T): T {
    if (this.empty) return value;
    return this.#walk(value, 0) as T;
  }

  #walk(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    if (depth > 64 || value === null || typeof value !== 'object') return value;
    if (Array.isArray(value)) return value.map((item) => this.#walk(item, depth + 1));
    if (value instanceof Error) return { name: value.name, message: this.text(value.message) };
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) setKey(out, key, this.#walk(item, depth + 1));
    return out;
  }
}

/** Wraps a logger so that every message and field goes through the redactor. */
export function redactingLogger(logger: Logger, redactor: Redactor): Logger {
  const wrap =
    (level: keyof Logger) =>
    (object: Record<string, unknown>, message: string): void => {
      try {
        logger[level](redactor.value(object), redactor.text(message));
      } catch {
        // A broken logger must not break tool execution.
      }
    };
  return { debug: wrap('debug'), info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
}

/**
 * A URL as messages may show it: the scheme, host and path, with the userinfo, query and fragment (where tokens
 * travel) replaced by {@link REDACTED}. Works on text that is not a valid URL too.
 *
 * @example
 * ```ts
 * displayUrl('wss://svc.example/ws?token=abc'); // 'wss://svc.example/ws?[redacted]'
 * ```
 */
export function displayUrl(url: string): string {
  const [, scheme = '', userinfo, rest = '', query, fragment] =
    /^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)?([^/?#]*@)?([^?#]*)(\?[^#]*)?(#.*)?$/s.exec(url) ?? [];
  return (
    scheme +
    (userinfo === undefined ? '' : `${REDACTED}@`) +
    rest +
    (query === undefined ? '' : `?${REDACTED}`) +
    (fragment === undefined ? '' : `#${REDACTED}`)
  );
}

/**
 * Scrubs secrets from the text of a message: every string given (however short: only a value is scrubbed, never
 * a sentence) and every match of a RegExp given (one that matches the empty string is skipped); anything else is
 * ignored. Overlapping matches are replaced as one span, so no rule can leave part of another's match behind.
 */
export function secretScrubber(secrets: readonly unknown[]): (text: string) => string {
  const literals = secrets.filter((secret): secret is string => typeof secret === 'string' && secret !== '');
  const patterns = secrets.flatMap((secret) => {
    if (!(secret instanceof RegExp)) return [];
    const flags = secret.flags.replace(/[gy]/g, '');
    return new RegExp(secret.source, flags).test('') ? [] : [new RegExp(secret.source, `${flags}g`)];
  });
  return (text) => {
    const spans: Array<[number, number]> = [];
    for (const literal of literals) {
      for (let at = text.indexOf(literal); at !== -1; at = text.indexOf(literal, at + 1)) {
        spans.push([at, at + literal.length]);
      }
    }
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) {
        if (match[0] !== '') spans.push([match.index, match.index + match[0].length]);
      }
    }
    if (spans.length === 0) return text;
    spans.sort((a, b) => a[0] - b[0]);
    let out = '';
    let copied = 0;
    let end = -1;
    for (const [start, stop] of spans) {
      if (start > end) {
        out += text.slice(copied, start) + REDACTED;
        end = stop;
      } else end = Math.max(end, stop);
      copied = end;
    }
    return out + text.slice(copied);
  };
}

/**
 * `error` with `scrub` applied to its message and stack, as a plain `Error` of the same `name` (its own `cause`
 * dropped): for keeping a failure as a `cause` when its text quotes a secret. Anything else is returned as it is.
 */
export function scrubError(error: unknown, scrub: (text: string) => string): unknown {
  if (!(error instanceof Error)) return error;
  const copy = new Error(scrub(error.message));
  copy.name = error.name;
  copy.stack = error.stack === undefined ? undefined : scrub(error.stack);
  return copy;
}
