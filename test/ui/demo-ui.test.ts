/**
 * `npm start -- --ui` as a user runs it: a separate process that prints the page's URL, keeps the demo's tools
 * connected (so the page has nothing to warn about), and exits 0 on Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('npm start -- --ui', () => {
  it('prints the URL, serves the page with the demo client connected, and exits 0 on SIGINT', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'examples/demo/main.ts', '--ui', '--port', '0', '--db', ':memory:'],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /agent UI (http:\/\/\S+)/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      void exit.then((code) =>
        reject(new Error(`exited with ${code} before printing the URL: ${stdout}${stderr}`)),
      );
    });
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#key=demo-key$/);
      const base = url.replace(/\/#.*$/, '');
      const page = await fetch(`${base}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>toolwire · agent UI</title>');
      const agents = (await (
        await fetch(`${base}/v1/agents`, { headers: { authorization: 'Bearer demo-key' } })
      ).json()) as { clients: number; agents: Array<{ name: string; missingTools: string[] }> };
      expect(agents.clients).toBe(1);
      expect(agents.agents.map((agent) => [agent.name, agent.missingTools])).toEqual([
        ['Support', []],
        ['Researcher', []],
        ['Operations', []],
      ]);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exit).toBe(0);
    expect(stdout).toContain('SIGINT: closing');
  });
});
