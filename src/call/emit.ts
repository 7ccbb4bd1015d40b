/**
 * `ctx.emit()`: an event's name checked, its data written as JSON (by the rules of a result) and bounded.
 *
 * @module
 */
import { ToolDefinitionError } from '../errors';
import { nestsDeeperThan } from '../json';
import { MAX_VALUE_DEPTH } from '../limits';
import type { Redactor } from '../redact';
import { serializeOutput } from '../tool/output';
import { EVENT_LIMITS, utf8Length } from '../wire/protocol';

/**
 * The event as recorded: its name, and its data as a JSON value (`undefined` when none was given; over
 * {@link EVENT_LIMITS.maxDataBytes} bytes of JSON or deeper than {@link MAX_VALUE_DEPTH}, `{ truncated: true, bytes }`).
 * @param redactor - the call's redactor: a name in which it finds a secret is refused (names are sent unredacted).
 * @throws ToolDefinitionError `invalid_event` naming the bad name, or saying (without quoting it) that the name
 *   holds a secret.
 */
export function checkEvent(
  type: unknown,
  data: unknown,
  redactor?: Redactor,
): { event: string; data?: unknown } {
  // A name is sent as written (redacting it would leave characters a name may not hold): one with a secret in it is
  // refused, and not quoted.
  if (typeof type === 'string' && redactor !== undefined && redactor.text(type) !== type) {
    throw new ToolDefinitionError(
      'invalid_event',
      "ctx.emit(): the event type holds a secret (a redacted field's value or a match of the client's redact rules); put it in the data, which is redacted",
    );
  }
  if (typeof type !== 'string' || !EVENT_LIMITS.namePattern.test(type)) {
    const shown = typeof type === 'string' ? JSON.stringify(type.slice(0, 40)) : String(type);
    throw new ToolDefinitionError(
      'invalid_event',
      `ctx.emit(): the event type must be 1 to 128 letters, digits or _ . : / -, got ${shown}`,
    );
  }
  if (data === undefined) return { event: type };
  // A result's rules, except that a string is a JSON string here (a result's text is the string itself).
  return {
    event: type,
    data: boundedData(typeof data === 'string' ? JSON.stringify(data) : serializeOutput(data)),
  };
}

/**
 * The JSON text as a value, or `{ truncated: true, bytes }` when it is over the size limit or nests deeper than
 * {@link MAX_VALUE_DEPTH} levels (the service would refuse the frame).
 */
export function boundedData(json: string): unknown {
  const bytes = utf8Length(json);
  if (bytes > EVENT_LIMITS.maxDataBytes) return { truncated: true, bytes };
  const value = JSON.parse(json) as unknown;
  return nestsDeeperThan(value, MAX_VALUE_DEPTH) ? { truncated: true, bytes } : value;
}
