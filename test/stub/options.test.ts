import { describe, expect, it } from 'vitest';
import { STUB_DEFAULTS, startStubServer } from '../../server-stub/index';
import { resolveStubOptions } from '../../server-stub/options';
import type { AgentDefinition } from '../../src/wire/protocol';
import { PROTOCOL_DEFAULTS } from '../../src/wire/protocol';
import { agent } from './helpers';

describe('stub options', () => {
  it('defaults to loopback, a free port and the protocol defaults', () => {
    const resolved = resolveStubOptions({});
    expect(resolved).toMatchObject({
      ...STUB_DEFAULTS,
      host: '127.0.0.1',
      port: 0,
      apiKeys: undefined,
      maxPayloadBytes: PROTOCOL_DEFAULTS.maxPayloadBytes,
    });
    expect(STUB_DEFAULTS).toEqual({
      port: 0,
      host: '127.0.0.1',
      heartbeatIntervalMs: 15_000,
      callDeadlineMs: 120_000,
      sessionGraceMs: 60_000,
      leaseMs: 45_000,
      maxCallDurationMs: 86_400_000,
      maxPayloadBytes: 1_048_576,
      helloTimeoutMs: 10_000,
      maxFramesPerSecond: 2_000,
      maxFrameBurst: 4_000,
      maxTurns: 10,
      maxRunDepth: 8,
      maxRunsPerSession: 64,
      busyRetryMs: 250,
      handBackAgainMs: 1_000,
      maxHttpBodyBytes: 1_048_576,
      maxBufferedBytes: 16_777_216,
    });
  });

  it.each([
    [{ port: 70_000 }, 'startStubServer: port must be at most 65535 (the largest TCP port), got 70000'],
    [{ callDeadlineMs: 0 }, 'startStubServer: callDeadlineMs must be an integer ≥ 1, got 0'],
    [{ heartbeatIntervalMs: 1.5 }, 'startStubServer: heartbeatIntervalMs must be an integer ≥ 100, got 1.5'],
    [{ maxPayloadBytes: 100 }, 'startStubServer: maxPayloadBytes must be an integer ≥ 1024, got 100'],
    [
      { apiKeys: [''] },
      'startStubServer: apiKeys[0] must be a non-empty string or { key, tenant } of non-empty strings',
    ],
    // Keys no client can send in `Authorization: Bearer <key>`: accepted, they would never match.
    [
      { apiKeys: ['ok', 'dev key'] },
      'startStubServer: apiKeys[1] must be 1 to 4096 printable ASCII characters without spaces, got a string of 7 characters',
    ],
    [
      { apiKeys: [{ key: 'clé', tenant: 'acme' }] },
      'startStubServer: apiKeys[0].key must be 1 to 4096 printable ASCII characters without spaces, got a string of 3 characters',
    ],
    [{ host: '' }, 'startStubServer: host must be a non-empty string, got ""'],
    [{ agents: [agent('a', []), agent('a', [])] }, 'startStubServer: agents[1]: the name "a" is used twice'],
    [
      { agents: agent('a', []) as unknown as AgentDefinition[] },
      'startStubServer: agents must be an array of agent definitions, got an object',
    ],
    [
      { agents: null as unknown as AgentDefinition[] },
      'startStubServer: agents must be an array of agent definitions, got null',
    ],
    [
      { agents: [{ name: 'a', tools: [] }] },
      'startStubServer: agents[0] is not a valid agent definition: instructions must be a string',
    ],
    [
      // Every bad definition at once, each at its place, one a line.
      { agents: [agent('a', []), { name: '', instructions: '', tools: 'x' }, agent('a', []), 'b'] },
      [
        'startStubServer: 3 agents are invalid:',
        '- agents[1] is not a valid agent definition: name must be at least 1 character; tools must be an array',
        '- agents[2]: the name "a" is used twice',
        '- agents[3] is not a valid agent definition: must be an object',
      ].join('\n'),
    ],
    [{ model: {} }, 'startStubServer: model must have a nextTurn(request) method'],
    [{ apiKey: 'dev' }, 'startStubServer: unknown option "apiKey" (did you mean "apiKeys"?)'],
    [
      { cors: ['http://localhost:5173'] },
      'startStubServer: unknown option "cors" (did you mean "corsOrigins"?)',
    ],
    [
      { apiKey: 'dev', cors: [] },
      // All at once, as the SDK's own options say them.
      'startStubServer: unknown options "apiKey" (did you mean "apiKeys"?) and "cors" (did you mean "corsOrigins"?)',
    ],
    [
      { timeoutMs: 5 },
      // Nothing close: every option is listed, those of the defaults and the others.
      expect.stringMatching(
        /^startStubServer: unknown option "timeoutMs"; known options: port, .*, apiKeys, adminKey, corsOrigins, agents, model, logger, features$/,
      ),
    ],
  ])('refuses %j', async (options, message) => {
    await expect(startStubServer(options as never)).rejects.toMatchObject({
      name: 'OptionsError',
      code: 'invalid_option',
      message,
    });
  });

  // Each numeric option's largest value, and why: a timer's, a count's that still counts, a port's, a string's.
  const TIMER = [2_147_483_647, 'the longest timer'] as const;
  const COUNT = [Number.MAX_SAFE_INTEGER, 'the largest integer a number holds exactly'] as const;
  const maxima: Record<string, readonly [number, string]> = {
    port: [65_535, 'the largest TCP port'],
    heartbeatIntervalMs: TIMER,
    callDeadlineMs: TIMER,
    sessionGraceMs: TIMER,
    leaseMs: TIMER,
    maxCallDurationMs: TIMER,
    maxPayloadBytes: [536_870_888, 'the longest string V8 makes of a frame'],
    helloTimeoutMs: TIMER,
    maxFramesPerSecond: COUNT,
    maxFrameBurst: COUNT,
    maxTurns: COUNT,
    maxRunDepth: COUNT,
    maxRunsPerSession: COUNT,
    busyRetryMs: TIMER,
    handBackAgainMs: TIMER,
    maxHttpBodyBytes: [536_870_888, 'the longest string V8 makes of a body'],
    maxBufferedBytes: COUNT,
  };

  it('bounds every numeric option', () => {
    const numeric = Object.keys(STUB_DEFAULTS).filter((key) => key !== 'host');
    expect(Object.keys(maxima)).toEqual(numeric);
  });

  it.each(Object.entries(maxima))(
    'takes %s up to its largest value, and refuses one above it',
    (key, [max, why]) => {
      expect(resolveStubOptions({ [key]: max })).toMatchObject({ [key]: max });
      // The next number above (past 2^53 − 1, integers are 2 apart: 2^53 is the next one).
      for (const above of [max + 1, 1e308])
        expect(() => resolveStubOptions({ [key]: above })).toThrow(
          expect.objectContaining({
            name: 'OptionsError',
            code: 'invalid_option',
            message: `startStubServer: ${key} must be at most ${max} (${why}), got ${above}`,
          }),
        );
    },
  );

  it('treats an empty apiKeys list as "any key"', () => {
    expect(resolveStubOptions({ apiKeys: [] }).apiKeys).toBeUndefined();
  });
});
