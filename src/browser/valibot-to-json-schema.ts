/**
 * Stands in for the `@valibot/to-json-schema` package in the browser build of `toolwire` (swapped in by
 * browser-build.ts): `toJsonSchema`, handed on to the real package once `toolwire/valibot` has registered it,
 * else failing with the line to add (reported as the tool's `unsupported_schema` error at definition time).
 *
 * @module
 */
import type * as Real from '@valibot/to-json-schema';
import { converters, missingConverter } from './registry';

/** `@valibot/to-json-schema`'s `toJsonSchema`. @throws Error when `toolwire/valibot` was not imported. */
export function toJsonSchema(...args: Parameters<typeof Real.toJsonSchema>) {
  const found = converters().valibot;
  if (found === undefined) throw missingConverter('valibot', 'toolwire/valibot');
  return found.toJsonSchema(...args);
}
