/**
 * What a running call tells while it runs, drawn in its card's activity slot (PROTOCOL.md §18): a progress bar
 * with its message, and the latest preliminary result.
 *
 * @module
 */
import type { CallCard, EventData } from './call-card';
import { el, pretty } from './dom';
import { renderWidget } from './widgets';

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Compact numbers for the progress line: `40`, `2.5`, `1,234`. */
function count(value: number): string {
  return value.toLocaleString(undefined, { maximumFractionDigits: 2 });
}

/** Shows a `tool_progress` event: a bar (indeterminate without `total`) and `40 / 100 · message`. */
export function showProgress(card: CallCard, data: EventData): void {
  const progress = isNumber(data.progress) ? data.progress : 0;
  const total = isNumber(data.total) && data.total > 0 ? data.total : undefined;
  const bar = el('progress', {
    class: 'progress-bar',
    attrs: {
      'aria-label': 'progress',
      ...(total === undefined ? {} : { max: String(total), value: String(Math.min(progress, total)) }),
    },
  });
  const numbers = total === undefined ? count(progress) : `${count(progress)} / ${count(total)}`;
  const message = typeof data.message === 'string' && data.message !== '' ? ` · ${data.message}` : '';
  const line = el(
    'div',
    {
      class: 'call-progress',
      dataset: { progress: String(progress), ...(total === undefined ? {} : { total: String(total) }) },
    },
    bar,
    el('span', { class: 'progress-text', text: `${numbers}${message}` }),
  );
  const known = card.activity.querySelector('.call-progress');
  if (known) known.replaceWith(line);
  else card.activity.prepend(line);
}

/**
 * Shows a `tool_preliminary` event: the latest preliminary result (its output and widget), replacing the one
 * before; the call's result removes it ({@link clearPreliminary}).
 */
export function showPreliminary(
  card: CallCard,
  data: EventData,
  onChart: (chart: { destroy(): void }) => void,
): void {
  const block = el(
    'div',
    { class: 'call-preliminary' },
    el('div', { class: 'label', text: 'preliminary result (the model does not read it)' }),
    el('pre', { text: typeof data.output === 'string' ? data.output : pretty(data.output) }),
  );
  if (data.widget !== undefined) block.append(renderWidget(data.widget, { onChart }));
  const known = card.activity.querySelector('.call-preliminary');
  if (known) known.replaceWith(block);
  else card.activity.append(block);
}

/** The call has its result: the preliminary one goes. */
export function clearPreliminary(card: CallCard): void {
  card.activity.querySelector('.call-preliminary')?.remove();
}
