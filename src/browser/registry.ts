/**
 * Where the browser build of `toolwire` finds the zod 3 and valibot converters it leaves out: `toolwire/zod3`
 * and `toolwire/valibot` put them here when imported, and the stand-ins browser-build.ts swaps in for the two
 * converter packages read them from here. A global keyed by `Symbol.for`, so that it is one registry however
 * the application's bundler splits or duplicates modules.
 *
 * @module
 */

import type * as ValibotToJsonSchema from '@valibot/to-json-schema';
import type * as ZodToJsonSchema from 'zod-to-json-schema';

/** The converters registered so far. */
export interface Converters {
  /** `zod-to-json-schema`'s three functions toolwire uses, from `toolwire/zod3`. */
  zod3?: Pick<typeof ZodToJsonSchema, 'zodToJsonSchema' | 'parseStringDef' | 'ignoreOverride'>;
  /** `@valibot/to-json-schema`'s `toJsonSchema`, from `toolwire/valibot`. */
  valibot?: Pick<typeof ValibotToJsonSchema, 'toJsonSchema'>;
}

const KEY = Symbol.for('toolwire.schema-converters');

/** The registry, created on first use. */
export function converters(): Converters {
  const holder = globalThis as { [KEY]?: Converters };
  holder[KEY] ??= {};
  return holder[KEY];
}

/** Why a schema of `library` cannot be converted by the browser build, and the one line that fixes it. */
export function missingConverter(library: 'zod 3' | 'valibot', subpath: string): Error {
  return new Error(
    `${library} schemas are converted by the browser build of toolwire only after \`import '${subpath}'\` ` +
      '(once, before the tools are defined)',
  );
}
