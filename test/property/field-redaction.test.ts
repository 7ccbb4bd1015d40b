/**
 * Property tests of redaction by field name (src/call/redaction.ts) and of JSON outputs
 * (`redactOutput`, src/redact.ts): a sensitive value of any kind (a string of any length and characters, a number, a
 * boolean, `null`, an object) planted anywhere in a tool's JSON output never breaks it, and a value of at least
 * 4 characters never survives in it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type CallPolicy, invokeTool, tool } from '../../src/index';
import { Redactor, redactOutput } from '../../src/redact';

const text = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom('1', ' ', 'e', '"', ':', ',', 'true', 'null', '1234', '","', '\\', '[redacted]', 'acted'),
);
const scalar = fc.oneof(
  text,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
const sensitive = fc.oneof(
  scalar,
  fc.dictionary(fc.string(), scalar, { maxKeys: 3 }),
  fc.array(scalar, { maxLength: 3 }),
);

/** Every string and key of a JSON value. */
function strings(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, into);
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) into.push(key, ...strings(item));
  return into;
}

/** The texts a redactor searches for among the values of `value` (a string as it is, a number's digits), 4+ long. */
function searched(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) {
    if (String(value).length >= 4) into.push(String(value));
  } else if (typeof value === 'object' && value !== null)
    for (const item of Object.values(value)) searched(item, into);
  return into;
}

const redactPin: CallPolicy = () => ({ redact: ['pin'] });

describe('redaction by field name, property', () => {
  it('keeps a JSON output JSON, the field replaced whole and a 4+ character value gone, for any value', async () => {
    await fc.assert(
      fc.asyncProperty(
        sensitive,
        fc.jsonValue({ maxDepth: 3 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(0, 2),
        async (pin, around, byPolicy, asText, indent) => {
          const shown = typeof pin === 'string' ? pin : JSON.stringify(pin);
          const output = { around, pin, echoes: [pin, `x${shown}y`], nested: { pin } };
          const echo = tool({
            name: 'echo',
            description: 'Echoes.',
            parameters: z.object({ pin: z.unknown() }),
            ...(byPolicy ? {} : { sensitiveFieldNames: ['pin'] }),
            execute: () => (asText ? JSON.stringify(output, null, indent) : output),
          });
          const result = await invokeTool(echo, { pin }, byPolicy ? { policies: [redactPin] } : {});
          expect(result.status).toBe('ok');
          const parsed = JSON.parse(result.output) as unknown;
          const placeholder = (parsed as { pin?: unknown }).pin ?? parsed;
          expect(typeof placeholder).toBe('string');
          for (const secret of searched(pin)) {
            expect(result.output).not.toContain(secret);
            for (const found of strings(parsed)) expect(found).not.toContain(secret);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  // Rules as a client takes them: `redact` strings of 4+ characters (a shorter API key is warned about).
  it('redactOutput: any rules of 4+ characters over any JSON text leave JSON in which no rule matches', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ minLength: 4 }),
            fc.constantFrom('true', 'null', '":"1', '1234', '{"a"', '"[re'),
          ),
          {
            minLength: 1,
            maxLength: 3,
          },
        ),
        fc.jsonValue({ maxDepth: 3 }),
        fc.constantFrom(0, 2),
        (rules, value, indent) => {
          const redactor = new Redactor(rules);
          const json = JSON.stringify(value, null, indent);
          const out = redactOutput(redactor, json);
          expect(() => JSON.parse(out)).not.toThrow();
          expect(redactor.text(out)).toBe(out);
        },
      ),
      { numRuns: 1_000 },
    );
  });
});

describe('redactOutput, examples', () => {
  it('falls back to the replacement as JSON when a secret spans two values, and to null when a rule matches that', () => {
    expect(redactOutput(new Redactor(['a","b']), '["a","b"]')).toBe('"[redacted]"');
    expect(redactOutput(new Redactor(['true', '"']), '{"ok":true}')).toBe('null');
  });
});
