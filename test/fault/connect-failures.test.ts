/**
 * Connection failures of every kind, each reported at once and truthfully: a `warn` log line and an `error`
 * event with the cause at every failed attempt; a refused key or protocol ends the client at once; with
 * `connect({ maxAttempts })`, `connect()` gives up after that many attempts instead of waiting `connectTimeoutMs`.
 */
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { Client, ConnectionError, OptionsError, ToolDefinitionError } from '../../src/index';
import type { WebSocketConstructor } from '../../src/wire/transport';
import {
  type Gateway,
  noSubprotocolServer,
  notHttpServer,
  OpaqueWebSocket,
  recordingLogger,
  refusedUrl,
  refusingGateway,
  switchableService,
  UnresolvableWebSocket,
} from './gateway';
import { API_KEY, client, nextEvent } from './harness';

const FAST = { initialDelayMs: 1, maxDelayMs: 5 };

/** A client that records its `error` events and log lines. */
function watched(url: string, options: Partial<ConstructorParameters<typeof Client>[0]> = {}) {
  const logger = recordingLogger();
  const worker = client(url, { reconnect: FAST, logger, ...options });
  const errors: ConnectionError[] = [];
  worker.on('error', (error) => errors.push(error as ConnectionError));
  const warnings = () => logger.lines.filter((line) => line.level === 'warn').map((line) => line.message);
  return { worker, errors, warnings };
}

async function rejection(promise: Promise<unknown>): Promise<ConnectionError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConnectionError);
  return error as ConnectionError;
}

describe('a failed attempt is reported at once, with its cause', () => {
  it('connection refused: an error event and a warn line at the first attempt, long before connectTimeoutMs', async () => {
    const url = await refusedUrl();
    const port = new URL(url).port;
    const { worker, errors, warnings } = watched(url);
    const first = nextEvent<ConnectionError>(worker, 'error');
    const connecting = worker.connect().catch((error: unknown) => error);
    const error = await first;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.code).toBe('connection_refused');
    expect(error.message).toBe(`${url}: connection refused (connect ECONNREFUSED 127.0.0.1:${port})`);
    expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
    expect(warnings()).toContain(`connection attempt 1 failed: ${error.message}`);
    // Still retrying (the refusal may be a service restarting); every attempt is reported.
    await nextEvent(worker, 'error');
    expect(worker.state).toBe('connecting');
    expect(errors.length).toBeGreaterThanOrEqual(2);
    await worker.close();
    expect(await connecting).toMatchObject({ code: 'closed' });
  });

  it('connect({ maxAttempts: 1 }) rejects after the first failed attempt, with that failure as the cause', async () => {
    const url = await refusedUrl();
    const { worker, errors } = watched(url);
    const error = await rejection(worker.connect({ maxAttempts: 1 }));
    expect(error.code).toBe('unreachable');
    expect(error.message).toBe(
      `cannot reach ${url} after 1 attempt: ${errors[0]?.message}; nothing accepts connections there: start the service (the stand-in: npx toolwire-stub) or check the url`,
    );
    expect(error.cause).toBe(errors[0]);
    expect(errors.map((e) => e.code)).toEqual(['connection_refused']);
    expect(worker.state).toBe('closed');
  });

  it('connect({ maxAttempts }) refuses what is not a whole number ≥ 1 or Infinity, before any attempt', async () => {
    for (const maxAttempts of [0, 1.5, Number.NaN, -1]) {
      const worker = new Client({ url: 'ws://127.0.0.1:1', apiKey: 'test-key', tools: [] });
      const error = await worker.connect({ maxAttempts }).catch((caught: unknown) => caught);
      // An option of a client method: an OptionsError (no tool definition is at fault).
      expect(error).toBeInstanceOf(OptionsError);
      expect(error).not.toBeInstanceOf(ToolDefinitionError);
      expect((error as Error).message).toBe(
        `client.connect(): maxAttempts must be a whole number ≥ 1 or Infinity, got ${String(maxAttempts)}`,
      );
      expect(worker.state).toBe('idle');
    }
  });

  it('host not found', async () => {
    const url = 'ws://nosuch.invalid:8787';
    const { worker, errors, warnings } = watched(url, { WebSocket: UnresolvableWebSocket });
    const error = await rejection(worker.connect({ maxAttempts: 2 }));
    expect(error.code).toBe('unreachable');
    expect(errors.map((e) => [e.code, e.message])).toEqual([
      ['host_not_found', `${url}: host not found (getaddrinfo ENOTFOUND nosuch.invalid)`],
      ['host_not_found', `${url}: host not found (getaddrinfo ENOTFOUND nosuch.invalid)`],
    ]);
    expect(warnings().filter((line) => line.includes('host not found'))).toHaveLength(2);
  });
});

describe('refused at the HTTP upgrade', () => {
  for (const status of [401, 403]) {
    it(`HTTP ${status} is a refused key: connect() rejects with unauthorized at once, with no retry`, async () => {
      const gateway = await refusingGateway(status);
      const { worker, errors } = watched(gateway.url);
      const closed = nextEvent<ConnectionError | undefined>(worker, 'closed');
      const error = await rejection(worker.connect());
      expect(error.code).toBe('unauthorized');
      expect(error.message).toBe(
        `${gateway.url}: the API key was refused at the WebSocket upgrade (HTTP ${status})`,
      );
      expect(errors).toEqual([error]);
      expect(await closed).toBe(error);
      expect(gateway.requests).toHaveLength(1);
      expect(gateway.requests[0]?.headers.authorization).toBe(`Bearer ${API_KEY}`);
    });
  }

  it.each([408, 429, 502, 503])(
    'HTTP %i (the service or its gateway not ready) is retried, each attempt reported with its status',
    async (status) => {
      const gateway = await refusingGateway(status);
      const { worker, errors } = watched(gateway.url);
      const error = await rejection(worker.connect({ maxAttempts: 3 }));
      expect(error.code).toBe('unreachable');
      expect(errors.map((e) => e.code)).toEqual(['upgrade_failed', 'upgrade_failed', 'upgrade_failed']);
      expect(errors[0]?.message).toBe(
        `${gateway.url}: the WebSocket upgrade was answered with HTTP ${status} instead of 101`,
      );
      expect(gateway.requests).toHaveLength(3);
    },
  );

  it.each([200, 400, 404, 426])(
    'HTTP %i is not a toolwire endpoint: connect() rejects at once with upgrade_failed, no retry',
    async (status) => {
      const gateway = await refusingGateway(status);
      const { worker, errors } = watched(gateway.url);
      const closed = nextEvent<ConnectionError | undefined>(worker, 'closed');
      const error = await rejection(worker.connect());
      expect(error.code).toBe('upgrade_failed');
      expect(error.message).toBe(
        `${gateway.url}: the WebSocket upgrade was answered with HTTP ${status} instead of 101: no toolwire service answers at this URL (is it right?)`,
      );
      expect(errors).toEqual([error]);
      expect(await closed).toBe(error);
      expect(gateway.requests).toHaveLength(1);
    },
  );

  it('a 3xx redirect names where it points (WebSocket clients do not follow redirects), at once', async () => {
    const gateway = await refusingGateway(301, { Location: 'wss://elsewhere.test/v1/ws' });
    const { worker, errors } = watched(gateway.url);
    const error = await rejection(worker.connect());
    expect(errors.map((e) => [e.code, e.message])).toEqual([
      [
        'upgrade_failed',
        `${gateway.url}: the WebSocket upgrade was answered with HTTP 301 instead of 101 (a redirect to wss://elsewhere.test/v1/ws: use that URL; WebSocket clients do not follow redirects)`,
      ],
    ]);
    expect(errors).toEqual([error]);
    expect(gateway.requests).toHaveLength(1);
  });

  it('no subprotocol selected: not a toolwire service; unsupported_protocol at once, no retry', async () => {
    const server: Gateway = await noSubprotocolServer();
    const { worker, errors } = watched(server.url);
    const error = await rejection(worker.connect());
    expect(error.code).toBe('unsupported_protocol');
    expect(error.message).toBe(
      `${server.url}: the service did not select the subprotocol toolwire.v1, so it does not speak this protocol (is the URL right?)`,
    );
    expect(errors).toEqual([error]);
    expect(server.requests).toHaveLength(1);
  });

  it('a runtime WebSocket that cannot send headers and gives no reason: reported as such, and retried', async () => {
    const gateway = await refusingGateway(401);
    const { worker, errors } = watched(gateway.url, {
      WebSocket: OpaqueWebSocket as unknown as WebSocketConstructor,
    });
    const error = await rejection(worker.connect({ maxAttempts: 2 }));
    expect(error.code).toBe('unreachable');
    expect(errors.map((e) => e.code)).toEqual(['connection_failed', 'connection_failed']);
    expect(errors[0]?.message).toBe(
      `${gateway.url}: the connection failed before the WebSocket upgrade completed; this runtime's WebSocket gives no reason (connection refused, host not found, TLS, or an HTTP status such as 401 from a gateway). It cannot send headers either, so the API key travels in hello, not in an Authorization header`,
    );
    expect(gateway.requests.map((request) => request.headers.authorization)).toEqual([undefined, undefined]);
  });

  it('another subprotocol selected: unsupported_protocol at once, no retry', async () => {
    const server = await noSubprotocolServer('toolwire.v2');
    const { worker } = watched(server.url);
    const error = await rejection(worker.connect());
    expect(error.code).toBe('unsupported_protocol');
    expect(server.requests).toHaveLength(1);
  });
});

describe('not toolwire, once a session worked at the address', () => {
  it.each([
    [404, 'upgrade_failed'],
    ['no subprotocol', 'unsupported_protocol'],
    ['not JSON', 'invalid_welcome'],
  ] as const)(
    '%s: retried under reconnect, each attempt reported; the session resumes when the service is back',
    async (answer, code) => {
      const service = await switchableService();
      const { worker, errors } = watched(service.url);
      await worker.connect();
      service.answer(answer);
      const twice = nextEvent(worker, 'error', () => errors.filter((e) => e.code === code).length === 2);
      service.dropAll();
      await twice;
      expect(worker.state).toBe('reconnecting');
      expect(new Set(errors.map((e) => e.code))).toEqual(new Set([code]));
      const back = nextEvent<{ resumed: boolean }>(worker, 'connected');
      service.answer('toolwire');
      expect(await back).toMatchObject({ resumed: true });
      expect(worker.state).toBe('open');
    },
  );

  it('a close 4002 (the service refuses the protocol version) still ends the client', async () => {
    const service = await switchableService();
    const { worker } = watched(service.url);
    await worker.connect();
    const closed = nextEvent<ConnectionError | undefined>(worker, 'closed');
    service.answer(4002);
    service.dropAll();
    expect(await closed).toMatchObject({ code: 'unsupported_protocol' });
    expect(worker.state).toBe('closed');
  });
});

describe('not a WebSocket server at all', () => {
  it('a server that does not speak HTTP: network_error naming what the runtime saw, retried', async () => {
    const url = await notHttpServer('SSH-2.0-OpenSSH_9.6\r\n');
    const { worker, errors } = watched(url);
    await rejection(worker.connect({ maxAttempts: 2 }));
    expect(errors.map((e) => e.code)).toEqual(['network_error', 'network_error']);
    expect(errors[0]?.message).toMatch(new RegExp(`^${url}: the connection failed \\(.+\\)$`));
  });

  it('a connection reset during the upgrade: network_error (ECONNRESET), retried', async () => {
    const url = await notHttpServer('reset');
    const { worker, errors } = watched(url);
    await rejection(worker.connect({ maxAttempts: 2 }));
    expect(errors.map((e) => e.code)).toEqual(['network_error', 'network_error']);
    expect((errors[0]?.cause as { code?: string } | undefined)?.code).toBe('ECONNRESET');
  });

  it('a URL the runtime refuses outright: invalid_url at once, naming why', async () => {
    const worker = new Client({
      url: 'ws://exa mple.test',
      apiKey: 'test-key',
      tools: [],
      WebSocket: UnresolvableWebSocket,
    });
    const error = await rejection(worker.connect());
    expect(error.code).toBe('invalid_url');
    expect(error.message).toBe('cannot open ws://exa mple.test: Invalid URL: ws://exa mple.test');
  });
});

/**
 * A WHATWG-shaped WebSocket whose failed attempts are described as Bun describes them: an `error` event with a
 * `message` (and an `error`) that quote the URL whole, query included.
 */
function talkativeWebSocket(message: (url: string) => string): WebSocketConstructor {
  return class {
    onopen: ((event: unknown) => void) | null = null;
    onmessage: ((event: { data: unknown }) => void) | null = null;
    onclose: ((event: { code: number; reason: string }) => void) | null = null;
    onerror: ((event: unknown) => void) | null = null;
    readyState = 0;
    bufferedAmount = 0;
    constructor(url: string) {
      setTimeout(() => {
        const text = message(url);
        // Deno's error is a DOMException: its `code` is a number (19, NETWORK_ERR), not a Node error code.
        this.onerror?.({ type: 'error', message: text, error: Object.assign(new Error(text), { code: 19 }) });
        this.readyState = 3;
        this.onclose?.({ code: 1006, reason: '' });
      }, 0);
    }
    send(): void {}
    close(): void {}
  } as unknown as WebSocketConstructor;
}

describe("a runtime's own words about a failed attempt", () => {
  it('never quote the URL’s query or userinfo: errors, their causes and log lines', async () => {
    const url = 'ws://user:pa55word@127.0.0.1:1/v1/ws?token=QSECRET-42';
    const { worker, errors, warnings } = watched(url, {
      WebSocket: talkativeWebSocket(
        (given) => `WebSocket connection to '${given}' failed: Failed to connect`,
      ),
    });
    const error = await rejection(worker.connect({ maxAttempts: 2 }));
    expect(errors[0]?.message).toBe(
      "ws://[redacted]@127.0.0.1:1/v1/ws?[redacted]: the connection failed (WebSocket connection to 'ws://[redacted]@127.0.0.1:1/v1/ws?[redacted]' failed: Failed to connect)",
    );
    const seen = JSON.stringify([
      error.message,
      String(error.cause),
      errors.map((e) => [e.message, String(e.cause), String((e.cause as Error | undefined)?.stack)]),
      warnings(),
    ]);
    for (const secret of ['QSECRET', 'pa55word']) expect(seen).not.toContain(secret);
  });

  it('"Mismatch client protocol" (Bun): unsupported_protocol at once, no retry', async () => {
    let attempts = 0;
    const { worker } = watched('ws://127.0.0.1:1/v1/ws', {
      WebSocket: talkativeWebSocket(() => {
        attempts += 1;
        return 'Mismatch client protocol';
      }),
    });
    const error = await rejection(worker.connect());
    expect(error.code).toBe('unsupported_protocol');
    expect(attempts).toBe(1);
  });
});

describe("Deno's words for a failed attempt", () => {
  it.each([
    [
      'failed to connect to WebSocket: tcp connect error: Connection refused (os error 111)',
      'connection_refused',
    ],
    ['failed to connect to WebSocket: dns error', 'host_not_found'],
    // Deno 2.9 (its cause left out; an unreachable host reads the same): ../wire/attempt-failure.test.ts.
    ['failed to connect to WebSocket: tcp connect error', 'connection_refused'],
  ])('%s: %s', async (message, code) => {
    const { worker, errors } = watched('ws://127.0.0.1:1/v1/ws', {
      WebSocket: talkativeWebSocket(() => message),
    });
    await rejection(worker.connect({ maxAttempts: 1 }));
    expect(errors.map((error) => error.code)).toEqual([code]);
  });
});

describe('a client given no logger, whose first attempt fails', () => {
  const refusing = talkativeWebSocket(
    () => 'failed to connect to WebSocket: tcp connect error: Connection refused (os error 111)',
  );
  const url = 'ws://127.0.0.1:1/v1/ws?token=QSECRET-42';

  /** What reaches `console.warn` while `connect()` fails `attempts` times, then is closed. */
  async function consoleWarnings(options: Partial<ConstructorParameters<typeof Client>[0]>, attempts = 3) {
    const written = vi.spyOn(console, 'warn').mockImplementation(() => {});
    onTestFinished(() => written.mockRestore());
    const worker = client(url, { reconnect: FAST, WebSocket: refusing, ...options });
    let failed = 0;
    const enough = new Promise<void>((resolve) =>
      worker.on('error', () => {
        failed += 1;
        if (failed === attempts) resolve();
      }),
    );
    const connecting = worker.connect().catch((error: unknown) => error);
    await enough;
    await worker.close();
    expect(await connecting).toMatchObject({ code: 'closed' });
    return written.mock.calls.map((call) => call.map(String).join(' '));
  }

  it('says so on the console once, with the address, the cause and the wait, and nothing at later attempts', async () => {
    expect(await consoleWarnings({})).toEqual([
      '[toolwire] warn connection attempt 1 failed: ws://127.0.0.1:1/v1/ws?[redacted]: connection refused (failed to connect to WebSocket: tcp connect error: Connection refused (os error 111)); nothing accepts connections there: start the service (the stand-in: npx toolwire-stub) or check the url; trying again until connect() gives up after 30000 ms (connectTimeoutMs); give the client a logger to see every attempt {"code":"connection_refused"}',
    ]);
  });

  it('leaves the console alone when given a logger (which has a warn line for every attempt)', async () => {
    const logger = recordingLogger();
    expect(await consoleWarnings({ logger })).toEqual([]);
    expect(logger.lines.filter((line) => line.level === 'warn')).toHaveLength(3);
  });

  it('names the attempts connect() gives up after, when it has a number of them', async () => {
    const written = vi.spyOn(console, 'warn').mockImplementation(() => {});
    onTestFinished(() => written.mockRestore());
    const worker = client(url, { reconnect: FAST, WebSocket: refusing });
    await rejection(worker.connect({ maxAttempts: 3 }));
    expect(written.mock.calls.map((call) => call.map(String).join(' '))).toEqual([
      '[toolwire] warn connection attempt 1 failed: ws://127.0.0.1:1/v1/ws?[redacted]: connection refused (failed to connect to WebSocket: tcp connect error: Connection refused (os error 111)); nothing accepts connections there: start the service (the stand-in: npx toolwire-stub) or check the url; trying again until connect() gives up after 3 attempts or 30000 ms (connectTimeoutMs); give the client a logger to see every attempt {"code":"connection_refused"}',
    ]);
  });

  it('says nothing when connect() gives up at that attempt (its rejection says it)', async () => {
    const written = vi.spyOn(console, 'warn').mockImplementation(() => {});
    onTestFinished(() => written.mockRestore());
    const worker = client(url, { reconnect: FAST, WebSocket: refusing });
    await rejection(worker.connect({ maxAttempts: 1 }));
    expect(written).not.toHaveBeenCalled();
  });
});
