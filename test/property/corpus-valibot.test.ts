/**
 * The valibot corpus: every exported schema, method and pipe action, judged at every position (see
 * test/fixtures/schema/corpus/check.ts). An `…Async` export is judged through its synchronous twin: the same
 * conversion, and validation awaited (test/tool/schema/standard.test.ts covers asynchronous validation).
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { judge, verdictTable, type Wrappers } from '../fixtures/schema/corpus/check';
import { VALIBOT_ACTIONS } from '../fixtures/schema/corpus/valibot-actions';
import { VALIBOT_SCHEMAS } from '../fixtures/schema/corpus/valibot-schemas';

type L = typeof v;
const wrap: Wrappers<L> = {
  object: (lib, shape) => lib.object(shape as never),
  array: (lib, item) => lib.array(item as never),
  optional: (lib, item) => ({ v: lib.optional(item as never) }),
};

/** Exports that make no schema: parsing, reading a schema, errors, global configuration. */
const NOT_CONSTRUCTORS = new Set([
  'assert',
  'is',
  'parse',
  'parser',
  'safeParse',
  'safeParser',
  'flatten',
  'summarize',
  'ValiError',
  'isValiError',
  'isOfKind',
  'isOfType',
  'getDefault',
  'getDefaults',
  'getFallback',
  'getFallbacks',
  'getDescription',
  'getTitle',
  'getMetadata',
  'getExamples',
  'getDotPath',
  'unwrap',
  'entriesFromList',
  'entriesFromObjects',
  'getGlobalConfig',
  'setGlobalConfig',
  'deleteGlobalConfig',
  'getGlobalMessage',
  'setGlobalMessage',
  'deleteGlobalMessage',
  'getSchemaMessage',
  'setSchemaMessage',
  'deleteSchemaMessage',
  'getSpecificMessage',
  'setSpecificMessage',
  'deleteSpecificMessage',
]);

/** Exports with no synchronous twin to judge: `awaitAsync` awaits a promise, which no JSON argument is. */
const ASYNC_ONLY = new Set(['awaitAsync']);

const constructs = [...VALIBOT_SCHEMAS, ...VALIBOT_ACTIONS];

describe('the valibot corpus', () => {
  it('covers every exported schema, method and action', () => {
    const covered = new Set(constructs.flatMap((c) => c.covers));
    const exports = Object.keys(v).filter(
      (name) => typeof (v as Record<string, unknown>)[name] === 'function' && /^[a-z]/.test(name),
    );
    const twin = (name: string) => name.replace(/Async$/, '');
    const uncovered = exports.filter(
      (name) =>
        !ASYNC_ONLY.has(name) &&
        !NOT_CONSTRUCTORS.has(twin(name)) &&
        !covered.has(name) &&
        !covered.has(twin(name)),
    );
    expect(uncovered).toEqual([]);
  });

  it('converts each construct faithfully or refuses it naming it', async () => {
    const judgements = judge(constructs, v, wrap);
    expect(judgements.flatMap((j) => j.failures)).toEqual([]);
    await expect(verdictTable("valibot: each construct's verdict", judgements)).toMatchFileSnapshot(
      '../fixtures/schema/verdicts/valibot.md',
    );
  });
});
