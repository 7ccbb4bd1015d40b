// One client whose tools use every optional part of a call (approval, retry, per-key concurrency, steps,
// questions, a widget) and `tracing`, against the stub with a scripted model. Approval is decided over the socket
// (`client.decide()`) and the question put to the service, answered over its HTTP API as a person would: the code
// of both is optional too. The same file runs in Node, in a
// page in Chromium (test/ui/optional-parts.test.ts), and under Bun and Deno (./smoke.mjs), each with the
// `toolwire` it is given: the Node entry, which has all of that code up front, or the core a browser gets, which
// loads it with import(). Every one must give the model the same text. Plain JavaScript that every runtime runs.

/** The tools' names, in the order the scripted model calls them (one turn each). */
export const SCENARIO_TOOLS = ['approve_me', 'flaky', 'keyed', 'stepper', 'widget_maker'];

/** What the model answers when every tool ran as it does in Node. */
export const SCENARIO_ANSWER =
  'approved 2 | ok after 2 attempts | keyed 2 | step 4, answer blue | {"shown":2}';

/**
 * The trace events a run records, by tool. The service holds `approve_me` for the decision (its definition says
 * `needsApproval: true` and the client has no `onApproval`), so the call comes decided.
 */
export const SCENARIO_TRACE = [
  'approve_me:toolwire.approval.decided',
  'approve_me:toolwire.call.started',
  'approve_me:end ok',
  'flaky:toolwire.call.started',
  'flaky:toolwire.retry',
  'flaky:end ok',
  'keyed:toolwire.call.started',
  'keyed:end ok',
  'stepper:toolwire.call.started',
  'stepper:end ok',
  'widget_maker:toolwire.call.started',
  'widget_maker:end ok',
];

/** The model's script for `runs` runs: one turn per tool, then a text made of what every tool answered. */
export function scenarioScript(runs = 1) {
  const one = [
    ...SCENARIO_TOOLS.map((name) => ({ toolCalls: [{ name, arguments: { n: 2 } }] })),
    ({ messages }) => ({
      text: messages
        .filter((message) => message.role === 'tool')
        .map((message) => message.content)
        .join(' | '),
    }),
  ];
  return Array.from({ length: runs }, () => one).flat();
}

/**
 * Connects a client with the scenario's tools (from `toolwire`, a module namespace) to the stub at `url`, runs
 * one agent turn per tool, and resolves with the model's final text, the trace events and the results' statuses.
 */
export async function runScenario(toolwire, url, apiKey, options = {}) {
  const { Agent, Client, tool } = toolwire;
  let failures = 1;
  const tools = [
    tool({
      name: 'approve_me',
      description: 'Needs approval.',
      needsApproval: true,
      execute: () => 'approved 2',
    }),
    tool({
      name: 'flaky',
      description: 'Fails once, then succeeds.',
      sideEffect: 'none',
      retry: { maxAttempts: 3, initialDelayMs: 1 },
      execute: () => {
        if (failures-- > 0) throw new Error('transient');
        return 'ok after 2 attempts';
      },
    }),
    tool({
      name: 'keyed',
      description: 'One at a time per key.',
      concurrency: { key: () => 'k', limit: 1 },
      execute: () => 'keyed 2',
    }),
    tool({
      name: 'stepper',
      description: 'Uses a step and a question.',
      execute: async (_args, ctx) => {
        const doubled = await ctx.step('double', () => 4);
        const answer = await ctx.askQuestion('Which colour?');
        return `step ${String(doubled)}, answer ${String(answer)}`;
      },
    }),
    tool({
      name: 'widget_maker',
      description: 'Returns a widget.',
      execute: () => ({ shown: 2, widget: { type: 'Text', value: 'two' } }),
    }),
  ];
  const traced = [];
  const statuses = [];
  const client = new Client({
    url,
    apiKey,
    tools,
    reconnect: false,
    ...options,
    tracing: {
      startCall: (call) => ({
        event: (name) => traced.push(`${call.toolName}:${name}`),
        run: (fn) => fn(),
        end: (result) => traced.push(`${call.toolName}:end ${result.status}`),
      }),
    },
  });
  client.on('tool_result', ({ toolName, status }) => statuses.push(`${toolName} ${status}`));
  // A person approves in the page, and answers the question the run reports.
  client.on('approval_requested', ({ callId }) => {
    client.decide(callId, true).catch(() => {});
  });
  const answers = [];
  client.on('run_event', (event) => {
    if (event.kind !== 'question_asked') return;
    const { runId, callId, questionId } = event;
    const path = `/v1/runs/${runId}/calls/${callId}/questions/${questionId}`;
    answers.push(
      fetch(`${url.replace(/^ws/, 'http')}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ answer: 'blue' }),
      }).then((response) => response.status),
    );
  });
  await client.connect();
  try {
    const agent = new Agent({ name: 'Scenario', instructions: 'Call each tool.', tools });
    const result = await client.run(agent, 'go');
    return { answer: String(result.finalOutput), traced, statuses, answered: await Promise.all(answers) };
  } finally {
    await client.close();
  }
}
