/**
 * `nestsDeeperThan` (src/json.ts): how deep objects and arrays nest, arrays walked by index and objects by key.
 */
import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../src/json';

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
