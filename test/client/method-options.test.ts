/**
 * The options objects of `client.connect()` and the decision objects of `client.decide()` go through the one
 * options checker (src/tool/check-options.ts): what is not an object, a misspelt key (with "did you mean") and a
 * value of the wrong kind are refused before anything is attempted or sent, never silently ignored.
 */
import { describe, expect, it } from 'vitest';
import { ApprovalError, Client, invokeTool, OptionsError, tool } from '../../src/index';
import { unknownOptionMessage } from '../support/known-options';
import { FAKE_URL } from './fake-service';

const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'ok' });
const idle = () => new Client({ url: FAKE_URL, apiKey: 'k', tools: [echo] });

describe('connect() options', () => {
  it.each([
    [
      { maxAtempts: 1 },
      'unknown_option',
      'client.connect(): unknown option "maxAtempts" (did you mean "maxAttempts"?)',
    ],
    [
      { retries: 1 },
      'unknown_option',
      'client.connect(): unknown option "retries" (did you mean "maxAttempts"?)',
    ],
    [
      { url: 'ws://x' },
      'unknown_option',
      unknownOptionMessage('client.connect(): unknown option "url"', 'maxAttempts'),
    ],
    [
      { maxAttempts: '3' },
      'invalid_option',
      'client.connect(): maxAttempts must be a whole number ≥ 1 or Infinity, got "3"',
    ],
    [null, 'invalid_options', 'client.connect(): options must be an object, got null'],
    [5, 'invalid_options', 'client.connect(): options must be an object, got 5'],
    ['x', 'invalid_options', 'client.connect(): options must be an object, got "x"'],
    [[], 'invalid_options', 'client.connect(): options must be an object, got an array of 0 items'],
  ])('refuses %j before any attempt', async (options, code, message) => {
    const client = idle();
    const error = await client.connect(options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OptionsError);
    expect(error).toMatchObject({ name: 'OptionsError', code, message });
    expect(client.state).toBe('idle');
    await client.close({ drain: false });
  });

  it('accepts an explicit undefined and Infinity', async () => {
    for (const options of [
      undefined,
      {},
      { maxAttempts: undefined },
      { maxAttempts: Number.POSITIVE_INFINITY },
    ]) {
      const client = new Client({ url: 'ws://127.0.0.1:1', apiKey: 'k', tools: [echo], reconnect: false });
      client.on('error', () => {});
      const error = await client.connect(options).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'ConnectionError' });
      await client.close({ drain: false });
    }
  });
});

describe('decide() decisions', () => {
  it.each([
    [{ approve: true }, 'decide(): unknown option "approve" (did you mean "approved"?)'],
    [{ approved: false, reasn: 'no' }, 'decide(): unknown option "reasn" (did you mean "reason"?)'],
    [{ approved: false, message: 'no' }, 'decide(): unknown option "message" (did you mean "reason"?)'],
    [{ approved: true, args: { a: 1 } }, 'decide(): unknown option "args" (did you mean "arguments"?)'],
    [{ approved: false, reason: 42 }, 'decide(): reason must be a string, got 42'],
    [{ approved: true, always: 'yes' }, 'decide(): always must be a boolean, got "yes"'],
    [
      { approved: 'true' },
      'decide(): the decision is {"approved":"true"} instead of true, false or { approved: boolean }',
    ],
    [null, 'decide(): the decision is null instead of true, false or { approved: boolean }'],
    [
      { approved: false, arguments: { a: 1 } },
      'decide(): the decision edits the arguments of a call it rejects (approved: false)',
    ],
    [{ approved: true, arguments: [1] }, `decide(): the decision's arguments are [1] instead of an object`],
  ])('refuses %j with invalid_decision before anything is sent', async (decision, message) => {
    const client = idle();
    const error = await client.decide('c1', decision as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApprovalError);
    expect(error).toMatchObject({ code: 'invalid_decision', message });
    await client.close({ drain: false });
  });

  it('says "returned" of an approver that returned a decision, never of decide(), which was passed one', async () => {
    const execute = () => 'ran';
    const gated = tool({ name: 'refund', description: 'Refunds.', needsApproval: true, execute });
    const outputs = [];
    for (const answer of [null, { approved: true, arguments: [1] }, { approved: false, arguments: {} }]) {
      const result = await invokeTool(gated, {}, { approve: () => answer as never });
      outputs.push(result.output);
    }
    expect(outputs).toEqual([
      'refund was not run: approval could not be obtained (the approver returned null instead of true, false or { approved: boolean }).',
      'refund was not run: approval could not be obtained (the approver returned arguments [1] instead of an object).',
      'refund was not run: approval could not be obtained (the approver edited the arguments of a call it rejected).',
    ]);
  });

  it.each([
    [{ approved: true, always: 'yes' }, 'always must be a boolean, got "yes"'],
    [{ approved: true, always: 0 }, 'always must be a boolean, got 0'],
    [{ approved: false, reason: 5 }, 'reason must be a string, got 5'],
    [{ approved: true, alwaysApprove: 'on' }, 'alwaysApprove must be a boolean, got "on"'],
    [{ approved: false, reasn: 'no' }, 'unknown option "reasn" (did you mean "reason"?)'],
  ])('refuses %j alike from an approver (the call is not run) and in decide()', async (decision, fault) => {
    const execute = () => 'ran';
    const gated = tool({ name: 'refund', description: 'Refunds.', needsApproval: true, execute });
    const result = await invokeTool(gated, {}, { approve: () => decision as never });
    expect(result).toMatchObject({
      status: 'rejected',
      reason: 'approval_failed',
      output: `refund was not run: approval could not be obtained (the approver returned ${JSON.stringify(decision)}: ${fault}).`,
    });
    const client = idle();
    const error = await client.decide('c1', decision as never).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'ApprovalError',
      code: 'invalid_decision',
      message: `decide(): ${fault}`,
    });
    await client.close({ drain: false });
  });

  it('takes every field of a decision (refused further on: not connected, or edits unsupported)', async () => {
    const client = idle();
    for (const decision of [
      true,
      { approved: false, reason: 'no' },
      { approved: false, reason: 'no', always: true },
      { approved: true, arguments: {}, alwaysApprove: true },
      { approved: false, alwaysReject: true, reason: undefined },
    ]) {
      const error = await client.decide('c1', decision).catch((e: unknown) => e);
      expect((error as { code?: string }).code).toMatch(/^(not_connected|unsupported)$/);
    }
    await client.close({ drain: false });
  });
});

describe('ctx.idempotencyKey() options', () => {
  it('refuses a misspelt key or value with a ToolDefinitionError, and keys per run with { per: "run" }', async () => {
    const errors: unknown[] = [];
    const keys: string[] = [];
    const keyed = tool({
      name: 'keyed',
      description: 'Makes keys.',
      execute: (_input, ctx) => {
        for (const options of [{ pre: 'run' }, { per: 'Run' }, null]) {
          try {
            ctx.idempotencyKey('charge', options as never);
          } catch (error) {
            errors.push(error);
          }
        }
        keys.push(ctx.idempotencyKey('charge', { per: 'run' }), ctx.idempotencyKey('charge', undefined));
        return 'ok';
      },
    });
    const result = await invokeTool(keyed, {}, { callId: 'c1', runId: 'r1' });
    expect(result.status).toBe('ok');
    expect(keys).toEqual(['toolwire-run:r1:charge', 'toolwire:c1:charge']);
    expect(
      errors.map((error) => [
        (error as Error).name,
        (error as { code?: string }).code,
        (error as Error).message,
      ]),
    ).toEqual([
      [
        'ToolDefinitionError',
        'unknown_option',
        'ctx.idempotencyKey(): unknown option "pre" (did you mean "per"?)',
      ],
      [
        'ToolDefinitionError',
        'invalid_option',
        `ctx.idempotencyKey(): per must be 'call' or 'run', got "Run"`,
      ],
      ['ToolDefinitionError', 'invalid_options', 'ctx.idempotencyKey(): options must be an object, got null'],
    ]);
  });
});
