import { describe, expect, it } from 'vitest';
import { lazyFrozenCopy } from '../../src/call/approval';
import { frozenCopy } from '../../src/json';

describe('frozenCopy', () => {
  it('copies and freezes plain objects and arrays at every depth, leaving the original writable', () => {
    const original = { a: { b: [1, { c: 'x' }] }, n: null };
    const copy = frozenCopy(original);
    expect(copy).toEqual(original);
    expect(copy).not.toBe(original);
    expect(Object.isFrozen(copy.a.b[1])).toBe(true);
    expect(() => {
      (copy.a.b as unknown[]).push(2);
    }).toThrow(TypeError);
    original.a.b.push(3);
    expect(copy.a.b).toHaveLength(2);
  });

  it('shares objects a schema transform made (their prototype kept, not frozen)', () => {
    class Money {
      constructor(readonly cents: number) {}
    }
    const when = new Date(0);
    const copy = frozenCopy({ when, price: new Money(5) });
    expect(copy.when).toBe(when);
    expect(copy.price).toBeInstanceOf(Money);
    expect(Object.isFrozen(when)).toBe(false);
  });

  it('keeps a "__proto__" key as data and a null-prototype object as one', () => {
    const parsed = JSON.parse('{"__proto__":{"admin":true}}') as Record<string, unknown>;
    const copy = frozenCopy(parsed);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
    const bare = frozenCopy(Object.assign(Object.create(null) as object, { a: 1 }));
    expect(Object.getPrototypeOf(bare)).toBe(null);
  });

  it('copies a cycle a transform made only so deep, sharing the rest, instead of overflowing the stack', () => {
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const copy = frozenCopy(cyclic);
    expect(Object.isFrozen(copy)).toBe(true);
    let level = copy;
    for (let depth = 1; depth < 256; depth += 1) level = level.self as Record<string, unknown>;
    expect(level).not.toBe(cyclic);
    expect(level.self).toBe(cyclic);
  });

  it('is made once, at the first look, by lazyFrozenCopy', () => {
    const view = lazyFrozenCopy({ a: 1 });
    expect(view()).toBe(view());
  });
});
