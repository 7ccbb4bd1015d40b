/**
 * What the objects JSON has no form for read as, in a tool's result: binary data, `Blob`s, dates, boxed
 * primitives, `URLSearchParams`, `RegExp`s, and the name an object is shown by. The walk over containers is
 * src/tool/serialize.ts.
 *
 * @module
 */
import type { Redactor } from '../redact';

/** How binary data reads: a `data:` URL, which says what it is and holds every byte. */
export const BINARY_PREFIX = 'data:application/octet-stream;base64,';

/**
 * The name an object is shown by: its constructor's, else its `Symbol.toStringTag` (`Generator`), else `Object`.
 * Never throws (a revoked proxy throws on any read).
 */
export function className(value: object): string {
  try {
    const ctor = (value as { constructor?: { name?: unknown } }).constructor;
    if (typeof ctor?.name === 'string' && ctor.name !== '' && ctor.name !== 'Object') return ctor.name;
    const tag = (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag];
    return typeof tag === 'string' && tag !== '' ? tag : 'Object';
  } catch {
    return 'Object';
  }
}

const CHUNK = 0x8000;

/** Base64 of bytes, without `Buffer` (browsers have none). */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  }
  return btoa(binary);
}

/** The bytes of byte-oriented binary data (`ArrayBuffer`, `DataView`, `Uint8Array` and `Buffer`), else none. */
function bytesOf(value: object): Uint8Array | undefined {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (typeof SharedArrayBuffer === 'function' && value instanceof SharedArrayBuffer)
    return new Uint8Array(value);
  if (value instanceof DataView || value instanceof Uint8Array || value instanceof Uint8ClampedArray) {
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  }
  return undefined;
}

/** A kind with its own reading: the text or number it reads as, or `undefined` to leave it out as JSON does. */
export type Reading = { reads: string | number | boolean | null | undefined };

/**
 * How an object of a kind JSON has no form for reads, or `undefined` for any other object (the caller walks
 * it). Checked before `toJSON`, so that a `Buffer` reads as the bytes it is, not as Node's `{ type, data }`.
 *
 * - binary data (`ArrayBuffer`, `SharedArrayBuffer`, `DataView`, `Uint8Array`, `Uint8ClampedArray`, `Buffer`):
 *   `data:application/octet-stream;base64,…` of exactly its bytes (a view reads as its window); with a
 *   redactor, data whose bytes hold a secret reads as the replacement. Other typed arrays are numbers, and are
 *   walked as arrays;
 * - a `Blob` (or `File`), which cannot be read at once: `[Blob: <size> bytes, <type>]`;
 * - a `Date`: its ISO text; an invalid one `[Invalid Date]`;
 * - a boxed primitive (`new String('x')`, `Object(1n)`): the primitive (a symbol is left out);
 * - `URLSearchParams`: its query text; a `RegExp`: its source text (`/a+b/gi`).
 */
export function specialReading(value: object, redactor: Redactor | undefined): Reading | undefined {
  const bytes = bytesOf(value);
  if (bytes !== undefined) {
    if (redactor?.bytes(bytes) === true) return { reads: redactor.replacement };
    return { reads: BINARY_PREFIX + base64(bytes) };
  }
  if (typeof Blob === 'function' && value instanceof Blob) {
    return {
      reads: `[${className(value)}: ${value.size} bytes${value.type === '' ? '' : `, ${value.type}`}]`,
    };
  }
  if (value instanceof Date) {
    return { reads: Number.isNaN(value.getTime()) ? '[Invalid Date]' : value.toISOString() };
  }
  if (value instanceof String || value instanceof Number || value instanceof Boolean) {
    return { reads: value.valueOf() };
  }
  if (value instanceof BigInt) return { reads: value.valueOf().toString() };
  if (value instanceof Symbol) return { reads: undefined };
  if (typeof URLSearchParams === 'function' && value instanceof URLSearchParams)
    return { reads: value.toString() };
  if (value instanceof RegExp) return { reads: String(value) };
  return undefined;
}
