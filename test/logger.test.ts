/**
 * The default logger of a client (src/logger.ts `consoleErrorLogger`): its `error` lines reach stderr, redacted,
 * so that a client refused for good in a process that listens for no event still says why; nothing else does.
 */
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { Client, type ConnectionError, type Logger } from '../src/index';
import { consoleErrorLogger, logLine } from '../src/logger';
import { memorySocketPair } from './helpers/memory-socket';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('consoleErrorLogger', () => {
  it('writes error lines to console.error, with their fields as JSON, and discards the other levels', () => {
    const written = vi.spyOn(console, 'error').mockImplementation(() => {});
    for (const spied of ['warn', 'info', 'debug', 'log'] as const)
      vi.spyOn(console, spied).mockImplementation(() => expect.unreachable(`console.${spied}`));
    consoleErrorLogger.debug({ a: 1 }, 'debug line');
    consoleErrorLogger.info({ a: 1 }, 'info line');
    consoleErrorLogger.warn({ a: 1 }, 'warn line');
    consoleErrorLogger.error({ code: 'unauthorized' }, 'the client closed for good');
    consoleErrorLogger.error({}, 'no fields');
    expect(written.mock.calls).toEqual([
      ['[toolwire] error the client closed for good {"code":"unauthorized"}'],
      ['[toolwire] error no fields'],
    ]);
  });

  it('shows an Error field by its name and message (never its stack), a BigInt as digits, and survives a cycle', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(logLine('[p]', 'error', { err: new TypeError('bad'), n: 2n }, 'm')).toBe(
      '[p] error m {"err":{"name":"TypeError","message":"bad"},"n":"2"}',
    );
    expect(logLine('[p]', 'error', cyclic, 'm')).toBe('[p] error m [unserialisable]');
    expect(logLine('[p]', 'error', { a: 1 }, undefined)).toBe('[p] error {"a":1}');
  });
});

const KEY = 'sk-live-LOGGER-7Q2W-9X4Z';

/** A client linked in memory to a service that welcomes each hello, and the service's end of its socket. */
async function connected(options: { logger?: Logger } = {}) {
  const pair = memorySocketPair({
    onConnection(peer) {
      peer.onMessage = (text) => {
        if ((JSON.parse(text) as { type: string }).type !== 'hello') return;
        peer.send({
          type: 'welcome',
          sessionId: 's1',
          resumed: false,
          heartbeatIntervalMs: 15_000,
          maxPayloadBytes: 1_048_576,
        });
      };
    },
  });
  const client = new Client({
    url: 'ws://service.test',
    apiKey: KEY,
    tools: [],
    WebSocket: pair.WebSocket,
    ...options,
  });
  onTestFinished(() => client.close({ drain: false }));
  await client.connect();
  const peer = pair.peers[0];
  if (peer === undefined) throw new Error('no socket');
  return { client, peer };
}

describe('a client given no logger', () => {
  it('writes the error line of a refusal for good to stderr, the API key redacted', async () => {
    const written = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { client, peer } = await connected();
    const closed = new Promise<ConnectionError | undefined>((resolve) => client.once('closed', resolve));
    peer.close(4001, `key ${KEY} revoked`);
    expect(await closed).toMatchObject({ code: 'unauthorized' });
    expect(written.mock.calls).toEqual([
      [
        '[toolwire] error the client closed for good and serves no more calls: the service refused the connection (4001: key [redacted] revoked) {"code":"unauthorized"}',
      ],
    ]);
  });

  it('writes nothing to the console when given a logger', async () => {
    const written = vi.spyOn(console, 'error').mockImplementation(() => {});
    const lines: string[] = [];
    const logger = {
      debug() {},
      info() {},
      warn() {},
      error: (_fields: Record<string, unknown>, message: string) => lines.push(message),
    };
    const { client, peer } = await connected({ logger });
    const closed = new Promise((resolve) => client.once('closed', resolve));
    peer.close(4001, 'invalid API key');
    await closed;
    expect(lines).toEqual([
      'the client closed for good and serves no more calls: the service refused the connection (4001: invalid API key)',
    ]);
    expect(written).not.toHaveBeenCalled();
  });

  it('writes a listener that threw to stderr when no error listener hears it, or an error listener threw', async () => {
    const written = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { client, peer } = await connected();
    const closed = new Promise((resolve) => client.once('closed', resolve));
    client.on('closed', () => {
      throw new Error(`closed listener bug ${KEY}`);
    });
    peer.close(4001, 'invalid API key');
    await closed;
    // After the refusal's own line: the listener's, with its error (redacted, its stack to find the listener by).
    const lines = written.mock.calls.map(([line]) => String(line));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^\[toolwire\] error a "closed" listener threw \{"code":"listener_failed","error":\{"name":"Error","message":"closed listener bug \[redacted\]","stack":"Error: closed listener bug \[redacted\]\\n {4}at /,
    );
    expect(lines.join('\n')).not.toContain(KEY);

    written.mockClear();
    const second = await connected();
    const heard: unknown[] = [];
    second.client.on('error', (error) => {
      heard.push(error);
      throw new Error('error listener bug');
    });
    const secondClosed = new Promise((resolve) => second.client.once('closed', resolve));
    second.client.on('closed', () => {
      throw new Error('closed listener bug');
    });
    second.peer.close(4001, 'invalid API key');
    await secondClosed;
    // The error listener heard the refusal and the closed listener's failure, and threw at each.
    expect(heard).toEqual([
      expect.objectContaining({ code: 'unauthorized' }),
      expect.objectContaining({ code: 'listener_failed' }),
    ]);
    expect(written.mock.calls.map(([line]) => String(line).split(' {')[0])).toEqual([
      '[toolwire] error a "error" listener threw',
      '[toolwire] error the client closed for good and serves no more calls: the service refused the connection (4001: invalid API key)',
      '[toolwire] error a "error" listener threw',
    ]);
  });
});
