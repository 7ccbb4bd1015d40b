/**
 * Property tests of redaction: random secrets (quotes, backslashes, control characters, non-ASCII, emoji, `%`,
 * spaces) embedded in random results (strings, keys, Maps, Errors with causes, binary data, widgets, thrown
 * values, text the tool escaped itself) never survive in anything a client lets out (the frame, the
 * `tool_result` event, log lines), in any form test/support/leaks.ts can decode: as written, JSON-escaped once
 * or twice, `\uXXXX`, percent-encoded, inside JSON inside JSON, in base64 binary data. And the redactor alone
 * on the forms a tool may make of a secret itself: lowercased, uppercased, percent-encoded 3 and 8 times, its
 * UTF-8 and UTF-16 bytes in hex and base64, base64 in base64.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Redactor, type RedactRule } from '../../src/redact';
import { encodedForms, findLeak, runLeaking } from '../support/leaks';

/** Text the client writes around a result without redacting it (the frame envelope, event fields, log words). */
const SKELETON = JSON.stringify({
  type: 'tool_result',
  callId: 'c1',
  runId: 'r1',
  toolName: 'leaky',
  status: 'ok error',
  output: '',
  durationMs: 0,
  widget: { type: 'Text', value: '' },
});

const piece = fc.oneof(
  fc.constantFrom(
    '"',
    '\\',
    '\n',
    '\t',
    '\u0001',
    '\u001f',
    '/',
    '%',
    ' ',
    '+',
    'é',
    'ж',
    '😀',
    '\u2028',
    '<',
    '&',
  ),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 3 }),
  fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 3 }),
);
const secretArb = fc
  .array(piece, { minLength: 1, maxLength: 8 })
  .map((pieces) => pieces.join(''))
  .filter((secret) => secret.length >= 4 && encodedForms(secret).every((form) => !SKELETON.includes(form)));

/** `secret` percent-encoded `times` times. */
function percentEncoded(secret: string, times: number): string {
  let out = secret;
  for (let i = 0; i < times; i++) out = encodeURIComponent(out);
  return out;
}

/** Whether `secret` has no lone surrogate (one cannot be percent-encoded). */
const isWellFormed = (secret: string): boolean => {
  try {
    encodeURIComponent(secret);
    return true;
  } catch {
    return false;
  }
};

/** Whether `secret`'s UTF-8 bytes are long enough for their byte encodings to be looked for (12 bytes). */
const longEnough = (secret: string): boolean => Buffer.byteLength(secret) >= 12;

/** `secret`'s UTF-16BE bytes. */
const utf16be = (secret: string) => Buffer.from(secret, 'utf16le').swap16();

/**
 * Forms a tool may make of a secret itself, each with whether the redactor promises to find it for `secret`
 * (docs/guide/secrets.md).
 */
const transforms: Record<string, [(secret: string) => string, (secret: string) => boolean]> = {
  lowercased: [(secret) => secret.toLowerCase(), (secret) => secret.length >= 4],
  uppercased: [(secret) => secret.toUpperCase(), (secret) => secret.length >= 4],
  'percent-encoded 3 times': [(secret) => percentEncoded(secret, 3), isWellFormed],
  'percent-encoded 8 times': [(secret) => percentEncoded(secret, 8), isWellFormed],
  'UTF-8 in hex': [(secret) => Buffer.from(secret).toString('hex'), longEnough],
  'UTF-16LE in base64': [(secret) => Buffer.from(secret, 'utf16le').toString('base64'), longEnough],
  'UTF-16LE in hex': [(secret) => Buffer.from(secret, 'utf16le').toString('hex'), longEnough],
  'UTF-16BE in base64url': [(secret) => utf16be(secret).toString('base64url'), longEnough],
  'UTF-16BE in hex, upper case': [(secret) => utf16be(secret).toString('hex').toUpperCase(), longEnough],
  'base64 in base64': [
    (secret) => Buffer.from(Buffer.from(secret).toString('base64')).toString('base64'),
    longEnough,
  ],
};

/** A random secret, the name of a form of it in {@link transforms} that the redactor promises for it, and that form. */
const formOfSecret = fc
  .tuple(
    fc.array(piece, { minLength: 2, maxLength: 8 }).map((pieces) => pieces.join('')),
    fc.constantFrom(...Object.keys(transforms)),
  )
  .filter(([secret, name]) => (transforms[name] as (typeof transforms)[string])[1](secret))
  .map(([secret, name]) => ({
    secret,
    name,
    form: (transforms[name] as (typeof transforms)[string])[0](secret),
  }));

/** A result that holds `secret` somewhere (or several times). */
function resultHolding(secret: string): fc.Arbitrary<unknown> {
  const bearing = fc
    .tuple(fc.string({ maxLength: 4 }), fc.string({ maxLength: 4 }))
    .map(([before, after]) => `${before}${secret}${after}`);
  const key = fc.oneof(bearing, fc.string({ maxLength: 4 }));
  return fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      bearing,
      fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean(), fc.constant(null), fc.bigInt()),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.array(fc.tuple(key, tie('value')), { maxLength: 3 }).map((entries) => {
        const out: Record<string, unknown> = {};
        for (const [name, item] of entries)
          Object.defineProperty(out, name, { value: item, enumerable: true, writable: true });
        return out;
      }),
      fc.array(fc.tuple(key, tie('value')), { maxLength: 3 }).map((entries) => new Map(entries)),
      fc.tuple(bearing, tie('value')).map(([message, cause]) => new Error(message, { cause })),
      bearing.map((text) => new AggregateError([new Error(text)], text)),
      bearing.map((text) => new TextEncoder().encode(text)),
      bearing.map((text) => new Set([text])),
    ),
  })).value;
}

type Mode = 'return' | 'widget' | 'throw' | 'throw-error' | 'escaped-by-tool';
const modes = fc.constantFrom<Mode>('return', 'widget', 'throw', 'throw-error', 'escaped-by-tool');

function executeFor(mode: Mode, value: unknown, secret: string): () => unknown {
  switch (mode) {
    case 'return':
      return () => value;
    case 'widget':
      return () => ({ data: value, widget: { type: 'Text', value: `shown: ${secret}` } });
    case 'throw':
      return () => {
        throw value;
      };
    case 'throw-error':
      return () => {
        throw new Error(`failed: ${secret}`, { cause: value });
      };
    case 'escaped-by-tool':
      return () => JSON.stringify(JSON.stringify({ value: `${secret}` }));
  }
}

describe('redaction', () => {
  it('lets no secret out of a client, in any form, whatever the result holds', () => {
    fc.assert(
      fc.property(
        secretArb.chain((secret) => fc.tuple(fc.constant(secret), resultHolding(secret), modes)),
        fc.constantFrom('api key', 'redact string', 'redact pattern'),
        ([secret, value, mode], as) => {
          // A pattern meets text as it is: one cannot find a secret the tool escaped itself (documented).
          fc.pre(as !== 'redact pattern' || mode !== 'escaped-by-tool');
          // The API key comes first in the client's rules; a user rule may come with others.
          const rules: RedactRule[] =
            as === 'api key'
              ? [secret, 'other-secret']
              : as === 'redact string'
                ? ['other-secret', secret]
                : ['other-secret', new RegExp(secret.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'))];
          const { texts } = runLeaking(rules, executeFor(mode, value, secret));
          for (const text of texts) expect(findLeak(text, secret), text).toBeUndefined();
        },
      ),
      { numRuns: 400 },
    );
  });

  it('redacts every encoded form of a secret in text, and never writes it in its replacement', () => {
    fc.assert(
      fc.property(
        fc.array(piece, { minLength: 1, maxLength: 6 }).map((pieces) => pieces.join('')),
        fc.string({ maxLength: 6 }),
        fc.string({ maxLength: 6 }),
        (secret, before, after) => {
          const redactor = new Redactor([secret]);
          expect(redactor.replacement.includes(secret)).toBe(false);
          for (const form of encodedForms(secret)) {
            const out = redactor.text(`${before}${form}${after}`);
            expect(out.includes(secret), out).toBe(false);
            for (const again of encodedForms(secret)) expect(out.includes(again), out).toBe(false);
          }
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('redacts a secret lowercased, uppercased, percent-encoded up to 8 times, and its bytes in hex and base64', () => {
    fc.assert(
      fc.property(
        formOfSecret,
        fc.string({ maxLength: 6 }),
        fc.string({ maxLength: 6 }),
        ({ secret, name, form }, before, after) => {
          const out = new Redactor([secret]).text(`${before}${form}${after}`);
          expect(out.includes(form), `${name}: ${out}`).toBe(false);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('lets no secret out of a client in the forms a tool makes of it, returned or thrown', () => {
    fc.assert(
      fc.property(
        formOfSecret,
        fc.constantFrom<Mode>('return', 'throw-error'),
        fc.constantFrom('api key', 'redact string'),
        ({ secret, name, form }, mode, as) => {
          fc.pre(!SKELETON.includes(form));
          const rules: RedactRule[] = as === 'api key' ? [secret, 'other-secret'] : ['other-secret', secret];
          const { texts } = runLeaking(rules, executeFor(mode, `got ${form}!`, form));
          for (const text of texts) {
            expect(text.includes(form), `${name}: ${text}`).toBe(false);
            expect(text.includes(JSON.stringify(form).slice(1, -1)), `${name}: ${text}`).toBe(false);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('leaves text without a secret, a backslash or a % as it is', () => {
    fc.assert(
      fc.property(secretArb, fc.string({ maxLength: 40 }), (secret, text) => {
        fc.pre(!text.includes(secret) && !text.includes('\\') && !text.includes('%'));
        expect(new Redactor([secret]).text(text)).toBe(text);
      }),
      { numRuns: 1_000 },
    );
  });
});
