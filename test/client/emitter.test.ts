import { EventEmitter } from 'eventemitter3';
import { describe, expect, it } from 'vitest';
import { Emitter } from '../../src/client/emitter';

type Events = { a: [n: number]; b: [] };
type Api = Pick<
  Emitter<Events>,
  'on' | 'once' | 'off' | 'emit' | 'listenerCount' | 'listeners' | 'eventNames' | 'removeAllListeners'
>;

/** One script of calls, run on both emitters: what eventemitter3 did is what the client's emitter does. */
function script(emitter: Api): unknown[] {
  const seen: unknown[] = [];
  const context = { name: 'ctx' };
  function first(this: unknown, n: number) {
    seen.push(['first', n, this === context ? 'ctx' : this === emitter ? 'emitter' : 'other']);
  }
  function later(this: unknown, n: number) {
    seen.push(['later', n, this === emitter]);
    emitter.off('a', first); // removed while an emit is under way: it still ran in that emit
  }
  const once = (n: number) => seen.push(['once', n]);
  seen.push(emitter.emit('a', 0), emitter.listenerCount('a'));
  emitter.on('a', first, context).on('a', later).once('a', once).once('a', once);
  seen.push(emitter.listenerCount('a'), emitter.eventNames(), emitter.listeners('a').length);
  seen.push(emitter.emit('a', 1), emitter.listenerCount('a'));
  seen.push(emitter.emit('a', 2), emitter.listenerCount('a'));
  emitter.on('a', first, context).on('a', first);
  emitter.off('a', first, context);
  seen.push(emitter.listenerCount('a'));
  emitter.off('a', first, undefined, true); // only `once` listeners of `first`: none
  seen.push(emitter.listenerCount('a'));
  emitter.on('b', () => seen.push('b'));
  seen.push(emitter.emit('b'), emitter.eventNames());
  emitter.removeAllListeners('a');
  seen.push(emitter.eventNames(), emitter.emit('a', 3));
  emitter.off('b');
  seen.push(emitter.eventNames(), emitter.emit('b'));
  emitter.on('b', () => seen.push('b2')).removeAllListeners();
  seen.push(emitter.emit('b'));
  try {
    emitter.on('a', 'nope' as never);
  } catch (error) {
    seen.push(error instanceof TypeError, (error as Error).message);
  }
  return seen;
}

describe('Emitter', () => {
  it('behaves as eventemitter3 does for on, once, off, emit, the listener lists and removeAllListeners', () => {
    const ours = script(new Emitter<Events>());
    expect(ours).toEqual(script(new EventEmitter<Events>() as unknown as Api));
    expect(ours).toContainEqual(['first', 1, 'ctx']);
    expect(ours).toContainEqual(['once', 1]);
  });

  it('does not throw an error event that has no listener', () => {
    expect(new Emitter<{ error: [Error] }>().emit('error', new Error('x'))).toBe(false);
  });

  it('lets a listener’s throw reach the caller of emit, the next listeners not run', () => {
    const emitter = new Emitter<Events>();
    const ran: string[] = [];
    emitter.on('b', () => {
      throw new Error('listener');
    });
    emitter.on('b', () => ran.push('second'));
    expect(() => emitter.emit('b')).toThrow('listener');
    expect(ran).toEqual([]);
  });

  it('removes every listener of an event for off(event), off(event, null) and a falsy listener, as eventemitter3', () => {
    const run = (emitter: Api) => {
      const seen: unknown[] = [];
      for (const fn of [undefined, null, false, 0]) {
        emitter.on('a', () => seen.push('a')).once('a', () => seen.push('once'));
        emitter.off('a', fn as never);
        seen.push(emitter.listenerCount('a'), emitter.emit('a', 1), emitter.eventNames());
      }
      const kept = () => seen.push('kept');
      emitter.on('a', kept).once('a', kept);
      emitter.off('a', kept, undefined, 1 as never); // a truthy `once`: only the once listener goes
      seen.push(emitter.listenerCount('a'));
      emitter.on('b', () => seen.push('b'));
      emitter.removeAllListeners('' as never); // a falsy event: every listener, as eventemitter3
      seen.push(emitter.eventNames(), emitter.emit('b'));
      return seen;
    };
    const ours = run(new Emitter<Events>());
    expect(ours).toEqual(run(new EventEmitter<Events>() as unknown as Api));
    expect(ours.slice(0, 3)).toEqual([0, false, []]);
  });

  it('lists event names in eventemitter3’s order: integer-like names, other strings as added, then Symbols', () => {
    type Any = Record<PropertyKey, unknown[]>;
    const run = (emitter: Emitter<Any>) => {
      const symbol = Symbol.for('toolwire.test');
      for (const name of [symbol, 'b', '2', 'a', '1', Symbol.for('second'), '__proto__', 'constructor'])
        emitter.on(name, () => {});
      (emitter.on as (event: unknown, fn: () => void) => unknown)(3, () => {}); // a number is its string
      const names = emitter.eventNames().map(String);
      emitter.off('b');
      emitter.on('b', () => {}); // removed and added again: last of the strings
      return [names, emitter.eventNames().map(String), emitter.listenerCount('3' as never)];
    };
    const ours = run(new Emitter<Any>());
    expect(ours).toEqual(run(new EventEmitter() as unknown as Emitter<Any>));
    expect(ours[0]).toEqual([
      '1',
      '2',
      '3',
      'b',
      'a',
      '__proto__',
      'constructor',
      'Symbol(toolwire.test)',
      'Symbol(second)',
    ]);
  });
});
