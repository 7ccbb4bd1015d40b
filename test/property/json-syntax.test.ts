/**
 * `jsonSyntaxError()` reads the JSON grammar itself: its answer must agree with `JSON.parse` on every text, and
 * name the first character no JSON text can have there.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonSyntaxError } from '../../src/json-syntax';

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** Texts near JSON: JSON values written out, then cut, or with a character put in, taken out or changed. */
const nearJson = fc
  .tuple(
    fc
      .tuple(fc.jsonValue(), fc.constantFrom(0, 1))
      .map(([value, indent]) => JSON.stringify(value, null, indent)),
    fc.nat(),
    fc.constantFrom('cut', 'insert', 'delete', 'replace', 'none'),
    fc.constantFrom(...'{}[]",:.-+eE0123456789tfnu \\\n\t\u0000x/'.split(''), 'true', 'nul', '1e', '"\\u12'),
  )
  .map(([text, at, edit, piece]) => {
    const i = text.length === 0 ? 0 : at % (text.length + 1);
    if (edit === 'cut') return text.slice(0, i);
    if (edit === 'insert') return text.slice(0, i) + piece + text.slice(i);
    if (edit === 'delete') return text.slice(0, i) + text.slice(i + 1);
    if (edit === 'replace') return text.slice(0, i) + piece + text.slice(i + piece.length);
    return text;
  });

describe('jsonSyntaxError', () => {
  it('agrees with JSON.parse, and the text before the position it names is a start of JSON', () => {
    fc.assert(
      fc.property(nearJson, (text) => {
        const said = jsonSyntaxError(text);
        if (parses(text)) {
          // JSON by the grammar: only an engine's own limit refuses it.
          expect(said).toBe('invalid syntax');
          return;
        }
        if (said === 'unexpected end of input') return;
        const position = Number(/^invalid syntax at position (\d+)$/.exec(said)?.[1]);
        expect(position).toBeGreaterThanOrEqual(0);
        expect(position).toBeLessThan(text.length);
        // Up to it the text could still become JSON; with that character it cannot.
        const before = text.slice(0, position);
        expect(parses(before) || jsonSyntaxError(before) === 'unexpected end of input').toBe(true);
        expect(jsonSyntaxError(text.slice(0, position + 1))).toBe(said);
      }),
      { numRuns: 3_000, seed: 61 },
    );
  });

  it('reads a text nested a million levels deep without recursion', () => {
    expect(jsonSyntaxError('['.repeat(1_000_000))).toBe('unexpected end of input');
    expect(jsonSyntaxError(`${'['.repeat(1_000_000)}}`)).toBe('invalid syntax at position 1000000');
  });
});
