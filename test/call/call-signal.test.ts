import { describe, expect, it } from 'vitest';
import { CallContext } from '../../src/call/context';
import { CallSignal, Cancellation } from '../../src/call/signal';
import { invokeTool, type ToolContext, tool } from '../../src/index';
import { withCountedAbortControllers } from '../support/abort-controllers';
import { CTX_KEYS } from '../support/ctx-keys';

describe('CallSignal', () => {
  it('makes no AbortController until the signal is read', () => {
    withCountedAbortControllers((made) => {
      const signal = new CallSignal(undefined, 'echo');
      signal.abort('timeout');
      signal.end();
      expect(made()).toBe(0);
      expect(signal.signal.aborted).toBe(true);
      expect(made()).toBe(1);
    });
  });

  it('shows an abort made before the first read, with its reason; the first abort wins', () => {
    const signal = new CallSignal(undefined, 'echo');
    signal.abort('first');
    signal.abort('second');
    expect(signal.signal.aborted).toBe(true);
    expect(signal.signal.reason).toBe('first');
  });

  it('fires abort on a signal already read when the caller aborts while the call runs', () => {
    const outer = new AbortController();
    const signal = new CallSignal(outer.signal, 'echo');
    const seen: unknown[] = [];
    signal.signal.addEventListener('abort', () => seen.push(signal.signal.reason));
    outer.abort('cancelled by the service');
    expect(seen).toEqual(['cancelled by the service']);
  });

  it('counts a caller abort during the call even when the signal is read only afterwards', () => {
    const outer = new AbortController();
    const signal = new CallSignal(outer.signal, 'echo');
    outer.abort('cancelled');
    signal.end();
    expect(signal.signal.reason).toBe('cancelled');
  });

  it('ignores a caller abort after the call ended, read or not', () => {
    const read = new AbortController();
    const readSignal = new CallSignal(read.signal, 'echo');
    expect(readSignal.signal.aborted).toBe(false);
    readSignal.end();
    read.abort();
    expect(readSignal.signal.aborted).toBe(false);

    const unread = new AbortController();
    const unreadSignal = new CallSignal(unread.signal, 'echo');
    unreadSignal.end();
    unread.abort();
    expect(unreadSignal.signal.aborted).toBe(false);
  });

  it('gives ctx an enumerable signal and idempotencyKey, in a stable key order, and a signal that spreads and aborts on a timeout', async () => {
    const seen: Array<{ keys: string[]; copied: unknown; aborted: () => boolean }> = [];
    const slow = tool({
      name: 'slow',
      description: 'Waits.',
      timeoutMs: 5,
      execute: (_input, ctx) => {
        seen.push({ keys: Object.keys(ctx), copied: { ...ctx }.signal, aborted: () => ctx.signal.aborted });
        return new Promise(() => {});
      },
    });
    expect((await invokeTool(slow, {})).status).toBe('timeout');
    const [call] = seen;
    expect(call?.keys).toEqual(CTX_KEYS);
    expect(call?.copied).toBeInstanceOf(AbortSignal);
    expect(call?.aborted()).toBe(true);
  });

  it("shows a caller's abort that ended the call on a ctx.signal first read after the end, and no later one", async () => {
    const seen: Array<ToolContext> = [];
    const waits = tool({
      name: 'waits',
      description: 'Waits.',
      execute: (_input, ctx) => {
        seen.push(ctx);
        return new Promise(() => {});
      },
    });
    const caller = new AbortController();
    const pending = invokeTool(waits, {}, { signal: caller.signal });
    await Promise.resolve();
    caller.abort(new Error('stop'));
    expect((await pending).status).toBe('cancelled');
    expect(seen[0]?.signal.aborted).toBe(true);
    expect(seen[0]?.signal.reason).toEqual(new Error('stop'));

    const later = new AbortController();
    const quick = tool({
      name: 'quick',
      description: 'd',
      execute: (_input, ctx) => {
        seen.push(ctx);
        return 'ok';
      },
    });
    const ended = await invokeTool(quick, {}, { signal: later.signal });
    expect(ended.status).toBe('ok');
    later.abort();
    expect(seen[1]?.signal.aborted).toBe(false);
  });

  it('lets a tool reassign ctx.signal and ctx.idempotencyKey (for its helpers), as plain fields', () => {
    const call = { contextSignal: new CallSignal(undefined, 'echo').signal };
    const target = new CallContext(call, undefined, 'c1', 'r1', 'echo', 0) as {
      signal: unknown;
      idempotencyKey: unknown;
    };
    target.signal = 'replaced';
    target.idempotencyKey = 'mine';
    expect(target).toMatchObject({ signal: 'replaced', idempotencyKey: 'mine' });
  });
});

describe('Cancellation', () => {
  it('aborts once, with the first reason, calling each listener once in order', () => {
    const cancellation = new Cancellation();
    const heard: string[] = [];
    const second = () => heard.push('second');
    cancellation.addEventListener('abort', () => heard.push('first'));
    cancellation.addEventListener('abort', second);
    cancellation.addEventListener('abort', () => heard.push('third'));
    cancellation.removeEventListener('abort', second);
    expect(cancellation.aborted).toBe(false);
    cancellation.abort('stop');
    cancellation.abort('again');
    expect(heard).toEqual(['first', 'third']);
    expect(cancellation.aborted).toBe(true);
    expect(cancellation.reason).toBe('stop');
  });

  it('calls the other listeners when one throws, and adds none after the abort', () => {
    const cancellation = new Cancellation();
    const heard: string[] = [];
    cancellation.addEventListener('abort', () => {
      throw new Error('listener bug');
    });
    cancellation.addEventListener('abort', () => heard.push('after'));
    expect(() => cancellation.abort('stop')).not.toThrow();
    cancellation.addEventListener('abort', () => heard.push('late'));
    expect(heard).toEqual(['after']);
  });

  it('forwards to ctx.signal when read before or after the abort', () => {
    const before = new Cancellation();
    const early = new CallSignal(before, 'echo');
    const signal = early.signal;
    before.abort('service');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('service');
    const after = new Cancellation();
    const late = new CallSignal(after, 'echo');
    after.abort('deadline');
    expect(late.signal.reason).toBe('deadline');
  });
});
