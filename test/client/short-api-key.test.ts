/**
 * An API key shorter than 4 characters (the README's `--api-key dev`) is not searched for in free text, as a
 * `redact` string that short is not: it would take ordinary words with it (`device` → `[redacted]ice`). It is still
 * replaced where a string is, whole, the key, and the client warns once, without printing it.
 */
import { describe, expect, it } from 'vitest';
import { Client, tool } from '../../src/index';
import type { Logger } from '../../src/logger';
import { clientRedactor, REDACTED } from '../../src/redact';
import { recordingLogger } from '../support/recording-logger';
import { FAKE_URL, fakeWebSocket, useFakeService } from './fake-service';

const { service, clients } = useFakeService();

const tools = [
  tool({ name: 'words', description: 'd', execute: () => 'device in development' }),
  tool({ name: 'whole', description: 'd', execute: () => 'dev' }),
  tool({
    name: 'object',
    description: 'd',
    execute: () => ({ env: 'dev', note: 'device', dev: 1, list: ['dev', 'devx'] }),
  }),
  tool({
    name: 'thrown',
    description: 'd',
    execute: () => {
      throw new Error('the dev key dev was refused');
    },
  }),
];

async function connected(apiKey: string, logger: Logger) {
  const client = new Client({
    url: FAKE_URL,
    WebSocket: fakeWebSocket(),
    apiKey,
    tools,
    logger,
    reconnect: false,
  });
  clients.push(client);
  const connection = await service.connect(client);
  return { client, connection };
}

describe('a Client with a short API key', () => {
  it('leaves words that hold it alone, replaces it where it is a whole value, and warns once', async () => {
    const { logger, lines } = recordingLogger();
    const { client, connection } = await connected('dev', logger);
    const events: string[] = [];
    client.on('tool_result', (info) => events.push(info.output));
    const outputs: Record<string, string> = {};
    for (const name of ['words', 'whole', 'object', 'thrown']) {
      const result = connection.next('tool_result');
      connection.send({ type: 'tool_call', callId: name, runId: 'r1', toolName: name, arguments: {} });
      outputs[name] = (await result).output;
    }
    expect(outputs).toEqual({
      words: 'device in development',
      whole: REDACTED,
      object: JSON.stringify({ env: REDACTED, note: 'device', [REDACTED]: 1, list: [REDACTED, 'devx'] }),
      thrown: 'Error running thrown: the dev key dev was refused',
    });
    expect(events).toEqual(Object.values(outputs));
    const warnings = lines.filter((line) => line.message.includes('API key is shorter'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.level).toBe('warn');
    expect(warnings[0]?.message).not.toContain('dev');
    expect(warnings[0]?.object).toEqual({ length: 3 });
  });

  it('a key of 4 characters or more is searched for in free text, and no warning', async () => {
    const { logger, lines } = recordingLogger();
    const { connection } = await connected('deve', logger);
    const result = connection.next('tool_result');
    connection.send({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'words', arguments: {} });
    expect((await result).output).toBe(`device in ${REDACTED}lopment`);
    expect(lines.filter((line) => line.message.includes('API key is shorter'))).toEqual([]);
  });
});

describe('clientRedactor: the API key by value kind', () => {
  const short = clientRedactor('k', []);
  const digits = clientRedactor('123', []);

  it.each([
    ['a word that holds it', short, 'kaboom', 'kaboom'],
    ['a sentence that holds it', short, 'k is not kaboom', 'k is not kaboom'],
    ['the key alone', short, 'k', REDACTED],
    ['the key with a space', short, 'k ', 'k '],
    ['digits that hold it', digits, '12345', '12345'],
  ])('text: %s', (_, redactor, text, expected) => {
    expect(redactor.text(text)).toBe(expected);
  });

  it('values: a whole string, key or number is replaced; inside a longer one it is not', () => {
    expect(
      short.value({ k: 'k', kind: 'kaboom', list: ['k', 'ok', ['k']], n: 1, flag: true, none: null }),
    ).toEqual({
      [REDACTED]: REDACTED,
      kind: 'kaboom',
      list: [REDACTED, 'ok', [REDACTED]],
      n: 1,
      flag: true,
      none: null,
    });
    expect(digits.value({ a: 123, b: 1234, c: 123n, d: '123', e: '0123' })).toEqual({
      a: REDACTED,
      b: 1234,
      c: REDACTED,
      d: REDACTED,
      e: '0123',
    });
  });

  it('errors and strings about to be written as JSON', () => {
    expect(short.error(new Error('k')).message).toBe(REDACTED);
    expect(short.error(new Error('kaboom')).message).toBe('kaboom');
    expect(short.perString).toBe(true);
    expect(short.inString('k')).toBe(REDACTED);
    expect(short.inString('kaboom')).toBe('kaboom');
  });

  it('keeps the redact rules searched for, and a long key with them', () => {
    const withRules = clientRedactor('dev', ['s3cr3t', /tok-\d+/]);
    expect(withRules.text('dev s3cr3t tok-42 development')).toBe(`dev ${REDACTED} ${REDACTED} development`);
    expect(withRules.with(['extra-value']).text('dev')).toBe(REDACTED);
    expect(clientRedactor('long-key', []).text('a long-key here')).toBe(`a ${REDACTED} here`);
  });

  it('never picks a replacement that is the key', () => {
    expect(clientRedactor('***', ['[redacted]', '[REDACTED]', '<redacted>']).replacement).toBe('###');
  });
});

describe('option errors of a Client with a short API key', () => {
  it('quote words that hold the key as they are, and a value that is the key as [redacted]', () => {
    const made = (options: Record<string, unknown>) => {
      try {
        new Client({ url: FAKE_URL, apiKey: 'k', reconnect: false, tools: [], ...options } as never);
        return 'made';
      } catch (error) {
        return (error as Error).message;
      }
    };
    const lookup = tool({ name: 'lookup', description: 'd', execute: () => 'x' });
    const other = tool({ name: 'lookup', description: 'other', execute: () => 'y' });
    expect([made({ maxQueue: 'kilo' }), made({ maxQueue: 'k' }), made({ tools: [lookup, other] })]).toEqual([
      'new Client(options): maxQueue must be a non-negative integer, got "kilo"',
      `new Client(options): maxQueue must be a non-negative integer, got "${REDACTED}"`,
      expect.stringContaining('"lookup"'),
    ]);
  });
});
