/**
 * `nestsDeeperThan` (src/json.ts): how deep objects and arrays nest, arrays walked by index and objects by key;
 * `notJson`: what is not JSON as written.
 */
import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../src/json';
import { notJson } from '../src/not-json';

/** `levels` levels alternating arrays and objects, from an array: `[{"k":[…]}]`. */
function mixed(levels: number): unknown {
  let value: unknown = levels % 2 === 1 ? [] : {};
  for (let level = levels - 1; level >= 1; level--)
    value = level % 2 === 1 ? [1, 'x', value, null] : { a: 1, k: value };
  return value;
}

describe('nestsDeeperThan', () => {
  it('counts arrays and objects alike, the value itself as level 1', () => {
    expect([1, 2, 3, 4].map((levels) => nestsDeeperThan(mixed(levels), 3))).toEqual([
      false,
      false,
      false,
      true,
    ]);
    expect(nestsDeeperThan(mixed(129), 128)).toBe(true);
    expect(nestsDeeperThan(mixed(128), 128)).toBe(false);
  });

  it('finds the deepest item of an array wherever it is, and ignores values that are not objects', () => {
    expect(nestsDeeperThan(['a', 1, null, true, [[[]]], 'b'], 3)).toBe(true);
    expect(nestsDeeperThan(['a', 1, null, true, [[]], 'b'], 3)).toBe(false);
    expect(nestsDeeperThan({ ids: ['c1', 'c2'], n: 1, s: 'x' }, 2)).toBe(false);
    expect(nestsDeeperThan({ ids: ['c1', 'c2'], n: 1, s: 'x' }, 1)).toBe(true);
    expect([null, 'x', 3, undefined].map((value) => nestsDeeperThan(value, 0))).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('notJson', () => {
  it('names what JSON.stringify would drop, empty or rewrite, and accepts a field left out as undefined', () => {
    const cyclic: unknown[] = [];
    cyclic.push({ back: cyclic });
    expect(notJson({ a: [1, 'x', null, true], b: undefined }, 64)).toBeUndefined();
    expect(notJson({ a: [1, undefined] }, 64, 'arguments')).toBe('arguments.a[1] is undefined');
    expect(notJson({ n: Number.NaN }, 64, 'arguments')).toBe('arguments.n is NaN, which JSON cannot hold');
    expect(notJson({ when: new Date(0) }, 64, 'arguments')).toBe(
      'arguments.when is a Date, not a plain object or an array',
    );
    expect(notJson({ s: Symbol('s') }, 64, 'arguments')).toBe('arguments.s is a symbol');
    expect(notJson(cyclic, 64, 'arguments')).toBe('arguments[0].back holds a cycle');
    // Past the depth looked at, the depth check speaks.
    expect(notJson({ a: { b: () => 1 } }, 1)).toBeUndefined();
  });
});
