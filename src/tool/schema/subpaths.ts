/**
 * Where the browser build of `toolwire` finds the zod 3 and valibot adapters it leaves out of its first download
 * (with their converters, `zod-to-json-schema` and `@valibot/to-json-schema`): `toolwire/zod3` and
 * `toolwire/valibot` (src/tool/schema/zod3-subpath.ts, valibot-subpath.ts) put them here when imported, and the
 * stand-ins browser-build.ts swaps in for src/tool/schema/zod3.ts and valibot.ts read them from here. A global
 * keyed by `Symbol.for`, so that it is one registry however the application's bundler splits or duplicates
 * modules.
 *
 * @module
 */
import type * as Valibot from './valibot';
import type * as Zod3 from './zod3';

/** The adapters registered so far. */
export interface SubpathAdapters {
  /** src/tool/schema/zod3.ts, from `toolwire/zod3`. */
  zod3?: Pick<typeof Zod3, 'zod3Adapter' | 'zod3InputJsonSchema'>;
  /** src/tool/schema/valibot.ts, from `toolwire/valibot`. */
  valibot?: Pick<typeof Valibot, 'valibotAdapter' | 'valibotInputJsonSchema'>;
}

const KEY = Symbol.for('toolwire.schema-adapters');

/** The registry, created on first use. */
export function subpathAdapters(): SubpathAdapters {
  const holder = globalThis as { [KEY]?: SubpathAdapters };
  holder[KEY] ??= {};
  return holder[KEY];
}

/**
 * The adapter of `library`, registered by `subpath`.
 * @throws Error with the one line that fixes it when `subpath` was not imported (src/tool/schema/index.ts
 *   reports it as the tool's `unsupported_schema` error at definition time).
 */
export function registered<K extends keyof SubpathAdapters>(
  library: K,
  subpath: string,
): NonNullable<SubpathAdapters[K]> {
  const found = subpathAdapters()[library];
  if (found !== undefined) return found;
  throw new Error(
    `${library === 'zod3' ? 'zod 3' : library} schemas are converted by the browser build of toolwire only ` +
      `after \`import '${subpath}'\` (once, before the tools are defined)`,
  );
}
