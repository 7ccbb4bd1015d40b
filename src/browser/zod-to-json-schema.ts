/**
 * Stands in for the `zod-to-json-schema` package in the browser build of `toolwire` (swapped in by
 * browser-build.ts): the same three functions, handed on to the real package once `toolwire/zod3` has
 * registered it, else failing with the line to add (which src/tool/schema/index.ts reports as the tool's
 * `unsupported_schema` error at definition time).
 *
 * @module
 */
import type * as Real from 'zod-to-json-schema';
import { converters, missingConverter } from './registry';

type Options = Parameters<typeof Real.zodToJsonSchema>[1];

function real(): NonNullable<ReturnType<typeof converters>['zod3']> {
  const found = converters().zod3;
  if (found === undefined) throw missingConverter('zod 3', 'toolwire/zod3');
  return found;
}

/** This stand-in's "let the converter decide", turned into the real package's own symbol. */
export const ignoreOverride: unique symbol = Symbol('ignoreOverride');

/** `zod-to-json-schema`'s `zodToJsonSchema`. @throws Error when `toolwire/zod3` was not imported. */
export function zodToJsonSchema(schema: Parameters<typeof Real.zodToJsonSchema>[0], options?: Options) {
  const found = real();
  const override = typeof options === 'object' ? options.override : undefined;
  if (override === undefined || typeof options !== 'object') return found.zodToJsonSchema(schema, options);
  return found.zodToJsonSchema(schema, {
    ...options,
    override: (...args) => {
      const result = override(...args) as unknown;
      return result === ignoreOverride ? found.ignoreOverride : (result as ReturnType<typeof override>);
    },
  });
}

/** `zod-to-json-schema`'s `parseStringDef`. @throws Error when `toolwire/zod3` was not imported. */
export function parseStringDef(...args: Parameters<typeof Real.parseStringDef>) {
  return real().parseStringDef(...args);
}
