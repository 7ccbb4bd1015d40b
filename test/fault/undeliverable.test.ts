/**
 * Frames that never get through as they are: over the service's real limit (a service that announces more than
 * it accepts closes with 1009 on every one), or refused by the socket itself. A result becomes its call's error
 * result once, never an endless re-send; a run_start fails its run.
 */
import { describe, expect, it } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { Agent, RunError, tool } from '../../src/index';
import type { WebSocketConstructor } from '../../src/wire/transport';
import { recordingLogger } from './gateway';
import { client, nextEvent, onCleanup, until } from './harness';
import { type RawServiceOptions, startRawService } from './raw-service';

async function rawService(options: RawServiceOptions) {
  const service = await startRawService(options);
  onCleanup(() => service.close());
  return service;
}

const FAST = { initialDelayMs: 1, maxDelayMs: 5 };
const TOO_LARGE = 'The result of big could not be delivered: it was larger than the service accepts.';

const big = tool({
  name: 'big',
  description: 'Returns 20 KB.',
  execute: () => 'x'.repeat(20_000),
});

const call = { type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'big', arguments: {} } as const;

describe('a result the service refuses with 1009 though it announced a larger limit', () => {
  it('is replaced once by the call error result, which is delivered; no endless re-send', async () => {
    const service = await rawService({ refuseOverBytes: 10_240 });
    const logger = recordingLogger();
    const worker = client(service.url, { tools: [big], logger, reconnect: FAST });
    const errors: Error[] = [];
    worker.on('error', (error) => errors.push(error));
    await worker.connect();
    service.send(call);
    await until(
      () => service.results().map((result) => [result.callId, result.status, result.output]),
      [['c1', 'error', TOO_LARGE]],
    );
    await worker.close();
    expect(service.closes.filter((close) => close.code === 1009)).toHaveLength(1);
    expect(service.connections()).toBe(2);
    expect(errors.map((error) => (error as { code?: string }).code)).toEqual(['frame_too_large']);
    expect(logger.lines.filter((line) => line.level === 'warn' && line.object.callId === 'c1')).toEqual([
      {
        level: 'warn',
        object: { callId: 'c1', code: 'frame_too_large' },
        message: 'a call result could not be delivered; an error result is sent instead',
      },
    ]);
  });

  it('fails the run whose run_start the service refuses', async () => {
    const service = await rawService({ refuseOverBytes: 10_240 });
    const worker = client(service.url, { tools: [], reconnect: FAST });
    worker.on('error', () => {});
    await worker.connect();
    const agent = new Agent({ name: 'A', instructions: '', tools: [] });
    const running = worker.run(agent, 'y'.repeat(20_000));
    await expect(running).rejects.toBeInstanceOf(RunError);
    await expect(running).rejects.toMatchObject({ code: 'frame_too_large' });
    expect(service.frames.filter((frame) => frame.type === 'run_start')).toEqual([]);
  });
});

describe('a result that can never be sent', () => {
  it('drops the error result too when the socket refuses it, and logs at error', async () => {
    const service = await rawService({});
    const WebSocket = class extends WsWebSocket {
      override send(data: unknown, ...rest: unknown[]): void {
        if (String(data).includes('"callId":"c1"')) throw new Error('this socket cannot send that');
        (super.send as (...args: unknown[]) => void)(data, ...rest);
      }
    } as unknown as WebSocketConstructor;
    const logger = recordingLogger();
    const worker = client(service.url, { tools: [big], WebSocket, logger, reconnect: FAST });
    const errors: Error[] = [];
    worker.on('error', (error) => errors.push(error));
    await worker.connect();
    service.send(call);
    await until(
      () => logger.lines.filter((line) => line.object.callId === 'c1').map((line) => line.level),
      ['warn', 'error'],
    );
    await worker.close(); // drains: nothing is left waiting for an ack
    expect(service.results()).toEqual([]);
    expect(errors.map((error) => (error as { code?: string }).code)).toEqual(['send_failed', 'send_failed']);
  });
});

describe('a resumed session whose welcome brings a smaller maxPayloadBytes', () => {
  it('cuts the results still waiting for an ack to the new limit', async () => {
    const options: RawServiceOptions = { ack: false, maxPayloadBytes: 8_192 };
    const service = await rawService(options);
    const logger = recordingLogger();
    const worker = client(service.url, { tools: [big], reconnect: FAST, logger });
    await worker.connect();
    service.send(call);
    await until(() => service.results().length, 1);
    options.maxPayloadBytes = 4_096;
    const resumed = nextEvent(worker, 'connected');
    service.socket().terminate();
    await resumed;
    await until(() => service.results().length, 2);
    const again = service.results()[1];
    expect(again?.callId).toBe('c1');
    expect(Buffer.byteLength(JSON.stringify(again))).toBeLessThanOrEqual(4_096);
    expect(service.results()[0]?.output).toMatch(/\n\[truncated: the full output was 20000 bytes\]$/);
    // Cut again: the marker still states the full output's size, not the size of the first cut.
    expect(again?.output).toMatch(/^x+\n\[truncated: the full output was 20000 bytes\]$/);
    // Said once, with the call id and the sizes; never the output.
    const cut = logger.lines.filter((line) => line.message.includes('was cut to fit'));
    expect(cut).toEqual([
      {
        level: 'warn',
        object: {
          callId: 'c1',
          toolName: 'big',
          bytes: Buffer.byteLength(JSON.stringify(service.results()[0])),
          cutToBytes: Buffer.byteLength(JSON.stringify(again)),
          maxPayloadBytes: 4_096,
        },
        message: `the result of big (call c1) waiting for its ack is ${Buffer.byteLength(JSON.stringify(service.results()[0]))} bytes, over the resumed session's limit of 4096; it was cut to fit`,
      },
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain('xxxxxxxxxx');
  });
});
