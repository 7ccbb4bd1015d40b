/**
 * The members of `ctx` about the call's place (`ctx.step`, `ctx.logger`, `ctx.sessionId`, `ctx.agentName`,
 * `ctx.idempotencyKey` per call and per run) and redaction by field name (`sensitiveFieldNames`), through
 * `invokeTool`.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { invokeTool } from '../../src/call/invoke';
import { sensitiveValues } from '../../src/call/redaction';
import type { StepRecord } from '../../src/call/steps';
import { Redactor } from '../../src/redact';
import { tool } from '../../src/tool/tool';
import { STEP_LIMITS } from '../../src/wire/protocol';

function recordingLogger() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const at = (level: string) => (fields: Record<string, unknown>, message: string) =>
    lines.push({ level, fields, message });
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

describe('ctx.step()', () => {
  it('runs a step once per call: a retry gets the kept result, and onStep gets it as redacted JSON', async () => {
    const bodies: string[] = [];
    const steps: StepRecord[] = [];
    const twoSteps = tool({
      name: 'provision',
      description: 'd',
      sideEffect: 'idempotent',
      retry: { maxAttempts: 2, initialDelayMs: 0 },
      execute: async (_input, ctx) => {
        const account = await ctx.step('reserve', () => {
          bodies.push(`reserve ${ctx.attempt}`);
          return { id: 'acct_1', token: 'secret-token-1' };
        });
        if (ctx.attempt === 1) throw new Error('mail server down');
        return account.id;
      },
    });
    const result = await invokeTool(twoSteps, {}, { callId: 'c1', onStep: (step) => steps.push(step) });
    expect(result).toMatchObject({ status: 'ok', output: 'acct_1' });
    expect(bodies).toEqual(['reserve 1']);
    expect(steps).toEqual([
      { callId: 'c1', key: 'reserve', result: { id: 'acct_1', token: 'secret-token-1' } },
    ]);
  });

  it('returns the result a step had in an earlier run of the call (options.steps) without running it', async () => {
    let ran = false;
    const replayed = tool({
      name: 'r',
      description: 'd',
      execute: async (_input, ctx) =>
        ctx.step('load', () => {
          ran = true;
          return 'fresh';
        }),
    });
    expect((await invokeTool(replayed, {}, { steps: { load: 'kept' } })).output).toBe('kept');
    expect(ran).toBe(false);
  });

  it('does not keep a failed step, and keeps no result over the size limit beyond the process', async () => {
    const steps: StepRecord[] = [];
    const { lines, logger } = recordingLogger();
    const big = 'x'.repeat(STEP_LIMITS.maxResultBytes + 1);
    const tooBig = tool({
      name: 'big',
      description: 'd',
      execute: async (_input, ctx) => {
        await ctx.step('fails', () => Promise.reject(new Error('no'))).catch(() => 'ignored');
        return (await ctx.step('big', () => big)).length;
      },
    });
    const result = await invokeTool(tooBig, {}, { callId: 'c2', logger, onStep: (step) => steps.push(step) });
    expect(result.output).toBe(String(big.length));
    expect(steps).toEqual([]);
    expect(lines).toEqual([
      {
        level: 'warn',
        fields: { callId: 'c2', toolName: 'big', attempt: 1, step: 'big' },
        message: `step "big" is not kept: its result is ${big.length + 2} bytes of JSON, over the limit of ${STEP_LIMITS.maxResultBytes}: it is kept for this process only`,
      },
    ]);
  });

  it('refuses a bad key with a ToolDefinitionError (inside execute, the call fails with it)', async () => {
    const bad = tool({ name: 'bad', description: 'd', execute: (_input, ctx) => ctx.step('', () => 1) });
    expect((await invokeTool(bad, {})).output).toBe(
      'Error running bad: ctx.step(): the key must be a string of 1 to 256 characters, got a string of 0',
    );
  });
});

describe('ctx scope', () => {
  it('has sessionId, agentName and a per-call or per-run idempotency key', async () => {
    let seen: unknown;
    const scoped = tool({
      name: 's',
      description: 'd',
      execute: (_input, ctx) => {
        seen = {
          sessionId: ctx.sessionId,
          agentName: ctx.agentName,
          perCall: ctx.idempotencyKey('mail'),
          perRun: ctx.idempotencyKey('mail', { per: 'run' }),
          runBase: ctx.idempotencyKey(undefined, { per: 'run' }),
        };
        return '';
      },
    });
    await invokeTool(scoped, {}, { callId: 'c 1', runId: 'r/1', sessionId: 'sess_1', agentName: 'Support' });
    expect(seen).toEqual({
      sessionId: 'sess_1',
      agentName: 'Support',
      perCall: 'toolwire:c%201:mail',
      perRun: 'toolwire-run:r%2F1:mail',
      runBase: 'toolwire-run:r%2F1',
    });
  });

  it('gives ctx.logger lines with the call id, tool and attempt; silent without a logger', async () => {
    const { lines, logger } = recordingLogger();
    const logging = tool({
      name: 'logging',
      description: 'd',
      execute: (_input, ctx) => {
        ctx.logger.info({ rows: 3 }, 'exported');
        return '';
      },
    });
    await invokeTool(logging, {}, { callId: 'c3', logger });
    expect(lines).toEqual([
      {
        level: 'info',
        fields: { callId: 'c3', toolName: 'logging', attempt: 1, rows: 3 },
        message: 'exported',
      },
    ]);
    expect((await invokeTool(logging, {})).status).toBe('ok');
  });

  it('keeps a line whose field is a getter that throws, that field unreadable', async () => {
    const { lines, logger } = recordingLogger();
    const logging = tool({
      name: 'logging',
      description: 'd',
      parameters: z.object({ pin: z.string().optional() }),
      sensitiveFieldNames: ['pin'],
      execute: (_input, ctx) => {
        ctx.logger.warn(
          {
            rows: 3,
            get broken(): unknown {
              throw new Error('no');
            },
          },
          'exported',
        );
        return '';
      },
    });
    await invokeTool(logging, { pin: '4321' }, { callId: 'c4', logger });
    await invokeTool(logging, {}, { callId: 'c5', logger });
    expect(lines.map((line) => line.fields)).toEqual([
      { callId: 'c4', toolName: 'logging', attempt: 1, rows: 3, broken: '[Unreadable]' },
      { callId: 'c5', toolName: 'logging', attempt: 1, rows: 3, broken: '[Unreadable]' },
    ]);
  });
});

describe('sensitiveFieldNames', () => {
  it('finds the values under the names at any depth, every string and number inside them', () => {
    expect(
      sensitiveValues(
        { card: { number: '4242 4242', cvc: 123, valid: true }, note: 'hi', nested: [{ password: 'p4ss' }] },
        ['card', 'password'],
      ),
    ).toEqual(['4242 4242', '123', 'p4ss']);
    expect(sensitiveValues({ password: '' }, ['password'])).toEqual([]);
  });

  it("scrubs the field's value from the output, the widget, events, progress, errors and log lines", async () => {
    const { lines, logger } = recordingLogger();
    const events: unknown[] = [];
    const progress: unknown[] = [];
    const login = tool({
      name: 'login',
      description: 'd',
      parameters: z.object({ user: z.string(), password: z.string() }),
      sensitiveFieldNames: ['password'],
      execute: ({ user, password }, ctx) => {
        ctx.emit('login.tried', { user, password });
        ctx.progress({ progress: 1, message: `trying ${password}` });
        ctx.logger.info({ password }, `logging in with ${password}`);
        return {
          greeting: `hello ${user}, your password is ${password}`,
          widget: { type: 'Text', text: password },
        };
      },
    });
    const result = await invokeTool(
      login,
      { user: 'ada', password: 'hunter2' },
      {
        logger,
        onEmit: (event) => events.push(event.data),
        onProgress: (update) => progress.push(update.message),
      },
    );
    expect(JSON.stringify([result.output, result.widget, events, progress, lines])).not.toContain('hunter2');
    expect(result.output).toBe('{"greeting":"hello ada, your password is [redacted]"}');
    expect(events).toEqual([{ user: 'ada', password: '[redacted]' }]);
    const failing = tool({
      name: 'f',
      description: 'd',
      parameters: z.object({ apiToken: z.string() }),
      sensitiveFieldNames: ['apiToken'],
      execute: ({ apiToken }) => {
        throw new Error(`token ${apiToken} refused`);
      },
    });
    expect((await invokeTool(failing, { apiToken: 'tok-123456' })).output).toBe(
      'Error running f: token [redacted] refused',
    );
  });

  it('adds to the redactor a call already has (Redactor.with)', () => {
    const base = new Redactor(['api-key-1']);
    const call = base.with(['hunter2']);
    expect(call.text('api-key-1 hunter2')).toBe('[redacted] [redacted]');
    expect(base.text('hunter2')).toBe('hunter2');
  });
});
