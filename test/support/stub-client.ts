/**
 * A stub (key `test-key`, silent) and clients connected to it, closed after each test: the setup of the
 * integration tests that drive one client against the real stub.
 */
import { afterEach } from 'vitest';
import { type StubServer, silentLogger, startStubServer } from '../../server-stub/index';
import { Client, type ClientOptions } from '../../src/index';

/** Registers the cleanup (call it at the top level of a test file) and returns the two makers. */
export function useStubClients(): {
  stub: (options?: Parameters<typeof startStubServer>[0]) => Promise<StubServer>;
  connected: (url: string, options?: Partial<ClientOptions>) => Promise<Client>;
} {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    async stub(options = {}) {
      const server = await startStubServer({ apiKeys: ['test-key'], logger: silentLogger, ...options });
      cleanups.push(() => server.close());
      return server;
    },
    async connected(url, options = {}) {
      const created = new Client({ url, apiKey: 'test-key', tools: [], reconnect: false, ...options });
      cleanups.push(() => created.close({ drain: false }));
      await created.connect();
      return created;
    },
  };
}
