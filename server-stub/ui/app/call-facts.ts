/**
 * What the transcript knows about a call that its events do not say: the side-effect class its tool announced
 * (docs/protocol/frames.md) and the steps the stub keeps for it (docs/protocol/steps.md), each by key with the size of
 * its JSON result.
 * Shown on the call's card from the run's transcript.
 *
 * @module
 */
import type { Api, Transcript } from './api';
import type { CallCard } from './call-card';
import { clear, el } from './dom';

/** The fields of a transcript's call entry this module reads. */
export interface CallFacts {
  callId: string;
  sideEffect?: string;
  steps?: Record<string, unknown>;
}

/** What each side-effect class means, for the badge's tooltip. */
const MEANING: Readonly<Record<string, string>> = {
  none: 'reads only: safe to run again',
  idempotent: 'writes, but running it again changes nothing more',
  external: 'writes to the outside world: running it again may act twice',
};

/** `1,234 bytes` of the JSON of `value`. */
function jsonSize(value: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(value ?? null)).length;
  return `${bytes.toLocaleString('en-US')} ${bytes === 1 ? 'byte' : 'bytes'}`;
}

/** Shows `facts` on `card`, replacing what an earlier transcript showed. */
export function showCallFacts(card: CallCard, facts: CallFacts): void {
  const head = card.root.querySelector('.call-head');
  if (head && facts.sideEffect !== undefined) {
    head.querySelector('.call-side-effect')?.remove();
    const badge = el('span', {
      class: `call-side-effect side-effect-${facts.sideEffect}`,
      text: `side effect: ${facts.sideEffect}`,
      attrs: { title: MEANING[facts.sideEffect] ?? '' },
    });
    head.querySelector('.call-name')?.after(badge);
    card.root.dataset.sideEffect = facts.sideEffect;
  }
  const entries = Object.entries(facts.steps ?? {});
  let section = card.root.querySelector<HTMLElement>('.call-steps');
  if (entries.length === 0) {
    section?.remove();
    return;
  }
  if (!section) {
    section = el('div', { class: 'call-steps' });
    card.result.before(section);
  }
  clear(section);
  section.append(
    el('div', { class: 'label', text: `completed steps (${entries.length})` }),
    el(
      'ul',
      { attrs: { 'aria-label': 'Completed steps' } },
      ...entries.map(([key, result]) =>
        el(
          'li',
          { class: 'call-step' },
          el('span', { class: 'step-key', text: key }),
          el('span', { class: 'step-size', text: jsonSize(result) }),
        ),
      ),
    ),
  );
}

/**
 * Shows the facts of every call of `transcript` (given, or fetched for `runId`) that has a card in `cards`. A
 * failed fetch shows nothing new: the facts are a bonus to the events.
 */
export async function refreshCallFacts(
  api: Api,
  runId: string,
  cards: ReadonlyMap<string, CallCard>,
  signal: AbortSignal,
  transcript?: Transcript,
): Promise<void> {
  let known = transcript;
  try {
    known ??= await api.json<Transcript>('GET', `/v1/runs/${encodeURIComponent(runId)}`, undefined, signal);
  } catch {
    return;
  }
  for (const entry of known.toolCalls ?? []) {
    const card = cards.get(entry.callId);
    if (card) showCallFacts(card, entry);
  }
}
