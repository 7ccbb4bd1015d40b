/** The zod 3 corpus: every exported constructor, judged at every position (test/fixtures/schema/corpus/check.ts). */
import { describe, expect, it } from 'vitest';
import * as z3 from 'zod3';
import { z as z323 } from 'zod323';
import { judge, verdictTable, type Wrappers } from '../fixtures/schema/corpus/check';
import { ZOD3 } from '../fixtures/schema/corpus/zod3';

type Z = typeof z3.z;
const wrap: Wrappers<Z> = {
  object: (z, shape) => z.object(shape as never),
  array: (z, item) => z.array(item as never),
  optional: (z, item) => ({ v: z.optional(item as never) }),
};

/** Exports that make no schema: parsing helpers, error maps, status objects. */
const NOT_CONSTRUCTORS = new Set([
  'addIssueToContext',
  'datetimeRegex',
  'defaultErrorMap',
  'getErrorMap',
  'getParsedType',
  'isAborted',
  'isAsync',
  'isDirty',
  'isValid',
  'makeIssue',
  'quotelessJson',
  'setErrorMap',
  'DIRTY',
  'OK',
  'INVALID',
  'EMPTY_PATH',
  'NEVER',
]);

describe('the zod 3 corpus', () => {
  it('covers every exported constructor', () => {
    const exports = Object.keys(z3).filter(
      (name) => typeof (z3 as Record<string, unknown>)[name] === 'function' && /^[a-z]/.test(name),
    );
    const covered = new Set(ZOD3.flatMap((c) => c.covers));
    expect(exports.filter((name) => !covered.has(name) && !NOT_CONSTRUCTORS.has(name))).toEqual([]);
  });

  it('converts each construct faithfully or refuses it naming it', async () => {
    const judgements = judge(ZOD3, z3.z, wrap);
    expect(judgements.flatMap((j) => j.failures)).toEqual([]);
    await expect(verdictTable("zod 3: each construct's verdict", judgements)).toMatchFileSnapshot(
      '../fixtures/schema/verdicts/zod3.md',
    );
  });
});

describe('the zod 3.23 corpus (no Standard Schema)', () => {
  it('converts each construct it has faithfully or refuses it naming it', async () => {
    const lib = z323 as unknown as Z;
    const present = ZOD3.filter((c) => {
      try {
        c.make(lib);
        return true;
      } catch {
        return false; // a method added after 3.23
      }
    });
    const judgements = judge(present, lib, wrap);
    expect(judgements.flatMap((j) => j.failures)).toEqual([]);
    await expect(verdictTable("zod 3.23: each construct's verdict", judgements)).toMatchFileSnapshot(
      '../fixtures/schema/verdicts/zod3-legacy.md',
    );
  });
});
