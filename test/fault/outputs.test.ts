/**
 * Hostile tool outputs through the real client and stub: larger than the frame limit once JSON-escaped, lone
 * surrogates and split emoji, a value produced after the call was cancelled, and errors that carry the API key
 * or a `redact` pattern.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { invokeTool, tool } from '../../src/index';
import { truncationMarker } from '../../src/tool/output';
import { utf8Length } from '../../src/wire/protocol';
import { API_KEY, client, deferred, recordingWebSocket, stub, until } from './harness';

/** Room the client keeps for the rest of a `tool_result` frame: the output's JSON takes at most the limit minus this. */
const ENVELOPE_BYTES = 512;
const FRAME_LIMIT = 65_536;
const OUTPUT_BUDGET = FRAME_LIMIT - ENVELOPE_BYTES;

/** Bytes of `JSON.stringify(text)`, quotes included. */
const jsonBytes = (text: string) => utf8Length(JSON.stringify(text));

/** One run of `agent` whose single turn calls `toolName` once; resolves with the call's transcript entry. */
async function callOnce(
  execute: (input: unknown, ctx: { signal: AbortSignal; callId: string }) => unknown,
  options: { redact?: RegExp[] | string[]; frameLimit?: number } = {},
) {
  const server = await stub({
    maxPayloadBytes: options.frameLimit ?? FRAME_LIMIT,
    model: scriptedModel([{ toolCalls: [{ name: 'emit' }] }, { text: 'done' }]),
  });
  const emit = tool({ name: 'emit', description: 'Returns what the test says.', execute });
  const recording = recordingWebSocket();
  const worker = client(server.url, {
    tools: [emit],
    WebSocket: recording.WebSocket,
    ...(options.redact ? { redact: options.redact } : {}),
  });
  await worker.connect();
  const runId = server.runs.start({ name: 'a', instructions: '', tools: ['emit'] }, 'go');
  const transcript = await server.runs.waitFor(runId);
  await until(() => worker.stats, { running: 0, queued: 0, waiting: 0, unacked: 0 });
  const results = recording.sent.filter((frame) => frame.type === 'tool_result');
  const largest = Math.max(...recording.sentRaw.map(utf8Length));
  return { call: transcript.toolCalls[0]!, results, largest, recording };
}

describe('outputs larger than the frame limit', () => {
  it('cuts an output that JSON escaping pushes past the limit, so its frame is sent and fits', async () => {
    // 200,000 quotes: 200,000 bytes of UTF-8 but 400,002 once JSON-escaped.
    const { call, results, largest } = await callOnce(() => '"'.repeat(200_000));
    const marker = truncationMarker(200_000);
    const kept = Math.floor((OUTPUT_BUDGET - jsonBytes(marker)) / 2);
    expect(call).toMatchObject({ state: 'done', status: 'ok', output: `${'"'.repeat(kept)}${marker}` });
    expect(jsonBytes(call.output!)).toBeLessThanOrEqual(OUTPUT_BUDGET);
    expect(results).toHaveLength(1);
    expect(largest).toBeLessThanOrEqual(FRAME_LIMIT);
  });

  it('counts control characters at their escaped size (6 bytes each)', async () => {
    const { call, largest } = await callOnce(() => '\u0001'.repeat(100_000));
    const marker = truncationMarker(100_000);
    const kept = Math.floor((OUTPUT_BUDGET - jsonBytes(marker)) / 6);
    expect(call).toMatchObject({ status: 'ok', output: `${'\u0001'.repeat(kept)}${marker}` });
    expect(largest).toBeLessThanOrEqual(FRAME_LIMIT);
  });

  it('keeps an output whose JSON is exactly the budget, and cuts one byte more', async () => {
    const exact = 'a'.repeat(OUTPUT_BUDGET - 2);
    expect((await callOnce(() => exact)).call.output).toBe(exact);
    const over = `${exact}a`;
    const marker = truncationMarker(OUTPUT_BUDGET - 1);
    expect((await callOnce(() => over)).call.output).toBe(
      `${'a'.repeat(OUTPUT_BUDGET - jsonBytes(marker))}${marker}`,
    );
  });

  it('cuts a long emoji output between characters, never inside a surrogate pair', async () => {
    const { call, largest } = await callOnce(() => '😀'.repeat(100_000));
    const marker = truncationMarker(400_000);
    const kept = Math.floor((OUTPUT_BUDGET - jsonBytes(marker)) / 4);
    expect(call.output).toBe(`${'😀'.repeat(kept)}${marker}`);
    expect(largest).toBeLessThanOrEqual(FRAME_LIMIT);
  });

  it('cuts a huge error message the same way', async () => {
    const { call, largest } = await callOnce(() => {
      throw new Error('\\'.repeat(100_000));
    });
    const full = `Error running emit: ${'\\'.repeat(100_000)}`;
    const marker = truncationMarker(utf8Length(full));
    const kept = Math.floor((OUTPUT_BUDGET - jsonBytes(marker) - 'Error running emit: '.length) / 2);
    expect(call).toMatchObject({
      status: 'error',
      output: `Error running emit: ${'\\'.repeat(kept)}${marker}`,
    });
    expect(largest).toBeLessThanOrEqual(FRAME_LIMIT);
  });

  it('fits the smallest frame limit the protocol allows (1,024 bytes)', async () => {
    const { call, largest } = await callOnce(() => 'é'.repeat(5_000), { frameLimit: 1_024 });
    const marker = truncationMarker(10_000);
    const kept = Math.floor((1_024 - ENVELOPE_BYTES - jsonBytes(marker)) / 2);
    expect(call.output).toBe(`${'é'.repeat(kept)}${marker}`);
    expect(largest).toBeLessThanOrEqual(1_024);
  });
});

describe('ill-formed text', () => {
  it('sends lone surrogates and a split emoji as U+FFFD', async () => {
    const broken = `a\uD800b${'😀'.slice(0, 1)}|${'😀'.slice(1)}c`;
    const { call, results } = await callOnce(() => broken);
    expect(call.output).toBe('a\uFFFDb\uFFFD|\uFFFDc');
    expect(results[0]?.output).toBe('a\uFFFDb\uFFFD|\uFFFDc');
  });

  it('gives invokeTool the same well-formed text, in outputs and in error messages', async () => {
    const broken = tool({
      name: 'broken',
      description: 'Slices an emoji.',
      execute: () => 'x😀'.slice(0, 2),
    });
    expect(await invokeTool(broken, {})).toMatchObject({ status: 'ok', output: 'x\uFFFD' });
    const throwing = tool({
      name: 'throwing',
      description: 'Throws a sliced emoji.',
      execute: () => {
        throw new Error('😀'.slice(1));
      },
    });
    expect(await invokeTool(throwing, {})).toMatchObject({
      status: 'error',
      output: 'Error running throwing: \uFFFD',
    });
  });
});

describe('a value produced after the call was cancelled', () => {
  it('is dropped: the service gets one cancelled result, acked, and the late value never leaves', async () => {
    const started = deferred();
    const finish = deferred();
    let resolvedLate = false;
    const server = await stub({
      model: scriptedModel([{ toolCalls: [{ name: 'stubborn' }] }, { text: 'x' }]),
    });
    const stubborn = tool({
      name: 'stubborn',
      description: 'Ignores its signal.',
      execute: async () => {
        started.resolve();
        await finish.promise;
        resolvedLate = true;
        return 'LATE VALUE';
      },
    });
    const recording = recordingWebSocket();
    const worker = client(server.url, { tools: [stubborn], WebSocket: recording.WebSocket });
    await worker.connect();
    const runId = server.runs.start({ name: 'a', instructions: '', tools: ['stubborn'] }, 'go');
    await started.promise;
    expect(server.runs.cancel(runId, 'test')).toBe(true);
    const transcript = await server.runs.waitFor(runId);
    // Answered and acked, its slot kept while its tool still runs (docs/protocol/fleet-limits.md).
    await until(() => recording.sent.filter((frame) => frame.type === 'tool_result').length, 1);
    await until(() => worker.stats, { running: 1, queued: 0, waiting: 0, unacked: 0 });
    finish.resolve();
    await until(() => resolvedLate, true);
    await until(() => worker.stats.running, 0);
    // Give a (wrong) late send every chance to happen before looking.
    await new Promise((resolve) => setImmediate(resolve));
    const results = recording.sent.filter((frame) => frame.type === 'tool_result');
    expect(results).toEqual([
      {
        type: 'tool_result',
        callId: transcript.toolCalls[0]!.callId,
        status: 'cancelled',
        output: 'Error running stubborn: the call was cancelled',
        durationMs: expect.any(Number),
        result: { type: 'error-text' },
      },
    ]);
    expect(recording.sentRaw.some((text) => text.includes('LATE VALUE'))).toBe(false);
    expect(transcript.toolCalls[0]).toMatchObject({
      status: 'cancelled',
      output: 'Error running stubborn: the call was cancelled',
    });
    expect(worker.stats).toEqual({ running: 0, queued: 0, waiting: 0, unacked: 0 });
  });
});

describe('secrets in errors', () => {
  it('redacts the API key and a redact pattern from an error message', async () => {
    const { call, recording } = await callOnce(
      () => {
        throw new Error(`auth failed for ${API_KEY} with token tok_9f8e7d6c`);
      },
      { redact: [/tok_[a-z0-9]+/] },
    );
    expect(call.output).toBe('Error running emit: auth failed for [redacted] with token [redacted]');
    expect(recording.sentRaw.some((text) => text.includes(API_KEY) || text.includes('tok_9f8e'))).toBe(false);
  });

  it('redacts before cutting, so no part of a secret survives where the cut falls inside it', async () => {
    const prefix = 'Error running emit: ';
    const marker = (size: number) => truncationMarker(size);
    // Place the key so that a cut made before redaction would fall in its middle.
    const room = 4_096 - ENVELOPE_BYTES - jsonBytes(marker(600));
    const filler = 'x'.repeat(room - prefix.length - 10);
    const { call, recording } = await callOnce(
      () => {
        throw new Error(`${filler}${API_KEY}${'y'.repeat(600)}`);
      },
      { frameLimit: 4_096 },
    );
    const results = recording.sentRaw.filter((text) => text.includes('"tool_result"'));
    expect(results).toHaveLength(1);
    for (let start = 0; start + 5 <= API_KEY.length; start++) {
      expect(results[0]).not.toContain(API_KEY.slice(start, start + 5));
    }
    const full = `${prefix}${filler}[redacted]${'y'.repeat(600)}`;
    const kept = 4_096 - ENVELOPE_BYTES - jsonBytes(marker(utf8Length(full)));
    expect(call.output).toBe(`${full.slice(0, kept)}${marker(utf8Length(full))}`);
  });
});
