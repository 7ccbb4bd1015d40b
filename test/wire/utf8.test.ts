import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonPrefix, jsonStringBytes, utf8Length } from '../../src/wire/utf8';

/** Texts of every kind of UTF-16 unit, each short and long (the long ones past the length counted natively). */
const SAMPLES = [
  '',
  'plain ascii',
  'é and ß',
  '中文 text',
  'emoji 😀 pair',
  'lone high \ud800 in the middle',
  'lone low \udc00 first',
  'ends on a lone high \udbff',
  'reversed pair \udc00\ud800',
  'quote " and backslash \\',
  'controls \n\t\b\f\r and \u0000 \u001f',
];
const TEXTS = SAMPLES.flatMap((sample) => [sample, `${'x'.repeat(300)}${sample}`, sample.repeat(40)]);
const encoded = (text: string) => new TextEncoder().encode(text).length;

describe('utf8Length', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('counts the bytes a UTF-8 encoder writes, a lone surrogate as 3, short and long texts alike', () => {
    for (const text of TEXTS) expect(utf8Length(text), JSON.stringify(text.slice(-40))).toBe(encoded(text));
  });

  it('counts the same where the runtime has no Buffer (browsers)', async () => {
    vi.stubGlobal('Buffer', undefined);
    vi.resetModules();
    const browser = await import('../../src/wire/utf8');
    for (const text of TEXTS)
      expect(browser.utf8Length(text), JSON.stringify(text.slice(-40))).toBe(encoded(text));
  });
});

describe('jsonStringBytes and jsonPrefix', () => {
  const jsonBytes = (text: string) => encoded(JSON.stringify(text));

  it('counts the bytes of JSON.stringify(text), escapes and lone surrogates included', () => {
    for (const text of TEXTS)
      expect(jsonStringBytes(text), JSON.stringify(text.slice(-40))).toBe(jsonBytes(text));
  });

  it('cuts to the longest prefix within the bytes, never inside a pair or an escape', () => {
    for (const text of TEXTS) {
      for (const max of [0, 1, 5, 6, 7, 40, 301, 4_000]) {
        const prefix = jsonPrefix(text, max);
        expect(text.startsWith(prefix)).toBe(true);
        expect(jsonBytes(prefix) - 2).toBeLessThanOrEqual(max);
        // One more character (a whole pair) would not fit.
        if (prefix.length < text.length) {
          const code = text.charCodeAt(prefix.length);
          const next = text.charCodeAt(prefix.length + 1);
          const units = code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? 2 : 1;
          expect(jsonBytes(text.slice(0, prefix.length + units)) - 2).toBeGreaterThan(max);
        }
      }
    }
  });
});
