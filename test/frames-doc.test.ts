/**
 * The pages that list the fields of frames agree with the code (src/wire/protocol.ts): docs/protocol/frames-client.md
 * and docs/protocol/frames-service.md give every frame of their direction one row, naming every field of it and no
 * other, and no frame the code does not have; docs/protocol/frames.md names every field of the types they share.
 * docs/protocol/errors.md's row of informative `welcome` fields names every one the client drops rather than refuse
 * the frame for (src/wire/codec.ts).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { INFORMATIVE_SERVICE_FIELDS } from '../src/wire/codec';
import { clientFrames, runToolCallSchema, serviceFrameSchema } from '../src/wire/protocol';

const { clientFrameSchema, toolDefinitionSchema, agentDefinitionSchema } = clientFrames();

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

type Shape = Record<string, { def?: { values?: unknown[] } }>;

/** Each frame type of `schema` with its fields (but `type`), sorted. */
function framesOf(
  schema: typeof clientFrameSchema | ReturnType<typeof serviceFrameSchema>,
): Array<[string, string[]]> {
  const options = (schema as unknown as { def: { options: Array<{ def: { shape: Shape } }> } }).def.options;
  return options.map(({ def: { shape } }) => [
    String(shape.type?.def?.values?.[0]),
    Object.keys(shape)
      .filter((name) => name !== 'type')
      .sort(),
  ]);
}

/** The page that lists the frames of each direction, one row a frame. */
const FRAME_PAGES = {
  client: 'docs/protocol/frames-client.md',
  service: 'docs/protocol/frames-service.md',
} as const;

/** The rows of the frames table of `section`'s page: the frame types its first cell names (`ping` / `pong`), and the row. */
function frameRows(section: keyof typeof FRAME_PAGES): Array<[string[], string]> {
  return readFileSync(`${root}${FRAME_PAGES[section]}`, 'utf8')
    .split('\n')
    .filter((line) => /^\| `\w+`( \/ `\w+`)* \|/.test(line))
    .map((line) => [
      [...(line.split(/(?<!\\)\|/)[1] ?? '').matchAll(/`(\w+)`/g)].map((match) => match[1] as string),
      line,
    ]);
}

/** The names in backticks in the fields cell of the row of `type`, but feature names (`feature \`steps\``). */
function fieldsNamed(section: keyof typeof FRAME_PAGES, type: string): string[] {
  const line = frameRows(section).find(([types]) => types.includes(type))?.[1];
  const cell = line?.split(/(?<!\\)\|/)[2]?.trim() ?? '';
  // A feature is named as "feature `steps`", or alone before its link: "(`run_codes`, [Runs](…))".
  return namesIn(cell.replace(/feature `\w+`/g, '').replace(/\(`\w+`, \[/g, '(['));
}

it.each([
  ['client', clientFrameSchema],
  ['service', serviceFrameSchema()],
] as const)('names every field of every %s frame in its row, and no other', (section, schema) => {
  const gaps = framesOf(schema).flatMap(([type, fields]) => {
    const named = fieldsNamed(section, type);
    const missing = fields.filter((field) => !named.includes(field));
    const unknown = named.filter((name) => !fields.includes(name));
    return missing.length + unknown.length === 0 ? [] : [{ type, missing, unknown }];
  });
  expect(gaps).toEqual([]);
});

it.each([
  ['client', clientFrameSchema],
  ['service', serviceFrameSchema()],
] as const)(
  'gives every %s frame exactly one row, and no frame the code does not have',
  (section, schema) => {
    const documented = frameRows(section).flatMap(([types]) => types);
    const types = framesOf(schema).map(([type]) => type);
    expect(documented.filter((type) => !types.includes(type))).toEqual([]);
    expect(types.filter((type) => documented.filter((named) => named === type).length !== 1)).toEqual([]);
  },
);

/** The field names of a zod object schema, sorted. */
function keysOf(schema: unknown): string[] {
  return Object.keys((schema as { def: { shape: Record<string, unknown> } }).def.shape).sort();
}

/** The fields a shared type of docs/protocol/frames.md lists in its `**Name** \`{ a, b? }\`` line, sorted. */
function sharedTypeNamed(name: string): string[] {
  const page = readFileSync(`${root}docs/protocol/frames.md`, 'utf8');
  const braces = new RegExp(`\\*\\*${name}\\*\\*[^{\\n]*\\{([^}]*)\\}\``).exec(page)?.[1] ?? '';
  return braces
    .split(',')
    .map((field) => field.trim().replace(/\?$/, ''))
    .filter((field) => field !== '')
    .sort();
}

it('names every field of ToolDefinition, AgentDefinition and RunToolCall in docs/protocol/frames.md', () => {
  expect(sharedTypeNamed('ToolDefinition')).toEqual(keysOf(toolDefinitionSchema));
  expect(sharedTypeNamed('AgentDefinition')).toEqual(keysOf(agentDefinitionSchema));
  expect(sharedTypeNamed('RunToolCall')).toEqual(keysOf(runToolCallSchema()));
  // The table under ToolDefinition has a row for each field.
  const page = readFileSync(`${root}docs/protocol/frames.md`, 'utf8');
  const table = page.slice(page.indexOf('**ToolDefinition**'), page.indexOf('**AgentDefinition**'));
  const rows = [...table.matchAll(/^\| `(\w+)\??` \|/gm)].map((match) => match[1] as string).sort();
  expect(rows).toEqual(keysOf(toolDefinitionSchema));
});

it('names every informative field of welcome in the table of docs/protocol/errors.md', () => {
  const informative = [
    ...new Set((INFORMATIVE_SERVICE_FIELDS.welcome ?? []).map((path) => path.split('.')[0] as string)),
  ].sort();
  expect(namesIn(row('docs/protocol/errors.md', '`welcome` (s→c)')[2] ?? '')).toEqual(informative);
});
