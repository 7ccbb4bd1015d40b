/**
 * Widgets: small UI descriptions a tool returns next to its data (`{ ..., widget }`). The UI renders them;
 * the model never sees them. Every widget is validated before it leaves the process, within limits: at most
 * {@link MAX_WIDGET_DEPTH} (32) widgets deep, at most {@link MAX_WIDGET_BYTES} (262,144) bytes of JSON, no
 * cycles, and image URLs restricted to `https:`, `http:` and base64 PNG, JPEG, GIF or WebP `data:` URLs.
 *
 * Runtime schemas use `zod/mini` (as src/wire/protocol.ts does) to keep browser bundles small.
 *
 * @module
 */
import * as z from 'zod/mini';
import { once } from '../once';
import { jsonStringBytes } from '../utf8';
import { thrownMessage } from './output';
import { formatPath } from './schema/adapter';

/** Colours a {@link BadgeWidget} may use. */
export const BADGE_COLORS = ['neutral', 'success', 'warning', 'danger', 'info'] as const;
/** Kinds of {@link ChartWidget}. */
export const CHART_KINDS = ['bar', 'line', 'pie'] as const;
/** Every widget `type`. */
export const WIDGET_TYPES = ['Card', 'Text', 'Badge', 'Table', 'Chart', 'List', 'Image'] as const;

/** A titled container; the only widget that nests others. */
export interface CardWidget {
  type: 'Card';
  title?: string;
  children?: Widget[];
}
/** A paragraph of plain text (not Markdown, not HTML). */
export interface TextWidget {
  type: 'Text';
  value: string;
}
/** A short label, e.g. an order status. @default color `'neutral'` when omitted (the UI's choice). */
export interface BadgeWidget {
  type: 'Badge';
  label: string;
  color?: (typeof BADGE_COLORS)[number];
}
/** One table cell. */
export type TableCell = string | number | boolean | null;
/** A table; every row has exactly as many cells as there are columns. */
export interface TableWidget {
  type: 'Table';
  columns: string[];
  rows: TableCell[][];
}
/** One data point of a chart. `value` is a finite number. */
export interface ChartDatum {
  label: string;
  value: number;
}
/** A bar, line or pie chart of labelled values. */
export interface ChartWidget {
  type: 'Chart';
  kind: (typeof CHART_KINDS)[number];
  title?: string;
  data: ChartDatum[];
}
/** A list of plain-text items, bulleted unless `ordered`. */
export interface ListWidget {
  type: 'List';
  items: string[];
  ordered?: boolean;
}
/**
 * An image; `alt` is required. `url` is an absolute `https:` or `http:` URL with a host, or a base64 `data:` URL
 * of a PNG, JPEG, GIF or WebP image (`data:image/(png|jpeg|gif|webp);base64,…`): never `javascript:`, never SVG
 * (which can hold script), and never with whitespace or control characters anywhere in it. Parsed with
 * `new URL()`. Large images belong at an `https:` URL: the whole widget is limited to 262,144 bytes.
 */
export interface ImageWidget {
  type: 'Image';
  url: string;
  alt: string;
}
/** Any widget. */
export type Widget =
  | CardWidget
  | TextWidget
  | BadgeWidget
  | TableWidget
  | ChartWidget
  | ListWidget
  | ImageWidget;

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Cards nested in Cards: the root widget is level 1, a Card's children are one level below it. */
export const MAX_WIDGET_DEPTH = 32;
/** Largest widget, in UTF-8 bytes of its JSON (`JSON.stringify` of the keys widgets define). */
export const MAX_WIDGET_BYTES = 262_144;
// Objects and arrays on one path: a widget at level 32 holds at most a Table row (level × 2 + 1 containers).
const MAX_CONTAINER_DEPTH = MAX_WIDGET_DEPTH * 2 + 1;

const NOT_AN_IMAGE_URL = 'must be an https: or http: URL, or a data:image/(png|jpeg|gif|webp);base64, URL';
// Whitespace (Unicode's included) and controls (C0, DEL, C1): browsers strip some of them, which hides a scheme.
const SPACE_OR_CONTROL = /[\s\p{Cc}]/u;
const HTTP_URL = /^https?:\/\//i;
const DATA_IMAGE_URL = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/i;

/** What is wrong with an image URL, or `undefined` when it is allowed. */
function imageUrlProblem(url: string): string | undefined {
  if (SPACE_OR_CONTROL.test(url)) return 'must not contain spaces or control characters';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return NOT_AN_IMAGE_URL;
  }
  if (parsed.protocol === 'https:' || parsed.protocol === 'http:') {
    return HTTP_URL.test(url) && parsed.hostname !== '' ? undefined : NOT_AN_IMAGE_URL;
  }
  if (parsed.protocol === 'data:' && DATA_IMAGE_URL.test(url)) return undefined;
  return NOT_AN_IMAGE_URL;
}

/**
 * Runtime schema of {@link Widget} (zod/mini), built at the first {@link validateWidget} and kept: a process whose
 * tools return no widget never builds it (issue 28: with the run events' shapes, ~120 KiB of a Node worker's heap).
 * Unknown keys are dropped; a widget of an unknown `type` fails.
 */
function buildWidgetSchema(): z.ZodMiniType<Widget> {
  const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
  const imageUrl = z.string().check(
    z.superRefine((url, ctx) => {
      const problem = imageUrlProblem(url);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem, input: url });
    }),
  );
  const card = z.object({
    type: z.literal('Card'),
    title: z.optional(z.string()),
    get children() {
      return z.optional(z.array(schema));
    },
  });
  const table = z
    .object({ type: z.literal('Table'), columns: z.array(z.string()), rows: z.array(z.array(cell)) })
    .check(
      z.superRefine((value, ctx) => {
        value.rows.forEach((row, index) => {
          if (row.length !== value.columns.length) {
            ctx.addIssue({
              code: 'custom',
              path: ['rows', index],
              message: `has ${plural(row.length, 'cell')} but the table has ${plural(value.columns.length, 'column')}`,
              input: row,
            });
          }
        });
      }),
    );
  const schema: z.ZodMiniType<Widget> = z.discriminatedUnion('type', [
    card,
    z.object({ type: z.literal('Text'), value: z.string() }),
    z.object({ type: z.literal('Badge'), label: z.string(), color: z.optional(z.enum(BADGE_COLORS)) }),
    table,
    z.object({
      type: z.literal('Chart'),
      kind: z.enum(CHART_KINDS),
      title: z.optional(z.string()),
      data: z.array(z.object({ label: z.string(), value: z.number() })),
    }),
    z.object({ type: z.literal('List'), items: z.array(z.string()), ordered: z.optional(z.boolean()) }),
    z.object({ type: z.literal('Image'), url: imageUrl, alt: z.string() }),
  ]) as unknown as z.ZodMiniType<Widget>;
  return schema;
}

/** The widget schema ({@link buildWidgetSchema}), built at the first call and kept. */
const widgetSchema = /* @__PURE__ */ once(buildWidgetSchema);

/** Result of {@link validateWidget}. `path` is rendered like argument paths (`children[0].label`, `(root)`). */
export type WidgetValidation = { ok: true; widget: Widget } | { ok: false; path: string; message: string };

interface MiniIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: unknown;
  values?: unknown[];
  discriminator?: string;
  minimum?: unknown;
  maximum?: unknown;
}

// zod/mini ships no message locale (installing one would change the user's zod), so the text is written here.
function describeIssue(issue: MiniIssue): { path: PropertyKey[]; message: string } {
  if (issue.code === 'invalid_union' && issue.discriminator !== undefined) {
    return {
      path: issue.path,
      message: `expected one of ${WIDGET_TYPES.map((t) => JSON.stringify(t)).join(', ')}`,
    };
  }
  // The only other union is a table cell.
  if (issue.code === 'invalid_union')
    return { path: issue.path, message: 'expected a string, number, boolean or null' };
  if (issue.code === 'invalid_type')
    return { path: issue.path, message: `expected ${String(issue.expected)}` };
  if (issue.code === 'invalid_value') {
    const values = (issue.values ?? []).map((v) => JSON.stringify(v)).join(', ');
    return { path: issue.path, message: `expected one of ${values}` };
  }
  if (issue.code === 'custom') return { path: issue.path, message: issue.message };
  return { path: issue.path, message: issue.code.replaceAll('_', ' ') };
}

/** Every key a widget (or a chart datum) defines; nothing else is read. */
const WIDGET_KEYS = [
  'type',
  'title',
  'children',
  'value',
  'label',
  'color',
  'columns',
  'rows',
  'kind',
  'data',
  'items',
  'ordered',
  'url',
  'alt',
] as const;

/** Why a widget could not be copied: where, and what. Thrown inside {@link snapshot} only. */
class Refusal {
  constructor(
    readonly path: PropertyKey[],
    readonly message: string,
  ) {}
}

const isEnumerableOwn = (value: object, key: PropertyKey) =>
  Object.prototype.propertyIsEnumerable.call(value, key);

/**
 * A plain-data copy of a widget, read the way `JSON.stringify` reads it (own enumerable properties, each read
 * once; only the keys widgets define), within {@link MAX_WIDGET_DEPTH}, {@link MAX_WIDGET_BYTES} and without
 * cycles. Validation then runs on the copy, so a getter can neither throw inside the validator nor answer
 * differently afterwards, and nothing a tool returns can make validation recurse without bound.
 */
function snapshot(root: unknown): { ok: true; value: unknown } | Refusal {
  let budget = MAX_WIDGET_BYTES;
  const path: PropertyKey[] = [];
  const ancestors: object[] = [];
  const spend = (bytes: number) => {
    budget -= bytes;
    if (budget < 0) {
      throw new Refusal([], `is over the widget size limit of ${MAX_WIDGET_BYTES} bytes (as JSON)`);
    }
  };

  /** Reads `container[key]` once and copies it; `itemLevel` is the level of its items when it is an array. */
  const child = (container: object, key: PropertyKey, level: number, itemLevel = level): unknown => {
    path.push(key);
    try {
      let value: unknown;
      try {
        value = (container as Record<PropertyKey, unknown>)[key];
      } catch (error) {
        throw new Refusal([...path], `could not be read: ${thrownMessage(error, 'its getter')}`);
      }
      return copy(value, level, itemLevel);
    } finally {
      path.pop();
    }
  };

  const copyArray = (array: unknown[], itemLevel: number): unknown[] => {
    const length = array.length;
    spend(length === 0 ? 2 : length + 1); // brackets and commas
    const out: unknown[] = [];
    for (let index = 0; index < length; index++) {
      const item = child(array, index, itemLevel);
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') spend(4); // null
      out.push(item);
    }
    return out;
  };

  const copyObject = (object: object, level: number): Record<string, unknown> => {
    spend(2); // braces
    const out: Record<string, unknown> = {};
    for (const key of WIDGET_KEYS) {
      if (!isEnumerableOwn(object, key)) continue;
      // A Card's children are widgets one level below it.
      const value = child(object, key, level, key === 'children' ? level + 1 : level);
      if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue;
      spend(jsonStringBytes(key) + 1 + (Object.keys(out).length > 0 ? 1 : 0)); // "key": and a comma
      out[key] = value;
    }
    return out;
  };

  const copy = (value: unknown, level: number, itemLevel = level): unknown => {
    if (typeof value === 'string') {
      if (value.length + 2 > budget) spend(value.length + 2); // at least a byte each: refuse without counting
      spend(jsonStringBytes(value));
      return value;
    }
    if (typeof value === 'number') spend(Number.isFinite(value) ? String(value).length : 4);
    else if (typeof value === 'boolean') spend(value ? 4 : 5);
    else if (value === null) spend(4);
    if (typeof value !== 'object' || value === null) return value; // other types are refused by the schema
    if (ancestors.includes(value))
      throw new Refusal([...path], 'refers back to an enclosing object (a cycle)');
    if (level > MAX_WIDGET_DEPTH) {
      throw new Refusal([...path], `is nested more than ${MAX_WIDGET_DEPTH} levels deep`);
    }
    if (ancestors.length >= MAX_CONTAINER_DEPTH) throw new Refusal([...path], 'is nested too deeply');
    ancestors.push(value);
    try {
      return Array.isArray(value) ? copyArray(value, itemLevel) : copyObject(value, level);
    } catch (error) {
      if (error instanceof Refusal) throw error;
      // A proxy's trap, `Array.isArray` of a revoked proxy, a `length` that throws.
      throw new Refusal([...path], `could not be read: ${thrownMessage(error, 'reading it')}`);
    } finally {
      ancestors.pop();
    }
  };

  try {
    return { ok: true, value: copy(root, 1) };
  } catch (error) {
    if (error instanceof Refusal) return error;
    return new Refusal([], `could not be read: ${thrownMessage(error, 'reading it')}`);
  }
}

/**
 * Validates a widget. Never throws, and never recurses or copies without bound: the widget is first read the
 * way `JSON.stringify` would read it (own enumerable properties, each read once, only the keys widgets define),
 * then checked against the widget types. On failure, reports the first problem: its path inside the widget
 * (`children[0].color`, `(root)`) and a message. Besides type errors, the messages are:
 *
 * - `refers back to an enclosing object (a cycle)`: a widget (or array) that contains itself;
 * - `is nested more than 32 levels deep`: a widget past {@link MAX_WIDGET_DEPTH} (`is nested too deeply` for
 *   other data nested past where any widget can hold it);
 * - `is over the widget size limit of 262144 bytes (as JSON)`, at `(root)`: past {@link MAX_WIDGET_BYTES};
 * - `could not be read: <message>`: a getter (or a proxy) threw;
 * - `must be an https: or http: URL, or a data:image/(png|jpeg|gif|webp);base64, URL` and
 *   `must not contain spaces or control characters`: an {@link ImageWidget} URL.
 *
 * @example
 * ```ts
 * validateWidget({ type: 'Badge', label: 'shipped', color: 'pink' });
 * // { ok: false, path: 'color', message: 'expected one of "neutral", "success", "warning", "danger", "info"' }
 * ```
 */
export function validateWidget(value: unknown): WidgetValidation {
  const copied = snapshot(value);
  if (copied instanceof Refusal) return { ok: false, path: formatPath(copied.path), message: copied.message };
  let parsed: ReturnType<z.ZodMiniType<Widget>['safeParse']>;
  try {
    parsed = widgetSchema().safeParse(copied.value);
  } catch (error) {
    return { ok: false, path: formatPath([]), message: `could not be validated: ${thrownMessage(error)}` };
  }
  if (parsed.success) return { ok: true, widget: parsed.data };
  const first = parsed.error.issues[0] as MiniIssue | undefined;
  if (first === undefined) return { ok: false, path: formatPath([]), message: 'is not a widget' };
  const { path, message } = describeIssue(first);
  return { ok: false, path: formatPath(path), message };
}
