import { afterEach, describe, expect, it, vi } from 'vitest';
import { utf8Length } from '../../src/wire/utf8';

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
