/**
 * The agent UI: a chat page served by the stub at `/`. A message starts a run of the chosen agent
 * (`POST /v1/runs`); the run's transcript streams in live; the runs list and the agents (with the tools no
 * connected client offers) are polled, which is also how the page notices the stub went away and came back.
 *
 * @module
 */
import { type AgentInfo, Api, ApiError, type ModelInfo, type RunSummary, takeKeyFromFragment } from './api';
import { type RunCounts, runCountsText } from './call-counts';
import { append, clear, el, formatTime } from './dom';
import { RunView } from './run-view';
import { pill } from './status-pill';

/** How often the runs list and the agents are refreshed. */
const POLL_MS = 1500;

type Connection = 'connecting' | 'online' | 'offline' | 'unauthorized' | 'refused';

const api = new Api();
let connection: Connection = 'connecting';
/** Why the stub refuses this page (its Host or Origin: server-stub/web-pages.ts), while `connection` is `refused`. */
let refusal = '';
let runs: RunSummary[] = [];
let agents: AgentInfo[] = [];
let clients = 0;
let model: ModelInfo | undefined;
let view: RunView | undefined;
/** The counts of the run in view, from its event stream: the runs list shows these, not the polled ones. */
let viewCounts: { runId: string; counts: RunCounts } | undefined;
let pollTimer: number | undefined;

// ---- the shell -------------------------------------------------------------------------------------------

const status = el('span', { class: 'connection', dataset: { state: 'connecting' }, text: 'connecting…' });
const modelBadge = el('span', { class: 'model-badge' });
modelBadge.hidden = true;
const notices = el('div', { class: 'notices' });
const runList = el('ul', { class: 'runs', attrs: { 'aria-label': 'Runs' } });
const scroller = el('div', { class: 'scroller' });
const agentSelect = el('select', { class: 'agent', attrs: { 'aria-label': 'Agent' } });
const input = el('textarea', {
  class: 'input',
  attrs: { rows: '2', placeholder: 'Message the agent…', 'aria-label': 'Message' },
});
const send = el('button', { class: 'send', text: 'Send', attrs: { type: 'submit' } });
const composerError = el('p', { class: 'composer-error', attrs: { role: 'alert' } });
composerError.hidden = true;
const composer = el(
  'form',
  { class: 'composer', on: { submit: (event) => void onSend(event) } },
  agentSelect,
  input,
  send,
  composerError,
);
input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    // As the button: no second run while the first is being started (or when there is no agent to start).
    if (!send.disabled) composer.requestSubmit();
  }
});

document.body.append(
  el(
    'div',
    { class: 'app' },
    el(
      'header',
      { class: 'top' },
      el('span', { class: 'brand', text: 'toolwire' }),
      el('span', { class: 'subtitle', text: 'agent UI' }),
      modelBadge,
      status,
    ),
    el(
      'aside',
      { class: 'sidebar' },
      el('button', {
        class: 'new-chat',
        text: '+ New message',
        attrs: { type: 'button' },
        on: { click: () => select(undefined) },
      }),
      el('h2', { text: 'Runs' }),
      runList,
    ),
    el('main', { class: 'main' }, notices, scroller, composer),
  ),
);

// ---- behaviour -------------------------------------------------------------------------------------------

/** `true` while `POST /v1/runs` is in flight: one message starts one run, however often it is sent. */
let sending = false;

async function onSend(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const text = input.value.trim();
  const agent = agentSelect.value;
  if (sending || text === '' || agent === '') return;
  sending = true;
  send.disabled = true;
  composerError.hidden = true;
  try {
    const started = await api.json<{ runId: string }>('POST', '/v1/runs', { agent, input: text });
    input.value = '';
    select(started.runId);
    void refresh();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) showKeyForm();
    composerError.textContent = `Could not start the run: ${error instanceof Error ? error.message : String(error)}`;
    composerError.hidden = false;
  } finally {
    sending = false;
    send.disabled = agents.length === 0;
  }
}

/** Shows a run (or the empty state) and remembers it in the fragment. */
function select(runId: string | undefined): void {
  if (view?.runId === runId && runId !== undefined) return;
  view?.dispose();
  view = undefined;
  viewCounts = undefined;
  clear(scroller);
  history.replaceState(
    null,
    '',
    runId === undefined ? location.pathname : `#run=${encodeURIComponent(runId)}`,
  );
  if (runId === undefined) {
    scroller.append(emptyState());
    input.focus();
  } else {
    view = new RunView(runId, {
      api,
      scroller,
      onStatus: () => void refresh(),
      onUnauthorized: showKeyForm,
      onCounts: (id, counts) => {
        if (view?.runId !== id) return;
        viewCounts = { runId: id, counts };
        renderRuns();
      },
    });
    scroller.append(view.element);
    view.start();
  }
  renderRuns();
}

function emptyState(): HTMLElement {
  const agent = agentSelect.value || 'the agent';
  return el(
    'div',
    { class: 'empty' },
    el('h2', { text: 'Talk to an agent' }),
    el('p', {
      text: `Send a message to start a run of ${agent}. The stub plays the model; the tools run in the connected client's process, and their widgets and approvals show up here.`,
    }),
  );
}

/** Polls the runs and the agents; sets the connection state from the outcome. */
async function refresh(): Promise<void> {
  window.clearTimeout(pollTimer);
  try {
    const [listed, known] = await Promise.all([
      api.json<{ runs: RunSummary[] }>('GET', '/v1/runs'),
      api.json<{ agents: AgentInfo[]; clients: number; model?: ModelInfo }>('GET', '/v1/agents'),
    ]);
    runs = listed.runs;
    agents = known.agents;
    clients = known.clients;
    model = known.model;
    setConnection('online');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) setConnection('unauthorized');
    else if (
      error instanceof ApiError &&
      (error.code === 'host_not_allowed' || error.code === 'origin_not_allowed')
    ) {
      // The stub answers, and says why not: no use retrying as if it were down.
      refusal = error.message;
      setConnection('refused');
    } else setConnection('offline');
  }
  renderAgents();
  renderRuns();
  renderModel();
  renderNotices();
  if (connection !== 'unauthorized') pollTimer = window.setTimeout(() => void refresh(), POLL_MS);
}

function setConnection(next: Connection): void {
  connection = next;
  status.dataset.state = next;
  status.textContent =
    next === 'online'
      ? `connected · ${clients} client${clients === 1 ? '' : 's'}`
      : next === 'offline'
        ? 'stub unreachable · retrying'
        : next === 'unauthorized'
          ? 'API key needed'
          : next === 'refused'
            ? 'refused by the stub'
            : 'connecting…';
}

function renderAgents(): void {
  const names = agents.map((agent) => agent.name);
  const current = Array.from(agentSelect.options).map((option) => option.value);
  if (names.join('\n') === current.join('\n')) return;
  const chosen = agentSelect.value;
  clear(agentSelect);
  for (const name of names) agentSelect.append(el('option', { text: name, attrs: { value: name } }));
  if (names.includes(chosen)) agentSelect.value = chosen;
  send.disabled = sending || names.length === 0;
  if (view === undefined) {
    clear(scroller);
    scroller.append(emptyState());
  }
}

/** Who plays the runs, in the top bar: a scripted model is marked as such. */
function renderModel(): void {
  modelBadge.hidden = model === undefined;
  if (model === undefined) return;
  const scripted = model.kind === 'scripted';
  modelBadge.dataset.kind = model.kind;
  modelBadge.textContent = scripted ? 'scripted model' : `model: ${model.name}`;
  modelBadge.title = model.name;
}

function renderNotices(): void {
  if (connection === 'unauthorized') {
    // One form, kept across refreshes so that typing is never lost; its text says whether a key was refused.
    keyMessage.textContent =
      api.key === undefined
        ? 'The stub wants an API key. Open the agent UI address that toolwire-stub or the demo printed (it carries the key after #key=), or enter it here: '
        : 'The stub refused that API key. Enter the right one: ';
    if (keyForm.parentNode !== notices) {
      clear(notices);
      keyField.value = '';
      notices.append(keyForm);
    }
    return;
  }
  clear(notices);
  if (connection === 'refused') {
    notices.append(notice('warn', `The stub refuses this page: ${refusal}`));
    return;
  }
  if (connection === 'offline') {
    notices.append(
      notice(
        'warn',
        `The stub at ${location.host} is not answering. Retrying every ${POLL_MS / 1000} s; live runs resume when it is back.`,
      ),
    );
    return;
  }
  if (connection !== 'online') return;
  if (agents.length === 0) {
    notices.append(
      notice(
        'warn',
        'The stub knows no agents, so there is nothing to talk to. Start it with agents (startStubServer({ agents }) or toolwire-stub --agents agents.json), or run the demo: npm start -- --ui.',
      ),
    );
    return;
  }
  if (model?.kind === 'scripted') {
    notices.append(
      notice(
        'warn',
        model.name.includes('no script')
          ? 'This stub plays a scripted model with no script: every run fails. Give it a script (toolwire-stub --script turns.json) or a real model (--openai-base-url).'
          : 'This stub plays a scripted model: its answers come from a script, not a language model, and it plays the same turns whatever you type.',
        'scripted-model',
      ),
    );
  }
  const agent = agents.find((candidate) => candidate.name === agentSelect.value);
  if (clients === 0) {
    notices.append(
      notice(
        'bad',
        'No client is connected to the stub, so no tool can run. Connect the process that has the tools (for the demo: npm start -- --ui).',
        'no-client',
      ),
    );
  } else if (agent && agent.missingTools.length > 0) {
    notices.append(
      notice(
        'bad',
        `No connected client offers ${agent.missingTools.join(', ')}, which ${agent.name} needs; calls to ${agent.missingTools.length === 1 ? 'it' : 'them'} would fail with unknown_tool. Connect a client with ${agent.missingTools.length === 1 ? 'that tool' : 'those tools'}.`,
        'missing-tools',
      ),
    );
  }
}

function notice(tone: 'warn' | 'bad', text: string, kind = ''): HTMLElement {
  return el('div', { class: `notice ${tone} ${kind}`.trim(), attrs: { role: 'status' }, text });
}

const keyField = el('input', {
  attrs: { type: 'password', autocomplete: 'off', 'aria-label': 'API key', placeholder: 'API key' },
});
const keyMessage = el('span');
const keyForm = el(
  'form',
  {
    class: 'notice warn key-form',
    on: {
      submit: (event) => {
        event.preventDefault();
        api.key = keyField.value.trim();
        keyField.value = '';
        const runId = view?.runId;
        view?.dispose();
        view = undefined;
        select(runId);
        void refresh();
      },
    },
  },
  keyMessage,
  keyField,
  el('button', { text: 'Use key', attrs: { type: 'submit' } }),
);

function showKeyForm(): void {
  if (connection === 'unauthorized') return;
  setConnection('unauthorized');
  renderNotices();
}

/** Rows of the runs list by run id, with what they show, so a refresh only touches what changed. */
const rows = new Map<string, { item: HTMLElement; shown: string }>();

/** The runs list: newest first, nested runs under the run that started them. */
function renderRuns(): void {
  if (runs.length === 0) {
    rows.clear();
    if (runList.querySelector('.runs-empty')) return;
    clear(runList);
    runList.append(el('li', { class: 'runs-empty', text: 'No runs yet.' }));
    return;
  }
  const ids = new Set(runs.map((run) => run.runId));
  const children = new Map<string, RunSummary[]>();
  for (const run of runs) {
    if (run.parentRunId === undefined || !ids.has(run.parentRunId)) continue;
    const list = children.get(run.parentRunId) ?? [];
    list.unshift(run);
    children.set(run.parentRunId, list);
  }
  const wanted: HTMLElement[] = [];
  const add = (run: RunSummary, level: number) => {
    const counts = viewCounts?.runId === run.runId ? viewCounts.counts : undefined;
    const shown = JSON.stringify([run, level, view?.runId === run.runId, counts]);
    let row = rows.get(run.runId);
    if (row?.shown !== shown) {
      const item = runItem(run, level, counts);
      row?.item.replaceWith(item);
      row = { item, shown };
      rows.set(run.runId, row);
    }
    wanted.push(row.item);
    for (const child of children.get(run.runId) ?? []) add(child, level + 1);
  };
  for (const run of runs) if (run.parentRunId === undefined || !ids.has(run.parentRunId)) add(run, 0);
  for (const id of rows.keys()) if (!ids.has(id)) rows.delete(id);
  const current = Array.from(runList.children);
  if (current.length !== wanted.length || current.some((node, index) => node !== wanted[index])) {
    clear(runList);
    append(runList, ...wanted);
  }
}

/** A row of the runs list; `counts`: the run's live counts when it is in view (else the polled call count). */
function runItem(run: RunSummary, level: number, counts: RunCounts | undefined): HTMLElement {
  const calls = counts ?? { calls: run.toolCalls, running: 0 };
  const button = el(
    'button',
    { class: 'run-item', attrs: { type: 'button' }, on: { click: () => select(run.runId) } },
    el('span', { class: 'run-line' }, el('strong', { text: run.agent }), pill(run.status)),
    el('span', { class: 'run-preview', text: run.inputPreview ?? run.runId }),
    el('span', {
      class: 'run-meta',
      text: `${formatTime(run.startedAt)} · ${runCountsText(calls)}`,
      dataset: { calls: String(calls.calls), running: String(calls.running) },
    }),
  );
  if (view?.runId === run.runId) button.setAttribute('aria-current', 'true');
  const item = el('li', { dataset: { runId: run.runId, status: run.status } }, button);
  item.style.paddingLeft = `${level * 14}px`;
  return item;
}

agentSelect.addEventListener('change', () => {
  renderNotices();
  if (view === undefined) select(undefined);
});

// ---- start -----------------------------------------------------------------------------------------------

takeKeyFromFragment();
const initial = new URLSearchParams(location.hash.slice(1)).get('run');
select(initial ?? undefined);
void refresh();

// An address of this page opened in a tab that already shows it (the printed `#key=…` address pasted, a `#run=…`
// link) changes only the fragment: the page does not load again, so it reads the fragment here.
window.addEventListener('hashchange', () => {
  const tookKey = takeKeyFromFragment();
  const runId = new URLSearchParams(location.hash.slice(1)).get('run') ?? undefined;
  if (tookKey) {
    // As the key form: everything is read again with the new key.
    const shown = runId ?? view?.runId;
    view?.dispose();
    view = undefined;
    select(shown);
    void refresh();
  } else if (runId !== undefined) {
    select(runId);
  }
});
