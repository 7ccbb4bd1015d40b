import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { checkModelPackages, parseCliArgs } from '../../server-stub/cli-args';
import { FEATURES } from '../../src/wire/protocol';
import { TestClient } from './test-client';

const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Runs the CLI (`node --import tsx [--import <each of imports>] server-stub/cli.ts <args>`) from the repository's
 * root until it exits: its exit code and what it wrote. Killed when the test ends, should it run on.
 */
async function cliExit(args: readonly string[], imports: readonly string[] = []) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', ...imports.flatMap((module) => ['--import', module]), 'server-stub/cli.ts', ...args],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exit) => resolve(exit)));
  return { code, stdout, stderr };
}

/**
 * `parseCliArgs` of `--script` and `--agents` files (one turn; agent `a`), each written with `prefix` before its
 * JSON (a byte order mark, say).
 */
function withScriptAndAgents(prefix = '') {
  const dir = mkdtempSync(join(tmpdir(), 'toolwire-stub-'));
  writeFileSync(join(dir, 'script.json'), `${prefix}${JSON.stringify([{ text: 'hello' }])}`);
  writeFileSync(
    join(dir, 'agents.json'),
    `${prefix}${JSON.stringify([{ name: 'a', instructions: '', tools: [] }])}`,
  );
  return parseCliArgs(['--script', join(dir, 'script.json'), '--agents', join(dir, 'agents.json')]);
}

describe('toolwire-stub arguments', () => {
  it('parses ports, keys and durations', () => {
    const command = parseCliArgs([
      '--port',
      '8787',
      '--api-key',
      'a',
      '--api-key',
      'b',
      '--call-deadline-ms',
      '500',
    ]);
    expect(command).toEqual({
      kind: 'start',
      debug: false,
      options: { port: 8787, apiKeys: ['a', 'b'], callDeadlineMs: 500 },
    });
  });

  it('takes the origins of --cors, and refuses one that is not an origin naming the flag', () => {
    expect(parseCliArgs(['--cors', 'http://localhost:5173', '--cors', 'https://app.test'])).toEqual({
      kind: 'start',
      debug: false,
      options: { corsOrigins: ['http://localhost:5173', 'https://app.test'] },
    });
    expect(() => parseCliArgs(['--cors', 'localhost:5173'])).toThrow(
      '--cors must be an origin, scheme://host[:port] with no path (e.g. "http://localhost:5173"), got "localhost:5173"',
    );
  });

  it('loads a script and agents from JSON files', () => {
    const command = withScriptAndAgents();
    expect(command.kind === 'start' && command.options.agents).toEqual([
      { name: 'a', instructions: '', tools: [] },
    ]);
    expect(command.kind === 'start' && typeof command.options.model?.nextTurn).toBe('function');
  });

  it('reads script and agents files saved with a byte order mark, as the keys file', () => {
    // Windows editors save UTF-8 with a BOM, which JSON.parse refuses with an invisible character in its message.
    const command = withScriptAndAgents('\uFEFF');
    expect(command.kind === 'start' && command.options.agents).toEqual([
      { name: 'a', instructions: '', tools: [] },
    ]);
    expect(command.kind === 'start' && command.options.model?.info?.name).toBe('scripted (1 turn)');
  });

  it('refuses an argument with no flag, never showing it when the command line holds a key', () => {
    expect(() => parseCliArgs(['--port', '80', '8080'])).toThrow(
      new Error('unexpected argument "8080"; this command takes no positional arguments'),
    );
    // `--api-key` takes one key: the second is left over, and is a key all the same.
    for (const argv of [
      ['--api-key', 'key-one', 'key-two-secret'],
      ['--admin-key=admin-secret', 'key-two-secret'],
      ['--api-key', 'key-one', '--', 'key-two-secret'],
    ]) {
      let message = '';
      try {
        parseCliArgs(argv);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/^unexpected argument \d \(not shown: it may be a key\)/);
      expect(message).not.toContain('secret');
    }
  });

  it('refuses a bad --script and a bad --agents file in one go, every bad entry of both listed', () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-stub-files-'));
    const script = join(dir, 'script.json');
    const agents = join(dir, 'agents.json');
    writeFileSync(script, JSON.stringify([{ txt: 'hi' }, { text: 'ok' }, { toolCalls: 'x' }]));
    writeFileSync(agents, JSON.stringify([{ name: 1 }, { name: 'a', instructions: '', tools: [] }, 'b']));
    const refusal = (argv: string[]) => {
      try {
        parseCliArgs(argv);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error('expected a refusal');
    };
    const scriptText = refusal(['--script', script]);
    const agentsText = refusal(['--agents', agents]);
    expect(scriptText).toMatch(
      new RegExp(`^--script: ${script}: 2 entries of the script are invalid:\n- turn 1: `),
    );
    expect(agentsText).toBe(
      `--agents: ${agents}: 2 agents are invalid:\n- agents[0] is not a valid agent definition: name must be a string; instructions must be a string; tools must be an array\n- agents[2] is not a valid agent definition: must be an object`,
    );
    // Both files at once: both listings, the script's first.
    expect(refusal(['--agents', agents, '--script', script])).toBe(`${scriptText}\n${agentsText}`);
    // A file that cannot be read is listed beside the other's bad entries.
    expect(refusal(['--script', join(dir, 'missing.json'), '--agents', agents])).toMatch(
      new RegExp(
        `^--script: cannot read .*missing.json: ENOENT[^\n]*\n--agents: ${agents}: 2 agents are invalid:`,
      ),
    );
  });

  it('refuses unknown options and bad numbers with a message naming them', () => {
    expect(() => parseCliArgs(['--port', 'eighty'])).toThrow('--port must be an integer ≥ 0, got "eighty"');
    expect(() => parseCliArgs(['--prot', '80'])).toThrow(
      new Error('unknown flag "--prot" (did you mean "--port"?)'),
    );
    expect(() => parseCliArgs(['--script', '/does/not/exist.json'])).toThrow(
      /^--script: cannot read \/does\/not\/exist\.json: ENOENT/,
    );
    expect(parseCliArgs(['-h'])).toEqual({ kind: 'help' });
  });

  it('names every unknown flag at once, each with what was meant, whatever else is wrong', () => {
    const known = [
      '--port, --host, --api-key, --api-keys-file, --admin-key, --cors, --script, --agents, --openai-base-url',
      '--openai-model, --openai-timeout-ms, --openai-max-retries, --openai-no-stream, --call-deadline-ms',
      '--heartbeat-interval-ms, --session-grace-ms, --max-payload-bytes, --lease-ms, --max-call-duration-ms',
      '--features, --debug, --help, -h',
    ].join(', ');
    expect(() =>
      parseCliArgs(['--prot', '80', '--apiKey=k', '--verbose', '--port', 'eighty', '-x', '--prot', '81']),
    ).toThrow(
      new Error(
        `unknown flags "--prot" (did you mean "--port"?), "--apiKey" (did you mean "--api-key"?), "--verbose" and "-x"; known flags: ${known}`,
      ),
    );
  });

  it('says of the negation of a boolean flag that the flag is off unless given, not "did you mean" it', () => {
    expect(() => parseCliArgs(['--no-debug'])).toThrow(
      new Error('unknown flag "--no-debug" (leave "--debug" out: it is off unless given)'),
    );
    expect(() => parseCliArgs(['--no-openai-no-stream', '--no-debug=1'])).toThrow(
      new Error(
        'unknown flags "--no-openai-no-stream" (leave "--openai-no-stream" out: it is off unless given) and "--no-debug" (leave "--debug" out: it is off unless given)',
      ),
    );
  });

  it('refuses every bad number of a flag with the one message of its range (a fraction, a text, too small)', () => {
    for (const [args, message] of [
      [['--call-deadline-ms', '0'], '--call-deadline-ms must be an integer ≥ 1, got 0'],
      [['--call-deadline-ms', '1.5'], '--call-deadline-ms must be an integer ≥ 1, got 1.5'],
      [['--call-deadline-ms=-1'], '--call-deadline-ms must be an integer ≥ 1, got -1'],
      [['--call-deadline-ms', 'soon'], '--call-deadline-ms must be an integer ≥ 1, got "soon"'],
      [['--heartbeat-interval-ms', '50'], '--heartbeat-interval-ms must be an integer ≥ 100, got 50'],
      [['--session-grace-ms', '0.5'], '--session-grace-ms must be an integer ≥ 0, got 0.5'],
      [
        ['--openai-base-url', 'http://127.0.0.1:1/v1', '--openai-timeout-ms', '1.5'],
        '--openai-timeout-ms must be an integer from 1 to 2147483647, got 1.5',
      ],
      [
        ['--openai-base-url', 'http://127.0.0.1:1/v1', '--openai-max-retries', 'x'],
        '--openai-max-retries must be an integer from 0 to 10, got "x"',
      ],
    ] as const) {
      expect(() => parseCliArgs(args), args.join(' ')).toThrow(message);
    }
    expect(parseCliArgs(['--call-deadline-ms', '1000'])).toMatchObject({ options: { callDeadlineMs: 1000 } });
  });

  it('parses the lease, the longest call and the features', () => {
    expect(
      parseCliArgs([
        '--lease-ms',
        '5000',
        '--max-call-duration-ms',
        '600000',
        '--features',
        'progress, lease,questions',
      ]),
    ).toEqual({
      kind: 'start',
      debug: false,
      options: { leaseMs: 5000, maxCallDurationMs: 600_000, features: ['progress', 'lease', 'questions'] },
    });
    expect(parseCliArgs(['--features', 'none'])).toEqual({
      kind: 'start',
      debug: false,
      options: { features: [] },
    });
    // `all` is the default the help names, so it may be given too.
    expect(parseCliArgs(['--features', 'all'])).toEqual({
      kind: 'start',
      debug: false,
      options: { features: [...FEATURES] },
    });
  });

  it.each([
    [['--lease-ms', '999'], '--lease-ms must be an integer ≥ 1000, got 999'],
    [['--lease-ms', '1.5'], '--lease-ms must be an integer ≥ 1000, got 1.5'],
    [['--max-call-duration-ms', '0'], '--max-call-duration-ms must be an integer ≥ 1, got 0'],
    [
      ['--max-call-duration-ms', '9999999999'],
      '--max-call-duration-ms must be at most 2147483647 (the longest timer), got 9999999999',
    ],
    [['--heartbeat-interval-ms', '5'], '--heartbeat-interval-ms must be an integer ≥ 100, got 5'],
    [['--port', '70000'], '--port must be at most 65535 (the largest TCP port), got 70000'],
    [
      ['--max-payload-bytes', '1e308'],
      '--max-payload-bytes must be at most 536870888 (the longest string V8 makes of a frame), got 1e+308',
    ],
    [
      ['--max-payload-bytes', '4294967296'],
      '--max-payload-bytes must be at most 536870888 (the longest string V8 makes of a frame), got 4294967296',
    ],
    [
      ['--features', 'progress,telepathy'],
      `--features: unknown feature "telepathy"; known features: ${FEATURES.join(', ')}; or all, or none`,
    ],
    [
      ['--features', ''],
      `--features: unknown feature ""; known features: ${FEATURES.join(', ')}; or all, or none`,
    ],
    // Every unknown one at once, each with the feature probably meant, as unknown flags are named.
    [
      ['--features', 'leas,progress,progres,leas'],
      '--features: unknown features "leas" (did you mean "lease"?) and "progres" (did you mean "progress"?)',
    ],
    [
      ['--features', 'leas,telepathy'],
      `--features: unknown features "leas" (did you mean "lease"?) and "telepathy"; known features: ${FEATURES.join(', ')}; or all, or none`,
    ],
  ])('refuses %j with a message naming the flag', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(message);
  });

  it('reads the retired feature name agent_name in --features as call_context', () => {
    const parsed = parseCliArgs(['--features', 'agent_name, steps']);
    expect(parsed).toMatchObject({ kind: 'start', options: { features: ['call_context', 'steps'] } });
  });

  it('builds an OpenAI-compatible model from its flags, and refuses its flags without --openai-base-url', () => {
    const command = parseCliArgs(
      [
        '--openai-base-url',
        'http://localhost:11434/v1',
        '--openai-model',
        'llama3.1',
        '--openai-timeout-ms',
        '120000',
        '--openai-max-retries',
        '0',
        '--openai-no-stream',
      ],
      {},
    );
    expect(command.kind === 'start' && command.options.model?.info).toEqual({
      kind: 'openai-compatible',
      name: 'llama3.1 at http://localhost:11434/v1',
      model: 'llama3.1',
    });
    expect(() => parseCliArgs(['--openai-model', 'llama3.1'])).toThrow(
      '--openai-model needs --openai-base-url',
    );
    expect(() => parseCliArgs(['--openai-base-url', 'localhost:11434'])).toThrow(
      '--openai-base-url must be an http(s) URL, got "localhost:11434"',
    );
    expect(() => parseCliArgs(['--openai-base-url', 'http://x', '--openai-max-retries', '99'])).toThrow(
      '--openai-max-retries must be an integer from 0 to 10, got 99',
    );
  });
});

describe('toolwire-stub start checks', () => {
  const openAI = ['--openai-base-url', 'http://localhost:11434/v1'];

  it('finds the openai package at start for --openai-base-url, and asks for nothing without it', async () => {
    const command = parseCliArgs(openAI, {});
    await expect(
      checkModelPackages(command.kind === 'start' ? command.options : {}),
    ).resolves.toBeUndefined();
    await expect(checkModelPackages({})).resolves.toBeUndefined();
  });

  it('says to install openai, at start, when --openai-base-url is given and the package is missing', async () => {
    vi.doMock('openai', () => {
      throw new Error("Cannot find package 'openai'");
    });
    vi.resetModules();
    try {
      const cli = await import('../../server-stub/cli-args');
      const command = cli.parseCliArgs(openAI, {});
      const error = await cli
        .checkModelPackages(command.kind === 'start' ? command.options : {})
        .catch((caught: unknown) => caught as Error);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(
        /^--openai-base-url needs the openai package, an optional peer dependency of toolwire: npm install openai@6 where toolwire is installed \(.+\)$/s,
      );
      expect((error as Error).cause).toMatchObject({ name: 'ModelError', code: 'model_unavailable' });
      // Without the flag the package is not looked for.
      await expect(cli.checkModelPackages({})).resolves.toBeUndefined();
    } finally {
      vi.doUnmock('openai');
      vi.resetModules();
    }
  });
});

describe('toolwire-stub', () => {
  it('prints its ws:// URL, says it accepts any key, serves clients and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'server-stub/cli.ts', '--port', '0'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const line = stdout.split('\n')[0];
        if (stdout.includes('\n') && line) resolve(line);
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    const client = await TestClient.connect(url, { apiKey: 'anything' });
    expect(client.welcome?.resumed).toBe(false);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect((await client.closed).code).toBe(4050);
    expect(stderr).toContain('no apiKeys configured: accepting any API key (or none)');
    expect(stderr).toContain(
      'toolwire-stub: model: scripted, with no script: every run fails until you give it one (--script turns.json) or a real model (--openai-base-url URL)',
    );
    expect(stderr).toContain(
      `toolwire-stub: agent UI at ${url.replace('ws://', 'http://')}/ (any API key is accepted)`,
    );
  });

  it('prints the agent UI address with the key of --api-key, so that the page opens signed in', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'server-stub/cli.ts', '--port', '0', '--api-key', 'k+1/x='],
      { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    const line = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = /toolwire-stub: agent UI at .*\n/.exec(stderr);
        if (found) resolve(found[0]);
      });
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(line).toMatch(/^toolwire-stub: agent UI at http:\/\/127\.0\.0\.1:\d+\/#key=k%2B1%2Fx%3D\n$/);
  });

  it('exits with code 2 for an --api-key no client could send (a space, a non-ASCII character)', async () => {
    for (const key of ['dev key', 'clé']) {
      const { code, stderr } = await cliExit(['--port', '0', '--api-key', 'good', '--api-key', key]);
      expect(code).toBe(2);
      expect(stderr).toContain(
        `toolwire-stub: --api-key must be 1 to 4096 printable ASCII characters without spaces, got a string of ${key.length} characters\n\nUsage: toolwire-stub`,
      );
      expect(stderr).not.toContain(key);
    }
  });

  it('exits with code 2 for bad --script and --agents files, naming the problems of both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolwire-stub-agents-'));
    const file = join(dir, 'agents.json');
    const script = join(dir, 'script.json');
    writeFileSync(file, JSON.stringify([{ name: 1 }]));
    writeFileSync(script, JSON.stringify([{ text: 1 }]));
    const { code, stderr } = await cliExit(['--port', '0', '--script', script, '--agents', file]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      new RegExp(
        `^toolwire-stub: --script: ${script}: turn 1: [^\n]+\n--agents: ${file}: agents\\[0\\] is not a valid agent definition: name must be a string; instructions must be a string; tools must be an array\n\nUsage: toolwire-stub`,
      ),
    );
  });

  it('exits with code 1 at start, saying to install openai, for --openai-base-url without the package', async () => {
    // A stub that starts anyway would run on: `cliExit` stops it when the test ends.
    const exited = await cliExit(
      ['--port', '0', '--openai-base-url', 'http://127.0.0.1:9/v1'],
      ['./test/fixtures/modules/without-openai.mjs'],
    );
    expect(exited).toEqual({
      code: 1,
      stdout: '',
      stderr:
        "toolwire-stub: --openai-base-url needs the openai package, an optional peer dependency of toolwire: npm install openai@6 where toolwire is installed (Cannot find package 'openai')\n",
    });
  });

  it('exits with code 2 and says why for an invalid value', async () => {
    const { code, stderr } = await cliExit(['--lease-ms', '10']);
    expect(code).toBe(2);
    expect(stderr).toContain(
      'toolwire-stub: --lease-ms must be an integer ≥ 1000, got 10\n\nUsage: toolwire-stub',
    );
  });
});
