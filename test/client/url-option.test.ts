import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger, startStubServer } from '../../server-stub/index';
import { Client, OptionsError, tool } from '../../src/index';

/** `url` is a ws:// or wss:// URL, given as a string (its scheme in any case) or a URL object. */
const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'ok' });

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connectWith(url: (stubUrl: string) => string | URL): Promise<Client> {
  const server = await startStubServer({ apiKeys: ['url-test-key'], logger: silentLogger });
  cleanups.push(() => server.close());
  const client = new Client({
    url: url(server.url),
    apiKey: 'url-test-key',
    tools: [echo],
    reconnect: false,
  });
  cleanups.push(() => client.close({ drain: false }));
  await client.connect();
  return client;
}

describe('the url option', () => {
  it.each([
    ['a URL object', (stubUrl: string) => new URL(stubUrl)],
    ['an upper-case scheme', (stubUrl: string) => stubUrl.replace(/^ws:/, 'WS:')],
    ['a mixed-case scheme', (stubUrl: string) => stubUrl.replace(/^ws:/, 'Ws:')],
  ])('connects given %s', async (_case, url) => {
    const client = await connectWith(url);
    expect(client.state).toBe('open');
  });

  it.each([
    ['WSS://svc.example/ws'],
    ['Wss://svc.example/ws'],
    [new URL('wss://svc.example/ws')],
    [new URL('WS://svc.example/ws')],
  ])('accepts %s', (url) => {
    expect(() => new Client({ url, apiKey: 'k', tools: [echo] })).not.toThrow();
  });

  it.each([
    [new URL('https://svc.example/ws'), '"https://svc.example/ws"'],
    [new URLSearchParams('a=1'), 'a URLSearchParams'],
    [{ href: 'ws://svc.example/ws' }, 'an object'],
  ])('refuses %s, showing it as %s', (url, shown) => {
    expect(() => new Client({ url: url as never, apiKey: 'k', tools: [echo] })).toThrowError(
      new OptionsError(
        'invalid_option',
        `new Client(options): url must be a ws:// or wss:// URL without a fragment (#…), got ${shown}`,
      ),
    );
  });
});
