/**
 * Widgets as components: Card, Text, Badge, Table, Chart, List, Image. Every payload is checked with the SDK's
 * own `validateWidget` and against the limits below before anything is drawn; a payload that fails renders a
 * contained error box saying why, and the rest of the page carries on. Strings only ever become text nodes.
 *
 * @module
 */
import { type ChartWidget, validateWidget, type Widget } from '../../../src/tool/widget';
import { drawChart } from './chart';
import { el, pretty } from './dom';

/** What the page draws at most; beyond this a widget is cut (with a visible notice) or refused. */
export const WIDGET_LIMITS = {
  /** Cards inside cards. */
  maxDepth: 8,
  /** Children of one card. */
  maxChildren: 100,
  /** Table rows drawn (more: the first ones, under a notice). */
  maxTableRows: 200,
  /** Table columns (more: refused). */
  maxTableColumns: 40,
  /** Chart points (more: refused; a chart of thousands of bars says nothing). */
  maxChartPoints: 500,
  /** List items drawn (more: the first ones, under a notice). */
  maxListItems: 200,
  /** Characters of one string drawn (more: cut with `…`). */
  maxTextChars: 10_000,
} as const;

/** What the page keeps per rendered widget tree so it can clean up (charts hold canvases and observers). */
export interface WidgetHost {
  onChart(chart: { destroy(): void }): void;
}

/** Renders a widget payload from a tool result: the component, or an error box. Never throws. */
export function renderWidget(payload: unknown, host: WidgetHost): HTMLElement {
  if (nesting(payload) > WIDGET_LIMITS.maxDepth) {
    return errorBox(`cards are nested more than ${WIDGET_LIMITS.maxDepth} levels deep`, payload);
  }
  const checked = validateWidget(payload);
  if (!checked.ok) return errorBox(`${checked.path}: ${checked.message}`, payload);
  try {
    return el('div', { class: 'widget' }, component(checked.widget, host));
  } catch (error) {
    return errorBox(error instanceof Error ? error.message : String(error), payload);
  }
}

function component(widget: Widget, host: WidgetHost): HTMLElement {
  switch (widget.type) {
    case 'Card': {
      const children = widget.children ?? [];
      return el(
        'section',
        { class: 'w-card' },
        widget.title === undefined ? null : el('h3', { class: 'w-card-title', text: cut(widget.title) }),
        ...children.slice(0, WIDGET_LIMITS.maxChildren).map((child) => component(child, host)),
        children.length > WIDGET_LIMITS.maxChildren
          ? notice(`${children.length} children; the first ${WIDGET_LIMITS.maxChildren} are shown`)
          : null,
      );
    }
    case 'Text':
      return el('p', { class: 'w-text', text: cut(widget.value) });
    case 'Badge': {
      const color = BADGE_CLASSES[widget.color ?? 'neutral'] ?? BADGE_CLASSES.neutral;
      return el('span', { class: `w-badge ${color}`, text: cut(widget.label) });
    }
    case 'Table':
      return table(widget.columns, widget.rows);
    case 'Chart':
      return chart(widget, host);
    case 'List': {
      const items = widget.items.slice(0, WIDGET_LIMITS.maxListItems);
      const list = el(widget.ordered ? 'ol' : 'ul', { class: 'w-list' });
      for (const item of items) list.append(el('li', { text: cut(item) }));
      if (widget.items.length <= WIDGET_LIMITS.maxListItems) return list;
      return el(
        'div',
        {},
        notice(`${widget.items.length} items; the first ${WIDGET_LIMITS.maxListItems} are shown`),
        list,
      );
    }
    case 'Image': {
      // validateWidget allows only https:, http: and data:image/ URLs; the check is repeated where it is used.
      if (!/^(https?:\/\/|data:image\/)/i.test(widget.url)) throw new Error('unsupported image URL');
      return el(
        'figure',
        { class: 'w-image' },
        el('img', {
          attrs: { src: widget.url, alt: widget.alt, loading: 'lazy', referrerpolicy: 'no-referrer' },
        }),
        widget.alt === '' ? null : el('figcaption', { text: cut(widget.alt) }),
      );
    }
    default:
      throw new Error(`unknown widget type ${JSON.stringify((widget as { type?: unknown }).type)}`);
  }
}

const BADGE_CLASSES: Record<string, string> = {
  neutral: 'w-badge-neutral',
  success: 'w-badge-success',
  warning: 'w-badge-warning',
  danger: 'w-badge-danger',
  info: 'w-badge-info',
};

function table(columns: string[], rows: Array<Array<string | number | boolean | null>>): HTMLElement {
  if (columns.length > WIDGET_LIMITS.maxTableColumns) {
    throw new RefusedWidget(
      `the table has ${columns.length} columns; the page draws at most ${WIDGET_LIMITS.maxTableColumns}`,
    );
  }
  const shown = rows.slice(0, WIDGET_LIMITS.maxTableRows);
  const numeric = columns.map(
    (_, index) => shown.length > 0 && shown.every((row) => typeof row[index] === 'number'),
  );
  const head = el(
    'tr',
    {},
    ...columns.map((column, index) => el('th', { class: numeric[index] ? 'num' : '', text: cut(column) })),
  );
  const body = el('tbody');
  for (const row of shown) {
    body.append(
      el(
        'tr',
        {},
        ...row.map((cell) =>
          el('td', {
            class: typeof cell === 'number' ? 'num' : cell === null ? 'null' : '',
            text: cell === null ? '' : cut(String(cell)),
          }),
        ),
      ),
    );
  }
  const drawn = el(
    'div',
    { class: 'w-table-wrap' },
    el('table', { class: 'w-table' }, el('thead', {}, head), body),
  );
  if (rows.length <= WIDGET_LIMITS.maxTableRows) return drawn;
  return el(
    'div',
    {},
    notice(`table too large: ${rows.length} rows; the first ${WIDGET_LIMITS.maxTableRows} are shown`),
    drawn,
  );
}

function chart(widget: ChartWidget, host: WidgetHost): HTMLElement {
  if (widget.data.length > WIDGET_LIMITS.maxChartPoints) {
    throw new RefusedWidget(
      `the chart has ${widget.data.length} points; the page draws at most ${WIDGET_LIMITS.maxChartPoints}`,
    );
  }
  if (widget.data.some((datum) => !Number.isFinite(datum.value))) {
    throw new RefusedWidget('a chart value is not a finite number');
  }
  const canvas = el('canvas', {
    attrs: { role: 'img', 'aria-label': `${widget.kind} chart${widget.title ? `: ${widget.title}` : ''}` },
  });
  const box = el('div', { class: `w-chart w-chart-${widget.kind}` }, canvas);
  host.onChart(drawChart(canvas, widget));
  return box;
}

/** A widget the page refuses to draw (too big); the message says why and becomes the error box's text. */
class RefusedWidget extends Error {}

/** The contained error box shown instead of a widget. */
export function errorBox(reason: string, payload: unknown): HTMLElement {
  const type =
    typeof payload === 'object' &&
    payload !== null &&
    typeof (payload as { type?: unknown }).type === 'string'
      ? `${cut((payload as { type: string }).type, 40)} widget`
      : 'Widget';
  let shown = pretty(payload);
  if (shown.length > 2000) shown = `${shown.slice(0, 2000)}…`;
  return el(
    'div',
    { class: 'widget-error', attrs: { role: 'alert' } },
    el('strong', { text: `${type} not shown` }),
    el('span', { text: ` — ${reason}` }),
    el('details', {}, el('summary', { text: 'payload' }), el('pre', { text: shown })),
  );
}

function notice(text: string): HTMLElement {
  return el('div', { class: 'widget-error widget-notice', attrs: { role: 'note' }, text });
}

function cut(text: string, max: number = WIDGET_LIMITS.maxTextChars): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * How deep cards nest in a payload, measured without recursion (a hostile payload may be very deep); the count
 * stops just past the limit.
 */
function nesting(payload: unknown): number {
  let deepest = 0;
  const stack: Array<{ node: unknown; depth: number }> = [{ node: payload, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    deepest = Math.max(deepest, depth);
    if (deepest > WIDGET_LIMITS.maxDepth) return deepest;
    const children =
      typeof node === 'object' && node !== null ? (node as { children?: unknown }).children : null;
    if (Array.isArray(children)) for (const child of children) stack.push({ node: child, depth: depth + 1 });
  }
  return deepest;
}
