/**
 * Which web pages may call the HTTP API and open the WebSocket (docs/protocol/http-api.md): the stub's own (the
 * agent UI), the origins of `corsOrigins`, and no other, even on a stub that accepts any key; and, on a loopback
 * bind, only requests addressed to a loopback name (a page that renames 127.0.0.1 is of no origin of the stub).
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { scriptedModel, startStubServer } from '../../server-stub/index';
import { reachableWithoutKeys } from '../../server-stub/web-pages';
import { agent, once, stub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const refundModel = () =>
  scriptedModel([{ toolCalls: [{ name: 'refund', arguments: { amount: 42 } }] }, { text: 'done' }]);

/**
 * A request as a browser sends it from a page of `origin` (`undefined`: no `Origin`, as curl or a server), its body
 * as `type` (text/plain: what a page may send another origin without a preflight).
 */
async function fromPage(
  url: string,
  origin: string | undefined,
  method = 'GET',
  body?: unknown,
  type = 'text/plain',
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const headers: Record<string, string> = { authorization: 'Bearer anything' };
  if (origin !== undefined) headers.origin = origin;
  if (body !== undefined) headers['content-type'] = type;
  const response = await fetch(url, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  const json = response.headers.get('content-type')?.startsWith('application/json') === true;
  return { status: response.status, body: json ? JSON.parse(text) : undefined, headers: response.headers };
}

describe('requests from web pages', () => {
  it('refuses a page of another origin on a stub that accepts any key, and sends it no CORS header', async () => {
    const server = await stub({ model: refundModel() });
    track(await TestClient.connect(server.url, { tools: [toolDef('refund', true)] }));
    const runId = server.runs.start(agent('a', ['refund']), 'go');
    const requested = await once(
      server,
      'run_event',
      (info) => info.runId === runId && info.kind === 'approval_requested',
    );
    const { callId } = requested.data as { callId: string };
    const evil = 'http://evil.example:8080';
    const refusal = {
      error: {
        code: 'origin_not_allowed',
        message: `requests from web pages of "${evil}" are not allowed: start the stub with corsOrigins (--cors ${evil}) to let that origin in`,
      },
    };
    for (const [method, path, body] of [
      ['GET', '/v1/runs', undefined],
      ['GET', `/v1/runs/${runId}`, undefined],
      ['GET', `/v1/runs/${runId}/events`, undefined],
      ['POST', '/v1/runs', { agent: agent('b', ['refund']), input: 'x' }],
      ['POST', `/v1/runs/${runId}/approvals/${callId}`, { approved: true, arguments: { amount: 99999 } }],
      ['OPTIONS', `/v1/runs/${runId}/approvals/${callId}`, undefined],
      ['GET', '/v1/admin/keys', undefined],
    ] as const) {
      const answer = await fromPage(`${server.httpUrl}${path}`, evil, method, body);
      expect({ method, path, status: answer.status, body: answer.body }).toEqual({
        method,
        path,
        status: 403,
        body: refusal,
      });
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    }
    // A sandboxed frame or a file: page says `null`: not an origin --cors could let in.
    expect(await fromPage(`${server.httpUrl}/v1/runs`, 'null')).toMatchObject({
      status: 403,
      body: {
        error: {
          code: 'origin_not_allowed',
          message:
            'requests from web pages of "null" are not allowed: serve the page over http(s) and start the stub with corsOrigins (--cors <its origin>)',
        },
      },
    });
    expect(server.runs.get(runId)?.toolCalls[0]?.state).toBe('awaiting_approval');
    expect(server.runs.list()).toHaveLength(1);
    // The page itself and the health check are static and carry no data: any page may load them.
    expect((await fromPage(`${server.httpUrl}/`, evil)).status).toBe(200);
    expect((await fromPage(`${server.httpUrl}/v1/health`, evil)).status).toBe(200);
  });

  it("serves the stub's own pages (the agent UI) and clients that send no Origin", async () => {
    const server = await stub({ model: refundModel() });
    track(await TestClient.connect(server.url, { tools: [toolDef('refund', true)] }));
    const own = new URL(server.httpUrl).origin;
    // As the agent UI sends it (a page's text/plain body, sent without a preflight, would be refused 415).
    const started = await fromPage(
      `${server.httpUrl}/v1/runs`,
      own,
      'POST',
      { agent: agent('a', ['refund']), input: 'go' },
      'application/json',
    );
    expect(started.status).toBe(201);
    const { runId } = started.body as { runId: string };
    expect((await fromPage(`${server.httpUrl}/v1/runs/${runId}`, undefined)).status).toBe(200);
    expect(
      (await fromPage(`${server.httpUrl}/v1/runs`, own)).headers.get('access-control-allow-origin'),
    ).toBeNull();
  });

  it('lets the origins of corsOrigins in, with CORS headers naming the origin', async () => {
    const server = await stub({ corsOrigins: ['http://localhost:5173'] });
    const allowed = await fromPage(`${server.httpUrl}/v1/runs`, 'http://localhost:5173');
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(allowed.headers.get('vary')).toBe('origin');
    const preflight = await fromPage(`${server.httpUrl}/v1/runs`, 'http://localhost:5173', 'OPTIONS');
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
    expect((await fromPage(`${server.httpUrl}/v1/runs`, 'http://localhost:5174')).status).toBe(403);
  });

  it('refuses a corsOrigins entry that is not an origin, naming it', async () => {
    await expect(startStubServer({ corsOrigins: ['http://localhost:5173/app'] })).rejects.toThrow(
      'startStubServer: corsOrigins[0] must be an origin, scheme://host[:port] with no path (e.g. "http://localhost:5173"), got "http://localhost:5173/app"',
    );
    for (const given of [
      '*',
      'null',
      'localhost:5173',
      'http://me@localhost:5173',
      'http://localhost:5173/?x',
      'ws://localhost:5173',
    ])
      await expect(startStubServer({ corsOrigins: [given] }), given).rejects.toThrow(
        'corsOrigins[0] must be an origin',
      );
  });

  it('takes an origin as copied from the address bar: a trailing slash, capitals, the default port', async () => {
    const server = await stub({ corsOrigins: ['HTTP://LocalHost:5173/', 'http://app.test:80'] });
    expect((await fromPage(`${server.httpUrl}/v1/runs`, 'http://localhost:5173')).status).toBe(200);
    // A browser leaves the default port out of Origin.
    expect((await fromPage(`${server.httpUrl}/v1/runs`, 'http://app.test')).status).toBe(200);
  });
});

/** An HTTP GET with the headers given as they are (`fetch` cannot set `Host`): status and error code. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; code?: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      url,
      { headers: { authorization: 'Bearer anything', ...headers } },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () => {
          const code = text.startsWith('{')
            ? (JSON.parse(text) as { error?: { code: string } }).error?.code
            : undefined;
          resolve({ status: response.statusCode ?? 0, ...(code === undefined ? {} : { code }) });
        });
      },
    );
    sent.on('error', reject);
    sent.end();
  });
}

/**
 * Sends `text` as it is over a new TCP connection (what `http.request` cannot: two `Host` headers, a target it
 * would rewrite) and reads the first response: its status and its JSON body, if any.
 */
function raw(port: string, text: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(text));
    let received = '';
    const done = () => {
      const [head = '', body = ''] = received.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      resolve({ status, body: body.startsWith('{') ? JSON.parse(body) : undefined });
      socket.destroy();
    };
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      // A 101 keeps the socket open: its head is the whole answer.
      if (received.startsWith('HTTP/1.1 101') && received.includes('\r\n\r\n')) done();
    });
    socket.on('end', done);
    socket.on('error', reject);
  });
}

/** Opens a WebSocket with these headers: `open`, or the HTTP status of the refused upgrade. */
function upgrade(url: string, headers: Record<string, string>): Promise<'open' | number> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url, 'toolwire.v1', { headers: { authorization: 'Bearer k', ...headers } });
    socket.on('open', () => {
      socket.close();
      resolve('open');
    });
    socket.on('unexpected-response', (_, response) => {
      resolve(response.statusCode ?? 0);
      response.resume();
    });
    socket.on('error', () => undefined);
  });
}

describe('pages that rename 127.0.0.1, and WebSockets of other pages', () => {
  it('answers only requests addressed to a loopback name on a loopback bind (DNS rebinding)', async () => {
    const server = await stub({});
    const { port } = new URL(server.httpUrl);
    // A page at http://evil.example:<port> whose name resolves to 127.0.0.1: of its own origin, by its own name.
    const renamed = { host: `evil.example:${port}`, origin: `http://evil.example:${port}` };
    expect(await rawGet(`${server.httpUrl}/v1/runs`, renamed)).toEqual({
      status: 403,
      code: 'host_not_allowed',
    });
    expect(await rawGet(`${server.httpUrl}/v1/runs`, { host: `evil.example:${port}` })).toEqual({
      status: 403,
      code: 'host_not_allowed',
    });
    expect(await upgrade(server.url, renamed)).toBe(403);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `app.localhost:${port}`, `[::1]:${port}`])
      expect((await rawGet(`${server.httpUrl}/v1/runs`, { host })).status).toBe(200);
    expect(await upgrade(server.url, { host: `localhost:${port}` })).toBe('open');
    // Each refusal is logged once, with its fix (a refused page polls every few seconds).
    const refusals = server.log.filter((line) => line.message.startsWith('refused a request'));
    expect(refusals.map((line) => line.message)).toEqual([
      `refused a request: the stub is bound to 127.0.0.1 and answers only requests addressed to a loopback name (localhost, 127.0.0.1, [::1]), not "evil.example:${port}": open it as http://localhost with the same port, or start the stub with --host set to the address that name reaches`,
    ]);
  });

  it('refuses a request with two Host headers, whichever comes first, HTTP routes and upgrades alike', async () => {
    const server = await stub({ corsOrigins: ['http://localhost:5173'] });
    const { port } = new URL(server.httpUrl);
    const twice = {
      error: { code: 'invalid_request', message: 'the request has 2 Host headers; HTTP allows one' },
    };
    const ws =
      'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: toolwire.v1\r\n';
    for (const [first, second] of [
      [`localhost:${port}`, `evil.example:${port}`],
      [`evil.example:${port}`, `localhost:${port}`],
    ])
      for (const [request, head] of [
        ['GET /v1/runs', ''],
        ['GET /v1/health', ''],
        ['OPTIONS /v1/runs', 'Origin: http://localhost:5173\r\n'],
        ['GET /v1/ws', ws],
      ]) {
        const sent = `${request} HTTP/1.1\r\nHost: ${first}\r\n${head}Host: ${second}\r\nAuthorization: Bearer k\r\n`;
        expect({ request, first, answer: await raw(port, `${sent}Connection: close\r\n\r\n`) }).toEqual({
          request,
          first,
          answer: { status: 400, body: twice },
        });
      }
    expect(server.runs.list()).toEqual([]);
  });

  it('routes by the path as sent: a path starting with // names no host and matches no route', async () => {
    const server = await stub({});
    const { port } = new URL(server.httpUrl);
    const get = (target: string, head = '') =>
      raw(port, `GET ${target} HTTP/1.1\r\nHost: localhost:${port}\r\n${head}Connection: close\r\n\r\n`);
    const none = (path: string) => ({
      status: 404,
      body: { error: { code: 'not_found', message: `no route for ${path}` } },
    });
    expect(await get('//v1/runs')).toEqual(none('//v1/runs'));
    // `new URL('//evil.example/v1/runs', base)` reads evil.example as the host and /v1/runs as the path.
    expect(await get('//evil.example/v1/runs')).toEqual(none('//evil.example/v1/runs'));
    expect(await get('//')).toEqual(none('//'));
    expect(await get('http://evil.example/v1/runs')).toEqual(none('http://evil.example/v1/runs'));
    expect((await get('/v1/runs?limit=1')).status).toBe(200);
    const ws =
      'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: toolwire.v1\r\n';
    for (const target of ['//', '//evil.example/v1/ws', '//v1/ws'])
      expect({ target, answer: await get(target, ws) }).toEqual({
        target,
        answer: { status: 404, body: undefined },
      });
    expect((await get('/v1/ws', ws)).status).toBe(101);
  });

  it('refuses the WebSocket of a page of another origin while any key is accepted', async () => {
    const open = await stub({});
    expect(await upgrade(open.url, { origin: 'http://evil.example' })).toBe(403);
    expect(await upgrade(open.url, { origin: new URL(open.httpUrl).origin })).toBe('open');
    expect(await upgrade(open.url, {})).toBe('open');
    const listed = await stub({ corsOrigins: ['http://localhost:5173'] });
    expect(await upgrade(listed.url, { origin: 'http://localhost:5173' })).toBe('open');
    // With keys, a page must know one: a browser client served from another page is a supported use.
    const keyed = await stub({ apiKeys: ['k'] });
    expect(await upgrade(keyed.url, { origin: 'http://localhost:5173' })).toBe('open');
  });
});

describe('a stub other machines may reach', () => {
  it('warns, once it listens with no apiKeys on an address that is not loopback, what that opens and how to close it', () => {
    expect(reachableWithoutKeys('0.0.0.0', 8080)).toBe(
      'bound to 0.0.0.0, which other machines may reach, with no apiKeys: anyone who reaches port 8080 can start runs, read transcripts, decide approvals and offer tools; give apiKeys (--api-key) or bind to 127.0.0.1',
    );
    for (const host of ['::', '192.168.1.20', 'my-laptop.lan'])
      expect(reachableWithoutKeys(host, 1)).toBeDefined();
    for (const host of ['127.0.0.1', '127.3.2.1', 'localhost', '::1', 'app.localhost'])
      expect(reachableWithoutKeys(host, 1), host).toBeUndefined();
  });

  it('says nothing of it on the loopback stub of every test', async () => {
    const server = await stub();
    expect(server.log.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      'no apiKeys configured: accepting any API key (or none)',
    ]);
  });
});
