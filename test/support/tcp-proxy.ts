/**
 * A TCP proxy on loopback for fault injection: sits between a client and the stub and can drop every
 * connection, blackhole traffic (stop forwarding without closing, so only a heartbeat notices), delay it, and
 * record every byte that crossed it.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface ProxyOptions {
  /** Target port on 127.0.0.1. */
  targetPort: number;
  /** Keep a copy of everything forwarded in each direction. @default false */
  record?: boolean;
}

export interface TcpProxy {
  /** `ws://127.0.0.1:PORT` of the proxy. */
  readonly url: string;
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Destroys every open connection (both sides), as a network failure would. */
  dropAll(): void;
  /** While on, bytes are swallowed in both directions and connections stay open. New connections are blackholed too. */
  blackhole(on: boolean): void;
  /** Adds this many milliseconds before forwarding each chunk. */
  delay(ms: number): void;
  /** Everything forwarded (when `record`), decoded as latin1 so any byte survives. */
  recorded(): string;
  close(): Promise<void>;
}

export async function startTcpProxy(options: ProxyOptions): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  const chunks: Buffer[] = [];
  let holed = false;
  let delayMs = 0;
  let accepted = 0;
  const forward = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (holed) return;
      if (options.record) chunks.push(Buffer.from(chunk));
      if (delayMs > 0) setTimeout(() => to.writable && to.write(chunk), delayMs);
      else if (to.writable) to.write(chunk);
    });
  };
  const server: Server = createServer((inbound) => {
    accepted += 1;
    const outbound = connect(options.targetPort, '127.0.0.1');
    const pair: [Socket, Socket] = [inbound, outbound];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      inbound.destroy();
      outbound.destroy();
    };
    for (const socket of pair) {
      socket.on('error', end);
      socket.on('close', end);
    }
    forward(inbound, outbound);
    forward(outbound, inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const dropAll = () => {
    for (const [a, b] of [...pairs]) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };
  return {
    url: `ws://127.0.0.1:${port}`,
    port,
    get accepted() {
      return accepted;
    },
    dropAll,
    blackhole(on) {
      holed = on;
    },
    delay(ms) {
      delayMs = ms;
    },
    recorded: () => Buffer.concat(chunks).toString('latin1'),
    close() {
      dropAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
