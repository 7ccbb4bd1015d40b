/**
 * Small write limits against the real stub over a real socket: with `highWaterMarkBytes` and `maxOutboxBytes`
 * smaller than one result, the client answers the calls it has no room for "busy" (those answers wait for the
 * socket to drain) and the service offers them again, so every call of a run completes. None is left to the
 * service's call deadline while the client sits idle.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import { Agent, tool } from '../../src/index';
import { client, stub } from './harness';

const cases = [
  { calls: 4, outputChars: 100, highWaterMarkBytes: 100, maxOutboxBytes: 10 },
  { calls: 4, outputChars: 100, highWaterMarkBytes: 1, maxOutboxBytes: 1 },
  { calls: 20, outputChars: 1_000, highWaterMarkBytes: 2_048, maxOutboxBytes: 2_048 },
  { calls: 20, outputChars: 1_000, highWaterMarkBytes: 16_384, maxOutboxBytes: 1_200 },
];

describe('a run whose calls outgrow small write limits', () => {
  for (const limits of cases) {
    const { calls, outputChars, ...options } = limits;
    it(`completes all ${calls} calls of ${outputChars} characters with highWaterMarkBytes ${options.highWaterMarkBytes}, maxOutboxBytes ${options.maxOutboxBytes}`, async () => {
      const service = await stub({
        callDeadlineMs: 60_000,
        // Offered again soon after a "busy": how soon does not change what is proved, only how long it takes.
        busyRetryMs: 20,
        model: scriptedModel([
          { toolCalls: Array.from({ length: calls }, (_, i) => ({ name: 'w', arguments: { i } })) },
          { text: 'done' },
        ]),
      });
      const w = tool({
        name: 'w',
        description: 'A result of outputChars characters.',
        parameters: { type: 'object', properties: { i: { type: 'integer' } }, required: ['i'] },
        execute: ({ i }: { i: number }) => String(i % 10).repeat(outputChars),
      });
      const worker = client(service.url, { tools: [w], ...options });
      await worker.connect();
      const result = await worker.run(new Agent({ name: 'A', instructions: 'x', tools: [w] }), 'go');
      expect(result.toolCalls.map((call) => call.status)).toEqual(Array.from({ length: calls }, () => 'ok'));
      expect(worker.stats).toEqual({ running: 0, queued: 0, waiting: 0, unacked: 0 });
    });
  }
});
