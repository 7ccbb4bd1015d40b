/**
 * `ctx.progress()`: the update checked and made ready to send.
 *
 * @module
 */
import { ToolDefinitionError } from '../errors';
import type { ProgressInput } from '../tool/context-methods';
import { toWellFormed } from '../tool/output';
import { MAX_PROGRESS_MESSAGE_CHARS } from '../wire/call-frames';

const isFiniteNumber = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value);

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}

function invalid(message: string): never {
  throw new ToolDefinitionError('invalid_progress', `ctx.progress(): ${message}`);
}

/**
 * The update as sent: `progress`, `total` when given, `message` when given (well-formed, at most
 * {@link MAX_PROGRESS_MESSAGE_CHARS} characters, cut at a code point).
 * @throws ToolDefinitionError `invalid_progress` naming the field and the value.
 */
export function checkProgress(update: ProgressInput): ProgressInput {
  if (typeof update !== 'object' || update === null)
    invalid(`expected { progress, total?, message? }, got ${show(update)}`);
  const { progress, total, message } = update;
  if (!isFiniteNumber(progress) || progress < 0)
    invalid(`progress must be a finite number ≥ 0, got ${show(progress)}`);
  const checked: ProgressInput = { progress };
  if (total !== undefined) {
    if (!isFiniteNumber(total) || total <= 0)
      invalid(`total must be a finite number > 0, got ${show(total)}`);
    checked.total = total;
  }
  if (message !== undefined) {
    if (typeof message !== 'string') invalid(`message must be a string, got ${show(message)}`);
    checked.message = toWellFormed(cutChars(message, MAX_PROGRESS_MESSAGE_CHARS));
  }
  return checked;
}

/** The first `max` UTF-16 units of `text`, never ending in half a surrogate pair. */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
