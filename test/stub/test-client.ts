/**
 * A minimal protocol v1 client for the stub's integration tests, written from docs/protocol/index.md on top of
 * src/wire/protocol.ts and `ws`: it connects, keeps every frame it receives in order, and lets a test wait for the
 * next frame of a type. It optionally serves tool calls the way the protocol asks a client to (dedupe by
 * callId, an outbox until `ack`).
 */
import { WebSocket } from 'ws';
import { decodeServiceFrame, encodeFrame } from '../../src/wire/codec';
import {
  type ClientFrame,
  type FrameOf,
  PROTOCOL_VERSION,
  type ServiceFrame,
  SUBPROTOCOL,
  type ToolCallStatus,
  type ToolDefinition,
} from '../../src/wire/protocol';

/** How long `next()` waits before failing the test with a message (not a sleep: a failure bound). */
const WAIT_MS = 5_000;

export interface TestClientOptions {
  apiKey?: string;
  /** Where the key goes. @default 'header' */
  keyIn?: 'header' | 'hello';
  tools?: ToolDefinition[];
  sessionId?: string;
  localApprovals?: boolean;
  maxConcurrency?: number;
  /** `hello.maxQueue`: with `maxConcurrency`, the most calls the service sends at once. */
  maxQueue?: number;
  /** `hello.buildId` (docs/protocol/builds.md). */
  buildId?: string;
  /** `hello.runEventKinds`; absent, the client is one that knows only the first six kinds. */
  runEventKinds?: string[];
  protocol?: number;
  /** Offered subprotocols. @default ['toolwire.v1'] */
  subprotocols?: string[];
  /** Extra upgrade headers. */
  headers?: Record<string, string>;
  /** `false`: do not send hello on open. */
  hello?: boolean;
  /** `hello.features` (docs/protocol/index.md); absent: not sent, as an older client would. */
  features?: string[];
}

type Handler = (
  args: unknown,
  frame: FrameOf<ServiceFrame, 'tool_call'>,
) =>
  | string
  | { status?: ToolCallStatus; output: string; widget?: unknown }
  | Promise<string | { status?: ToolCallStatus; output: string; widget?: unknown }>;

type ServiceType = ServiceFrame['type'];

/** A tool definition with an empty parameter schema. */
export function toolDef(name: string, needsApproval = false): ToolDefinition {
  return {
    name,
    description: `the ${name} tool`,
    parameters: { type: 'object', properties: {} },
    needsApproval,
  };
}

export class TestClient {
  /** The current socket (a new one after {@link reconnect}). */
  ws!: WebSocket;
  /** Every decoded frame received, on every socket, in order. */
  readonly received: ServiceFrame[] = [];
  /** Raw texts that did not decode. */
  readonly undecodable: string[] = [];
  /** Tool calls executed by {@link serve}, by callId, with how many times each ran. */
  readonly executions = new Map<string, number>();
  welcome: FrameOf<ServiceFrame, 'welcome'> | undefined;
  /** Resolves with the close code and reason of the current socket. */
  closed!: Promise<{ code: number; reason: string }>;
  readonly #url: string;
  readonly #options: TestClientOptions;
  #consumed = new Set<number>();
  #waiters: Array<() => void> = [];
  #outbox = new Map<string, FrameOf<ClientFrame, 'tool_result'>>();
  #handlers: Record<string, Handler> | undefined;
  #isClosed = false;

  private constructor(url: string, options: TestClientOptions) {
    this.#url = url;
    this.#options = options;
    this.#attach(options.sessionId);
  }

  #attach(sessionId: string | undefined): void {
    const options = this.#options;
    const headers: Record<string, string> = { ...options.headers };
    if (options.apiKey !== undefined && (options.keyIn ?? 'header') === 'header') {
      headers.authorization = `Bearer ${options.apiKey}`;
    }
    const ws = new WebSocket(this.#url, options.subprotocols ?? [SUBPROTOCOL], { headers });
    this.ws = ws;
    this.#isClosed = false;
    ws.on('error', () => {});
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        if (this.ws === ws) this.#isClosed = true;
        resolve({ code, reason: reason.toString() });
        this.#wake();
      });
    });
    ws.on('message', (data) => {
      if (this.ws !== ws) return;
      const text = data.toString();
      const decoded = decodeServiceFrame(text);
      if (!decoded.ok) {
        this.undecodable.push(text);
        return;
      }
      const frame = decoded.frame;
      this.received.push(frame);
      if (frame.type === 'welcome') this.welcome = frame;
      if (frame.type === 'ping')
        this.send({ type: 'pong', ...(frame.id === undefined ? {} : { id: frame.id }) });
      if (frame.type === 'ack') {
        for (const callId of [frame.callId, ...(frame.callIds ?? [])]) {
          if (callId !== undefined) this.#outbox.delete(callId);
        }
      }
      if (frame.type === 'tool_call') for (const callId of frame.acks ?? []) this.#outbox.delete(callId);
      if (frame.type === 'tool_call' && this.#handlers) void this.#serveCall(frame);
      this.#wake();
    });
    if (options.hello !== false) {
      ws.on('open', () => {
        const hello: FrameOf<ClientFrame, 'hello'> = {
          type: 'hello',
          protocol: options.protocol ?? PROTOCOL_VERSION,
          sdk: { name: 'test-client', version: '0.0.0' },
          tools: options.tools ?? [],
        };
        if (sessionId !== undefined) hello.sessionId = sessionId;
        if (options.apiKey !== undefined && options.keyIn === 'hello') hello.apiKey = options.apiKey;
        if (options.localApprovals !== undefined) hello.localApprovals = options.localApprovals;
        if (options.maxConcurrency !== undefined) hello.maxConcurrency = options.maxConcurrency;
        if (options.maxQueue !== undefined) hello.maxQueue = options.maxQueue;
        if (options.buildId !== undefined) hello.buildId = options.buildId;
        if (options.features !== undefined) hello.features = options.features;
        if (options.runEventKinds !== undefined) hello.runEventKinds = options.runEventKinds;
        this.send(hello);
      });
    }
  }

  /**
   * What a client does after losing its socket: a new socket, `hello` with the session id, and, once `welcome`
   * arrives, every result still in the outbox sent again. Frames, executions and the outbox carry over.
   */
  async reconnect(): Promise<FrameOf<ServiceFrame, 'welcome'>> {
    const sessionId = this.welcome?.sessionId;
    if (!this.#isClosed) this.ws.terminate();
    this.#attach(sessionId);
    const welcome = await this.next('welcome');
    this.resendOutbox();
    return welcome;
  }

  /** Opens a socket and sends `hello`; does not wait for anything. */
  static open(url: string, options: TestClientOptions = {}): TestClient {
    return new TestClient(url, options);
  }

  /** Opens a socket, sends `hello` and resolves on `welcome`. */
  static async connect(url: string, options: TestClientOptions = {}): Promise<TestClient> {
    const client = new TestClient(url, options);
    await client.next('welcome');
    return client;
  }

  /** Resolves once the socket is open. */
  opened(): Promise<void> {
    if (this.ws.readyState === this.ws.OPEN) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('close', () => reject(new Error('closed before open')));
    });
  }

  get sessionId(): string {
    if (!this.welcome) throw new Error('no welcome yet');
    return this.welcome.sessionId;
  }

  send(frame: ClientFrame): void {
    this.sendRaw(encodeFrame(frame));
  }

  sendRaw(data: string | Buffer): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(data);
  }

  /**
   * The first frame of `type` (matching `where`) not yet returned by `next`, waiting for it if needed.
   * Rejects when the socket closes or after 5 s, naming what was awaited and what arrived.
   */
  async next<T extends ServiceType>(
    type: T,
    where: (frame: FrameOf<ServiceFrame, T>) => boolean = () => true,
  ): Promise<FrameOf<ServiceFrame, T>> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const index = this.received.findIndex(
        (frame, i) =>
          !this.#consumed.has(i) && frame.type === type && where(frame as FrameOf<ServiceFrame, T>),
      );
      if (index >= 0) {
        this.#consumed.add(index);
        return this.received[index] as FrameOf<ServiceFrame, T>;
      }
      if (this.#isClosed) throw new Error(`socket closed while waiting for ${type}; got ${this.#describe()}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${type} frame within ${WAIT_MS}ms; got ${this.#describe()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Every received frame of a type (consumed or not). */
  all<T extends ServiceType>(type: T): Array<FrameOf<ServiceFrame, T>> {
    return this.received.filter((frame): frame is FrameOf<ServiceFrame, T> => frame.type === type);
  }

  /** Answers a tool call and keeps the result in the outbox until `ack`. */
  result(callId: string, output: string, extra: Partial<FrameOf<ClientFrame, 'tool_result'>> = {}): void {
    const frame: FrameOf<ClientFrame, 'tool_result'> = {
      type: 'tool_result',
      callId,
      status: 'ok',
      output,
      ...extra,
    };
    this.#outbox.set(callId, frame);
    this.send(frame);
  }

  /** Results not yet acknowledged. */
  get unacked(): string[] {
    return [...this.#outbox.keys()];
  }

  /** Re-sends every result still in the outbox (what a client does after a reconnect). */
  resendOutbox(): void {
    for (const frame of this.#outbox.values()) this.send(frame);
  }

  /**
   * Serves tool calls automatically from now on (and those already received and not consumed): each callId runs
   * at most once; a re-delivered call is answered from the outbox; `approved: false` is answered `rejected`.
   */
  serve(handlers: Record<string, Handler>): this {
    this.#handlers = handlers;
    this.received.forEach((frame, index) => {
      if (frame.type === 'tool_call' && !this.#consumed.has(index)) void this.#serveCall(frame);
    });
    return this;
  }

  /** Closes with a normal close. */
  async close(code = 1000, reason = 'test done'): Promise<void> {
    if (!this.#isClosed) this.ws.close(code, reason);
    await this.closed;
  }

  /** Drops the TCP connection without a close handshake (a network failure, as the service sees it). */
  async drop(): Promise<void> {
    this.ws.terminate();
    await this.closed;
  }

  async #serveCall(frame: FrameOf<ServiceFrame, 'tool_call'>): Promise<void> {
    const held = this.#outbox.get(frame.callId);
    if (held) {
      this.send(held);
      return;
    }
    if (this.executions.has(frame.callId) && frame.approved === undefined) return;
    if (frame.approved === false) {
      this.result(
        frame.callId,
        `${frame.toolName} was not run: the user declined. Reason: ${frame.reason ?? ''}`,
        {
          status: 'rejected',
        },
      );
      return;
    }
    const handler = this.#handlers?.[frame.toolName];
    if (!handler) {
      this.result(frame.callId, `Tool "${frame.toolName}" not found.`, { status: 'unknown_tool' });
      return;
    }
    this.executions.set(frame.callId, (this.executions.get(frame.callId) ?? 0) + 1);
    const args =
      typeof frame.arguments === 'string' && frame.arguments !== ''
        ? JSON.parse(frame.arguments)
        : frame.arguments;
    const answer = await handler(args ?? {}, frame);
    const result = typeof answer === 'string' ? { output: answer } : answer;
    this.result(frame.callId, result.output, {
      status: result.status ?? 'ok',
      ...(result.widget === undefined ? {} : { widget: result.widget }),
    });
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #describe(): string {
    return this.received.map((frame) => frame.type).join(', ') || 'nothing';
  }
}
