/**
 * Redaction by field name (`sensitiveFieldNames`, a policy's `{ redact }`) through `invokeTool`: over the
 * arguments an approver edited, for values too short to search for, in JSON outputs, and in what the approver
 * is shown (src/call/redaction.ts).
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { restoreShown } from '../../src/call/redaction';
import { type ApprovalRequest, type CallPolicy, invokeTool, tool } from '../../src/index';

/** A tool that needs approval and says what it got: `pin` is sensitive (by the tool, or by `policies`). */
function pinTool(sensitive: boolean) {
  return tool({
    name: 'unlock',
    description: 'Unlocks.',
    parameters: z.object({ door: z.string(), pin: z.string() }),
    needsApproval: true,
    ...(sensitive ? { sensitiveFieldNames: ['pin'] } : {}),
    execute: ({ door, pin }, ctx) => {
      ctx.progress({ progress: 1, message: `trying ${pin}` });
      return { door, pin, said: `unlocked ${door} with ${pin}` };
    },
  });
}

const redactPin: CallPolicy = () => ({ redact: ['pin'] });

describe.each([
  ['sensitiveFieldNames', true, []],
  ['a policy redact', false, [redactPin]],
] as const)('redaction by %s', (_name, sensitive, policies) => {
  it('redacts a value the approver introduced, in the output and the "approver edited" note', async () => {
    const progress: unknown[] = [];
    const result = await invokeTool(
      pinTool(sensitive),
      { door: 'front', pin: 'orig-4455' },
      {
        policies: [...policies],
        approve: () => ({ approved: true, arguments: { door: 'back', pin: 'edit-9911' } }),
        onProgress: (update) => progress.push(update.message),
      },
    );
    expect(result.status).toBe('ok');
    expect(JSON.stringify([result.output, progress])).not.toMatch(/orig-4455|edit-9911/);
    expect(result.output).toBe(
      'The approver edited the arguments of unlock to {"door":"back","pin":"[redacted]"}.\n' +
        '{"door":"back","pin":"[redacted]","said":"unlocked back with [redacted]"}',
    );
    expect(progress).toEqual(['trying [redacted]']);
  });

  it('shows the approver [redacted] for the field, and keeps its value when the edit leaves the placeholder', async () => {
    const requests: ApprovalRequest[] = [];
    const result = await invokeTool(
      pinTool(sensitive),
      { door: 'front', pin: 'orig-4455' },
      {
        policies: [...policies],
        approve: (request) => {
          requests.push(request);
          return { approved: true, arguments: { ...(request.input as object), door: 'side' } };
        },
      },
    );
    expect(requests[0]?.input).toEqual({ door: 'front', pin: '[redacted]' });
    // execute got the original pin (the output says which door), and the pin stays redacted.
    expect(result.value).toEqual({ door: 'side', pin: 'orig-4455', said: 'unlocked side with orig-4455' });
    expect(result.output).toContain(
      '{"door":"side","pin":"[redacted]","said":"unlocked side with [redacted]"}',
    );
  });

  it('keeps an output JSON when a short value (1, " ", "e", 0, true) is in it', async () => {
    for (const pin of [1, ' ', 'e', 0, true, '1234', 'null', 'true']) {
      const echo = tool({
        name: 'echo',
        description: 'Echoes.',
        parameters: z.object({ pin: z.unknown() }),
        ...(sensitive ? { sensitiveFieldNames: ['pin'] } : {}),
        execute: ({ pin: given }) => ({ pin: given, count: 12345, ok: true, none: null, text: 'eel e 1 0' }),
      });
      const result = await invokeTool(echo, { pin }, { policies: [...policies] });
      const parsed = JSON.parse(result.output) as Record<string, unknown>;
      expect(parsed.pin).toBe('[redacted]');
      if (typeof pin === 'string' && pin.length >= 4) expect(result.output).not.toContain(pin);
      else
        expect(parsed).toEqual({ pin: '[redacted]', count: 12345, ok: true, none: null, text: 'eel e 1 0' });
    }
  });
});

describe('a JSON output', () => {
  it('is redacted inside its values: a secret in a number becomes the placeholder, never a cut token', async () => {
    const echo = tool({
      name: 'echo',
      description: 'Echoes.',
      parameters: z.object({ code: z.string() }),
      sensitiveFieldNames: ['code'],
      execute: () => '{"n": 512345, "s": "x51234y"}',
    });
    const result = await invokeTool(echo, { code: '1234' });
    expect(result.output).toBe('{"n":"[redacted]","s":"x5[redacted]y"}');
  });

  it('is left as it is (formatting and all) when nothing in it is secret', async () => {
    const echo = tool({
      name: 'echo',
      description: 'Echoes.',
      parameters: z.object({ code: z.string() }),
      sensitiveFieldNames: ['code'],
      execute: () => '{ "n": 1 }',
    });
    expect((await invokeTool(echo, { code: 'abcd' })).output).toBe('{ "n": 1 }');
  });
});

describe('what a tool throws', () => {
  const failing = (thrown: unknown) =>
    tool({
      name: 'unlock',
      description: 'Unlocks.',
      parameters: z.object({ pin: z.string() }),
      sensitiveFieldNames: ['pin'],
      execute: () => {
        throw thrown;
      },
    });

  it('is never changed: result.error is a redacted copy when it quotes a field, else the value thrown', async () => {
    const cause = new Error('because orig-4455');
    const thrown = new TypeError('refused orig-4455', { cause });
    const result = await invokeTool(failing(thrown), { pin: 'orig-4455' });
    expect(result.output).toBe('Error running unlock: refused [redacted]');
    expect([thrown.message, cause.message]).toEqual(['refused orig-4455', 'because orig-4455']);
    expect(thrown.stack).toContain('orig-4455');
    expect(result.error).toBeInstanceOf(TypeError);
    expect(result.error).toMatchObject({
      message: 'refused [redacted]',
      cause: { message: 'because [redacted]' },
    });
    const clean = new Error('no door');
    expect((await invokeTool(failing(clean), { pin: 'orig-4455' })).error).toBe(clean);
    const plain = { message: 'no door', door: 'front' };
    expect((await invokeTool(failing(plain), { pin: 'orig-4455' })).error).toBe(plain);
  });
});

describe('restoreShown (what an approver left as it was shown redacted)', () => {
  const original = {
    pin: { digits: '9876' },
    note: 'vault hunter2 asap',
    amount: 1234,
    items: [{ pin: 'a1b2' }, { pin: 'c3d4' }],
    'hunter2-key': 'v',
  };
  const shown = {
    pin: '[redacted]',
    note: 'vault [redacted] asap',
    amount: '[redacted]',
    items: [{ pin: '[redacted]' }, { pin: '[redacted]' }],
    '[redacted]-key': 'v',
  };

  it('puts back every value and key left as shown, at any depth, and keeps what the approver changed or added', () => {
    const edited = {
      ...shown,
      items: [{ pin: '[redacted]' }, { pin: 'new1' }, { pin: '[redacted]' }],
      extra: 1,
    };
    expect(restoreShown(edited, original, shown)).toEqual({
      pin: { digits: '9876' },
      note: 'vault hunter2 asap',
      amount: 1234,
      items: [{ pin: 'a1b2' }, { pin: 'new1' }, { pin: '[redacted]' }],
      'hunter2-key': 'v',
      extra: 1,
    });
    expect(restoreShown({ note: 'vault [redacted] later', pin: '0000' }, original, shown)).toEqual({
      note: 'vault [redacted] later',
      pin: '0000',
    });
  });
});
