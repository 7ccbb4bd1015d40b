/**
 * One run's transcript, live: the user's message, the model's text, each tool call (arguments, status,
 * duration, the output the model read, the widget), approvals with Approve / Reject, and how the run ended.
 * Built from the run's event stream; when the stream drops (the stub restarted, the network blinked) the view
 * reconnects and replays, since the stream starts with every event so far.
 *
 * @module
 */
import { type Api, ApiError, type RunStatus, type Transcript } from './api';
import {
  clearPreliminary,
  showAnswer,
  showPreliminary,
  showProgress,
  showQuestion,
  showToolEvent,
} from './call-activity';
import {
  approvalBox,
  type CallCard,
  callCard,
  decidedInPage,
  type EventData,
  setCallStatus,
} from './call-card';
import {
  type CallTally,
  newTally,
  type RunCounts,
  runCounts,
  runCountsText,
  showCallCounts,
} from './call-counts';
import { refreshCallFacts } from './call-facts';
import { renderContent } from './content-parts';
import { append, clear, el, formatDuration, formatTime, pretty } from './dom';
import { pill, toneOf } from './status-pill';
import { renderWidget } from './widgets';

/** What a run view needs from the page. */
export interface RunViewDeps {
  api: Api;
  /** The element that scrolls; the view keeps it at the bottom while the user is there. */
  scroller: HTMLElement;
  /** The run's status changed (the runs list may want to refresh). */
  onStatus(runId: string, status: RunStatus): void;
  /** The stub answered 401. */
  onUnauthorized(): void;
  /** The run's call counts changed (the runs list shows them from here while the run is in view). */
  onCounts?(runId: string, counts: RunCounts): void;
}

const RETRY_MS = [250, 500, 1000, 2000, 4000] as const;

/** The live transcript of one run. */
export class RunView {
  readonly element: HTMLElement;
  readonly runId: string;
  readonly #deps: RunViewDeps;
  readonly #abort = new AbortController();
  readonly #head: HTMLElement;
  readonly #thread: HTMLElement;
  readonly #calls = new Map<string, CallCard>();
  /** What each call has said, the one source of every count the view and the runs list show. */
  readonly #tallies = new Map<string, CallTally>();
  readonly #charts = new Set<{ destroy(): void }>();
  #status: RunStatus | undefined;
  /** The bubble the model's text streams into, until the turn's message replaces it. */
  #streaming: { root: HTMLElement; bubble: HTMLElement } | undefined;

  constructor(runId: string, deps: RunViewDeps) {
    this.runId = runId;
    this.#deps = deps;
    this.#head = el('header', { class: 'run-head' });
    this.#thread = el('div', { class: 'thread', attrs: { 'aria-live': 'polite' } });
    this.element = el('div', { class: 'run', dataset: { runId } }, this.#head, this.#thread);
  }

  /** Starts following the run (until it ends or {@link dispose}). */
  start(): void {
    this.#follow().catch((error: unknown) => this.#problem(`The page failed: ${String(error)}`));
  }

  /** Stops following and frees the charts. */
  dispose(): void {
    this.#abort.abort();
    this.#destroyCharts();
  }

  async #follow(): Promise<void> {
    const { api } = this.#deps;
    const signal = this.#abort.signal;
    for (let attempt = 0; !signal.aborted; attempt++) {
      try {
        const transcript = await api.json<Transcript>(
          'GET',
          `/v1/runs/${encodeURIComponent(this.runId)}`,
          undefined,
          signal,
        );
        this.#reset(transcript);
        for await (const { event, data } of api.events(this.runId, signal)) {
          attempt = 0;
          if (event === 'end') {
            await this.#ended((data as { status?: RunStatus } | null)?.status);
            return;
          }
          this.#apply(event, (typeof data === 'object' && data !== null ? data : {}) as EventData);
        }
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof ApiError && error.status === 404) {
          this.#gone();
          return;
        }
        if (error instanceof ApiError && error.status === 401) this.#deps.onUnauthorized();
      }
      if (signal.aborted) return;
      this.#setLive('reconnecting', 'connection lost · reconnecting…');
      await sleep(RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)] ?? 4000, signal);
    }
  }

  /** Starts the view over from a transcript (a first connection, or a replay after a reconnect). */
  #reset(transcript: Transcript): void {
    this.#destroyCharts();
    this.#calls.clear();
    this.#tallies.clear();
    this.#streaming = undefined;
    clear(this.#thread);
    clear(this.#head);
    const cancel = el('button', {
      class: 'ghost cancel-run',
      text: 'Cancel run',
      attrs: { type: 'button' },
      on: { click: () => this.#cancel(cancel) },
    });
    append(
      this.#head,
      el('h2', { text: transcript.agent.name }),
      el('span', { class: 'run-status' }),
      el('span', {
        class: 'run-meta',
        text: `${transcript.runId} · ${formatTime(transcript.startedAt)}${transcript.parentRunId ? ` · nested in ${transcript.parentRunId}` : ''}`,
      }),
      el('span', { class: 'run-counts' }),
      el('span', { class: 'live' }),
      cancel,
    );
    this.#setStatus(transcript.status);
    this.#setLive('live', transcript.status === 'running' ? 'live' : '');
    this.#add(
      el(
        'div',
        { class: 'msg user' },
        el('div', { class: 'who', text: transcript.depth > 0 ? 'Calling agent' : 'You' }),
        el('div', { class: 'bubble', text: transcript.input }),
      ),
    );
  }

  /** Applies one event, keeping the view at the bottom if the user was there. */
  #apply(kind: string, data: EventData): void {
    const stick = this.#atBottom();
    this.#applyEvent(kind, data);
    this.#count(kind, data);
    if (stick) this.#toBottom();
  }

  #applyEvent(kind: string, data: EventData): void {
    switch (kind) {
      case 'text_delta': {
        if (typeof data.delta !== 'string') return;
        if (this.#streaming === undefined) {
          const bubble = el('div', { class: 'bubble' });
          const root = el(
            'div',
            { class: 'msg assistant streaming' },
            el('div', { class: 'who', text: 'Model · writing…' }),
            bubble,
          );
          this.#streaming = { root, bubble };
          this.#add(root);
        }
        this.#streaming.bubble.textContent += data.delta;
        return;
      }
      case 'message': {
        const streamed = this.#streaming;
        this.#streaming = undefined;
        const content = typeof data.content === 'string' ? data.content : '';
        if (data.role !== 'assistant' || content === '') {
          streamed?.root.remove();
          return;
        }
        const final = !Array.isArray(data.toolCalls) || data.toolCalls.length === 0;
        const scripted = data.model === 'scripted';
        const message = el(
          'div',
          {
            class: `msg assistant${final ? ' final' : ''}${scripted ? ' scripted' : ''}`,
            ...(typeof data.model === 'string' ? { dataset: { model: data.model } } : {}),
          },
          el('div', {
            class: 'who',
            text: `${final ? 'Answer' : 'Model'}${scripted ? ' · scripted, not a language model' : ''}`,
          }),
          el('div', { class: 'bubble', text: content }),
        );
        if (streamed) streamed.root.replaceWith(message);
        else this.#add(message);
        return;
      }
      case 'tool_call':
        this.#card(String(data.callId), String(data.toolName), data.arguments ?? {}, undefined, data.strict);
        return;
      case 'approval_requested': {
        const card = this.#card(
          String(data.callId),
          String(data.toolName),
          data.arguments ?? {},
          this.#nestedRunOf(data),
        );
        setCallStatus(card, 'awaiting approval');
        clear(card.approval);
        card.approval.append(approvalBox(this.#deps.api, this.runId, String(data.callId), data));
        return;
      }
      case 'approval_decided': {
        const callId = String(data.callId);
        const card = this.#calls.get(callId);
        if (!card) return;
        clear(card.approval);
        const approved = data.approved === true;
        // What this page posted, if anything: its decision is the one recorded only when the stub took it.
        const mine = data.by === 'http' ? decidedInPage.get(callId) : undefined;
        const reason = typeof data.reason === 'string' && data.reason !== '' ? `: ${data.reason}` : '';
        const edited =
          data.arguments === undefined ? '' : ` with edited arguments ${JSON.stringify(data.arguments)}`;
        const always = data.always === true ? ' (for every call of this tool in this run)' : '';
        const decision = el('p', { class: `decision ${approved ? 'approved' : 'rejected'}` });
        card.approval.append(decision);
        const show = () => {
          const inPage =
            mine !== undefined &&
            (mine.outcome === 'taken' || (mine.outcome === 'pending' && mine.approved === approved));
          const by =
            data.by === 'socket'
              ? 'by a client'
              : data.by === 'always'
                ? 'for the whole run earlier'
                : inPage
                  ? 'in this page'
                  : 'over HTTP';
          decision.textContent = `${approved ? 'Approved' : 'Rejected'} ${by}${edited}${always}${reason}`;
          if (mine?.outcome === 'refused' && mine.message !== undefined) {
            card.approval.append(
              el('p', {
                class: 'approval-error',
                attrs: { role: 'alert' },
                text: `Your ${mine.approved ? 'approval' : 'rejection'} was not recorded: ${mine.message}`,
              }),
            );
          }
        };
        show();
        // The page's own POST has not answered yet: the label is corrected when it does.
        if (mine?.outcome === 'pending') mine.onSettled = show;
        if (approved) setCallStatus(card, 'running');
        return;
      }
      case 'tool_progress':
        showProgress(this.#card(String(data.callId), String(data.toolName), undefined), data);
        return;
      case 'tool_preliminary':
        showPreliminary(this.#card(String(data.callId), String(data.toolName), undefined), data, (chart) =>
          this.#charts.add(chart),
        );
        return;
      case 'tool_event':
        showToolEvent(this.#card(String(data.callId), String(data.toolName), undefined), data);
        return;
      case 'question_asked':
        showQuestion(
          this.#deps.api,
          this.runId,
          this.#card(String(data.callId), String(data.toolName), undefined, this.#nestedRunOf(data)),
          data,
        );
        return;
      case 'question_answered':
        showAnswer(
          this.#card(String(data.callId), String(data.toolName), undefined, this.#nestedRunOf(data)),
          data,
        );
        return;
      case 'tool_result': {
        this.#showResult(this.#card(String(data.callId), String(data.toolName), undefined), data);
        void refreshCallFacts(this.#deps.api, this.runId, this.#calls, this.#abort.signal);
        // A call of this run ended: when it was an agent's, its nested run is over, and so are the nested calls
        // shown here for their approvals and questions.
        void this.#settleNested();
        return;
      }
      default:
        return;
    }
  }

  /** The nested run an approval or question event surfaced from (`data.runId` naming another run), if any. */
  #nestedRunOf(data: EventData): string | undefined {
    return typeof data.runId === 'string' && data.runId !== this.runId ? data.runId : undefined;
  }

  /** Shows a call's result (`tool_result` data, or a transcript's entry of a finished call). */
  #showResult(card: CallCard, data: EventData): void {
    const status = String(data.status);
    setCallStatus(card, status);
    clearPreliminary(card);
    card.duration.textContent = formatDuration(data.durationMs);
    clear(card.result);
    card.result.append(
      el(
        'div',
        { class: 'call-output' },
        el('div', { class: 'label', text: 'output (what the model read)' }),
        el('pre', { text: typeof data.output === 'string' ? data.output : pretty(data.output) }),
      ),
    );
    if (Array.isArray(data.content)) card.result.append(renderContent(data.content));
    if (data.widget !== undefined) {
      card.result.append(renderWidget(data.widget, { onChart: (chart) => this.#charts.add(chart) }));
    }
    // A call that ended without a decision (cancelled, timed out) leaves no buttons behind.
    card.approval
      .querySelector('.approval')
      ?.replaceWith(el('p', { class: 'decision', text: 'No decision' }));
  }

  /**
   * Shows the results of the nested runs' calls shown here (for their approvals and questions): this run's
   * stream never carries them, so they are read from each nested run's transcript, for the calls that have ended.
   */
  async #settleNested(): Promise<void> {
    const open = new Map<string, string[]>();
    for (const [callId, card] of this.#calls) {
      const nestedRunId = card.root.dataset.nestedRunId;
      if (nestedRunId === undefined || this.#tallies.get(callId)?.finished !== false) continue;
      open.set(nestedRunId, [...(open.get(nestedRunId) ?? []), callId]);
    }
    await Promise.all(
      [...open].map(async ([nestedRunId, callIds]) => {
        let transcript: Transcript;
        try {
          transcript = await this.#deps.api.json<Transcript>(
            'GET',
            `/v1/runs/${encodeURIComponent(nestedRunId)}`,
            undefined,
            this.#abort.signal,
          );
        } catch {
          return;
        }
        this.#settleFrom(transcript, callIds);
      }),
    );
  }

  /** Shows the result of each of `callIds` that has ended in `transcript` and has none shown yet. */
  #settleFrom(transcript: Transcript, callIds: Iterable<string>): void {
    if (this.#abort.signal.aborted) return;
    const wanted = new Set(callIds);
    for (const entry of transcript.toolCalls ?? []) {
      const card = this.#calls.get(entry.callId);
      if (!wanted.has(entry.callId) || card === undefined || entry.status === undefined) continue;
      if (this.#tallies.get(entry.callId)?.finished !== false) continue;
      const data: EventData = { ...entry };
      const stick = this.#atBottom();
      this.#showResult(card, data);
      this.#count('tool_result', data);
      if (stick) this.#toBottom();
    }
  }

  /**
   * Updates the tally of the event's call and redraws every count from the tallies, in the same step as the
   * event was drawn: the call's counts badge, its preliminary result's number, the run's head and (through
   * `onCounts`) the runs list.
   */
  #count(kind: string, data: EventData): void {
    const callId = String(data.callId);
    const tally = this.#tallies.get(callId);
    const card = this.#calls.get(callId);
    if (tally === undefined || card === undefined) return;
    switch (kind) {
      case 'tool_progress':
        tally.progress = {
          progress: typeof data.progress === 'number' ? data.progress : 0,
          ...(typeof data.total === 'number' && data.total > 0 ? { total: data.total } : {}),
        };
        break;
      case 'tool_preliminary':
        tally.preliminary += 1;
        break;
      case 'tool_event':
        tally.events += 1;
        break;
      case 'tool_result':
        tally.finished = true;
        break;
      case 'tool_call':
      case 'approval_requested':
        break;
      default:
        return;
    }
    const head = card.root.querySelector('.call-head');
    if (head) showCallCounts(head, tally);
    const preliminary = card.activity.querySelector<HTMLElement>('.call-preliminary');
    if (preliminary) preliminary.dataset.count = String(tally.preliminary);
    const counts = runCounts(this.#tallies.values());
    const slot = this.#head.querySelector<HTMLElement>('.run-counts');
    if (slot) {
      slot.textContent = runCountsText(counts);
      slot.dataset.calls = String(counts.calls);
      slot.dataset.running = String(counts.running);
    }
    this.#deps.onCounts?.(this.runId, counts);
  }

  /** The card of a call, made on first sight. */
  #card(callId: string, toolName: string, args: unknown, nestedRunId?: string, strict?: unknown): CallCard {
    const known = this.#calls.get(callId);
    if (known) return known;
    const card = callCard(callId, toolName, args, nestedRunId, strict === true);
    this.#calls.set(callId, card);
    this.#tallies.set(callId, newTally(nestedRunId !== undefined));
    this.#add(card.root);
    return card;
  }

  /** The stream said `end`, with the run's final status; the transcript adds the error and the duration. */
  async #ended(ending: RunStatus | undefined): Promise<void> {
    let transcript: Transcript | undefined;
    try {
      transcript = await this.#deps.api.json<Transcript>(
        'GET',
        `/v1/runs/${encodeURIComponent(this.runId)}`,
        undefined,
        this.#abort.signal,
      );
    } catch {
      // The end is known from the stream; the details are a bonus.
    }
    if (transcript)
      void refreshCallFacts(this.#deps.api, this.runId, this.#calls, this.#abort.signal, transcript);
    // Every call has ended with the run: show the result of any still shown as running (the nested runs' calls,
    // whose results this stream never carries), and mark the rest, whose result is not known, as ended.
    if (transcript) this.#settleFrom(transcript, this.#calls.keys());
    await this.#settleNested();
    for (const [callId, card] of this.#calls) {
      if (this.#tallies.get(callId)?.finished !== false) continue;
      setCallStatus(card, 'ended');
      this.#count('tool_result', { callId });
    }
    const status = transcript?.status ?? ending ?? 'completed';
    this.#setStatus(status);
    this.#setLive('ended', '');
    for (const box of Array.from(this.#thread.querySelectorAll('.approval'))) {
      box.replaceWith(el('p', { class: 'decision', text: 'No decision: the run ended' }));
    }
    const took = transcript?.durationMs === undefined ? '' : ` in ${formatDuration(transcript.durationMs)}`;
    this.#add(
      el(
        'div',
        { class: `run-end tone-${toneOf(status)}` },
        el('strong', { text: `Run ${status}${took}` }),
        transcript?.error === undefined ? null : el('span', { text: ` — ${transcript.error}` }),
      ),
    );
  }

  /**
   * The stub does not know the run (it restarted): nothing shown is live any more, and nothing can be cancelled,
   * decided or answered (every route would answer 404), so the run and its open calls show `unknown`.
   */
  #gone(): void {
    const slot = this.#head.querySelector('.run-status');
    if (slot) {
      clear(slot);
      slot.append(pill('unknown'));
    }
    this.element.dataset.status = 'unknown';
    const cancel = this.#head.querySelector<HTMLButtonElement>('.cancel-run');
    if (cancel) cancel.hidden = true;
    for (const [callId, card] of this.#calls) {
      if (this.#tallies.get(callId)?.finished !== false) continue;
      setCallStatus(card, 'unknown');
      card.activity.querySelector('.progress-bar')?.remove();
      this.#count('tool_result', { callId });
    }
    for (const box of Array.from(this.#thread.querySelectorAll('.approval, .question'))) {
      box.replaceWith(el('p', { class: 'decision', text: 'No decision: the stub no longer knows this run' }));
    }
    this.#setLive('ended', '');
    this.#problem(
      'This run is not on the stub any more: it keeps runs in memory only, so a restart forgets them. Pick another run or send a new message.',
    );
  }

  #problem(text: string): void {
    this.#add(el('div', { class: 'notice warn', attrs: { role: 'alert' }, text }));
  }

  async #cancel(button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    try {
      await this.#deps.api.json('POST', `/v1/runs/${encodeURIComponent(this.runId)}/cancel`, {});
    } catch (error) {
      button.disabled = false;
      this.#problem(`Could not cancel: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  #setStatus(status: RunStatus): void {
    const slot = this.#head.querySelector('.run-status');
    if (slot) {
      clear(slot);
      slot.append(pill(status));
    }
    this.element.dataset.status = status;
    const cancel = this.#head.querySelector<HTMLButtonElement>('.cancel-run');
    if (cancel) cancel.hidden = status !== 'running';
    if (status !== this.#status) {
      this.#status = status;
      this.#deps.onStatus(this.runId, status);
    }
  }

  #setLive(state: 'live' | 'reconnecting' | 'ended', text: string): void {
    const live = this.#head.querySelector<HTMLElement>('.live');
    if (!live) return;
    live.dataset.state = state;
    live.textContent = text;
  }

  /** Appends to the thread, keeping the view at the bottom if the user was there. */
  #add(node: HTMLElement): void {
    const stick = this.#atBottom();
    this.#thread.append(node);
    if (stick) this.#toBottom();
  }

  #atBottom(): boolean {
    const { scroller } = this.#deps;
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 120;
  }

  #toBottom(): void {
    this.#deps.scroller.scrollTop = this.#deps.scroller.scrollHeight;
  }

  #destroyCharts(): void {
    for (const chart of this.#charts) chart.destroy();
    this.#charts.clear();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = window.setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        window.clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
