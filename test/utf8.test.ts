import { afterEach, describe, expect, it, vi } from 'vitest';
import { isJsonVerbatim, jsonPrefix, jsonStringBytes, utf8Bytes, utf8Length, utf8Text } from '../src/utf8';

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
    const browser = await import('../src/utf8');
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

describe('isJsonVerbatim', () => {
  it('is true for text JSON.stringify writes as it is between quotes, short and long, and false for any escape or surrogate', () => {
    const verbatim = new Set(['', 'plain ascii', 'é and ß', '中文 text']);
    for (const sample of SAMPLES) {
      for (const text of [sample, `${'x'.repeat(300)}${sample}`, sample.repeat(40)]) {
        expect(isJsonVerbatim(text), JSON.stringify(text.slice(-40))).toBe(verbatim.has(sample));
        if (verbatim.has(sample)) expect(JSON.stringify(text)).toBe(`"${text}"`);
      }
    }
  });
});

describe('utf8Bytes and utf8Text', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  /** The module as a runtime without TextEncoder and TextDecoder loads it (Jest's jsdom environment). */
  const withoutCodecs = async () => {
    vi.stubGlobal('TextEncoder', undefined);
    vi.stubGlobal('TextDecoder', undefined);
    vi.resetModules();
    return import('../src/utf8');
  };

  it('encodes as TextEncoder does where the runtime has none, a lone surrogate as U+FFFD', async () => {
    const native = TEXTS.map((text) => utf8Bytes(text));
    const here = await withoutCodecs();
    TEXTS.forEach((text, index) => {
      expect(here.utf8Bytes(text), JSON.stringify(text.slice(-40))).toEqual(native[index]);
    });
  });

  it('decodes valid UTF-8 as TextDecoder does, and invalid bytes to U+FFFD around the same characters', async () => {
    const valid = TEXTS.map((text) => utf8Bytes(text));
    let seed = 7;
    const random = Array.from({ length: 300 }, () =>
      Uint8Array.from({ length: 1 + (seed % 24) }, () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % 3 === 0 ? 0x80 + (seed % 64) : seed % 256;
      }),
    );
    const cases = [
      ...valid,
      ...random,
      Uint8Array.of(0xe0, 0x80, 0x80), // overlong
      Uint8Array.of(0xed, 0xa0, 0x80), // a surrogate
      Uint8Array.of(0xf4, 0x90, 0x80, 0x80), // past U+10FFFF
      Uint8Array.of(0xf0, 0x9f, 0x98, 0x41), // cut short
      Uint8Array.of(0xc0, 0xaf, 0xff, 0x41),
    ];
    const native = cases.map((bytes) => utf8Text(bytes));
    const here = await withoutCodecs();
    const runs = (text: string) => text.replace(/\ufffd+/g, '\ufffd');
    cases.forEach((bytes, index) => {
      const decoded = here.utf8Text(bytes);
      if (index < valid.length) expect(decoded).toBe(native[index]);
      else expect(runs(decoded), String([...bytes])).toBe(runs(native[index] as string));
    });
  });
});
