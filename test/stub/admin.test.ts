/**
 * The stub's operator routes (`/v1/admin/keys`, `/v1/admin/build`) and its keys file: who may call them, what
 * they refuse, and that no answer or refusal shows a key.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyId, parseKeysFile } from '../../server-stub/admin';
import { parseCliArgs } from '../../server-stub/cli-args';
import { KeyRing } from '../../server-stub/fleet';
import { type StubServerOptions, scriptedModel, startStubServer } from '../../server-stub/index';
import { OptionsError } from '../../src/errors';
import { stub } from '../fault/harness';
import { agent, stub as loggedStub, track } from './helpers';
import { TestClient, toolDef } from './test-client';

const ADMIN = 'operator-admin-key';

async function call(base: string, method: string, path: string, key: string | undefined, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
    },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

/** A stub whose model has `work` called once, with the admin routes, and `put(keys)` for its key list. */
async function workStub(apiKeys: StubServerOptions['apiKeys']) {
  const server = await loggedStub({
    apiKeys,
    adminKey: ADMIN,
    model: scriptedModel([{ toolCalls: [{ name: 'work' }] }, { text: 'done' }]),
  });
  const put = (keys: unknown) => call(server.httpUrl, 'PUT', '/v1/admin/keys', ADMIN, { keys });
  return { server, tools: [toolDef('work')], put };
}

describe('operator routes', () => {
  it('take the admin key alone, and are off without one', async () => {
    const server = await stub({ apiKeys: ['tenant-key'], adminKey: ADMIN });
    const base = server.httpUrl;
    expect(await call(base, 'GET', '/v1/admin/keys', ADMIN)).toEqual({
      status: 200,
      body: {
        checked: true,
        keys: [{ id: keyId('tenant-key'), tenantId: expect.stringMatching(/^t_[0-9a-f]{16}$/) }],
      },
    });
    expect(await call(base, 'GET', '/v1/admin/keys', 'tenant-key')).toEqual({
      status: 401,
      body: { error: { code: 'unauthorized', message: 'not the admin key' } },
    });
    expect(await call(base, 'PUT', '/v1/admin/build', undefined, { buildId: 'b1' })).toEqual({
      status: 401,
      body: {
        error: {
          code: 'unauthorized',
          message: 'missing admin key: send "Authorization: Bearer <admin key>"',
        },
      },
    });
    // The admin key is no tenant's key.
    expect((await call(base, 'GET', '/v1/runs', ADMIN)).status).toBe(401);

    const plain = await stub({ apiKeys: ['tenant-key'] });
    expect(await call(plain.httpUrl, 'PUT', '/v1/admin/keys', 'tenant-key', { keys: ['x-key'] })).toEqual({
      status: 404,
      body: {
        error: {
          code: 'not_found',
          message:
            'the operator routes are off: start the stub with an admin key (--admin-key, TOOLWIRE_STUB_ADMIN_KEY, or startStubServer({ adminKey }))',
        },
      },
    });
  });

  it('refuses a bad key list without showing a key, and changes nothing', async () => {
    const server = await stub({ apiKeys: ['tenant-key'], adminKey: ADMIN });
    const put = (body: unknown) => call(server.httpUrl, 'PUT', '/v1/admin/keys', ADMIN, body);
    const refused = (message: string) => ({
      status: 400,
      body: { error: { code: 'invalid_request', message } },
    });
    expect(await put({ keys: [] })).toEqual(
      refused('keys must list at least one key (an empty list would accept any key)'),
    );
    expect(await put({ keys: ['good-key', { key: 'sec ret', tenant: 'acme' }] })).toEqual(
      refused(
        'keys[1].key must be 1 to 4096 printable ASCII characters without spaces, got a string of 7 characters',
      ),
    );
    expect(await put({ keys: [{ key: 'good-key', tenant: '' }] })).toEqual(
      refused('keys[0].tenant must be a string of 1 to 256 characters'),
    );
    expect(await put({ keys: [ADMIN] })).toEqual(
      refused("keys[0] is the admin key, which is no tenant's key"),
    );
    expect(
      await put({ keys: ['key-1', { key: 'key-2', tenant: 'acme' }, { key: 'key-1', tenant: 'acme' }] }),
    ).toEqual(refused('keys[2] lists the key of keys[0] for another tenant: a key belongs to one tenant'));
    expect(await put({ keys: 'tenant-key' })).toEqual(refused('keys must be an array'));
    expect(await put('{')).toMatchObject({ status: 400, body: { error: { code: 'invalid_json' } } });
    expect((await call(server.httpUrl, 'GET', '/v1/agents', 'tenant-key')).status).toBe(200);
  });

  it('replaces the keys: a socket on a dropped key is closed 4001, a rotated tenant keeps its session', async () => {
    const server = await stub({ apiKeys: ['key-1'], adminKey: ADMIN });
    const client = await TestClient.connect(server.url, { apiKey: 'key-1' });
    const put = (keys: unknown) => call(server.httpUrl, 'PUT', '/v1/admin/keys', ADMIN, { keys });
    expect(await put(['key-1', { key: 'key-2', tenant: 'key-1' }])).toEqual({
      status: 200,
      body: { keys: 2, tenants: 1, revoked: 0 },
    });
    expect(await put([{ key: 'key-2', tenant: 'key-1' }])).toEqual({
      status: 200,
      body: { keys: 1, tenants: 1, revoked: 1 },
    });
    expect(await client.closed).toMatchObject({ code: 4001, reason: 'API key revoked' });
    const resumed = await TestClient.connect(server.url, {
      apiKey: 'key-2',
      sessionId: client.welcome?.sessionId as string,
    });
    expect(resumed.welcome?.resumed).toBe(true);
    expect((await call(server.httpUrl, 'GET', '/v1/agents', 'key-1')).status).toBe(401);
  });

  it("closes 4001 a socket whose key now belongs to another tenant: it held the old tenant's session", async () => {
    const server = await stub({ apiKeys: ['a', { key: 'moving', tenant: 'a' }, 'b'], adminKey: ADMIN });
    const client = await TestClient.connect(server.url, { apiKey: 'moving' });
    const stays = await TestClient.connect(server.url, { apiKey: 'a' });
    const put = (keys: unknown) => call(server.httpUrl, 'PUT', '/v1/admin/keys', ADMIN, { keys });
    expect(await put(['a', 'b', { key: 'moving', tenant: 'b' }])).toEqual({
      status: 200,
      body: { keys: 3, tenants: 2, revoked: 1 },
    });
    expect(await client.closed).toMatchObject({ code: 4001, reason: 'API key revoked' });
    // A resume with it is the other tenant's: a new session.
    const again = await TestClient.connect(server.url, {
      apiKey: 'moving',
      sessionId: client.welcome?.sessionId as string,
    });
    expect(again.welcome?.resumed).toBe(false);
    expect(server.sessions().find((session) => session.sessionId === stays.welcome?.sessionId)).toBeDefined();
  });

  it('keeps a tenant whose keys are named anew: the rotation resumes its session, its results are taken', async () => {
    const { server, tools, put } = await workStub(['key-1']);
    const client = await TestClient.connect(server.url, {
      apiKey: 'key-1',
      tools,
      features: ['call_context'],
    });
    const runId = server.runs.start(agent('a', ['work']), 'go', { apiKey: 'key-1' });
    const sent = await client.next('tool_call');
    expect(sent.tenantId).toMatch(/^t_[0-9a-f]{16}$/);
    // key-1 was a tenant of its own; the list names that tenant acme: the same tenant, no socket closed.
    expect(
      await put([
        { key: 'key-1', tenant: 'acme' },
        { key: 'key-2', tenant: 'acme' },
      ]),
    ).toEqual({
      status: 200,
      body: { keys: 2, tenants: 1, revoked: 0 },
    });
    expect(await put([{ key: 'key-2', tenant: 'acme' }])).toEqual({
      status: 200,
      body: { keys: 1, tenants: 1, revoked: 1 },
    });
    expect(await client.closed).toMatchObject({ code: 4001, reason: 'API key revoked' });
    const resumed = track(
      await TestClient.connect(server.url, { apiKey: 'key-2', sessionId: client.sessionId, tools }),
    );
    expect(resumed.welcome).toMatchObject({ sessionId: client.sessionId, resumed: true });
    expect((await resumed.next('tool_call')).callId).toBe(sent.callId);
    resumed.result(sent.callId, 'worked');
    expect(await resumed.next('ack')).toEqual({ type: 'ack', callId: sent.callId });
    const transcript = await server.runs.waitFor(runId);
    expect([transcript.status, transcript.toolCalls[0]?.answeredBy]).toEqual(['completed', client.sessionId]);
    // One tenant throughout: its id, its build.
    const { body } = await call(server.httpUrl, 'PUT', '/v1/admin/build', ADMIN, {
      buildId: 'b2',
      tenant: 'acme',
    });
    expect(body).toEqual({ tenantId: sent.tenantId, buildPolicy: 'current', currentBuildId: 'b2' });
    expect((await call(server.httpUrl, 'GET', '/v1/admin/keys', ADMIN)).body.keys).toEqual([
      { id: keyId('key-2'), tenantId: sent.tenantId },
    ]);
  });

  it("takes a tenant's session along when its last key moves into another tenant: no socket closed", async () => {
    const { server, tools, put } = await workStub(['key-1', { key: 'key-9', tenant: 'acme' }]);
    const client = track(await TestClient.connect(server.url, { apiKey: 'key-1', tools }));
    const runId = server.runs.start(agent('a', ['work']), 'go', { apiKey: 'key-1' });
    const sent = await client.next('tool_call');
    expect(
      await put([
        { key: 'key-1', tenant: 'acme' },
        { key: 'key-9', tenant: 'acme' },
      ]),
    ).toEqual({ status: 200, body: { keys: 2, tenants: 1, revoked: 0 } });
    client.result(sent.callId, 'worked');
    expect(await client.next('ack')).toEqual({ type: 'ack', callId: sent.callId });
    const transcript = await server.runs.waitFor(runId);
    expect([transcript.status, transcript.toolCalls[0]?.answeredBy]).toEqual(['completed', client.sessionId]);
    // One tenant now: acme's other key sees the run and resumes the session.
    expect((await call(server.httpUrl, 'GET', `/v1/runs/${runId}`, 'key-9')).status).toBe(200);
    await client.drop();
    const resumed = track(
      await TestClient.connect(server.url, { apiKey: 'key-9', sessionId: client.sessionId, tools }),
    );
    expect(resumed.welcome?.resumed).toBe(true);
  });

  it("keeps a split tenant's session under the first name listed; a key under the other has moved", async () => {
    const { server, tools, put } = await workStub([
      { key: 'a1', tenant: 'a' },
      { key: 'a2', tenant: 'a' },
    ]);
    const first = track(await TestClient.connect(server.url, { apiKey: 'a1', tools }));
    const runId = server.runs.start(agent('a', ['work']), 'go', { apiKey: 'a1' });
    const sent = await first.next('tool_call');
    const second = track(await TestClient.connect(server.url, { apiKey: 'a2', tools }));
    expect(
      await put([
        { key: 'a1', tenant: 'x' },
        { key: 'a2', tenant: 'y' },
      ]),
    ).toEqual({ status: 200, body: { keys: 2, tenants: 2, revoked: 1 } });
    expect(await second.closed).toMatchObject({ code: 4001, reason: 'API key revoked' });
    first.result(sent.callId, 'worked');
    expect(await first.next('ack')).toEqual({ type: 'ack', callId: sent.callId });
    expect((await server.runs.waitFor(runId)).status).toBe('completed');
    expect((await call(server.httpUrl, 'GET', `/v1/runs/${runId}`, 'a2')).status).toBe(404);
  });

  it('closes a tenant left with no key: its runs are cancelled, saying why, and its sessions end', async () => {
    const { server, tools, put } = await workStub(['key-1']);
    const client = await TestClient.connect(server.url, {
      apiKey: 'key-1',
      tools,
      features: ['call_context'],
    });
    const runId = server.runs.start(agent('a', ['work']), 'go', { apiKey: 'key-1' });
    const sent = await client.next('tool_call');
    // Two keys listed alone are two tenants: key-1's has no key left.
    expect(await put(['key-2'])).toEqual({
      status: 200,
      body: { keys: 1, tenants: 1, revoked: 1 },
    });
    expect(await client.closed).toMatchObject({ code: 4001, reason: 'API key revoked' });
    const transcript = await server.runs.waitFor(runId);
    expect([transcript.status, transcript.error]).toEqual([
      'cancelled',
      'the run was cancelled: no API key of its tenant is accepted any more',
    ]);
    expect(server.sessions()).toEqual([]);
    expect(server.log.filter((line) => line.level === 'warn')).toEqual([
      {
        level: 'warn',
        message:
          'no API key of a tenant is accepted any more: its sessions and runs ended (to rotate keys, keep its name or a key)',
        fields: { tenantId: sent.tenantId, sessions: 1, runs: 1 },
      },
    ]);
    const again = track(
      await TestClient.connect(server.url, { apiKey: 'key-2', sessionId: client.sessionId, tools }),
    );
    expect(again.welcome?.resumed).toBe(false);
  });

  it('moves the sessions of a stub that accepted any key to the tenant of their key, and back', async () => {
    const { server, tools, put } = await workStub(undefined);
    const client = track(await TestClient.connect(server.url, { apiKey: 'dev-key', tools }));
    const runId = server.runs.start(agent('a', ['work']), 'go');
    const sent = await client.next('tool_call');
    expect(await put(['other-key', 'dev-key'])).toEqual({
      status: 200,
      body: { keys: 2, tenants: 2, revoked: 0 },
    });
    client.result(sent.callId, 'worked');
    expect(await client.next('ack')).toEqual({ type: 'ack', callId: sent.callId });
    expect((await server.runs.waitFor(runId)).status).toBe('completed');
    expect((await call(server.httpUrl, 'GET', `/v1/runs/${runId}`, 'dev-key')).status).toBe(200);
    expect((await call(server.httpUrl, 'GET', `/v1/runs/${runId}`, 'other-key')).status).toBe(404);
    // Any key again: everyone is one tenant, and the session resumes with any key.
    expect(server.setApiKeys([])).toBe(0);
    await client.drop();
    const resumed = track(
      await TestClient.connect(server.url, { apiKey: 'any-key', sessionId: client.sessionId, tools }),
    );
    expect(resumed.welcome?.resumed).toBe(true);
  });

  it.each([
    ['over HTTP', 'http'],
    ['from the library', 'library'],
  ] as const)(
    'keeps a run started %s on a stub that accepted any key with the tenant of its key',
    async (_, how) => {
      let decide!: () => void;
      const decided = new Promise<void>((resolve) => {
        decide = resolve;
      });
      // The model answers once the keys are set: the run is in progress then, with no worker connected.
      const server = await loggedStub({
        adminKey: ADMIN,
        model: {
          nextTurn: async ({ messages }) => {
            await decided;
            return messages.some((message) => message.role === 'tool')
              ? { text: 'done' }
              : { toolCalls: [{ name: 'work' }] };
          },
        },
      });
      const definition = agent('a', ['work']);
      const runId =
        how === 'http'
          ? ((await call(server.httpUrl, 'POST', '/v1/runs', 'dev-key', { agent: definition, input: 'go' }))
              .body.runId as string)
          : server.runs.start(definition, 'go', { apiKey: 'dev-key' });
      expect(
        await call(server.httpUrl, 'PUT', '/v1/admin/keys', ADMIN, { keys: ['other-key', 'dev-key'] }),
      ).toEqual({
        status: 200,
        body: { keys: 2, tenants: 2, revoked: 0 },
      });
      expect(server.runs.get(runId)?.status).toBe('running');
      expect((await call(server.httpUrl, 'GET', `/v1/runs/${runId}`, 'dev-key')).status).toBe(200);
      expect((await call(server.httpUrl, 'GET', `/v1/runs/${runId}`, 'other-key')).status).toBe(404);
      const worker = track(
        await TestClient.connect(server.url, { apiKey: 'dev-key', tools: [toolDef('work')] }),
      );
      decide();
      const sent = await worker.next('tool_call');
      worker.result(sent.callId, 'worked');
      expect((await server.runs.waitFor(runId)).status).toBe('completed');
      expect(JSON.stringify([server.runs.list(), server.runs.get(runId), server.log])).not.toContain(
        'dev-key',
      );
    },
  );

  it("refuses, at a merge, a tool whose fleet limits disagree with the tenant's workers, as a tools_update", async () => {
    const { server, put } = await workStub(['key-1', { key: 'key-9', tenant: 'acme' }]);
    const work = (concurrency: number) => ({ ...toolDef('work'), fleet: { concurrency } });
    const acme = track(await TestClient.connect(server.url, { apiKey: 'key-9', tools: [work(2)] }));
    const joining = track(
      await TestClient.connect(server.url, { apiKey: 'key-1', tools: [work(3), toolDef('other')] }),
    );
    expect(
      await put([
        { key: 'key-1', tenant: 'acme' },
        { key: 'key-9', tenant: 'acme' },
      ]),
    ).toEqual({ status: 200, body: { keys: 2, tenants: 1, revoked: 0 } });
    const reason = 'fleet limits of work disagree: this worker concurrency 3, the fleet concurrency 2';
    expect(await joining.next('error')).toEqual({
      type: 'error',
      code: 'not_allowed',
      message: reason,
      tools: [{ name: 'work', fleet: { concurrency: 3 } }],
    });
    // It goes on with its other tools, its socket open; the tenant's own worker is told nothing.
    expect(server.sessions().map((session) => [session.sessionId, session.tools])).toEqual([
      [acme.sessionId, ['work']],
      [joining.sessionId, ['other']],
    ]);
    expect(acme.all('error')).toEqual([]);
    expect(server.log.filter((line) => line.level === 'warn')).toEqual([
      {
        level: 'warn',
        message: `tool refused as its tenant merged into another: ${reason}`,
        fields: {
          sessionId: joining.sessionId,
          code: 'not_allowed',
          tools: [{ name: 'work', fleet: { concurrency: 3 } }],
        },
      },
    ]);
  });

  it('sets and clears the current build, and refuses a bad one', async () => {
    const server = await stub({ adminKey: ADMIN });
    const put = (body: unknown) => call(server.httpUrl, 'PUT', '/v1/admin/build', ADMIN, body);
    expect(await put({ buildId: 'b2' })).toEqual({
      status: 200,
      body: { buildPolicy: 'current', currentBuildId: 'b2' },
    });
    expect(await call(server.httpUrl, 'GET', '/v1/admin/build', ADMIN)).toEqual({
      status: 200,
      body: { buildPolicy: 'current', currentBuildId: 'b2', tenants: [] },
    });
    const message = 'buildId must be 1 to 128 printable ASCII characters without spaces, or null';
    const bad = [{}, { buildId: '' }, { buildId: 'x'.repeat(129) }, { buildId: 7 }, { buildId: '   ' }];
    for (const body of [...bad, { buildId: 'a\nb' }, { buildId: 'caf\u00e9' }]) {
      expect(await put(body)).toEqual({ status: 400, body: { error: { code: 'invalid_request', message } } });
    }
    expect(await put({ buildId: null })).toEqual({ status: 200, body: { buildPolicy: 'first_call' } });
    // Without keys every client is one tenant: there is no tenant to name.
    const open = await stub({ apiKeys: [], adminKey: ADMIN });
    expect(
      await call(open.httpUrl, 'PUT', '/v1/admin/build', ADMIN, { buildId: 'b3', tenant: 'acme' }),
    ).toEqual({
      status: 400,
      body: {
        error: {
          code: 'invalid_request',
          message: 'tenant: the stub accepts any API key, so every client is one tenant; leave tenant out',
        },
      },
    });
  });

  it('sets a current build per tenant, the one without tenant being the default of the others', async () => {
    const server = await stub({
      apiKeys: [
        { key: 'key-a', tenant: 'acme' },
        { key: 'key-b', tenant: 'beta' },
      ],
      adminKey: ADMIN,
      model: scriptedModel([{ text: 'done' }]),
    });
    const put = (body: unknown) => call(server.httpUrl, 'PUT', '/v1/admin/build', ADMIN, body);
    expect(await put({ buildId: 'b1' })).toEqual({
      status: 200,
      body: { buildPolicy: 'current', currentBuildId: 'b1' },
    });
    const acmeId = expect.stringMatching(/^t_[0-9a-f]{16}$/);
    expect(await put({ buildId: 'a2', tenant: 'acme' })).toEqual({
      status: 200,
      body: { tenantId: acmeId, buildPolicy: 'current', currentBuildId: 'a2' },
    });
    expect((await call(server.httpUrl, 'GET', '/v1/admin/build', ADMIN)).body).toEqual({
      buildPolicy: 'current',
      currentBuildId: 'b1',
      tenants: [{ tenantId: acmeId, currentBuildId: 'a2' }],
    });
    const welcomeOf = async (apiKey: string) => {
      const client = await TestClient.connect(server.url, { apiKey, features: ['builds'] });
      await client.drop();
      return client.welcome;
    };
    expect(await welcomeOf('key-a')).toMatchObject({ buildPolicy: 'current', currentBuildId: 'a2' });
    expect(await welcomeOf('key-b')).toMatchObject({ buildPolicy: 'current', currentBuildId: 'b1' });
    const buildOf = async (apiKey: string) => {
      const runId = server.runs.start(agent('plain', []), 'go', { apiKey });
      return (await server.runs.waitFor(runId)).buildId;
    };
    expect([await buildOf('key-a'), await buildOf('key-b')]).toEqual(['a2', 'b1']);
    // Cleared for acme: acme takes the default again.
    expect(await put({ buildId: null, tenant: 'acme' })).toEqual({
      status: 200,
      body: { tenantId: acmeId, buildPolicy: 'current', currentBuildId: 'b1' },
    });
    server.setCurrentBuild('b9', 'beta');
    expect([await buildOf('key-a'), await buildOf('key-b')]).toEqual(['b1', 'b9']);
    expect(await put({ buildId: 'b1', tenant: '' })).toEqual({
      status: 400,
      body: { error: { code: 'invalid_request', message: 'tenant must be a string of 1 to 256 characters' } },
    });
    // A tenant no key belongs to (a typo) is refused, not set for nobody; its name is not echoed.
    expect(await put({ buildId: 'b1', tenant: 'acme-typo' })).toEqual({
      status: 400,
      body: {
        error: {
          code: 'invalid_request',
          message:
            'tenant: no accepted key belongs to that tenant (GET /v1/admin/keys lists the tenants by id)',
        },
      },
    });
    expect(() => server.setCurrentBuild('b1', 'acme-typo')).toThrow(
      new TypeError('setCurrentBuild: no accepted key belongs to that tenant'),
    );
    expect([await buildOf('key-a'), await buildOf('key-b')]).toEqual(['b1', 'b9']);
  });

  it('refuses an admin key that is no key, or is a tenant key, when the stub starts', async () => {
    await expect(startStubServer({ adminKey: 'has space' })).rejects.toThrow(
      new OptionsError(
        'invalid_option',
        'startStubServer: adminKey must be 1 to 4096 printable ASCII characters without spaces, got a string of 9 characters',
      ),
    );
    await expect(startStubServer({ apiKeys: ['same-key'], adminKey: 'same-key' })).rejects.toThrow(
      "startStubServer: adminKey must not be one of apiKeys: it is no tenant's key",
    );
  });
});

describe('apiKeys and setApiKeys', () => {
  it('take the same shapes: strings and { key, tenant }', async () => {
    const server = await stub({
      apiKeys: [
        { key: 'key-1', tenant: 'acme' },
        { key: 'key-2', tenant: 'acme' },
      ],
    });
    const first = await TestClient.connect(server.url, { apiKey: 'key-1' });
    const second = await TestClient.connect(server.url, { apiKey: 'key-2', sessionId: first.sessionId });
    // Keys of one tenant: the second key resumes the first's session.
    expect(second.welcome?.resumed).toBe(true);
    expect(server.setApiKeys([{ key: 'key-2', tenant: 'acme' }, 'key-3'])).toBe(0);
    await first.drop();
    await second.drop();
  });

  it('refuse a key listed for two tenants, naming the entries and never the key', async () => {
    const message = 'apiKeys[1] lists the key of apiKeys[0] for another tenant: a key belongs to one tenant';
    await expect(
      startStubServer({ apiKeys: ['secret-key-1', { key: 'secret-key-1', tenant: 'acme' }] }),
    ).rejects.toThrow(new OptionsError('invalid_option', `startStubServer: ${message}`));
    const server = await stub({ apiKeys: ['key-1'] });
    expect(() => server.setApiKeys(['secret-key-1', { key: 'secret-key-1', tenant: 'acme' }])).toThrow(
      new TypeError(message),
    );
    // The keys stay as they were.
    expect((await TestClient.connect(server.url, { apiKey: 'key-1' })).welcome?.resumed).toBe(false);
  });

  it('keep a tenant through a new name, and tell a split, a move and a new tenant of an old name apart', () => {
    const ring = new KeyRing(['key-1', { key: 'a1', tenant: 'a' }, { key: 'a2', tenant: 'a' }, 'b']);
    const [first, a, b] = ['key-1', 'a1', 'b'].map((key) => ring.tenantOf(key));
    const split = ring.set([
      { key: 'key-1', tenant: 'acme' },
      { key: 'key-2', tenant: 'acme' },
      { key: 'a1', tenant: 'x' },
      { key: 'a2', tenant: 'y' },
      'b',
      { key: 'b2', tenant: 'b' },
    ]);
    // Renamed: the same tenant. Kept by name: the same.
    expect([ring.tenantNamed('acme'), ring.tenantOf('key-2'), ring.tenantOf('b2')]).toEqual([
      first,
      first,
      b,
    ]);
    // Split in two new names: the first listed continues it, the other is a new tenant (a2 has moved to it).
    expect(ring.tenantOf('a1')).toBe(a);
    expect([a, first, b]).not.toContain(ring.tenantOf('a2'));
    expect(split).toEqual({ merged: new Map(), closed: [] });
    // A tenant that takes the first name of a renamed one is another; a key moved to a tenant that goes on is its,
    // and takes its old tenant along when it was that tenant's last key; a tenant with no key left is closed.
    const y = ring.tenantOf('a2');
    expect(
      ring.set([
        { key: 'key-2', tenant: 'acme' },
        { key: 'key-9', tenant: 'key-1' },
        { key: 'a1', tenant: 'b' },
        'b',
      ]),
    ).toEqual({ merged: new Map([[a, b]]), closed: [y] });
    expect(ring.tenantOf('key-2')).toBe(first);
    expect(ring.tenantOf('key-9')).not.toBe(first);
    expect(ring.tenantOf('a1')).toBe(b);
    // Listed alone again, a key names its tenant after itself: still the same tenant.
    ring.set(['key-2']);
    expect(ring.tenantOf('key-2')).toBe(first);
  });

  it('merge a tenant whose last key moves into another tenant into that one', () => {
    const ring = new KeyRing(['key-1', { key: 'key-9', tenant: 'acme' }]);
    const [old, acme] = ['key-1', 'key-9'].map((key) => ring.tenantOf(key));
    expect(
      ring.set([
        { key: 'key-1', tenant: 'acme' },
        { key: 'key-9', tenant: 'acme' },
      ]),
    ).toEqual({ merged: new Map([[old, acme]]), closed: [] });
    expect(ring.tenantOf('key-1')).toBe(acme);
    // Two tenants' keys under a name new to the list: the first listed is renamed, the other merges into it.
    const two = new KeyRing(['p', 'q']);
    const [p, q] = ['p', 'q'].map((key) => two.tenantOf(key));
    expect(
      two.set([
        { key: 'q', tenant: 'pq' },
        { key: 'p', tenant: 'pq' },
      ]),
    ).toEqual({ merged: new Map([[p, q]]), closed: [] });
    expect(two.tenantNamed('pq')).toBe(q);
  });

  it('keep a tenant through a rotation by its name, and close one whose keys all go under another name', () => {
    const ring = new KeyRing([{ key: 'key-1', tenant: 'acme' }, 'key-5']);
    const [acme, five] = ['key-1', 'key-5'].map((key) => ring.tenantOf(key));
    expect(ring.set([{ key: 'key-2', tenant: 'acme' }, 'key-6'])).toEqual({
      merged: new Map(),
      closed: [five],
    });
    expect(ring.tenantOf('key-2')).toBe(acme);
    expect([acme, five]).not.toContain(ring.tenantOf('key-6'));
    // A closed tenant stays closed: its name listed again starts a new one.
    ring.set([{ key: 'key-2', tenant: 'acme' }, 'key-5']);
    expect([acme, five]).not.toContain(ring.tenantOf('key-5'));
  });

  it('merge the one tenant of a stub that accepted any key into the tenant of the first key its clients use', () => {
    const ring = new KeyRing(undefined);
    expect(ring.set(['other', 'dev-2', 'dev-1'], ['dev-1', 'dev-2', 'gone'])).toEqual({
      merged: new Map([[undefined, 'dev-2']]),
      closed: [],
    });
    // Not one key its clients use listed: it is closed.
    expect(new KeyRing(undefined).set(['other'], ['dev-1'])).toEqual({
      merged: new Map(),
      closed: [undefined],
    });
    // Back to any key: every tenant is the one tenant.
    expect(ring.set([])).toEqual({
      merged: new Map([
        ['other', undefined],
        ['dev-2', undefined],
        ['dev-1', undefined],
      ]),
      closed: [],
    });
  });

  it('give no tenant for a key they do not accept, even one spelled as a tenant name', () => {
    const ring = new KeyRing(['key-1', { key: 'key-2', tenant: 'acme' }]);
    expect([ring.tenantOf('acme'), ring.tenantOf('key-3'), ring.tenantOf(undefined)]).toEqual([
      null,
      null,
      null,
    ]);
    expect([ring.tenantOf('key-2'), ring.tenantOf('key-1')]).toEqual([
      ring.tenantNamed('acme'),
      ring.tenantNamed('key-1'),
    ]);
    // Any key accepted: everyone is the one tenant.
    const open = new KeyRing(undefined);
    expect([open.tenantOf('acme'), open.tenantOf(undefined)]).toEqual([undefined, undefined]);
  });

  it('start no run from the library for a key they do not accept', async () => {
    const server = await stub({ apiKeys: [{ key: 'key-2', tenant: 'acme' }] });
    expect(() => server.runs.start(agent('a', ['work']), 'go', { apiKey: 'acme' })).toThrow(
      new Error('runs.start: options.apiKey is not an accepted API key'),
    );
    expect(server.runs.list()).toEqual([]);
  });

  it('refuse an entry that is neither, naming it', async () => {
    await expect(startStubServer({ apiKeys: ['key-1', { key: '', tenant: 'acme' }] })).rejects.toThrow(
      'startStubServer: apiKeys[1] must be a non-empty string or { key, tenant } of non-empty strings',
    );
  });
});

describe('the keys file', () => {
  it('reads a key a line, with an optional tenant; comments and blank lines are skipped', () => {
    expect(parseKeysFile('# acme rotates\nkey-1 acme\r\n\n  key-2   acme  \nsolo-key\n', undefined)).toEqual([
      { key: 'key-1', tenant: 'acme' },
      { key: 'key-2', tenant: 'acme' },
      'solo-key',
    ]);
  });

  it('names the line or key at fault, never the key', () => {
    expect(() => parseKeysFile('key-1 acme extra\n', undefined)).toThrow(
      'line 1 must be "<key>" or "<key> <tenant>"',
    );
    expect(() => parseKeysFile('# none\n', undefined)).toThrow(
      'the file must list at least one key (an empty list would accept any key)',
    );
    expect(() => parseKeysFile('key-1\n\n# the operator\nadmin-key\n', 'admin-key')).toThrow(
      "line 4 is the admin key, which is no tenant's key",
    );
    expect(() => parseKeysFile('key-1 acme\n# other\nkey-1 other\n', undefined)).toThrow(
      'line 3 lists the key of line 1 for another tenant: a key belongs to one tenant',
    );
    expect(() => parseKeysFile('key-1\nkey-2 acme\nbad\u00e9key\n', undefined)).toThrow(
      'line 3: the key must be 1 to 4096 printable ASCII characters without spaces, got a string of 7 characters',
    );
    // The same key twice for its tenant is one key.
    expect(parseKeysFile('key-1 acme\nkey-1 acme\n', undefined)).toEqual([
      { key: 'key-1', tenant: 'acme' },
      { key: 'key-1', tenant: 'acme' },
    ]);
  });

  it('is given with --api-keys-file, not with --api-key, and the admin key comes from the environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-keys-'));
    const path = join(dir, 'keys.txt');
    writeFileSync(path, 'key-1 acme\nkey-2\n');
    expect(parseCliArgs(['--api-keys-file', path], { TOOLWIRE_STUB_ADMIN_KEY: 'adm-key' })).toEqual({
      kind: 'start',
      debug: false,
      options: { apiKeys: ['key-1', 'key-2'], adminKey: 'adm-key' },
      keysFile: { path, keys: [{ key: 'key-1', tenant: 'acme' }, 'key-2'] },
    });
    expect(() => parseCliArgs(['--api-keys-file', path, '--api-key', 'k'])).toThrow(
      '--api-key and --api-keys-file cannot be used together',
    );
    expect(() => parseCliArgs(['--api-keys-file', join(dir, 'missing.txt')])).toThrow(
      `--api-keys-file: cannot read ${join(dir, 'missing.txt')}: ENOENT`,
    );
    expect(() => parseCliArgs(['--admin-key', 'a b'], {})).toThrow(
      '--admin-key must be 1 to 4096 printable ASCII characters without spaces, got a string of 3 characters',
    );
  });
});
