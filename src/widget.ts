/**
 * Widgets: small UI descriptions a tool returns next to its data (`{ ..., widget }`). The UI renders them;
 * the model never sees them. Every widget is validated before it leaves the process.
 *
 * Runtime schemas use `zod/mini` (as src/protocol.ts does) to keep browser bundles small.
 *
 * @module
 */
import * as z from 'zod/mini';
import { formatPath } from './schema/path';

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
/** An image. `url` is `https:`, `http:` or a `data:image/…` URL (never `javascript:`); `alt` is required. */
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
const cell = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const imageUrl = z.string().check(
  z.refine((url) => /^(https?:\/\/|data:image\/)/i.test(url), {
    message: 'must be an https:, http: or data:image/ URL',
  }),
);

const card = z.object({
  type: z.literal('Card'),
  title: z.optional(z.string()),
  get children() {
    return z.optional(z.array(widgetSchema));
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

/**
 * Runtime schema of {@link Widget} (zod/mini). Unknown keys are dropped; a widget of an unknown `type` fails.
 * Prefer {@link validateWidget}, which renders a path and a message.
 */
export const widgetSchema: z.ZodMiniType<Widget> = z.discriminatedUnion('type', [
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

/**
 * Validates a widget. Never throws. On failure, reports the first problem: its path inside the widget
 * (`children[0].color`, `(root)`) and a message.
 *
 * @example
 * ```ts
 * validateWidget({ type: 'Badge', label: 'shipped', color: 'pink' });
 * // { ok: false, path: 'color', message: 'expected one of "neutral", "success", "warning", "danger", "info"' }
 * ```
 */
export function validateWidget(value: unknown): WidgetValidation {
  const parsed = widgetSchema.safeParse(value);
  if (parsed.success) return { ok: true, widget: parsed.data };
  const first = parsed.error.issues[0] as MiniIssue | undefined;
  if (first === undefined) return { ok: false, path: formatPath([]), message: 'is not a widget' };
  const { path, message } = describeIssue(first);
  return { ok: false, path: formatPath(path), message };
}
