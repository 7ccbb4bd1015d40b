/**
 * The service's words in an error the client throws or emits: an `error` frame's `code` and `message`, a failed
 * run's `run_result.error`. They are the peer's, so they are bounded (docs/protocol/limits.md): a code to
 * {@link MAX_SERVICE_CODE_CHARS} (the schema's bound on `run_result.code`), a message to
 * {@link MAX_SERVICE_MESSAGE_CHARS}, each redacted first (a cut could leave part of a secret the redactor no
 * longer knows).
 *
 * @module
 */
import { cutChars } from '../utf8';

/** The longest error code taken from the service, in UTF-16 units; a longer one is cut, ending in `…`. */
export const MAX_SERVICE_CODE_CHARS = 64;

/**
 * The longest error message taken from the service, in UTF-16 units; a longer one is cut and ends in
 * `… (<n> characters)`, `n` being the length of the whole message.
 */
export const MAX_SERVICE_MESSAGE_CHARS = 4_096;

/** What redacts the service's words (the client's redactor). */
export interface WordRedactor {
  text(value: string): string;
}

/** The service's error `code`, redacted, then cut to {@link MAX_SERVICE_CODE_CHARS}. */
export function serviceCode(code: string, redactor: WordRedactor | undefined): string {
  return cutChars(redactor === undefined ? code : redactor.text(code), MAX_SERVICE_CODE_CHARS);
}

/** The service's error message, redacted, then cut to {@link MAX_SERVICE_MESSAGE_CHARS} with a marker. */
export function serviceMessage(message: string, redactor: WordRedactor | undefined): string {
  const text = redactor === undefined ? message : redactor.text(message);
  return cutChars(text, MAX_SERVICE_MESSAGE_CHARS, `… (${text.length} characters)`);
}
