/**
 * A socket whose `send` throws for one frame (a WebSocket polyfill, an interceptor, a runtime quirk). Nothing it
 * throws may escape into the socket's event handlers: the throw is logged and reported, the socket is dropped,
 * and the client resumes on a new one.
 */
import { describe, expect, it } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { ConnectionError, tool } from '../../src/index';
import type { WebSocketConstructor } from '../../src/wire/transport';
import { recordingLogger } from './gateway';
import { client, nextEvent, onCleanup, until } from './harness';
import { type RawService, startRawService } from './raw-service';

async function rawService(): Promise<RawService> {
  const service = await startRawService();
  onCleanup(() => service.close());
  return service;
}

/** `ws`, whose `send` throws for the frames `refuse` picks (each frame's text is given). */
function throwingWebSocket(refuse: (text: string) => boolean): WebSocketConstructor {
  return class extends WsWebSocket {
    override send(data: unknown, ...rest: unknown[]): void {
      if (refuse(String(data))) throw new Error('this socket cannot send that');
      (super.send as (...args: unknown[]) => void)(data, ...rest);
    }
  } as unknown as WebSocketConstructor;
}

const echo = tool({
  name: 'echo',
  description: 'Echoes.',
  parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } as const,
  execute: ({ text }) => text,
});

const FAST = { initialDelayMs: 1, maxDelayMs: 5 };

describe('a send that throws', () => {
  it('is contained, reported, and the socket is dropped and resumed; the call error result goes out on the new socket', async () => {
    const service = await rawService();
    let throws = 1;
    const WebSocket = throwingWebSocket((text) => text.includes('"callId":"c1"') && throws-- > 0);
    const logger = recordingLogger();
    const worker = client(service.url, { tools: [echo], WebSocket, logger, reconnect: FAST });
    const errors: Error[] = [];
    worker.on('error', (error) => errors.push(error));
    await worker.connect();
    const resumed = nextEvent<{ resumed: boolean }>(worker, 'connected');
    service.send({
      type: 'tool_call',
      callId: 'c1',
      runId: 'r1',
      toolName: 'echo',
      arguments: { text: 'hi' },
    });
    expect(await resumed).toMatchObject({ resumed: true });
    // A frame the socket threw on is not sent again as it is: the call's error result takes its place, once.
    await until(
      () => service.results().map((result) => [result.callId, result.status, result.output]),
      [['c1', 'error', 'The result of echo could not be delivered: the connection failed while sending it.']],
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ConnectionError);
    expect(errors[0]).toMatchObject({
      code: 'send_failed',
      message:
        'a tool_result frame could not be sent (the socket threw: this socket cannot send that); the socket is dropped and the client reconnects',
    });
    expect((errors[0]?.cause as Error | undefined)?.message).toBe('this socket cannot send that');
    expect(logger.lines.some((line) => line.level === 'error' && line.message === errors[0]?.message)).toBe(
      true,
    );
    expect(worker.state).toBe('open');
  });

  it('throwing again while the outbox is re-sent after a reconnect: the result is dropped, and the client does not stay open and deaf', async () => {
    const service = await rawService();
    // The result of c1 throws on its first two sends: first when it is made, then in the re-send on welcome.
    let throws = 2;
    const WebSocket = throwingWebSocket((text) => text.includes('"callId":"c1"') && throws-- > 0);
    const worker = client(service.url, { tools: [echo], WebSocket, reconnect: FAST });
    worker.on('error', () => {});
    await worker.connect();
    service.send({
      type: 'tool_call',
      callId: 'c1',
      runId: 'r1',
      toolName: 'echo',
      arguments: { text: 'one' },
    });
    // Its error result (sent in its place on the new socket) throws too: it is dropped.
    await until(() => service.frames.filter((frame) => frame.type === 'hello').length, 3);
    // The client still answers on the socket it ended up with.
    service.send({
      type: 'tool_call',
      callId: 'c2',
      runId: 'r1',
      toolName: 'echo',
      arguments: { text: 'two' },
    });
    await until(() => service.results().map((result) => result.callId), ['c2']);
    expect(worker.state).toBe('open');
  });

  it('a pong that throws does not escape the message handler', async () => {
    const service = await rawService();
    let throws = 1;
    const WebSocket = throwingWebSocket((text) => text.includes('"pong"') && throws-- > 0);
    const worker = client(service.url, { WebSocket, reconnect: FAST });
    const errors: Error[] = [];
    worker.on('error', (error) => errors.push(error));
    await worker.connect();
    const resumed = nextEvent<{ resumed: boolean }>(worker, 'connected');
    service.send({ type: 'ping', id: 'p1' });
    expect(await resumed).toMatchObject({ resumed: true });
    expect(errors.map((error) => (error as ConnectionError).code)).toEqual(['send_failed']);
  });

  it('a hello that throws fails that attempt (reported), and the next attempt connects', async () => {
    const service = await rawService();
    let throws = 1;
    const WebSocket = throwingWebSocket((text) => text.includes('"hello"') && throws-- > 0);
    const worker = client(service.url, { WebSocket, reconnect: FAST });
    const errors: Error[] = [];
    worker.on('error', (error) => errors.push(error));
    await worker.connect();
    expect(errors.map((error) => [(error as ConnectionError).code, error.message])).toEqual([
      [
        'send_failed',
        'a hello frame could not be sent (the socket threw: this socket cannot send that); the socket is dropped and the client reconnects',
      ],
    ]);
    expect(worker.state).toBe('open');
  });
});
