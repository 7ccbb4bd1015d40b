/**
 * `content([...])`: a result made of content parts (text, images, files, JSON) for the model, beside the text
 * every service reads (docs/protocol/call-context.md). Only a value made by this helper is content: an ordinary result
 * with a
 * `content` key is an ordinary result.
 *
 * @module
 */
import { ToolDefinitionError } from '../errors';
import { nestsDeeperThan } from '../json';
import { MAX_VALUE_DEPTH } from '../limits';
import { CONTENT_LIMITS, type ContentPart } from '../wire/protocol';
import { base64Bytes, fromBase64, serializeOutput, toBase64, wellFormedJson } from './output';
import type { Widget } from './widget';

export type { ContentPart } from '../wire/protocol';

/** Binary data: bytes, or a base64 string. */
export type BinaryData = Uint8Array | ArrayBuffer | string;

/** The media types of an image part: those every service takes as an image. */
export type ImageType = (typeof CONTENT_LIMITS.imageTypes)[number];

/** What {@link content} takes: a part as written by the tool. */
export type ContentInput =
  | { type: 'text'; text: string }
  | { type: 'image'; data: BinaryData; mediaType: ImageType }
  | { type: 'file'; data: BinaryData; mediaType: string; filename?: string }
  | { type: 'json'; value: unknown };

// `Symbol.for`, so that content made by one copy of toolwire (ESM and CJS both loaded) is content in the other.
const CONTENT = Symbol.for('toolwire.content.v1');

/** A result made by {@link content}: its parts (binary data as base64), and the widget for the UI, if any. */
export interface ToolContent {
  readonly parts: readonly ContentPart[];
  readonly widget?: Widget | undefined;
  readonly [CONTENT]: true;
}

/** `true` for a value made by {@link content}. Never throws (a Proxy whose `get` trap throws is not one). */
export function isToolContent(value: unknown): value is ToolContent {
  if (typeof value !== 'object' || value === null) return false;
  try {
    return (value as { [CONTENT]?: unknown })[CONTENT] === true;
  } catch {
    return false;
  }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** `type/subtype` (RFC 6838 names), with optional `; name=value` parameters. */
const MEDIA_TYPE =
  /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"\\\r\n]*"))*$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Whether {@link content} takes `value` as an image part's `mediaType` (`CONTENT_LIMITS.imageTypes`; exact case). */
export const isImageType = (value: unknown): value is ImageType =>
  (CONTENT_LIMITS.imageTypes as readonly unknown[]).includes(value);

/** Whether {@link content} takes `data` as a base64 string: padded to a multiple of 4, no other characters. */
export const isBase64 = (data: string): boolean => data.length % 4 === 0 && BASE64.test(data);

/** Whether {@link content} takes `value` as a file part's `mediaType`: `type/subtype[; name=value]`, ≤ 255 characters. */
export const isMediaType = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= 255 && MEDIA_TYPE.test(value);

/** Whether {@link content} takes `value` as a file part's `filename`: ≤ 255 characters, no control characters. */
export const isFilename = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= 255 && !CONTROL.test(value);

function fail(index: number, message: string): never {
  throw new ToolDefinitionError('invalid_content', `content(): part ${index}: ${message}`);
}

function base64Of(data: unknown, index: number): string {
  if (typeof data === 'string') {
    if (!isBase64(data)) fail(index, 'data must be bytes or a base64 string');
    return data;
  }
  if (data instanceof Uint8Array) return toBase64(data);
  if (data instanceof ArrayBuffer) return toBase64(new Uint8Array(data));
  return fail(index, 'data must be bytes (Uint8Array, ArrayBuffer) or a base64 string');
}

function part(input: ContentInput, index: number): ContentPart {
  if (typeof input !== 'object' || input === null) return fail(index, 'must be an object with a type');
  switch (input.type) {
    case 'text':
      if (typeof input.text !== 'string') fail(index, 'text must be a string');
      return { type: 'text', text: input.text };
    case 'image': {
      const mediaType = input.mediaType;
      if (!isImageType(mediaType)) {
        fail(
          index,
          `mediaType must be one of ${CONTENT_LIMITS.imageTypes.join(', ')}, got ${String(mediaType)}`,
        );
      }
      return { type: 'image', data: base64Of(input.data, index), mediaType };
    }
    case 'file': {
      // Both are written into the text the model reads (`[file <name>: <type>, …]`): no line breaks, no brackets.
      if (!isMediaType(input.mediaType)) {
        fail(
          index,
          `mediaType must be a media type such as text/csv, got ${JSON.stringify(String(input.mediaType).slice(0, 80))}`,
        );
      }
      const made: ContentPart = {
        type: 'file',
        data: base64Of(input.data, index),
        mediaType: input.mediaType,
      };
      if (input.filename !== undefined) {
        if (!isFilename(input.filename))
          fail(index, 'filename must be a string of at most 255 characters without control characters');
        made.filename = input.filename;
      }
      return made;
    }
    case 'json': {
      const value = JSON.parse(serializeOutput(input.value)) as unknown;
      if (nestsDeeperThan(value, MAX_VALUE_DEPTH)) {
        fail(index, `the JSON value nests deeper than ${MAX_VALUE_DEPTH} levels`);
      }
      return { type: 'json', value };
    }
    default:
      return fail(index, `unknown type ${JSON.stringify((input as { type?: unknown }).type)}`);
  }
}

/**
 * A result made of content parts. The model reads the parts where the service can pass them (images as image
 * input); everywhere, it reads `output`: the text parts, the JSON parts, and a note for each image or file.
 *
 * @param parts - 1 to 64 parts: `{ type: 'text', text }`, `{ type: 'image', data, mediaType }` (PNG, JPEG, GIF or
 *   WebP), `{ type: 'file', data, mediaType, filename? }`, `{ type: 'json', value }` (at most 64 levels deep);
 *   `data` as bytes or base64.
 * @param options - `widget`: a widget for the UI, as with `{ ...data, widget }`.
 * @throws ToolDefinitionError `invalid_content` naming the part and what is wrong.
 * @example
 * ```ts
 * return content([{ type: 'text', text: 'The Q3 chart.' }, { type: 'image', data: png, mediaType: 'image/png' }]);
 * ```
 */
export function content(parts: readonly ContentInput[], options: { widget?: unknown } = {}): ToolContent {
  if (!Array.isArray(parts) || parts.length === 0 || parts.length > CONTENT_LIMITS.maxParts) {
    throw new ToolDefinitionError(
      'invalid_content',
      `content(): parts must be an array of 1 to ${CONTENT_LIMITS.maxParts} parts`,
    );
  }
  // Every index, holes included (`map` skips them, and a hole would be written as `null`).
  const made = { parts: Object.freeze(Array.from(parts, part)), [CONTENT]: true as const };
  if (options.widget !== undefined) Object.assign(made, { widget: options.widget });
  return Object.freeze(made) as ToolContent;
}

/** The text of the parts for a model that reads only text: text, JSON, and a note per image or file. */
export function contentText(parts: readonly ContentPart[]): string {
  return parts.map(partText).join('\n');
}

/** One part as text: itself, its JSON, or a note for an image or a file. */
export function partText(item: ContentPart): string {
  const bytes = (data: string) => `${base64Bytes(data).toLocaleString('en-US')} bytes`;
  if (item.type === 'text') return item.text;
  if (item.type === 'json') return wellFormedJson(JSON.stringify(item.value));
  if (item.type === 'image') return `[image: ${item.mediaType}, ${bytes(item.data)}]`;
  return `[file${item.filename === undefined ? '' : ` ${item.filename}`}: ${item.mediaType}, ${bytes(item.data)}]`;
}

/**
 * A content part with its text redacted by `redactor`: a text part's text, a JSON part's value, a file part's
 * `filename` and `mediaType` (each kept within 255 characters). Binary `data` (an image's, a file's) is checked by
 * its bytes, as binary data in a result is (`Redactor.value`, src/redact.ts): a part whose bytes hold a secret becomes a
 * text part of the replacement (`[redacted]`), as such data in a result reads as the replacement.
 */
export function redactedPart(
  part: ContentPart,
  redactor: { text(text: string): string; value<T>(value: T): T },
): ContentPart {
  if (part.type === 'image' || part.type === 'file') {
    const checked: unknown = redactor.value(fromBase64(part.data));
    if (typeof checked === 'string') return { type: 'text', text: checked };
  }
  switch (part.type) {
    case 'text':
      return { type: 'text', text: redactor.text(part.text) };
    case 'json':
      return { type: 'json', value: redactor.value(part.value) };
    case 'file': {
      const out: ContentPart = { ...part, mediaType: redactor.text(part.mediaType).slice(0, 255) };
      if (part.filename !== undefined) out.filename = redactor.text(part.filename).slice(0, 255);
      return out;
    }
    default:
      return part;
  }
}
