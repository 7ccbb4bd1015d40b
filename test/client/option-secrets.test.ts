import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveStubOptions } from '../../server-stub/options';
import { Client, type ClientOptions, ConnectionError, OptionsError, tool } from '../../src/index';
import { displayUrl } from '../../src/logger';
import { unknownOptionMessage } from '../support/known-options';

/**
 * Option errors never print a secret: values are scrubbed of the API key and the redact rules given, `url` is shown
 * without its userinfo, query and fragment, and redact rules (which are secrets themselves) are never shown.
 */
const SECRET = 's3cret-value';
const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'ok' });
const base: ClientOptions = { url: 'ws://127.0.0.1:1', apiKey: 'k', tools: [echo] };

function refusal(options: Record<string, unknown>): OptionsError {
  try {
    new Client({ ...base, ...options } as ClientOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(OptionsError);
    return error as OptionsError;
  }
  throw new Error('the options were accepted');
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('option errors never print secrets', () => {
  it.each([
    [
      'a value that is a redact rule',
      { redact: [SECRET], maxQueue: SECRET },
      'new Client(options): maxQueue must be a non-negative integer, got "[redacted]"',
    ],
    [
      'a value holding a redact rule',
      { redact: [SECRET], logger: `logger-${SECRET}-x` },
      'new Client(options): logger must be a logger with debug, info, warn and error methods, got "logger-[redacted]-x"',
    ],
    [
      'a value matching a redact RegExp',
      { redact: [/sk-[a-z0-9]+/], heartbeatIntervalMs: 'sk-abc123' },
      'new Client(options): heartbeatIntervalMs must be a positive integer of milliseconds up to 2147483647 (the longest timer), got "[redacted]"',
    ],
    [
      'the API key, however short',
      { apiKey: 'dev', maxConcurrency: 'dev' },
      'new Client(options): maxConcurrency must be a positive integer, got "[redacted]"',
    ],
    [
      'a redact rule that is refused itself',
      { redact: ['abc'] },
      'new Client(options): redact[0] must be a string of 4 characters or more (shorter ones would scrub ordinary words) or a RegExp that does not match the empty string, got a string of 3 characters',
    ],
    [
      'a redact RegExp that is refused (its pattern may spell the secret)',
      { redact: [/(?:s3cret)?/] },
      'new Client(options): redact[0] must be a string of 4 characters or more (shorter ones would scrub ordinary words) or a RegExp that does not match the empty string, got a RegExp',
    ],
    [
      'redact given as a string',
      { redact: SECRET },
      'new Client(options): redact must be an array of strings and RegExps, got a string of 12 characters',
    ],
    [
      'a secret as an unknown key',
      { redact: [SECRET], [SECRET]: true },
      unknownOptionMessage('new Client(options): unknown option "[redacted]"', 'url', 'apiKey', 'tools'),
    ],
    [
      'a url with a token in its query',
      { url: `https://svc.example/ws?token=${SECRET}` },
      'new Client(options): url must be a ws:// or wss:// URL without a fragment (#…), got "https://svc.example/ws?[redacted]"',
    ],
    [
      'a url with userinfo and a fragment',
      { url: `http://user:${SECRET}@svc.example/ws#${SECRET}` },
      'new Client(options): url must be a ws:// or wss:// URL without a fragment (#…), got "http://[redacted]@svc.example/ws#[redacted]"',
    ],
    [
      'a url that is no URL',
      { url: `svc.example/ws?key=${SECRET}` },
      'new Client(options): url must be a ws:// or wss:// URL without a fragment (#…), got "svc.example/ws?[redacted]"',
    ],
    [
      'a URL object with a token in its userinfo and query',
      { url: new URL(`https://user:${SECRET}@svc.example/ws?token=${SECRET}`) },
      'new Client(options): url must be a ws:// or wss:// URL without a fragment (#…), got "https://[redacted]@svc.example/ws?[redacted]"',
    ],
  ])('%s', (_case, options, message) => {
    const error = refusal(options);
    expect(error.message).toEqual(message);
    expect(error.message).not.toContain(SECRET);
    expect(error.message).not.toContain('s3cret');
  });

  it('scrubs the API key taken from TOOLWIRE_API_KEY', () => {
    vi.stubEnv('TOOLWIRE_API_KEY', SECRET);
    const error = refusal({ apiKey: undefined, maxQueue: SECRET });
    expect(error.message).toBe(
      'new Client(options): maxQueue must be a non-negative integer, got "[redacted]"',
    );
  });

  it('scrubs before cutting, so a long value cannot show the start of a secret', () => {
    const error = refusal({ redact: [SECRET], url: `${'x'.repeat(75)}${SECRET}` });
    expect(error.message).toBe(
      `new Client(options): url must be a ws:// or wss:// URL without a fragment (#…), got "${'x'.repeat(75)}[reda…"`,
    );
  });

  it('shows a url without userinfo, query or fragment', () => {
    expect(displayUrl('wss://svc.example:8443/v1/ws')).toBe('wss://svc.example:8443/v1/ws');
    expect(displayUrl('wss://u:p@svc.example/v1/ws?token=t#f')).toBe(
      'wss://[redacted]@svc.example/v1/ws?[redacted]#[redacted]',
    );
    expect(displayUrl('wss://svc.example/?')).toBe('wss://svc.example/?[redacted]');
  });

  it.each([
    ['one slash', `ws:/me:${SECRET}@svc.example/ws`, 'ws:/[redacted]@svc.example/ws'],
    // Accepted as options (ws:// or wss:// at the start): messages about the connection show it.
    ['three slashes', `wss:///me:${SECRET}@svc.example`, 'wss:///[redacted]@svc.example'],
    ['a leading space', ` wss://me:${SECRET}@svc.example`, ' wss://[redacted]@svc.example'],
    ['a leading newline', `\nwss://me:${SECRET}@svc.example`, '\nwss://[redacted]@svc.example'],
    ['no colon after the scheme', `wss//me:${SECRET}@svc.example`, '[redacted]@svc.example'],
    ['a slash in the password', `wss://me:a/${SECRET}@svc.example`, 'wss://[redacted]@svc.example'],
    ['no scheme', `me:${SECRET}@svc.example`, '[redacted]@svc.example'],
  ])('hides the userinfo of a url with %s too', (_case, url, shown) => {
    expect(displayUrl(url)).toBe(shown);
    if (!/^wss?:\/\//.test(url)) expect(refusal({ url }).message).not.toContain(SECRET);
  });

  it.each([
    ['a string', `ws://127.0.0.1:1/ws?token=${SECRET}`],
    ['a string with an upper-case scheme', `WS://127.0.0.1:1/ws?token=${SECRET}`],
    ['a URL object', new URL(`ws://127.0.0.1:1/ws?token=${SECRET}`)],
  ])('does not print the url query of the service in connection errors (%s)', async (_case, url) => {
    const client = new Client({ ...base, url, reconnect: false });
    const error = await client.connect().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).code).toBe('unreachable');
    expect((error as ConnectionError).message).toMatch(
      /^cannot reach ws:\/\/127\.0\.0\.1:1\/ws\?\[redacted\] /,
    );
    expect((error as ConnectionError).message).not.toContain(SECRET);
  });

  it('does not print the url userinfo of the service in connection errors', async () => {
    for (const url of [`WSS://me:${SECRET}@127.0.0.1:1/ws`, new URL(`wss://me:${SECRET}@127.0.0.1:1/ws`)]) {
      const client = new Client({ ...base, url, reconnect: false });
      const error = (await client.connect().catch((e: unknown) => e)) as ConnectionError;
      expect(error).toMatchObject({ name: 'ConnectionError', code: 'unreachable' });
      expect(error.message).toMatch(/^cannot reach wss:\/\/\[redacted\]@127\.0\.0\.1:1\/ws /);
      expect(error.message).not.toContain(SECRET);
    }
  });

  it('does not print the url query in invalid_url, nor in its cause', async () => {
    const client = new Client({ ...base, url: `ws://exa mple.com/ws?token=${SECRET}`, reconnect: false });
    const error = (await client.connect().catch((e: unknown) => e)) as ConnectionError;
    expect(error).toMatchObject({ name: 'ConnectionError', code: 'invalid_url' });
    expect(error.message).toBe(
      'cannot open ws://exa mple.com/ws?[redacted]: Invalid URL: ws://exa mple.com/ws?[redacted]',
    );
    expect(String((error.cause as Error).message)).not.toContain(SECRET);
    expect(String((error.cause as Error).stack)).not.toContain(SECRET);
  });

  it.each([
    // Chromium's words: they quote the fragment alone, or the whole URL.
    [
      `wss://me:${SECRET}@127.0.0.1:1/ws?x=${SECRET}`,
      (url: string) => `The URL '${url}' is invalid; its query (?${url.split('?')[1]}) too.`,
    ],
  ])('does not print a part of the url a WebSocket that refuses it quotes (%s)', async (url, words) => {
    class Refusing {
      constructor(given: string) {
        throw new SyntaxError(`Failed to construct 'WebSocket': ${words(given)}`);
      }
    }
    const WebSocket = Refusing as unknown as NonNullable<ClientOptions['WebSocket']>;
    const client = new Client({ ...base, url, WebSocket, reconnect: false });
    const error = (await client.connect().catch((e: unknown) => e)) as ConnectionError;
    expect(error).toMatchObject({ name: 'ConnectionError', code: 'invalid_url' });
    expect(error.message).not.toContain(SECRET);
    expect(String((error.cause as Error).message)).not.toContain(SECRET);
    expect(String((error.cause as Error).stack)).not.toContain(SECRET);
  });

  it.each([
    [`wss://127.0.0.1:1/ws#token=${SECRET}`, 'wss://127.0.0.1:1/ws#[redacted]'],
    [`ws://host/#frag`, 'ws://host/#[redacted]'],
    [new URL(`wss://h.example/ws#key=${SECRET}`), 'wss://h.example/ws#[redacted]'],
  ])('refuses a url with a fragment when the client is made, not printing it (%s)', (url, shown) => {
    // Some runtimes' WebSocket refuses a fragment (quoting it) and others ignore it: refused here, the same everywhere.
    expect(() => new Client({ ...base, url })).toThrowError(
      new OptionsError(
        'invalid_option',
        `new Client(options): url must be a ws:// or wss:// URL without a fragment (#…), got "${shown}"`,
      ),
    );
  });

  it('does not print the stub API keys given in a wrong shape', () => {
    expect(() => resolveStubOptions({ apiKeys: SECRET as never })).toThrowError(
      new OptionsError(
        'invalid_option',
        'startStubServer: apiKeys must be an array of strings, got a string of 12 characters',
      ),
    );
  });
});
