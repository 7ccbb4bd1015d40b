/**
 * The arktype corpus: every keyword of its default scope and the syntax that builds types, judged at every
 * position (see test/fixtures/schema/corpus/check.ts).
 */
import { type } from 'arktype';
import { describe, expect, it } from 'vitest';
import { ARKTYPE_SYNTAX, keywordConstructs } from '../fixtures/schema/corpus/arktype';
import { judge, verdictTable, type Wrappers } from '../fixtures/schema/corpus/check';

type T = typeof type;
const wrap: Wrappers<T> = {
  object: (t, shape) => t(shape as never),
  array: (_, item) => (item as { array(): unknown }).array(),
  optional: (_, item) => ({ 'v?': item }),
};

describe('the arktype corpus', () => {
  it('converts each keyword and construct faithfully or refuses it naming it', async () => {
    const judgements = judge([...keywordConstructs(), ...ARKTYPE_SYNTAX], type, wrap);
    expect(judgements.flatMap((j) => j.failures)).toEqual([]);
    await expect(verdictTable("arktype: each construct's verdict", judgements)).toMatchFileSnapshot(
      '../fixtures/schema/verdicts/arktype.md',
    );
  });
});
