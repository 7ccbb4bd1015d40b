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
