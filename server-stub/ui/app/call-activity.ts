/**
 * What a running call tells while it runs, drawn in its card's activity slot (docs/protocol/updates.md): a progress bar
 * with its message, the latest preliminary result, the events it recorded, and questions to answer (buttons for choices, a text box, or a
 * JSON box for a schema; posted to the HTTP API).
 *
 * @module
 */
import type { Api } from './api';
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

/**
 * Shows a `question_asked` event: the question and a way to answer it, posted to
 * `POST /v1/runs/:runId/calls/:callId/questions/:questionId` with the dispatch that asked it (so an answer to a
 * question of a call since re-dispatched is refused, never given to the new worker's question of the same id); a
 * refusal (an answer the choices or the schema do not allow) is shown in the box and it works again.
 */
export function showQuestion(api: Api, runId: string, card: CallCard, data: EventData): void {
  const callId = String(data.callId);
  const questionId = String(data.questionId);
  // Absent on a call's first dispatch (docs/protocol/questions.md).
  const dispatch = typeof data.dispatch === 'number' ? data.dispatch : 1;
  const error = el('p', { class: 'question-error', attrs: { role: 'alert' } });
  error.hidden = true;
  const controls: Array<HTMLButtonElement | HTMLInputElement | HTMLTextAreaElement> = [];
  const send = async (reply: Record<string, unknown>) => {
    const body = { ...reply, dispatch };
    for (const control of controls) control.disabled = true;
    error.hidden = true;
    try {
      await api.json(
        'POST',
        `/v1/runs/${encodeURIComponent(runId)}/calls/${encodeURIComponent(callId)}/questions/${encodeURIComponent(questionId)}`,
        body,
      );
    } catch (caught) {
      error.textContent = caught instanceof Error ? caught.message : String(caught);
      error.hidden = false;
      for (const control of controls) control.disabled = false;
    }
  };
  const choices = Array.isArray(data.choices) ? data.choices.map(String) : undefined;
  const actions = el('div', { class: 'question-actions' });
  if (choices !== undefined) {
    for (const choice of choices) {
      const button = el('button', {
        class: 'choice',
        text: choice,
        attrs: { type: 'button' },
        on: { click: () => void send({ answer: choice }) },
      });
      controls.push(button);
      actions.append(button);
    }
  } else {
    const json = data.schema !== undefined;
    const input = json
      ? el('textarea', { class: 'question-input', attrs: { 'aria-label': 'Answer (JSON)', rows: '2' } })
      : el('input', {
          class: 'question-input',
          attrs: { type: 'text', 'aria-label': 'Answer', maxlength: '4000' },
        });
    const submit = () => {
      if (!json) {
        void send({ answer: input.value });
        return;
      }
      try {
        void send({ answer: JSON.parse(input.value) as unknown });
      } catch {
        error.textContent = 'The answer must be JSON, e.g. 3 or "text" or {"a": 1}';
        error.hidden = false;
      }
    };
    const button = el('button', {
      class: 'answer',
      text: 'Answer',
      attrs: { type: 'button' },
      on: { click: submit },
    });
    controls.push(input, button);
    actions.append(input, button);
  }
  const decline = el('button', {
    class: 'ghost decline',
    text: 'Decline',
    attrs: { type: 'button' },
    on: { click: () => void send({ declined: true }) },
  });
  controls.push(decline);
  actions.append(decline);
  const box = el(
    'div',
    {
      class: 'question',
      dataset: { questionId },
      attrs: { role: 'group', 'aria-label': `Question from ${String(data.toolName)}` },
    },
    el('p', { class: 'question-text', text: String(data.question) }),
    actions,
    error,
  );
  card.activity.querySelector(`.question[data-question-id="${CSS.escape(questionId)}"]`)?.remove();
  card.activity.append(box);
}

/** Shows a `question_answered` event: the box gives way to what happened. */
export function showAnswer(card: CallCard, data: EventData): void {
  const questionId = String(data.questionId);
  const box = card.activity.querySelector(`.question[data-question-id="${CSS.escape(questionId)}"]`);
  const question = box?.querySelector('.question-text')?.textContent ?? '';
  const reason = typeof data.reason === 'string' && data.reason !== '' ? `: ${data.reason}` : '';
  const text =
    data.status === 'answered'
      ? `Answered: ${pretty(data.answer)}`
      : data.status === 'declined'
        ? `Declined${reason}`
        : `Withdrawn${reason}`;
  const line = el(
    'div',
    { class: `question-outcome ${String(data.status)}`, dataset: { questionId } },
    question === '' ? null : el('span', { class: 'question-asked', text: `${question} ` }),
    el('strong', { text }),
  );
  if (box) box.replaceWith(line);
  else card.activity.append(line);
}

/** Shows a `tool_event`: one line in the call's list of events, its name and its data as JSON. */
export function showToolEvent(card: CallCard, data: EventData): void {
  let list = card.activity.querySelector<HTMLElement>('.call-events');
  if (!list) {
    list = el('ul', { class: 'call-events', attrs: { 'aria-label': 'Events' } });
    card.activity.append(list);
  }
  list.append(
    el(
      'li',
      { class: 'call-event', dataset: { event: String(data.event) } },
      el('code', { class: 'event-name', text: String(data.event) }),
      data.data === undefined
        ? null
        : el('span', { class: 'event-data', text: ` ${JSON.stringify(data.data)}` }),
    ),
  );
}
