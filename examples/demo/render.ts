/**
 * Draws the live transcript in the terminal: model text, each tool call with its arguments, status, duration
 * and the model-facing output, its progress and events, and widgets as boxes, tables and coloured badges.
 */
import Table from 'cli-table3';
import pc from 'picocolors';
import type { RunEvent, Widget } from 'toolwire';

const indent = (depth: number) => '  '.repeat(depth + 1);
const clip = (text: string, max = 160) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const BADGE: Record<string, (text: string) => string> = {
  success: (text) => pc.bgGreen(pc.black(text)),
  warning: (text) => pc.bgYellow(pc.black(text)),
  danger: (text) => pc.bgRed(pc.white(text)),
  info: (text) => pc.bgBlue(pc.white(text)),
  neutral: (text) => pc.inverse(text),
};

/** Renders a widget as terminal lines (no trailing newline). */
export function renderWidget(widget: Widget): string[] {
  switch (widget.type) {
    case 'Card': {
      const body = (widget.children ?? []).flatMap(renderWidget);
      const width =
        Math.max((widget.title ?? '').length + 2, ...body.map((line) => visible(line).length)) + 2;
      const top = `╭─ ${pc.bold(widget.title ?? '')} ${'─'.repeat(Math.max(0, width - visible(widget.title ?? '').length - 3))}╮`;
      const lines = body.map(
        (line) => `│ ${line}${' '.repeat(Math.max(0, width - visible(line).length - 1))}│`,
      );
      return [top, ...lines, `╰${'─'.repeat(width)}╯`];
    }
    case 'Text':
      return [widget.value];
    case 'Badge':
      return [(BADGE[widget.color ?? 'neutral'] ?? BADGE.neutral!)(` ${widget.label} `)];
    case 'Table': {
      const style = pc.isColorSupported ? { head: ['cyan'], border: ['grey'] } : { head: [], border: [] };
      const table = new Table({ head: widget.columns, style });
      for (const row of widget.rows) table.push(row.map((cell) => (cell === null ? '' : String(cell))));
      return table.toString().split('\n');
    }
    case 'List':
      return widget.items.map((item, index) => (widget.ordered ? `${index + 1}. ${item}` : `• ${item}`));
    case 'Chart': {
      const max = Math.max(1, ...widget.data.map((datum) => datum.value));
      return [
        ...(widget.title ? [pc.bold(widget.title)] : []),
        ...widget.data.map(
          (datum) =>
            `${datum.label.padEnd(12)} ${'█'.repeat(Math.round((datum.value / max) * 30))} ${datum.value}`,
        ),
      ];
    }
    case 'Image':
      return [pc.dim(`[image: ${widget.alt}] ${widget.url}`)];
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colour codes to measure width.
const visible = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

const STATUS: Record<string, (text: string) => string> = {
  ok: pc.green,
  rejected: pc.yellow,
  cancelled: pc.yellow,
};

/** Where the live view goes: whole lines, and (in a terminal) pieces of a line as the model streams them. */
export interface LiveView {
  /** Maps run ids to nesting depth (nested runs are indented). */
  depths: Map<string, number>;
  write: (line: string) => void;
  /** Writes without a newline; absent, streamed text is not shown piece by piece (only whole messages). */
  stream?: (chunk: string) => void;
  /** Runs whose model text is being streamed on the current line. */
  streaming: Set<string>;
}

/** Prints one run event. */
export function renderEvent(event: RunEvent, view: LiveView): void {
  const { depths, write, stream, streaming } = view;
  const depth = depths.get(event.runId) ?? 0;
  const pad = indent(depth);
  switch (event.kind) {
    case 'text_delta': {
      if (!stream) return;
      if (!streaming.has(event.runId)) {
        streaming.add(event.runId);
        stream(`${pad}${pc.magenta('model')}  `);
      }
      stream(event.delta);
      return;
    }
    case 'message': {
      // Text streamed piece by piece is on screen already: end its line.
      if (streaming.delete(event.runId)) {
        stream?.('\n');
        return;
      }
      // A root message without tool calls is the final answer, which the caller prints itself.
      const final = depth === 0 && event.toolCalls === undefined;
      if (event.content !== '' && !final) write(`${pad}${pc.magenta('model')}  ${event.content}`);
      return;
    }
    case 'tool_call': {
      const args =
        typeof event.arguments === 'string' ? event.arguments : JSON.stringify(event.arguments ?? {});
      write(`${pad}${pc.cyan('call')}   ${pc.bold(event.toolName)} ${pc.dim(clip(args, 100))}`);
      return;
    }
    case 'tool_result': {
      const { status } = event;
      const colour = STATUS[status] ?? pc.red;
      write(
        `${pad}  ${colour(`${status === 'ok' ? '✓' : '✗'} ${status}`)} ${pc.dim(`${event.durationMs}ms`)} → ${clip(event.output)}`,
      );
      if (event.widget) for (const line of renderWidget(event.widget as Widget)) write(`${pad}  ${line}`);
      return;
    }
    case 'approval_requested':
      write(`${pad}${pc.yellow('approval')} ${event.toolName} needs a human decision`);
      return;
    case 'approval_decided':
      write(`${pad}${pc.yellow('approval')} ${event.approved ? 'granted' : 'rejected'}`);
      return;
    case 'tool_progress': {
      const total = event.total === undefined ? '' : `/${event.total}`;
      const message = event.message === undefined ? '' : ` ${event.message}`;
      write(`${pad}  ${pc.blue('progress')} ${event.progress}${total}${message}`);
      return;
    }
    case 'tool_event':
      write(`${pad}  ${pc.dim(`event ${event.event} ${JSON.stringify(event.data ?? null)}`)}`);
      return;
    default:
      return;
  }
}
