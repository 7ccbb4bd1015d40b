/**
 * The counts a run view shows, kept in one place: per call, the latest progress, how many preliminary results
 * and events arrived; per run, how many calls there are and how many still run. Every place that shows a count
 * (the call's counts line, its progress bar, its preliminary result, its events list, the run's head and the
 * runs list) is drawn from these tallies in the same synchronous step as the event that changed them, so two
 * places never show different numbers at the same instant.
 *
 * @module
 */
import { el } from './dom';

/** What one call has said so far, from the run's event stream. */
export interface CallTally {
  /** The latest `tool_progress`, if any. */
  progress?: { progress: number; total?: number };
  /** `tool_preliminary` events received. */
  preliminary: number;
  /** `tool_event` events received. */
  events: number;
  /** The call has its `tool_result`. */
  finished: boolean;
  /** The call belongs to a nested run (shown here for its approval); it does not count as this run's call. */
  nested: boolean;
}

/** The calls of one run, as its view counts them. */
export interface RunCounts {
  calls: number;
  running: number;
}

/** A fresh tally. */
export function newTally(nested: boolean): CallTally {
  return { preliminary: 0, events: 0, finished: false, nested };
}

/** The run's counts from its calls' tallies (nested runs' calls left out). */
export function runCounts(tallies: Iterable<CallTally>): RunCounts {
  let calls = 0;
  let running = 0;
  for (const tally of tallies) {
    if (tally.nested) continue;
    calls += 1;
    if (!tally.finished) running += 1;
  }
  return { calls, running };
}

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** `3 calls · 1 running` (the second part only while some run). */
export function runCountsText(counts: RunCounts): string {
  return `${plural(counts.calls, 'call')}${counts.running > 0 ? ` · ${counts.running} running` : ''}`;
}

/** `progress 2 / 3 · 2 preliminary results · 2 events`, or `''` when the call has said nothing. */
export function callCountsText(tally: CallTally): string {
  const parts: string[] = [];
  const { progress } = tally;
  if (progress !== undefined) {
    parts.push(
      `progress ${progress.total === undefined ? progress.progress : `${progress.progress} / ${progress.total}`}`,
    );
  }
  if (tally.preliminary > 0) parts.push(plural(tally.preliminary, 'preliminary result'));
  if (tally.events > 0) parts.push(plural(tally.events, 'event'));
  return parts.join(' · ');
}

/** The `.call-counts` badge in a call's header (replaces the one before; none while the call has said nothing). */
export function showCallCounts(head: Element, tally: CallTally): void {
  const text = callCountsText(tally);
  const known = head.querySelector(':scope > .call-counts');
  if (text === '') {
    known?.remove();
    return;
  }
  const line = el('span', {
    class: 'call-counts',
    text,
    dataset: {
      preliminary: String(tally.preliminary),
      events: String(tally.events),
      ...(tally.progress === undefined ? {} : { progress: String(tally.progress.progress) }),
    },
  });
  if (known) known.replaceWith(line);
  else head.append(line);
}
