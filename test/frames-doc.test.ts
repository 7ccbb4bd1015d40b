/**
 * The pages that list the fields of frames agree with the code: docs/protocol/frames.md names every field of every
 * frame, and no other (src/wire/protocol.ts), and docs/protocol/errors.md's row of informative `welcome` fields names every
 * one the client drops rather than refuse the frame for (src/wire/codec.ts).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { INFORMATIVE_SERVICE_FIELDS } from '../src/wire/codec';
import { clientFrames, serviceFrameSchema } from '../src/wire/protocol';

const { clientFrameSchema } = clientFrames();

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

/** Each frame type of `schema` with its fields (but `type`), sorted. */
function framesOf(schema: typeof clientFrameSchema | typeof serviceFrameSchema): Array<[string, string[]]> {
  type Shape = Record<string, { def?: { values?: unknown[] } }>;
  const options = (schema as unknown as { def: { options: Array<{ def: { shape: Shape } }> } }).def.options;
  return options.map(({ def: { shape } }) => [
    String(shape.type?.def?.values?.[0]),
    Object.keys(shape)
      .filter((name) => name !== 'type')
      .sort(),
  ]);
}

/** The names in backticks in the fields cell of `frames.md`'s row of `type`, but feature names (`feature \`steps\``). */
function fieldsNamed(section: 'client' | 'service', type: string): string[] {
  const page = readFileSync(`${root}docs/protocol/frames.md`, 'utf8');
  // The client's frames come first in the page, the service's after.
  const start = page.indexOf(section === 'client' ? '## Client to service' : '## Service to client');
  const rows = page.slice(start).split('\n');
  const line = rows.find((text) => text.startsWith(`| \`${type}\` |`) || text.startsWith(`| \`${type}\` / `));
  const cell = line?.split(/(?<!\\)\|/)[2]?.trim() ?? '';
  // A feature is named as "feature `steps`", or alone before its link: "(`run_codes`, [Runs](…))".
  return namesIn(cell.replace(/feature `\w+`/g, '').replace(/\(`\w+`, \[/g, '(['));
}

it.each([
  ['client', clientFrameSchema],
  ['service', serviceFrameSchema],
] as const)(
  'names every field of every %s frame in its row of docs/protocol/frames.md',
  (section, schema) => {
    const gaps = framesOf(schema).flatMap(([type, fields]) => {
      // `ping` and `pong` share one row.
      const named = fieldsNamed(section, type === 'pong' ? 'ping' : type);
      const missing = fields.filter((field) => !named.includes(field));
      const unknown = named.filter((name) => !fields.includes(name));
      return missing.length + unknown.length === 0 ? [] : [{ type, missing, unknown }];
    });
    expect(gaps).toEqual([]);
  },
);

it('names every informative field of welcome in the table of docs/protocol/errors.md', () => {
  const informative = [
    ...new Set((INFORMATIVE_SERVICE_FIELDS.welcome ?? []).map((path) => path.split('.')[0] as string)),
  ].sort();
  expect(namesIn(row('docs/protocol/errors.md', '`welcome` (s→c)')[2] ?? '')).toEqual(informative);
});
