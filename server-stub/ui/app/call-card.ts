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
export function callCard(callId: string, toolName: string, args: unknown, nestedRunId?: string): CallCard {
  const status = pill('running');
  const duration = el('span', { class: 'duration' });
  const approval = el('div', { class: 'approval-slot' });
  const activity = el('div', { class: 'call-activity' });
  const result = el('div', { class: 'call-result' });
  const root = el(
    'article',
    { class: 'call', dataset: { callId, tool: toolName } },
    el(
      'header',
      { class: 'call-head' },
      el('span', { class: 'call-icon', text: 'ƒ' }),
      el('span', { class: 'call-name', text: toolName }),
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
 * The Approve / Reject box of a held call (from its `approval_requested` data). A decision is posted to
 * `POST /v1/runs/:runId/approvals/:callId`; a refusal is shown in the box and the buttons work again.
 */
export function approvalBox(api: Api, runId: string, callId: string, data: EventData): HTMLElement {
  const reason = el('input', {
    class: 'approval-reason',
    attrs: { type: 'text', placeholder: 'Reason (optional)', 'aria-label': 'Reason', maxlength: '500' },
  });
  const error = el('p', { class: 'approval-error', attrs: { role: 'alert' } });
  error.hidden = true;
  const decide = async (approved: boolean) => {
    for (const button of buttons) button.disabled = true;
    error.hidden = true;
    const text = reason.value.trim();
    try {
      await api.json(
        'POST',
        `/v1/runs/${encodeURIComponent(runId)}/approvals/${encodeURIComponent(callId)}`,
        { approved, ...(text === '' ? {} : { reason: text }) },
      );
    } catch (caught) {
      error.textContent = caught instanceof Error ? caught.message : String(caught);
      error.hidden = false;
      for (const button of buttons) button.disabled = false;
    }
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
  const why =
    data.requestedBy === 'client'
      ? `The client asks for a human decision${typeof data.reason === 'string' ? `: ${data.reason}` : ''}`
      : 'The tool needs a human decision before it runs';
  return el(
    'div',
    { class: 'approval', attrs: { role: 'group', 'aria-label': `Approval for ${String(data.toolName)}` } },
    el('p', { class: 'approval-why', text: `Approve ${String(data.toolName)}? ${why}.` }),
    el('div', { class: 'approval-actions' }, reason, ...buttons),
    error,
  );
}
