/**
 * A status shown as a coloured pill (tool calls and runs), and the colour ("tone") of each status.
 *
 * @module
 */
import { el } from './dom';

/** Statuses of tool calls and runs, mapped to the pill's colour. */
const STATUS_TONE: Record<string, string> = {
  ok: 'good',
  error: 'bad',
  invalid_arguments: 'bad',
  unknown_tool: 'bad',
  timeout: 'bad',
  rejected: 'warn',
  cancelled: 'warn',
  running: 'info',
  'awaiting approval': 'warn',
  completed: 'good',
  failed: 'bad',
};

/** The tone of a status (`good`, `bad`, `warn`, `info`), `neutral` for one not listed. */
export function toneOf(status: string): string {
  return STATUS_TONE[status] ?? 'neutral';
}

/** A pill showing a status in its colour. */
export function pill(status: string): HTMLElement {
  return el('span', {
    class: `pill tone-${toneOf(status)}`,
    text: status.replace('_', ' '),
  });
}
