import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolEvent } from '../../src/call/types';
import { ToolDefinitionError } from '../../src/errors';
import { invokeTool } from '../../src/index';
import { tool } from '../../src/tool/tool';

describe('ctx.emit()', () => {
  it('gives each event to onEmit, in order, with its data written as JSON', async () => {
    const seen: ToolEvent[] = [];
    const exporter = tool({
      name: 'export',
      description: 'Exports.',
      execute: async (_input, ctx) => {
        ctx.emit('export.started');
        const { emit } = ctx;
        emit('rows.exported', { table: 'orders', rows: 1200n, at: new Map([['x', 1]]) });
        emit('note', 'a plain string');
        return 'ok';
      },
    });
    await invokeTool(exporter, {}, { callId: 'c1', runId: 'r1', onEmit: (event) => seen.push(event) });
    expect(seen).toEqual([
      { callId: 'c1', runId: 'r1', toolName: 'export', event: 'export.started' },
      {
        callId: 'c1',
        runId: 'r1',
        toolName: 'export',
        event: 'rows.exported',
        data: { table: 'orders', rows: '1200', at: { x: 1 } },
      },
      { callId: 'c1', runId: 'r1', toolName: 'export', event: 'note', data: 'a plain string' },
    ]);
  });

  it('writes what JSON has no form for by the rules of a result, never throwing for the data', async () => {
    const cycle: { name: string; self?: unknown } = { name: 'n' };
    cycle.self = cycle;
    const datas = [10n, Number.NaN, () => 1, { run: () => 1, at: 1 }, cycle, new Set([1]), new Error('boom')];
    const seen: ToolEvent[] = [];
    const emitter = tool({
      name: 'emitter',
      description: 'd',
      execute: (_input, ctx) => {
        for (const data of datas) ctx.emit('x', data);
        return 'ok';
      },
    });
    const result = await invokeTool(emitter, {}, { onEmit: (event) => seen.push(event) });
    expect(result).toMatchObject({ status: 'ok', output: 'ok' });
    expect(seen.map((event) => event.data)).toEqual([
      '10',
      'NaN',
      null,
      { at: 1 },
      { name: 'n', self: '[Circular]' },
      [1],
      { name: 'Error', message: 'boom' },
    ]);
  });

  it('bounds the data at 16,384 bytes of JSON, and drops events after the call ended', async () => {
    const seen: ToolEvent[] = [];
    let late: (() => void) | undefined;
    const big = tool({
      name: 'big',
      description: 'Emits a lot.',
      execute: (_input, ctx) => {
        ctx.emit('blob', 'x'.repeat(20_000));
        late = () => ctx.emit('late');
        return 'done';
      },
    });
    await invokeTool(big, {}, { onEmit: (event) => seen.push(event) });
    late?.();
    expect(seen.map((event) => event.data)).toEqual([{ truncated: true, bytes: 20_002 }]);
  });

  it('refuses the event past 256 of one call with an error the tool sees, whoever listens', async () => {
    for (const onEmit of [undefined, () => {}]) {
      let refused: unknown;
      let recorded = 0;
      const chatty = tool({
        name: 'chatty',
        description: 'Emits a lot.',
        execute: (_input, ctx) => {
          for (let i = 0; i < 256; i++) ctx.emit('tick', i);
          try {
            ctx.emit('tick', 256);
          } catch (error) {
            refused = error;
          }
          return 'done';
        },
      });
      const result = await invokeTool(chatty, {}, { onEmit: onEmit && (() => (recorded += 1)) });
      expect(result.status).toBe('ok');
      expect(refused).toEqual(
        new ToolDefinitionError(
          'too_many_events',
          'ctx.emit(): the call already has 256 events, the most the service keeps; this one was not recorded',
        ),
      );
      expect((refused as ToolDefinitionError).code).toBe('too_many_events');
      expect(recorded).toBe(onEmit === undefined ? 0 : 256);
    }
  });

  it('refuses a malformed event name with a usage error the tool can see', async () => {
    const thrown: unknown[] = [];
    const bad = tool({
      name: 'bad',
      description: 'Emits badly.',
      execute: (_input, ctx) => {
        for (const name of ['', 'has space', 'x'.repeat(129), 42]) {
          try {
            ctx.emit(name as string);
          } catch (error) {
            thrown.push(error);
          }
        }
        return '';
      },
    });
    await invokeTool(bad, {});
    expect(thrown).toHaveLength(4);
    expect(thrown.every((e) => e instanceof ToolDefinitionError && e.code === 'invalid_event')).toBe(true);
    expect((thrown[1] as Error).message).toBe(
      'ctx.emit(): the event type must be 1 to 128 letters, digits or _ . : / -, got "has space"',
    );
  });

  it("refuses a name holding a redacted field's value, without quoting it (names are sent as written)", async () => {
    const seen: ToolEvent[] = [];
    const thrown: unknown[] = [];
    const login = tool({
      name: 'login',
      description: 'Logs in.',
      parameters: z.object({ password: z.string() }),
      sensitiveFieldNames: ['password'],
      execute: (input, ctx) => {
        try {
          ctx.emit(`ev.${input.password}`, 1);
        } catch (error) {
          thrown.push(error);
        }
        ctx.emit('ev.ok', { password: input.password });
        return 'ok';
      },
    });
    await invokeTool(login, { password: 'hunter2pass' }, { onEmit: (event) => seen.push(event) });
    expect(thrown).toEqual([expect.any(ToolDefinitionError)]);
    expect((thrown[0] as ToolDefinitionError).code).toBe('invalid_event');
    expect((thrown[0] as Error).message).not.toContain('hunter2pass');
    expect(seen.map((event) => [event.event, event.data])).toEqual([['ev.ok', { password: '[redacted]' }]]);
  });
});
