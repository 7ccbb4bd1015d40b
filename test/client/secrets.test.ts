/**
 * Secrets never leave through a result: the API key and `redact` rules, whatever characters they hold and
 * whatever their length, in every form (see test/support/leaks.ts), in the frame, the `tool_result` event and
 * every log line.
 */
import { describe, expect, it } from 'vitest';
import { findLeak, runLeaking } from '../support/leaks';

function expectNoLeak(texts: string[], secret: string): void {
  for (const text of texts) expect(findLeak(text, secret), text).toBeUndefined();
}

const AWKWARD = [
  'pa"ss\\word',
  'line1\nline2\ttab',
  'ключ-секрет',
  'emoji-😀-key',
  'ctl\u0001\u001f-x',
  'a/b+c d',
];

describe('redaction of secrets that need escapes', () => {
  it.each(AWKWARD)('keeps %j out of object outputs, as a value and as a key', (secret) => {
    const { texts, frame } = runLeaking([secret], () => ({ note: `it is ${secret}!`, [secret]: 1 }));
    expectNoLeak(texts, secret);
    expect(JSON.parse((frame as { output: string }).output)).toEqual({
      note: 'it is [redacted]!',
      '[redacted]': 1,
    });
  });

  it.each(AWKWARD)(
    'keeps the API key %j out of a thrown error, a Map, an Error result and a widget',
    (secret) => {
      expectNoLeak(runLeaking([secret], () => new Map([[secret, new Error(secret)]])).texts, secret);
      expectNoLeak(
        runLeaking([secret], () => ({ list: [{ deep: [secret] }], widget: { type: 'Text', value: secret } }))
          .texts,
        secret,
      );
      expectNoLeak(
        runLeaking([secret], () => {
          throw new Error(`failed with ${JSON.stringify({ key: secret })}`);
        }).texts,
        secret,
      );
      expectNoLeak(
        runLeaking([secret], () => {
          throw { key: secret };
        }).texts,
        secret,
      );
    },
  );

  it('keeps a secret out when the tool wrote it escaped itself', () => {
    const secret = 'pa"ss\\word';
    const escaped = JSON.stringify(secret);
    const { texts } = runLeaking([secret], () => `raw: ${escaped} and ${JSON.stringify(escaped)}`);
    expectNoLeak(texts, secret);
  });

  it('keeps a secret out when the tool wrote it in base64 (Basic credentials) or hex itself, in any place', () => {
    const secret = 'sk-live-0123456789abcdef';
    const basic = (user: string) => `Basic ${Buffer.from(`${user}:${secret}`).toString('base64')}`;
    expectNoLeak(runLeaking([secret], () => ({ sent: { authorization: basic('u') } })).texts, secret);
    expectNoLeak(runLeaking([secret], () => `header was ${basic('ab')}`).texts, secret);
    expectNoLeak(
      runLeaking([secret], () => {
        throw new Error(`401 for ${basic('abc')}`);
      }).texts,
      secret,
    );
    expectNoLeak(
      runLeaking([secret], () => ({ widget: { type: 'Text', value: basic('x') }, n: 1 })).texts,
      secret,
    );
    expectNoLeak(runLeaking([secret], () => `token ${Buffer.from(secret).toString('hex')}`).texts, secret);
  });

  it('applies a RegExp rule to every string before it is written as JSON (a newline inside a match)', () => {
    const { frame } = runLeaking([/BEGIN KEY\n[^\n]*\nEND KEY/], () => ({ pem: 'BEGIN KEY\nabc\nEND KEY' }));
    expect((frame as { output: string }).output).toBe('{"pem":"[redacted]"}');
  });

  it('keeps secret bytes out of binary data', () => {
    const secret = 'binary-secret-ü';
    const { texts } = runLeaking([secret], () => ({ file: new TextEncoder().encode(`head ${secret} tail`) }));
    expectNoLeak(texts, secret);
  });

  it('keeps secret bytes out of binary data in UTF-16 (a Windows file)', () => {
    const secret = 'sk-live-utf16-key';
    const file = new Uint8Array(Buffer.from(`\ufeffkey=${secret}\r\n`, 'utf16le'));
    const { frame } = runLeaking([secret], () => ({ file }));
    expect((frame as { output: string }).output).toBe('{"file":"[redacted]"}');
  });
});

// A Client does not search for an API key this short (test/client/short-api-key.test.ts); a Redactor given a short
// string rule still finds it everywhere, and picks a replacement the rule cannot touch.
describe('short string rules given to a Redactor', () => {
  it('redacts a 3-character rule from outputs, log lines and tool_result events', () => {
    const { texts, frame } = runLeaking(['dev'], () => {
      throw new Error('key dev refused');
    });
    expect((frame as { output: string }).output).toBe('Error running leaky: key [redacted] refused');
    expectNoLeak(texts, 'dev');
  });

  it('redacts a 1-character secret from the output, choosing a replacement it does not occur in', () => {
    const { frame } = runLeaking(['d'], () => 'odd');
    expect((frame as { output: string }).output).toBe('o[REDACTED][REDACTED]');
  });
});
