/**
 * The pages that list the fields of a `welcome` agree with the code: docs/protocol/frames.md names every field of
 * the frame (src/wire/protocol.ts), and docs/protocol/errors.md's row of informative `welcome` fields names every
 * one the client drops rather than refuse the frame for (src/wire/codec.ts).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { INFORMATIVE_SERVICE_FIELDS } from '../src/wire/codec';
import { serviceFrameSchema } from '../src/wire/protocol';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The cells of the table row of `page` whose first cell starts with `first`. */
function row(page: string, first: string): string[] {
  const line = readFileSync(`${root}${page}`, 'utf8')
    .split('\n')
    .find((text) => text.startsWith(`| ${first}`));
  return line === undefined ? [] : line.split(/(?<!\\)\|/).map((cell) => cell.trim());
}

/** The distinct field names in backticks in `text` (`name`, `name?: type`), sorted. */
function namesIn(text: string): string[] {
  return [...new Set([...text.matchAll(/`(\w+)\??(?::[^`]*)?`/g)].map((match) => match[1] as string))].sort();
}

it('names every field of welcome in the frames table of docs/protocol/frames.md', () => {
  const shapes = (
    serviceFrameSchema as unknown as { def: { options: Array<{ def: { shape: Record<string, unknown> } }> } }
  ).def.options.map((option) => option.def.shape);
  const welcome = shapes.find((shape) => 'sessionId' in shape && 'resumed' in shape) ?? {};
  const fields = Object.keys(welcome)
    .filter((name) => name !== 'type')
    .sort();
  expect(namesIn(row('docs/protocol/frames.md', '`welcome` |')[2] ?? '')).toEqual(fields);
});

it('names every informative field of welcome in the table of docs/protocol/errors.md', () => {
  const informative = [
    ...new Set((INFORMATIVE_SERVICE_FIELDS.welcome ?? []).map((path) => path.split('.')[0] as string)),
  ].sort();
  expect(namesIn(row('docs/protocol/errors.md', '`welcome` (s→c)')[2] ?? '')).toEqual(informative);
});
