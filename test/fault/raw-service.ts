/**
 * A bare protocol v1 service on `ws` over 127.0.0.1, for tests that need to send frames the stub never would
 * (a flood of calls, a cancel at an exact moment, no acks at all). It answers `hello` with `welcome` and `ping`
 * with `pong`, keeps every frame it receives, and leaves everything else to the test.
 */
import { type WebSocket, WebSocketServer } from 'ws';
import { decodeClientFrame, encodeFrame } from '../../src/wire/codec';
import type { ClientFrame, ServiceFrame } from '../../src/wire/protocol';

export interface RawService {
  readonly url: string;
  /** Every frame received, in order, on every connection. */
  readonly frames: ClientFrame[];
  /** The socket of the latest connection that said hello. */
  socket(): WebSocket;
  /** Sends one frame on the latest connection. */
  send(frame: ServiceFrame): void;
  /** Sends many frames at once, as fast as the socket takes them (one write each). */
  sendAll(frames: readonly ServiceFrame[]): void;
  /** `tool_result` frames received, in order. */
  results(): Array<Extract<ClientFrame, { type: 'tool_result' }>>;
  /** Close code and reason of every connection that ended, in order. */
  readonly closes: Array<{ code: number; reason: string }>;
  /** Connections accepted so far (said hello or not). */
  connections(): number;
  close(): Promise<void>;
}

export interface RawServiceOptions {
  /** @default 60_000 */
  heartbeatIntervalMs?: number;
  /** Announced in each `welcome` (read at each hello: a test may change it). @default 1_048_576 */
  maxPayloadBytes?: number;
  /** Closes with 1009 on any frame over this many bytes, whatever `maxPayloadBytes` says; the frame is not kept. */
  refuseOverBytes?: number;
  /** Answer every non-retryable `tool_result` with `ack`. @default true */
  ack?: boolean;
  /** Fields added to (or replacing those of) each `welcome`, as raw JSON (read at each hello). @default none */
  welcome?: Record<string, unknown>;
  /** Sent as is instead of each `welcome` (a string as a text frame, a Buffer as a binary one). @default none */
  welcomeText?: string | Buffer;
  /** Called for each new connection before anything is read from it (to misbehave before `welcome`). */
  onConnection?: (ws: WebSocket) => void;
  /** Accept permessage-deflate when the client offers it. @default false */
  deflate?: boolean;
  /**
   * Stop reading a connection once its `welcome` is sent (`ws.pause()`), when this returns `true` for it (`n`:
   * 1 for the first connection). The client's frames then wait in its socket. @default never
   */
  stallAfterWelcome?: (n: number) => boolean;
}

export async function startRawService(options: RawServiceOptions = {}): Promise<RawService> {
  const wss = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    handleProtocols: (protocols) => (protocols.has('toolwire.v1') ? 'toolwire.v1' : false),
    perMessageDeflate: options.deflate === true,
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const frames: ClientFrame[] = [];
  const closes: Array<{ code: number; reason: string }> = [];
  let accepted = 0;
  let current: WebSocket | undefined;
  wss.on('connection', (ws) => {
    accepted += 1;
    const n = accepted;
    ws.on('error', () => {});
    ws.on('close', (code, reason) => closes.push({ code, reason: String(reason) }));
    options.onConnection?.(ws);
    ws.on('message', (data) => {
      if (options.refuseOverBytes !== undefined && (data as Buffer).length > options.refuseOverBytes) {
        ws.close(1009, 'frame too big');
        return;
      }
      const decoded = decodeClientFrame(String(data));
      if (!decoded.ok) throw new Error(`the client sent an invalid frame: ${decoded.message}`);
      const frame = decoded.frame;
      frames.push(frame);
      if (frame.type === 'hello') {
        current = ws;
        const welcome = {
          type: 'welcome',
          sessionId: 'raw-session',
          resumed: frame.sessionId !== undefined,
          heartbeatIntervalMs: options.heartbeatIntervalMs ?? 60_000,
          maxPayloadBytes: options.maxPayloadBytes ?? 1_048_576,
        } as const;
        if (options.welcomeText !== undefined) ws.send(options.welcomeText);
        else
          ws.send(
            options.welcome ? JSON.stringify({ ...welcome, ...options.welcome }) : encodeFrame(welcome),
          );
        if (options.stallAfterWelcome?.(n) === true) ws.pause();
      } else if (frame.type === 'ping') {
        ws.send(encodeFrame({ type: 'pong', ...(frame.id === undefined ? {} : { id: frame.id }) }));
      } else if (frame.type === 'tool_result' && frame.retryable !== true && options.ack !== false) {
        ws.send(encodeFrame({ type: 'ack', callId: frame.callId }));
      }
    });
  });
  const port = (wss.address() as { port: number }).port;
  const socket = () => {
    if (!current) throw new Error('no client has said hello yet');
    return current;
  };
  return {
    url: `ws://127.0.0.1:${port}`,
    frames,
    closes,
    connections: () => accepted,
    socket,
    send: (frame) => socket().send(encodeFrame(frame)),
    sendAll(list) {
      const ws = socket();
      for (const frame of list) ws.send(encodeFrame(frame));
    },
    results: () =>
      frames.filter(
        (frame): frame is Extract<ClientFrame, { type: 'tool_result' }> => frame.type === 'tool_result',
      ),
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close(() => resolve());
      }),
  };
}
