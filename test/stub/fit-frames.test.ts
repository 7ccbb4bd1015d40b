/**
 * A `run_result` and a `message` event cut to the frame limit (docs/protocol/runs.md, limits.md): what is cut, and
 * that no call and no text is lost for one large part.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fitRunEvent, fitRunResult } from '../../server-stub/fit-frame';
import { scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { Agent, Client, RunError, tool } from '../../src/node';
import { encodeFrame } from '../../src/wire/codec';
import type { FrameOf, ServiceFrame } from '../../src/wire/protocol';

type RunResult = FrameOf<ServiceFrame, 'run_result'>;

const LIMIT = 1_048_576;
const bytes = (frame: RunResult) => Buffer.byteLength(encodeFrame(frame));

function call(index: number, args: unknown, output = 'ok') {
  return { callId: `c${index}`, toolName: 'echo', arguments: args, status: 'ok', output, durationMs: 1 };
}

function result(toolCalls: RunResult['toolCalls']): RunResult {
  return { type: 'run_result', runId: 'r1', status: 'completed', finalOutput: 'done', toolCalls, turns: 2 };
}

describe('fitRunResult', () => {
  it('returns a frame that fits as it is', () => {
    const frame = result([call(1, { a: 1 })]);
    expect(fitRunResult(frame, LIMIT)).toBe(frame);
  });

  it('cuts large arguments to { truncated, bytes } and keeps every call, small ones whole', () => {
    const big = { s: 'y'.repeat(600_000) };
    const frame = result([
      call(1, { i: 1 }),
      call(2, big),
      call(3, big),
      call(4, { i: 2 }),
      call(5, { i: 3 }),
    ]);

    const fitted = fitRunResult(frame, LIMIT);

    expect(bytes(fitted)).toBeLessThanOrEqual(LIMIT);
    expect(fitted.toolCalls.map((entry) => entry.callId)).toEqual(['c1', 'c2', 'c3', 'c4', 'c5']);
    expect(fitted.toolCalls.map((entry) => entry.arguments)).toEqual([
      { i: 1 },
      { truncated: true, bytes: 600_008 },
      { truncated: true, bytes: 600_008 },
      { i: 2 },
      { i: 3 },
    ]);
    expect(fitted.toolCalls.every((entry) => entry.output === 'ok')).toBe(true);
    expect(fitted.finalOutput).toBe('done');
  });

  it('cuts the largest parts first, outputs and arguments alike, and leaves the small ones', () => {
    const frame = result([
      call(1, { s: 'a'.repeat(400_000) }, 'b'.repeat(700_000)),
      call(2, { s: 'c'.repeat(900 * 1024) }),
      call(3, { i: 1 }, 'x'.repeat(1_000)),
    ]);

    const fitted = fitRunResult(frame, LIMIT);

    expect(bytes(fitted)).toBeLessThanOrEqual(LIMIT);
    expect(fitted.toolCalls).toHaveLength(3);
    expect(fitted.toolCalls[1]!.arguments).toEqual({ truncated: true, bytes: 900 * 1024 + 8 });
    expect(fitted.toolCalls[0]!.output.length).toBeLessThan(700_000);
    expect(fitted.toolCalls[2]).toMatchObject({ arguments: { i: 1 }, output: 'x'.repeat(1_000) });
  });

  it('puts the size of a structured final output too large in its place, and keeps the calls', () => {
    const frame = { ...result([call(1, { i: 1 })]), finalOutput: { s: 'x'.repeat(2_000_000) } };
    const fitted = fitRunResult(frame, LIMIT);
    expect(bytes(fitted)).toBeLessThanOrEqual(LIMIT);
    expect(fitted.finalOutput).toEqual({ truncated: true, bytes: 2_000_008 });
    expect(fitted.toolCalls).toEqual([call(1, { i: 1 })]);
  });

  it('leaves calls out only when cutting every part is not enough', () => {
    const many = Array.from({ length: 20_000 }, (_, index) => call(index, { i: index }, 'o'.repeat(64)));
    const fitted = fitRunResult(result(many), LIMIT);
    expect(bytes(fitted)).toBeLessThanOrEqual(LIMIT);
    expect(fitted.toolCalls.length).toBeGreaterThan(0);
    expect(fitted.toolCalls.length).toBeLessThan(20_000);
  });
});

describe('fitRunEvent, message', () => {
  const message = (content: string, args: unknown[]): FrameOf<ServiceFrame, 'run_event'> => ({
    type: 'run_event',
    runId: 'r1',
    event: {
      kind: 'message',
      data: {
        role: 'assistant',
        content,
        toolCalls: args.map((value, index) => ({ id: `c${index}`, name: 'echo', arguments: value })),
        model: 'scripted',
      },
    },
  });
  const fittedBytes = (frame: FrameOf<ServiceFrame, 'run_event'>) => Buffer.byteLength(encodeFrame(frame));

  it("keeps the text and every call, cutting only the large calls' arguments", () => {
    const big = JSON.stringify({ s: 'y'.repeat(600_000) });
    const fitted = fitRunEvent(message('Calling the tools now.', ['{"i":1}', big, big]), LIMIT);
    // The size of the arguments as they were on the wire: a JSON string, its quotes escaped.
    const bytes = Buffer.byteLength(JSON.stringify(big));
    expect(fittedBytes(fitted)).toBeLessThanOrEqual(LIMIT);
    expect(fitted.event.data).toEqual({
      role: 'assistant',
      content: 'Calling the tools now.',
      toolCalls: [
        { id: 'c0', name: 'echo', arguments: '{"i":1}' },
        { id: 'c1', name: 'echo', arguments: { truncated: true, bytes } },
        { id: 'c2', name: 'echo', arguments: { truncated: true, bytes } },
      ],
      model: 'scripted',
    });
  });

  it('cuts a text too long with the truncation marker, and still keeps the calls', () => {
    const fitted = fitRunEvent(message('w'.repeat(2_000_000), [{ i: 1 }]), LIMIT);
    expect(fittedBytes(fitted)).toBeLessThanOrEqual(LIMIT);
    const data = fitted.event.data as { content: string; toolCalls: unknown[] };
    expect(data.content.length).toBeLessThan(2_000_000);
    expect(data.content.startsWith('www')).toBe(true);
    expect(data.toolCalls).toEqual([{ id: 'c0', name: 'echo', arguments: { i: 1 } }]);
  });
});

describe('client.run', () => {
  it("reports every call of a run when one call's arguments are too large for the result frame", async () => {
    const small = tool({ name: 'small', description: 'Answers tiny.', execute: () => 'tiny' });
    const echo = tool({ name: 'echo', description: 'Answers echoed.', execute: () => 'echoed' });
    const service = await startStubServer({
      logger: silentLogger,
      model: scriptedModel([
        {
          toolCalls: [
            { name: 'small', arguments: { i: 1 } },
            { name: 'echo', arguments: { s: 'y'.repeat(600_000) } },
            { name: 'echo', arguments: { s: 'z'.repeat(600_000) } },
            { name: 'small', arguments: { i: 2 } },
          ],
        },
        { text: 'final' },
      ]),
    });
    const client = new Client({ url: service.url, apiKey: 'k', tools: [small, echo], reconnect: false });
    const messages: unknown[] = [];
    try {
      await client.connect();
      const run = await client.run(new Agent({ name: 'A', tools: [small, echo] }), 'go', {
        onEvent: (event) => {
          if (event.kind === 'message') messages.push(event);
        },
      });
      // The first turn's message names all four calls; the large arguments are cut.
      expect(
        (messages[0] as { toolCalls: Array<{ name: string }> }).toolCalls.map((entry) => entry.name),
      ).toEqual(['small', 'echo', 'echo', 'small']);
      expect(run.finalOutput).toBe('final');
      expect(run.toolCalls.map((entry) => [entry.toolName, entry.output, entry.arguments]).sort()).toEqual(
        [
          ['echo', 'echoed', { truncated: true, bytes: 600_008 }],
          ['echo', 'echoed', { truncated: true, bytes: 600_008 }],
          ['small', 'tiny', { i: 1 }],
          ['small', 'tiny', { i: 2 }],
        ].sort(),
      );
    } finally {
      await client.close();
      await service.close();
    }
  });

  it('rejects with invalid_output naming the size when a structured final output is too large for a frame', async () => {
    const service = await startStubServer({
      logger: silentLogger,
      model: scriptedModel([{ text: JSON.stringify({ s: 'x'.repeat(1_100_000) }) }]),
    });
    const client = new Client({ url: service.url, apiKey: 'k', tools: [], reconnect: false });
    try {
      await client.connect();
      const agent = new Agent({ name: 'Writer', outputType: z.object({ s: z.string() }) });
      const error = await client.run(agent, 'go').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RunError);
      expect(error).toMatchObject({ code: 'invalid_output' });
      expect((error as Error).message).toMatch(
        /^the final output of Writer was 1100008 bytes, over the frame limit: .* run run_/,
      );
    } finally {
      await client.close();
      await service.close();
    }
  });
});
