/**
 * Setup shared by the long-call tests over the real stub (test/client: progress, preliminary results, tool events,
 * the lease): a stub whose model calls `export` and then repeats what the tool said, a client that reconnects
 * fast, a proxy to cut the connection, each closed after the test; and small waits.
 */
import {
  type StubServer,
  type StubServerOptions,
  scriptedModel,
  silentLogger,
  startStubServer,
} from '../../server-stub/index';
import { Client, type ClientOptions, type RunEvent } from '../../src/index';
import { afterTest } from './after-test';
import { startTcpProxy } from './tcp-proxy';

/** A stub (closed after the test); its model calls `export`, then answers with the tool's output. */
export async function stub(options: StubServerOptions = {}): Promise<StubServer> {
  const server = await startStubServer({
    logger: silentLogger,
    model: scriptedModel([
      { toolCalls: [{ name: 'export' }] },
      ({ messages }) => ({ text: messages.at(-1)?.content ?? '' }),
    ]),
    ...options,
  });
  afterTest(() => server.close());
  return server;
}

/** A client of `url` running `tools` (closed after the test), reconnecting within 5 to 50 ms. */
export function client(
  url: string,
  tools: ClientOptions['tools'],
  extra: Partial<ClientOptions> = {},
): Client {
  const made = new Client({
    url,
    apiKey: 'long-calls-test-key',
    tools,
    reconnect: { initialDelayMs: 5, maxDelayMs: 50 },
    ...extra,
  });
  afterTest(() => made.close({ drain: false }));
  return made;
}

/** A TCP proxy to `server` (closed after the test), to drop or black-hole the connection. */
export async function proxyTo(server: StubServer): Promise<Awaited<ReturnType<typeof startTcpProxy>>> {
  const proxy = await startTcpProxy({ targetPort: server.port });
  afterTest(() => proxy.close());
  return proxy;
}

/** A promise and the function that resolves it. */
export function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** The run events of `kind`, in order, without `kind`, `runId` and `seq` (what the wire frame's `data` held). */
export function dataOf<T>(events: readonly RunEvent[], kind: string): T[] {
  return events
    .filter((event) => event.kind === kind)
    .map(({ kind: _, runId: __, seq: ___, ...data }) => data as T);
}
