/**
 * Logging. toolwire logs nothing unless given a logger; everything it logs passes through a {@link Redactor}
 * first (src/redact.ts), so the API key and user-named secrets never reach a log line.
 *
 * @module
 */
import type { Redactor } from './redact';

export { REDACTED, Redactor, type RedactRule } from './redact';

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
