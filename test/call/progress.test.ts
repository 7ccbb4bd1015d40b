import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ProgressUpdate } from '../../src/call/types';
import { ToolDefinitionError } from '../../src/errors';
import { invokeTool } from '../../src/index';
import { tool } from '../../src/tool/tool';

describe('ctx.progress()', () => {
  it('gives each update to onProgress, in order, with the call it belongs to', async () => {
    const seen: ProgressUpdate[] = [];
    const exporter = tool({
      name: 'export',
      description: 'Exports.',
      execute: async (_input, ctx) => {
        ctx.progress({ progress: 0, total: 3 });
        await Promise.resolve();
        const { progress } = ctx; // destructured, it still reports for this call
        progress({ progress: 3, total: 3, message: 'done' });
        return 'ok';
      },
    });
    const result = await invokeTool(
      exporter,
      {},
      { callId: 'c1', runId: 'r1', onProgress: (u) => seen.push(u) },
    );
    expect(result.status).toBe('ok');
    expect(seen).toEqual([
      { callId: 'c1', runId: 'r1', toolName: 'export', progress: 0, total: 3 },
      { callId: 'c1', runId: 'r1', toolName: 'export', progress: 3, total: 3, message: 'done' },
    ]);
  });

  it('ends the call with a named error when the update is malformed', async () => {
    const bad = tool({
      name: 'bad',
      description: 'Reports nonsense.',
      execute: (_input, ctx) => {
        ctx.progress({ progress: Number.NaN });
        return 'unreachable';
      },
    });
    expect(await invokeTool(bad, {})).toMatchObject({
      status: 'error',
      output: 'Error running bad: ctx.progress(): progress must be a finite number ≥ 0, got NaN',
    });
    const thrown: unknown[] = [];
    const collect = tool({
      name: 'collect',
      description: 'Collects the errors.',
      execute: (_input, ctx) => {
        for (const update of [{ progress: 1, total: 0 }, { progress: 1, message: 5 }, null]) {
          try {
            ctx.progress(update as never);
          } catch (error) {
            thrown.push(error);
          }
        }
        return '';
      },
    });
    await invokeTool(collect, {});
    expect(
      thrown.map((e) => [
        e instanceof ToolDefinitionError,
        (e as ToolDefinitionError).code,
        (e as Error).message,
      ]),
    ).toEqual([
      [true, 'invalid_progress', 'ctx.progress(): total must be a finite number > 0, got 0'],
      [true, 'invalid_progress', 'ctx.progress(): message must be a string, got 5'],
      [true, 'invalid_progress', 'ctx.progress(): expected { progress, total?, message? }, got null'],
    ]);
  });

  it('cuts a long message at 1,000 characters, never through a surrogate pair', async () => {
    const seen: ProgressUpdate[] = [];
    const chatty = tool({
      name: 'chatty',
      description: 'Says a lot.',
      execute: (_input, ctx) => {
        ctx.progress({ progress: 1, message: `${'a'.repeat(999)}😀tail` });
        return '';
      },
    });
    await invokeTool(chatty, {}, { onProgress: (u) => seen.push(u) });
    expect(seen[0]?.message).toBe('a'.repeat(999));
  });

  it('redacts a long message before cutting it, so no piece of a secret across the cut is left', async () => {
    const seen: ProgressUpdate[] = [];
    const login = tool({
      name: 'login',
      description: 'Logs in.',
      parameters: z.object({ password: z.string() }),
      sensitiveFieldNames: ['password'],
      execute: ({ password }, ctx) => {
        ctx.progress({ progress: 1, message: `${'a'.repeat(992)}${password} and more` });
        return '';
      },
    });
    await invokeTool(login, { password: 'hunter2-TOPSECRET' }, { onProgress: (u) => seen.push(u) });
    expect(seen[0]?.message).toBe(`${'a'.repeat(992)}[redacte`);
  });

  it('drops progress after the call ended, and ignores a listener that throws', async () => {
    const seen: number[] = [];
    let late: (() => void) | undefined;
    const lingering = tool({
      name: 'lingering',
      description: 'Reports after returning.',
      execute: (_input, ctx) => {
        ctx.progress({ progress: 1 });
        late = () => ctx.progress({ progress: 2 });
        return 'done';
      },
    });
    const result = await invokeTool(
      lingering,
      {},
      {
        onProgress: (u) => {
          seen.push(u.progress);
          throw new Error('listener bug');
        },
      },
    );
    late?.();
    expect(result).toMatchObject({ status: 'ok', output: 'done' });
    expect(seen).toEqual([1]);
  });

  it('does nothing without onProgress', async () => {
    const quiet = tool({
      name: 'quiet',
      description: 'Reports to nobody.',
      execute: (_input, ctx) => {
        ctx.progress({ progress: 5, total: 10 });
        return 'fine';
      },
    });
    expect(await invokeTool(quiet, {})).toMatchObject({ status: 'ok', output: 'fine' });
  });
});
