/**
 * The zod 4 corpus (classic and mini): every exported constructor and check, judged at every position (see
 * test/fixtures/schema/corpus/check.ts), its verdicts in test/fixtures/schema/verdicts/zod4*.md.
 */
import { describe, expect, it } from 'vitest';
import * as zc from 'zod';
import * as zm from 'zod/mini';
import { judge, verdictTable, type Wrappers } from '../fixtures/schema/corpus/check';
import { CLASSIC_ONLY, ZOD4 } from '../fixtures/schema/corpus/zod4';

type Z = typeof zm;
const wrap: Wrappers<Z> = {
  object: (z, shape) => z.object(shape as never),
  array: (z, item) => z.array(item as never),
  optional: (z, item) => ({ v: z.optional(item as never) }),
};

/** Exports that make no schema: parsing, errors, JSON Schema, configuration, registries, type helpers. */
const NOT_CONSTRUCTORS = new Set([
  'parse',
  'parseAsync',
  'safeParse',
  'safeParseAsync',
  'decode',
  'decodeAsync',
  'encode',
  'encodeAsync',
  'safeDecode',
  'safeDecodeAsync',
  'safeEncode',
  'safeEncodeAsync',
  'validate',
  'validateAsync',
  'toJSONSchema',
  'fromJSONSchema',
  'flattenError',
  'formatError',
  'prettifyError',
  'treeifyError',
  'config',
  'getErrorMap',
  'setErrorMap',
  'registry',
  'clone',
  'memoizer',
  'toZod',
  'getDiscriminatedOption',
  'properties',
  'property',
  'slugify',
  'globalRegistry',
  'locales',
  'core',
  'util',
  'regexes',
  'NEVER',
  'en',
  'z',
]);

/** The lowercase function exports of a zod module (classes and constants aside). */
function constructors(module: Record<string, unknown>): string[] {
  return Object.keys(module).filter(
    (name) =>
      typeof module[name] === 'function' && /^(?:[a-z]|_[a-z])/.test(name) && !NOT_CONSTRUCTORS.has(name),
  );
}

const covered = new Set([...ZOD4, ...CLASSIC_ONLY].flatMap((c) => c.covers));

describe.each([
  ['zod 4', zc as unknown as Z, 'zod4'],
  ['zod/mini', zm, 'zod4-mini'],
])('the %s corpus', (title, lib, file) => {
  it('covers every exported constructor and check', () => {
    expect(
      constructors(lib as unknown as Record<string, unknown>).filter((name) => !covered.has(name)),
    ).toEqual([]);
  });

  it('converts each construct faithfully or refuses it naming it', async () => {
    const list = [
      ...ZOD4.filter((c) => c.covers.every((name) => name in lib)),
      ...(file === 'zod4' ? (CLASSIC_ONLY as never[]) : []),
    ];
    const judgements = judge(list, lib, wrap);
    expect(judgements.flatMap((j) => j.failures)).toEqual([]);
    await expect(verdictTable(`${title}: each construct's verdict`, judgements)).toMatchFileSnapshot(
      `../fixtures/schema/verdicts/${file}.md`,
    );
  });
});
