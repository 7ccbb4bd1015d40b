/**
 * The failure log (src/client/failure-log.ts): a service that floods calls it got wrong (a tool this client does
 * not offer, bad arguments, unreadable calls) gets 10 `warn` lines a second, the rest counted and told at the end
 * of that second, or sooner when the socket or the client closes; a tool's own failure is logged every time.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { SERVICE_FAILURE_LINES_PER_INTERVAL } from '../../src/client/failure-log';
import type { Logger } from '../../src/logger';
import { tool } from '../../src/tool/tool';
import { recording } from './call-runner-harness';

type Line = { level: string; object: Record<string, unknown>; message: string };

const known = tool({ name: 'known', description: 'd', execute: () => 'ran' });
const strict = tool({
  name: 'strict',
  description: 'd',
  parameters: z.object({ n: z.number() }),
  execute: ({ n }) => `${n}`,
});
const failing = tool({
  name: 'failing',
  description: 'd',
  execute: () => {
    throw new Error('broken');
  },
});

function runner() {
  const lines: Line[] = [];
  const at =
    (level: string) =>
    (object: Record<string, unknown>, message: string): void => {
      lines.push({ level, object, message });
    };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  const { calls, sent } = recording([known, strict, failing], { logger });
  // Each result acknowledged at once, as a service that reads them would: the outbox never fills.
  const send = (callId: string, toolName: string, args: unknown = {}) => {
    calls.receive({ type: 'tool_call', callId, runId: 'r1', toolName, arguments: args });
    calls.ack(callId);
  };
  const warned = () => lines.filter((line) => line.level === 'warn');
  return { calls, sent, send, warned };
}

const missingText = 'Tool "missing" not found. Available tools: known, strict, failing';

afterEach(() => {
  vi.useRealTimers();
});

describe('a flood of calls the service got wrong', () => {
  it('logs 10 lines a second of 20,000 calls of a tool the client does not offer, and tells the rest', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { send, sent, warned, calls } = runner();
    for (let i = 0; i < 20_000; i++) send(`c${i}`, 'missing');
    expect(sent).toHaveLength(20_000);
    expect(warned()).toHaveLength(SERVICE_FAILURE_LINES_PER_INTERVAL);
    expect(warned()[0]).toEqual({
      level: 'warn',
      object: { callId: 'c0', runId: 'r1', toolName: 'missing', status: 'unknown_tool' },
      message: missingText,
    });
    // A second later, a line tells how many were not logged; the next call's line is as any.
    vi.advanceTimersByTime(1_000);
    expect(warned()).toHaveLength(11);
    expect(warned()[10]).toEqual({
      level: 'warn',
      object: { unlogged: 19_990, unloggedStatuses: { unknown_tool: 19_990 } },
      message:
        '19990 more failed calls the service caused were not logged (over 10 a second): unknown_tool 19990',
    });
    send('c20000', 'strict', { n: 'x' });
    expect(warned()).toHaveLength(12);
    expect(warned()[11]?.object).toEqual({
      callId: 'c20000',
      runId: 'r1',
      toolName: 'strict',
      status: 'invalid_arguments',
    });
    // Nothing is left to tell at the socket's close.
    calls.disconnected();
    expect(warned()).toHaveLength(12);
  });

  it('tells the count not logged when the socket closes, and when the client closes', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { send, warned, calls } = runner();
    for (let i = 0; i < 15; i++) send(`c${i}`, 'missing');
    send('c15', 'strict', { n: 'x' });
    calls.disconnected();
    expect(warned().at(-1)).toEqual({
      level: 'warn',
      object: { unlogged: 6, unloggedStatuses: { unknown_tool: 5, invalid_arguments: 1 } },
      message:
        '6 more failed calls the service caused were not logged (over 10 a second) before the socket closed: unknown_tool 5, invalid_arguments 1',
    });
    calls.reconnected();
    send('c16', 'missing');
    calls.dispose();
    expect(warned()).toHaveLength(12);
    expect(warned().at(-1)?.message).toBe(
      '1 more failed call the service caused was not logged (over 10 a second) before the client closed: unknown_tool 1',
    );
  });

  it('tells the count at the end of the second when no other line comes to tell it', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { send, warned, calls } = runner();
    for (let i = 0; i < 15; i++) send(`c${i}`, 'missing');
    expect(warned()).toHaveLength(10);
    vi.advanceTimersByTime(999);
    expect(warned()).toHaveLength(10);
    vi.advanceTimersByTime(1);
    expect(warned()).toHaveLength(11);
    expect(warned().at(-1)).toEqual({
      level: 'warn',
      object: { unlogged: 5, unloggedStatuses: { unknown_tool: 5 } },
      message: '5 more failed calls the service caused were not logged (over 10 a second): unknown_tool 5',
    });
    // Told once: nothing is left for the socket's close, and no timer is left behind.
    calls.disconnected();
    expect(warned()).toHaveLength(11);
    expect(vi.getTimerCount()).toBe(0);
    // A line in the next second logs as usual; a client that closes first leaves no timer either.
    send('c15', 'missing');
    expect(warned()).toHaveLength(12);
    for (let i = 16; i < 30; i++) send(`c${i}`, 'missing');
    calls.dispose();
    expect(warned().at(-1)?.message).toMatch(/before the client closed: unknown_tool 5$/);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('bounds the lines of calls that could not be read, whose frames were already logged as invalid', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { calls, warned } = runner();
    for (let i = 0; i < 100; i++) {
      calls.unreadable(`u${i}`, { toolName: 'known', runId: 'r1' }, 'deadlineMs must be a number');
      calls.ack(`u${i}`);
    }
    expect(warned()).toHaveLength(SERVICE_FAILURE_LINES_PER_INTERVAL);
    calls.dispose();
    expect(warned().at(-1)?.object).toEqual({ unlogged: 90, unloggedStatuses: { error: 90 } });
  });
});

describe("a tool's own failure", () => {
  it('is logged every time, however many, and a flood does not hold it back', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { send, warned } = runner();
    for (let i = 0; i < 30; i++) send(`m${i}`, 'missing');
    for (let i = 0; i < 50; i++) send(`f${i}`, 'failing');
    const own = warned().filter((line) => line.object.status === 'error');
    expect(own).toHaveLength(50);
    expect(own[0]?.message).toBe('Error running failing: broken');
  });

  it('leaves a call that succeeds unlogged', () => {
    const { send, warned } = runner();
    for (let i = 0; i < 100; i++) send(`k${i}`, 'known');
    expect(warned()).toEqual([]);
  });
});

describe('a flood of re-delivered calls whose arguments differ', () => {
  it('logs them within the same bound, counted apart as arguments_differ', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { calls, warned } = runner();
    // Its result waits for its ack: each re-delivery joins it (and its result is sent again).
    calls.receive({ type: 'tool_call', callId: 's1', runId: 'r1', toolName: 'strict', arguments: { n: 1 } });
    for (let i = 0; i < 1_000; i++)
      calls.receive({
        type: 'tool_call',
        callId: 's1',
        runId: 'r1',
        toolName: 'strict',
        arguments: { n: i + 2 },
      });
    expect(warned()).toHaveLength(SERVICE_FAILURE_LINES_PER_INTERVAL);
    expect(warned()[0]).toEqual({
      level: 'warn',
      object: { callId: 's1', toolName: 'strict' },
      message:
        'a re-delivered tool_call has arguments different from the call of that id; it joins the call as first received, and its arguments are ignored',
    });
    vi.advanceTimersByTime(1_000);
    expect(warned().at(-1)).toEqual({
      level: 'warn',
      object: { unlogged: 990, unloggedStatuses: { arguments_differ: 990 } },
      message: '990 more lines the service caused were not logged (over 10 a second): arguments_differ 990',
    });
    // A re-delivery with the same arguments says nothing.
    calls.receive({ type: 'tool_call', callId: 's1', runId: 'r1', toolName: 'strict', arguments: { n: 1 } });
    expect(warned()).toHaveLength(SERVICE_FAILURE_LINES_PER_INTERVAL + 1);
  });
});
