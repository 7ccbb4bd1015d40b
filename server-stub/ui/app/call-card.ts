/**
 * The card of one tool call in a run view: its name, status and duration, its arguments, the approval slot
 * (Approve / Reject with an optional reason, posted to the HTTP API) and its result.
 *
 * @module
 */
import type { Api } from './api';
import { el, pretty } from './dom';
import { pill } from './status-pill';

/** The parts of a call's card that change as its events arrive. */
export interface CallCard {
  root: HTMLElement;
  status: HTMLElement;
  duration: HTMLElement;
  approval: HTMLElement;
  /** Progress, preliminary results and the call's own events, while it runs (call-activity.ts). */
  activity: HTMLElement;
  result: HTMLElement;
}

/** Event data, as it comes from the stream. */
export type EventData = Record<string, unknown>;

/** A new card, showing the call as running. `args` `undefined`: the arguments are not known (no section). */
export function callCard(
  callId: string,
  toolName: string,
  args: unknown,
  nestedRunId?: string,
  strict = false,
): CallCard {
  const status = pill('running');
  const duration = el('span', { class: 'duration' });
  const approval = el('div', { class: 'approval-slot' });
  const activity = el('div', { class: 'call-activity' });
  const result = el('div', { class: 'call-result' });
  const root = el(
    'article',
    {
      class: 'call',
      dataset: { callId, tool: toolName, ...(nestedRunId === undefined ? {} : { nestedRunId }) },
    },
    el(
      'header',
      { class: 'call-head' },
      el('span', { class: 'call-icon', text: 'ƒ' }),
      el('span', { class: 'call-name', text: toolName }),
      strict ? el('span', { class: 'run-meta', text: 'strict', attrs: { title: 'strict schema' } }) : null,
      status,
      duration,
      nestedRunId === undefined ? null : el('span', { class: 'run-meta', text: `nested run ${nestedRunId}` }),
    ),
    args === undefined
      ? null
      : el(
          'div',
          { class: 'call-args' },
          el('div', { class: 'label', text: 'arguments' }),
          el('pre', { text: pretty(args) }),
        ),
    approval,
    activity,
    result,
  );
  return { root, status, duration, approval, activity, result };
}

/** Shows a new status on the card. */
export function setCallStatus(card: CallCard, status: string): void {
  const next = pill(status);
  card.status.replaceWith(next);
  card.status = next;
  card.root.dataset.status = status;
}

/**
 * The Approve / Reject box of a held call (from its `approval_requested` data): why it needs approval (the
 * reason, when the tool or the client gave one), the arguments (editable: approving with changed arguments runs
 * the call with them), a reason, and "for the rest of the run" (`always`). A decision is posted to
 * `POST /v1/runs/:runId/approvals/:callId` (docs/protocol/approvals.md); a refusal is shown and the buttons work again.
 */
/**
 * A decision this page posted for a held call: in flight, taken by the stub, or refused (someone else decided
 * first, the call ended, …) with the stub's message. The call's `approval_decided` (which may come before the POST
 * answers; the stub records both the page's and any other HTTP decision as `by: 'http'`) is labelled "in this
 * page" only when the stub took this page's decision.
 */
export interface PageDecision {
  approved: boolean;
  outcome: 'pending' | 'taken' | 'refused';
  /** The stub's refusal, when `refused`. */
  message?: string;
  /** Called once when a `pending` decision settles. */
  onSettled?: () => void;
}

/** The latest decision this page posted, by call id. */
export const decidedInPage = new Map<string, PageDecision>();

export function approvalBox(api: Api, runId: string, callId: string, data: EventData): HTMLElement {
  const reason = el('input', {
    class: 'approval-reason',
    attrs: { type: 'text', placeholder: 'Reason (optional)', 'aria-label': 'Reason', maxlength: '500' },
  });
  const original = JSON.stringify(data.arguments ?? {}, null, 2);
  const args = el('textarea', {
    class: 'approval-arguments',
    attrs: {
      'aria-label': 'Arguments',
      rows: String(Math.min(8, original.split('\n').length)),
      spellcheck: 'false',
    },
  });
  args.value = original;
  const always = el('input', {
    class: 'approval-always',
    attrs: { type: 'checkbox', 'aria-label': 'Always' },
  });
  const error = el('p', { class: 'approval-error', attrs: { role: 'alert' } });
  error.hidden = true;
  const fail = (message: string) => {
    error.textContent = message;
    error.hidden = false;
    for (const button of buttons) button.disabled = false;
  };
  const decide = async (approved: boolean) => {
    for (const button of buttons) button.disabled = true;
    error.hidden = true;
    const text = reason.value.trim();
    const body: Record<string, unknown> = { approved };
    if (text !== '') body.reason = text;
    if (always.checked) body.always = true;
    if (approved && args.value.trim() !== original.trim()) {
      try {
        body.arguments = JSON.parse(args.value) as unknown;
      } catch {
        fail('The arguments are not valid JSON.');
        return;
      }
    }
    const mine: PageDecision = { approved, outcome: 'pending' };
    decidedInPage.set(callId, mine);
    try {
      await api.json(
        'POST',
        `/v1/runs/${encodeURIComponent(runId)}/approvals/${encodeURIComponent(callId)}`,
        body,
      );
      mine.outcome = 'taken';
    } catch (caught) {
      mine.outcome = 'refused';
      mine.message = caught instanceof Error ? caught.message : String(caught);
      fail(mine.message);
    }
    mine.onSettled?.();
  };
  const buttons = [
    el('button', {
      class: 'approve',
      text: 'Approve',
      attrs: { type: 'button' },
      on: { click: () => void decide(true) },
    }),
    el('button', {
      class: 'reject',
      text: 'Reject',
      attrs: { type: 'button' },
      on: { click: () => void decide(false) },
    }),
  ];
  const given = typeof data.reason === 'string' && data.reason !== '' ? `: ${data.reason}` : '';
  const why =
    data.requestedBy === 'client'
      ? `The client asks for a human decision${given}`
      : `The tool needs a human decision before it runs${given}`;
  return el(
    'div',
    { class: 'approval', attrs: { role: 'group', 'aria-label': `Approval for ${String(data.toolName)}` } },
    el('p', {
      class: 'approval-why',
      text: `Approve ${String(data.toolName)}? ${why}${/[.!?]$/.test(why) ? '' : '.'}`,
    }),
    el(
      'label',
      { class: 'approval-arguments-label', text: 'Arguments (edit to approve with changes)' },
      args,
    ),
    el('div', { class: 'approval-actions' }, reason, ...buttons),
    el('label', { class: 'approval-always-label' }, always, ' For every call of this tool in this run'),
    error,
  );
}
