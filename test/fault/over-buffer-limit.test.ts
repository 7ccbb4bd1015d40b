/**
 * Frames larger than the client's `maxBufferedBytes`: written as they were, each one took the socket past the hard
 * limit by itself, so the client dropped it (1008), resumed, and wrote the same frame again, for ever. No frame the
 * client sends is larger now: results are cut to fit (the truncation marker with the true size), a question that
 * cannot be cut fails its call's wait, and `maxBufferedBytes` below any frame limit is refused.
 */
import { describe, expect, it } from 'vitest';
import { OptionsError, tool } from '../../src/index';
import { utf8Length } from '../../src/utf8';
import { encodeFrame } from '../../src/wire/codec';
import type { ServiceFrame } from '../../src/wire/protocol';
import { API_KEY, client, rawService, until } from './harness';

const call = (callId: string, toolName: string): Extract<ServiceFrame, { type: 'tool_call' }> => ({
  type: 'tool_call',
  callId,
  runId: 'run_big',
  toolName,
  arguments: {},
});

describe('frames larger than maxBufferedBytes', () => {
  it('cuts results to maxBufferedBytes when it is below the service limit: all delivered, no socket dropped', async () => {
    const service = await rawService();
    const big = tool({
      name: 'big',
      description: 'Returns 500,000 characters.',
      execute: (_input, ctx) => ctx.callId.slice(-1).repeat(500_000),
    });
    const worker = client(service.url, {
      tools: [big],
      highWaterMarkBytes: 16_384,
      maxBufferedBytes: 16_384,
    });
    const disconnects: Array<{ code: number; reason: string }> = [];
    worker.on('disconnected', (info) => disconnects.push(info));
    await worker.connect();
    service.sendAll([call('c1', 'big'), call('c2', 'big'), call('c3', 'big')]);
    await until(() => service.results().length, 3);
    await until(() => worker.stats.unacked, 0);
    for (const [index, result] of service.results().entries()) {
      expect(result.callId).toBe(`c${index + 1}`);
      expect(result.output?.endsWith('\n[truncated: the full output was 500000 bytes]')).toBe(true);
      expect(result.output?.startsWith(String(index + 1).repeat(1_000))).toBe(true);
      expect(utf8Length(encodeFrame(result))).toBeLessThanOrEqual(16_384);
    }
    expect(disconnects).toEqual([]);
    expect(service.connections()).toBe(1);
  });

  it('fails a question too large for maxBufferedBytes instead of dropping the socket for it again and again', async () => {
    const service = await rawService({ welcome: { features: ['questions'] } });
    let asked: unknown;
    const ask = tool({
      name: 'ask',
      description: 'Asks a long question.',
      execute: async (_input, ctx) => {
        try {
          // Quotes take two bytes each once encoded: a frame of about 28 KB, within every per-field limit.
          const quotes = (n: number) => `${'"'.repeat(n - 1)}?`;
          return await ctx.askQuestion(quotes(4_000), {
            choices: Array.from({ length: 50 }, (_, i) => `${i}${quotes(190)}`),
          });
        } catch (error) {
          asked = error;
          return 'no answer';
        }
      },
    });
    const worker = client(service.url, { tools: [ask], highWaterMarkBytes: 1_024, maxBufferedBytes: 16_384 });
    const disconnects: Array<{ code: number; reason: string }> = [];
    worker.on('disconnected', (info) => disconnects.push(info));
    await worker.connect();
    service.send(call('q1', 'ask'));
    await until(() => service.results().map((result) => result.output), ['no answer']);
    expect(asked).toMatchObject({
      name: 'QuestionError',
      message: expect.stringMatching(/^the question is \d+ bytes, over .*16384/),
    });
    expect(service.frames.filter((frame) => frame.type === 'question')).toEqual([]);
    expect(disconnects).toEqual([]);
  });

  it('refuses maxBufferedBytes below 1,024 (the smallest frame limit a service may announce), accepts 1,024', () => {
    const make = (maxBufferedBytes: number) =>
      client('ws://127.0.0.1:1', { apiKey: API_KEY, highWaterMarkBytes: 1_000, maxBufferedBytes });
    expect(() => make(1_023)).toThrow(OptionsError);
    expect(() => make(1_023)).toThrow(/maxBufferedBytes/);
    expect(() => make(1_024)).not.toThrow();
  });
});
