/**
 * The agent UI on the wire (no browser): what the stub serves at `/`, `GET /v1/agents`, the run summaries the
 * runs list shows, and two checks on the page's sources: the committed bundle is built from them, and they never
 * hand a string to an HTML parser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { INPUT_PREVIEW_CHARS } from '../../server-stub/run';
import { ASSETS_FILE, assetsModule, buildUiAssets } from '../../server-stub/ui/build';
import { UI_CONTENT_SECURITY_POLICY } from '../../server-stub/ui/serve';
import { http, stub, track } from '../stub/helpers';
import { TestClient, toolDef } from '../stub/test-client';

const APP = fileURLToPath(new URL('../../server-stub/ui/app/', import.meta.url));

describe('the agent UI files', () => {
  it('serves the page at / without a key, with a strict Content-Security-Policy, and no key in it', async () => {
    const server = await stub({ apiKeys: ['s3cret'] });
    const page = await fetch(`${server.httpUrl}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(UI_CONTENT_SECURITY_POLICY);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await page.text();
    expect(html).toMatch(/<script src="\/ui\/app\.js\?v=[0-9a-f]{12}" defer><\/script>/);
    expect(html).not.toContain('s3cret');
    const script = await fetch(`${server.httpUrl}/ui/app.js`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await script.text()).length).toBeGreaterThan(10_000);
    const style = await fetch(`${server.httpUrl}/ui/app.css`);
    expect(style.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(await http(server, 'POST', '/', {})).toMatchObject({
      status: 405,
      body: { error: { code: 'method_not_allowed' } },
    });
    // The data behind the page still needs the key.
    expect((await http(server, 'GET', '/v1/runs')).status).toBe(401);
  });

  it('is built from server-stub/ui/app/ (run npm run build:ui after changing the page)', async () => {
    const committed = readFileSync(ASSETS_FILE, 'utf8');
    expect(
      assetsModule(await buildUiAssets()) === committed,
      'assets.generated.ts is stale: npm run build:ui',
    ).toBe(true);
  });

  it('never parses strings as HTML or code in the page sources', () => {
    const sources = readdirSync(APP).filter((name) => name.endsWith('.ts'));
    expect(sources.length).toBeGreaterThan(3);
    for (const name of sources) {
      const text = readFileSync(`${APP}${name}`, 'utf8');
      // Comments may name them (dom.ts says it never uses them); code may not.
      const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
      expect(code, name).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|setAttribute\(\s*['"]on/,
      );
    }
  });
});

describe('GET /v1/agents', () => {
  it('lists the agents with the tools no connected client offers, and the number of clients', async () => {
    const server = await stub({
      apiKeys: ['k'],
      agents: [
        { name: 'Support', instructions: 'Help.', tools: ['lookup', 'refund'] },
        { name: 'Idle', instructions: '', tools: [] },
      ],
    });
    expect(await http(server, 'GET', '/v1/agents')).toMatchObject({ status: 401 });
    expect(await http(server, 'GET', '/v1/agents', undefined, 'k')).toMatchObject({
      status: 200,
      body: {
        clients: 0,
        agents: [
          {
            name: 'Support',
            instructions: 'Help.',
            tools: ['lookup', 'refund'],
            missingTools: ['lookup', 'refund'],
          },
          { name: 'Idle', instructions: '', tools: [], missingTools: [] },
        ],
      },
    });
    const client = track(await TestClient.connect(server.url, { apiKey: 'k', tools: [toolDef('lookup')] }));
    const listed = await http(server, 'GET', '/v1/agents', undefined, 'k');
    expect(listed.body).toMatchObject({
      clients: 1,
      agents: [{ missingTools: ['refund'] }, { missingTools: [] }],
    });
    // A detached session (within its grace period) offers nothing the page can use right now.
    await client.drop();
    await expect
      .poll(async () => (await http(server, 'GET', '/v1/agents', undefined, 'k')).body)
      .toMatchObject({ clients: 0, agents: [{ missingTools: ['lookup', 'refund'] }, { missingTools: [] }] });
  });
});

describe('run summaries', () => {
  it('carry the start of the input, cut at a character boundary', async () => {
    const server = await stub({ agents: [{ name: 'a', instructions: '', tools: [] }] });
    const long = `${'🙂'.repeat(INPUT_PREVIEW_CHARS)}tail`;
    await server.runs.waitFor(server.runs.start('a', long));
    await server.runs.waitFor(server.runs.start('a', 'short'));
    const [short, cut] = server.runs.list();
    expect(short?.inputPreview).toBe('short');
    expect(cut?.inputPreview).toBe(`${'🙂'.repeat(INPUT_PREVIEW_CHARS)}…`);
  });
});
