/**
 * The boundaries of the search in src/redact.ts (samples of 8 units, needles under 12 units looked for whole,
 * escapes found from their leads): secrets at either end of a text, across a sample, inside one another, made of
 * characters that look like escapes, non-ASCII, many of them, in every documented form, through a tool's result,
 * a thrown error and the log lines (test/support/leaks.ts decodes them every way).
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../src/redact';
import { findLeak, runLeaking } from './support/leaks';

const json = (text: string, times: number): string => {
  let out = text;
  for (let i = 0; i < times; i++) out = JSON.stringify(out).slice(1, -1);
  return out;
};
const percent = (text: string, times: number): string => {
  let out = text;
  for (let i = 0; i < times; i++) out = encodeURIComponent(out);
  return out;
};

/** Every documented form of `secret` a text may hold it in (the byte forms for 12+ bytes). */
function forms(secret: string): string[] {
  const out = [secret, secret.toLowerCase(), secret.toUpperCase()];
  for (let times = 1; times <= 4; times++) out.push(json(secret, times));
  for (let times = 1; times <= 8; times++) out.push(percent(secret, times));
  out.push(
    new URLSearchParams({ k: secret }).toString().slice(2),
    [...secret].map((char) => `\\u{${(char.codePointAt(0) as number).toString(16)}}`).join(''),
    secret.replace(/[\s\S]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`),
    encodeURIComponent(json(secret, 2)),
  );
  if (Buffer.byteLength(secret) >= 12) {
    const le = Buffer.from(secret, 'utf16le');
    for (const bytes of [Buffer.from(secret), le, Buffer.from(le).swap16()]) {
      out.push(bytes.toString('hex'), bytes.toString('hex').toUpperCase(), bytes.toString('base64'));
      out.push(bytes.toString('base64url'), Buffer.concat([Buffer.from('u:'), bytes]).toString('base64'));
    }
    out.push(Buffer.from(`c=${Buffer.from(`x${secret}`).toString('base64')}`).toString('base64'));
  }
  return out;
}

const SECRETS = [
  'abcd', // shortest searched
  'sk-12345678', // 11: needles looked for whole
  'sk-123456789', // 12: from samples
  'sk-live-0123456789abcdefghij', // long
  '\\backslash-first-1', // escapes' own characters
  'ends-with-backslash\\',
  '%41%42%43-pct-secret',
  'u00e9\\u0041-x27',
  'a+b c+d%20e',
  'ffff0000aaaa',
  'clé-secrète-ünï',
  '😀astral-𝔘-key',
  '"quote-first',
];

describe('redaction at the boundaries of the search', () => {
  it.each(SECRETS)(
    'finds %j in every form, at the start, at the end and across each sampling step',
    (secret) => {
      const redactor = new Redactor([secret]);
      for (const form of forms(secret)) {
        for (const pad of [0, 1, 3, 4, 5, 7, 8, 11, 12, 13, 20]) {
          for (const text of [
            form + '.'.repeat(pad),
            '.'.repeat(pad) + form,
            `${'x'.repeat(pad)}${form}${'y'.repeat(pad)}`,
          ]) {
            const out = redactor.text(text);
            expect(
              findLeak(out, secret),
              `${JSON.stringify(text)} -> ${JSON.stringify(out)}`,
            ).toBeUndefined();
          }
        }
      }
    },
  );

  it('finds a secret that begins with a backslash after %5C or after 16 backslashes, as written', () => {
    const secret = '\\backslash-first-1';
    const redactor = new Redactor([secret]);
    for (const before of ['%5C', '%255c', '\\'.repeat(16), '\\'.repeat(33), 'x\\'.repeat(20)]) {
      expect(redactor.text(before + secret)).not.toContain(secret.slice(1));
      expect(redactor.text(`${before}${secret}!`).endsWith(`${REDACTED}!`)).toBe(true);
    }
    for (const output of [
      `%5C${secret}`,
      `${'\\'.repeat(16)}${secret}`,
      { path: `${'\\'.repeat(16)}${secret}` },
    ]) {
      const { texts } = runLeaking([secret], () => output);
      for (const text of texts) expect(findLeak(text, secret), text).toBeUndefined();
      const thrown = runLeaking([secret], () => {
        throw new Error(`open ${typeof output === 'string' ? output : output.path} failed`, {
          cause: output,
        });
      });
      for (const text of thrown.texts) expect(findLeak(text, secret), text).toBeUndefined();
    }
  });

  it('finds secrets inside one another, overlapping and adjacent, whatever their order', () => {
    const outer = 'outer-secret-INNER-secret-tail';
    const inner = 'INNER-secret';
    const overlapping = ['first-secret-abcdef', 'abcdef-second-secret'];
    for (const rules of [[outer, inner], [inner, outer], overlapping, [...overlapping].reverse()]) {
      const redactor = new Redactor(rules);
      for (const text of [
        `${outer}${inner}${outer}`,
        'first-secret-abcdef-second-secret',
        `${inner}${inner}`,
        json(`"${outer}" ${inner}`, 3),
        percent(`first-secret-abcdef-second-secret ${inner}`, 2),
      ]) {
        const out = redactor.text(text);
        for (const secret of rules) expect(findLeak(out, secret), out).toBeUndefined();
      }
    }
  });

  it('finds each of 16 and 64 secrets near the end of a 1 MB text and in a text of escapes', () => {
    const keys = Array.from({ length: 64 }, (_, i) => `key-${i}-${'z'.repeat(i % 13)}-end`);
    const many = new Redactor(keys);
    const learned = new Redactor(['sk-the-api-key-0000']);
    for (const key of keys.slice(0, 16)) learned.learn(key);
    const filler = 'the quick brown fox \\ 100% '.repeat(40_000);
    for (const [redactor, rules] of [
      [many, keys],
      [learned, keys.slice(0, 16)],
    ] as const) {
      const text = `${filler}${rules.map((key, i) => (i % 3 === 0 ? json(key, 2) : i % 3 === 1 ? percent(key, 3) : key)).join(' ')}`;
      const out = redactor.text(text);
      for (const key of rules) expect(out.includes(key) || out.includes(percent(key, 3)), key).toBe(false);
      expect(out.startsWith(filler)).toBe(true);
    }
  });
});
