import { describe, expect, it } from 'vitest';
import { CallMap } from '../../src/client/call-map';
import { seededRandom as random } from '../support/tcp-proxy';

const state = <V extends NonNullable<unknown>>(map: CallMap<V> | Map<string, V>) => ({
  size: map.size,
  values: [...map.values()],
  keys: [...map.keys()],
  oldest: map instanceof CallMap ? map.oldestKey() : map.keys().next().value,
});

describe('CallMap', () => {
  it('answers as a Map does over 4,000 random sets, puts, adds, deletes, takes and reads of a few keys', () => {
    const next = random(28);
    const calls = new CallMap<number>();
    const model = new Map<string, number>();
    // Where `add` put each key: `take` is given it, or a place that may be stale or wrong.
    const places = new Map<string, number>();
    for (let step = 0; step < 4_000; step++) {
      const key = `c${Math.floor(next() * 6)}`;
      const roll = next();
      if (roll < 0.25) {
        expect(calls.set(key, step)).toBe(calls);
        model.set(key, step);
      } else if (roll < 0.45) {
        // `put` answers with the value it replaced, as `get` before `set` would.
        expect(calls.put(key, step)).toBe(model.get(key));
        model.set(key, step);
      } else if (roll < 0.5) {
        // `add` takes a key not held, as `set` would (a caller asks first).
        if (!model.has(key)) {
          places.set(key, calls.add(key, step));
          model.set(key, step);
        }
      } else if (roll < 0.7) expect(calls.delete(key)).toBe(model.delete(key));
      else if (roll < 0.8) {
        // `take` answers with the value it removed, as `get` before `delete` would.
        expect(calls.take(key)).toBe(model.get(key));
        model.delete(key);
      } else if (roll < 0.9) {
        // `take` with a place and the value held there answers as without, whatever the place it is given.
        const at = next() < 0.8 ? (places.get(key) ?? -1) : Math.floor(next() * 8) - 1;
        expect(calls.take(key, at, model.get(key))).toBe(model.get(key));
        model.delete(key);
      } else {
        expect(calls.get(key)).toBe(model.get(key));
        expect(calls.has(key)).toBe(model.has(key));
      }
      expect(state(calls)).toEqual(state(model));
    }
  });

  it('answers as a Map does with dozens of keys held, places freed and taken again, and walks between', () => {
    const next = random(50);
    const calls = new CallMap<number>();
    const model = new Map<string, number>();
    const places = new Map<string, number>();
    for (let step = 0; step < 20_000; step++) {
      const key = `c${Math.floor(next() * 48)}`;
      const roll = next();
      if (roll < 0.25 && !model.has(key)) {
        places.set(key, calls.add(key, step));
        model.set(key, step);
      } else if (roll < 0.5) {
        calls.set(key, step);
        model.set(key, step);
      } else if (roll < 0.74) {
        expect(calls.take(key, places.get(key) ?? -1, model.get(key))).toBe(model.get(key));
        model.delete(key);
      } else if (roll < 0.98) expect(calls.delete(key)).toBe(model.delete(key));
      else {
        // A walk that deletes what it visits and sets a new key now and then, on both.
        const walked = (target: CallMap<number> | Map<string, number>) => {
          const seen: number[] = [];
          for (const value of target.values()) {
            seen.push(value);
            if (value % 3 === 0) target.delete(`c${value % 48}`);
            // Values no other key holds (`take` trusts a place that holds the value it is given).
            if (value % 7 === 0) target.set(`c${(value + 1) % 48}`, -(value + 0.25));
            // A new key added during the walk comes last, as one set does.
            const added = `c${(value + 5) % 48}`;
            if (value % 11 === 0 && !target.has(added))
              if (target instanceof CallMap) target.add(added, value + 0.5);
              else target.set(added, value + 0.5);
          }
          return seen;
        };
        expect(walked(calls)).toEqual(walked(model));
      }
      expect(calls.get(key)).toBe(model.get(key));
      expect(state(calls)).toEqual(state(model));
    }
  });

  it('keeps the order the keys came in when the first one goes while others stay', () => {
    const calls = new CallMap<string>();
    calls.set('a', 'A').set('b', 'B');
    calls.delete('a');
    calls.set('c', 'C').set('b', 'B2');
    expect([...calls.values()]).toEqual(['B2', 'C']);
    calls.delete('b');
    calls.delete('c');
    expect(calls.size).toBe(0);
    expect(calls.get('b')).toBeUndefined();
    calls.set('d', 'D');
    expect([...calls.values()]).toEqual(['D']);
  });

  it('walks live, as a Map does: an entry deleted before it is reached is skipped, one set meanwhile is visited', () => {
    const calls = new CallMap<string>();
    const model = new Map<string, string>();
    for (const target of [calls, model]) target.set('a', 'A').set('b', 'B').set('c', 'C');
    const walk = (target: CallMap<string> | Map<string, string>) => {
      const seen: string[] = [];
      for (const value of target.values()) {
        seen.push(value);
        if (value === 'A') {
          target.delete('a');
          target.delete('b');
          target.set('d', 'D');
        }
        if (value === 'C') {
          target.delete('c');
          target.delete('d');
          // Every entry is gone: a key set now is still visited, after the rest.
          target.set('e', 'E');
        }
      }
      return seen;
    };
    expect(walk(model)).toEqual(['A', 'C', 'E']);
    expect(walk(calls)).toEqual(['A', 'C', 'E']);
    expect(state(calls)).toEqual(state(model));
  });

  it('takes a lone entry in its first place again once a walk left early is closed', () => {
    const calls = new CallMap<number>();
    calls.set('a', 1).set('b', 2);
    for (const value of calls.values()) if (value === 1) break;
    calls.delete('a');
    calls.delete('b');
    calls.set('c', 3);
    calls.set('d', 4);
    calls.delete('c');
    expect([...calls.values()]).toEqual([4]);
    expect(calls.size).toBe(1);
  });
});
