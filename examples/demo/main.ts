/**
 * toolwire's demo: a support agent whose tools query a real SQLite database in this process, driven by the
 * embedded stub service (or the one in TOOLWIRE_URL). Run with `npm start`; `npm start -- --help` for options.
 */
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import pc from 'picocolors';
import {
  type Agent,
  type ApprovalRequest,
  Client,
  type QuestionReply,
  type QuestionRequest,
  type RunEvent,
  type Tool,
} from 'toolwire';
import {
  type Model,
  openAIChatModel,
  type StubServer,
  scriptedModel,
  silentLogger,
  startStubServer,
} from 'toolwire/server-stub';
import { openDatabase } from './db';
import { type LiveView, renderEvent } from './render';
import { DEMO_INPUT, demoScript, EXPORT_INPUT } from './script';
import { demoTools } from './tools';
import { type DemoUi, startDemoUi } from './ui';

const HELP = `Usage: npm start -- [options]

  --yes            approve the refund without asking (also when stdin is not a terminal)
  --json           print the run's transcript as JSON instead of the live view
  --model NAME     scripted (default: the demo's script, not a language model) or openai: an OpenAI-compatible
                   server from OPENAI_BASE_URL (default https://api.openai.com/v1), OPENAI_MODEL, OPENAI_API_KEY
                   (not needed by local servers) and OPENAI_TIMEOUT_MS; its text streams in as it comes.
                   Ollama: OPENAI_BASE_URL=http://localhost:11434/v1, vLLM: http://localhost:8000/v1,
                   LM Studio: http://localhost:1234/v1. Not with TOOLWIRE_URL: the model lives in that service
  --db PATH        SQLite file, created from examples/demo/seed.sql on first use (default examples/demo/demo.db;
                   ':memory:' for a throwaway one)
  --input TEXT     what the user says (default: Ada's keyboard problem)
  --export         talk to the Operations agent instead: a long export that asks which warehouse (answered
                   here; the first with --yes or without a terminal), reports its progress batch by batch, and
                   runs past the embedded stub's per-call deadline (set to 500 ms for it)
  --ui             serve the agent UI instead: prints its URL and keeps the tools connected until Ctrl-C;
                   chat with the agent, watch its tools and widgets, and approve refunds in the browser
  --port N         port of the embedded stub (default: 8787 with --ui, else a free one; 0: a free one)
  -h, --help       this text

Environment: TOOLWIRE_URL and TOOLWIRE_API_KEY connect to that service instead of the embedded stub.`;

/** Default port of the agent UI, so a restarted demo comes back at the URL an open page already has. */
const UI_PORT = 8787;

/** How {@link main} is stopped in `--ui` mode besides SIGINT / SIGTERM, and where streamed text goes (tests use these). */
export interface MainOptions {
  /** Aborting it stops the UI; when given, SIGINT and SIGTERM are not listened to. */
  signal?: AbortSignal;
  /**
   * Writes a piece of a line: the model's text as it streams. @default process.stdout.write when `write` is the
   * default and stdout is a terminal; otherwise streamed text shows as whole messages only.
   */
  stream?: (chunk: string) => void;
}

export async function main(
  argv: string[],
  write: (line: string) => void = console.log,
  options: MainOptions = {},
): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      yes: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      model: { type: 'string' },
      db: { type: 'string', default: new URL('./demo.db', import.meta.url).pathname },
      input: { type: 'string' },
      export: { type: 'boolean', default: false },
      ui: { type: 'boolean', default: false },
      port: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    write(HELP);
    return 0;
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65_535)) {
    throw new Error(`--port must be an integer from 0 to 65535, got ${JSON.stringify(values.port)}`);
  }
  const remote = process.env.TOOLWIRE_URL;
  if (values.ui && remote) {
    throw new Error('--ui serves the page from the embedded stub: unset TOOLWIRE_URL to use it');
  }
  if (remote && values.model !== undefined) {
    throw new Error(
      `--model ${values.model} picks the model of the embedded stub, but with TOOLWIRE_URL the model lives in the other process (the service at ${remote}), not in this one: start that service with the model you want (e.g. \`npm start -- --ui --model ${values.model}\` there, or \`toolwire-stub --openai-base-url URL\`), or unset TOOLWIRE_URL to use the embedded stub`,
    );
  }
  const model = pickModel(values.model ?? 'scripted');
  const db = openDatabase(values.db);
  const { support, researcher, operations, tools } = demoTools(db);
  const agents = [support, researcher, operations];
  if (values.ui) {
    try {
      return await serveUi({ model, port: port ?? UI_PORT, agents, tools, write, ...options });
    } finally {
      db.close();
    }
  }
  let stub: StubServer | undefined;
  if (!remote) {
    stub = await startStubServer({
      apiKeys: ['demo-key'],
      model,
      port: port ?? 0,
      logger: silentLogger,
      // The export outlives a short per-call deadline: the client keeps its lease alive (docs/protocol/lease.md).
      ...(values.export ? { callDeadlineMs: 500 } : {}),
    });
  }
  const agent = values.export ? operations : support;
  const input = values.input ?? (values.export ? EXPORT_INPUT : DEMO_INPUT);
  const url = remote ?? stub!.url;
  const apiKey = remote ? process.env.TOOLWIRE_API_KEY : 'demo-key';
  const live = !values.json;
  const client = new Client({
    url,
    ...(apiKey === undefined ? {} : { apiKey }),
    tools: Object.values(tools),
    onApproval: (request) => decide(request, values.yes, live ? write : () => {}),
    onQuestion: (request) => answer(request, values.yes, live ? write : () => {}),
  });
  const view: LiveView = {
    depths: new Map(),
    write,
    streaming: new Set(),
    ...streamTo(write, options),
  };
  if (live) {
    client.on('run_event', (event: RunEvent) => {
      if (!view.depths.has(event.runId)) view.depths.set(event.runId, view.depths.size === 0 ? 0 : 1);
      renderEvent(event, view);
    });
    client.on('widget_invalid', (info) =>
      write(pc.red(`widget from ${info.toolName} dropped: ${info.path}: ${info.message}`)),
    );
  }
  try {
    await client.connect();
    if (live) {
      write(
        pc.dim(
          `connected to ${remote ? url : `the embedded stub at ${url}`} · model: ${remote ? `the service's own` : describeModel(model)} · tenant: acme`,
        ),
      );
      write(`${pc.bold('user')}   ${input}`);
    }
    const result = await client.run(agent, input, { context: { tenant: 'acme' } }).finally(() => {
      // A stream cut short (the model failed mid-answer) leaves its line open.
      if (view.streaming.size > 0) view.stream?.('\n');
      view.streaming.clear();
    });
    if (values.json) {
      const nested = stub?.runs.list().filter((run) => run.parentRunId === result.runId) ?? [];
      const transcript = stub?.runs.get(result.runId) ?? result;
      write(
        JSON.stringify({ run: transcript, nested: nested.map((run) => stub?.runs.get(run.runId)) }, null, 2),
      );
    } else {
      const scripted = result.model === 'scripted' ? `${pc.dim('[scripted]')} ` : '';
      write(`${pc.bold(pc.green('answer'))} ${scripted}${String(result.finalOutput)}`);
      const failed = result.toolCalls.filter((call) => call.status !== 'ok').length;
      const turns = counted(result.turns, 'model turn');
      const calls = counted(result.toolCalls.length, 'tool call');
      write(pc.dim(`${turns} · ${calls} (${failed} not ok) · run ${result.runId}`));
    }
    return 0;
  } finally {
    await client.close();
    await stub?.close();
    db.close();
  }
}

/** `--ui`: serves the page until SIGINT / SIGTERM (or `signal`), then closes the client and the stub. */
async function serveUi(options: {
  model: Model;
  port: number;
  agents: Agent[];
  tools: ReturnType<typeof demoTools>['tools'];
  write: (line: string) => void;
  signal?: AbortSignal;
}): Promise<number> {
  const { write } = options;
  let ui: DemoUi;
  try {
    ui = await startDemoUi({
      model: options.model,
      agents: options.agents,
      tools: Object.values(options.tools) as Tool<never, unknown, never>[],
      port: options.port,
      context: { tenant: 'acme' },
      write,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new Error(`port ${options.port} is in use: pass --port 0 for a free one, or --port N`);
    }
    throw error;
  }
  write(`${pc.bold('agent UI')} ${ui.url}`);
  write(pc.dim(`model: ${describeModel(options.model)}`));
  write(
    pc.dim(
      'open it in a browser: talk to Support (approve refunds in the page) or Operations (its export asks which warehouse and shows its progress) · Ctrl-C stops',
    ),
  );
  const why = await stopped(options.signal);
  write(pc.dim(`${why}: closing`));
  await ui.close();
  return 0;
}

/** Resolves with what stopped the UI: the signal's abort, or SIGINT / SIGTERM when there is no signal. */
/** `1 tool call`, `6 tool calls`: a count with its noun. */
function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function stopped(signal: AbortSignal | undefined): Promise<string> {
  if (signal) {
    return new Promise((resolve) => {
      if (signal.aborted) resolve('stopped');
      else signal.addEventListener('abort', () => resolve('stopped'), { once: true });
    });
  }
  return new Promise((resolve) => {
    const on = (name: NodeJS.Signals) => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
      resolve(name);
    };
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
  });
}

function pickModel(name: string): Model {
  if (name === 'scripted') return scriptedModel(demoScript);
  if (name === 'openai') {
    const { OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL, OPENAI_TIMEOUT_MS } = process.env;
    if (!OPENAI_MODEL || (!OPENAI_BASE_URL && !OPENAI_API_KEY))
      throw new Error(
        '--model openai needs OPENAI_MODEL, and OPENAI_API_KEY for OpenAI or OPENAI_BASE_URL for another server (e.g. Ollama: OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=llama3.1)',
      );
    const timeoutMs = OPENAI_TIMEOUT_MS === undefined ? undefined : Number(OPENAI_TIMEOUT_MS);
    return openAIChatModel({
      baseURL: OPENAI_BASE_URL || 'https://api.openai.com/v1',
      model: OPENAI_MODEL,
      ...(OPENAI_API_KEY ? { apiKey: OPENAI_API_KEY } : {}),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
  }
  throw new Error(`unknown --model ${JSON.stringify(name)}: use scripted or openai`);
}

/** The model in a few words; a scripted one says it is no language model. */
function describeModel(model: Model): string {
  if (model.info?.kind === 'scripted') {
    return "scripted (the demo's script, not a language model: it plays the same turns whatever is asked)";
  }
  return model.info?.name ?? 'a custom model';
}

/** Streamed text goes to the terminal when the lines do, and only there. */
function streamTo(write: (line: string) => void, options: MainOptions): { stream?: (chunk: string) => void } {
  if (options.stream) return { stream: options.stream };
  if (write === console.log && process.stdout.isTTY)
    return { stream: (chunk) => process.stdout.write(chunk) };
  return {};
}

/** The human in the loop: a terminal prompt, or automatic approval with --yes or without a terminal. */
async function decide(
  request: ApprovalRequest,
  yes: boolean,
  write: (line: string) => void,
): Promise<boolean> {
  const summary = `${request.toolName} ${JSON.stringify(request.input)}`;
  if (yes || !process.stdin.isTTY) {
    write(
      `  ${pc.yellow('approval')} ${summary} → approved ${pc.dim(yes ? '(--yes)' : '(stdin is not a terminal)')}`,
    );
    return true;
  }
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await prompt.question(`  ${pc.yellow('approval')} ${summary}: approve? [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
  }
}

/** The user answering a tool's question: a terminal prompt, or the first choice with --yes or without a terminal. */
async function answer(
  request: QuestionRequest,
  yes: boolean,
  write: (line: string) => void,
): Promise<QuestionReply> {
  const choices = request.choices ?? [];
  const asked = `${request.question}${choices.length > 0 ? ` [${choices.join(', ')}]` : ''}`;
  if (yes || !process.stdin.isTTY) {
    const first = choices[0] ?? '';
    write(
      `  ${pc.yellow('question')} ${asked} → ${first} ${pc.dim(yes ? '(--yes)' : '(stdin is not a terminal)')}`,
    );
    return { answer: first };
  }
  const prompt = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const text = (await prompt.question(`  ${pc.yellow('question')} ${asked}: `)).trim();
    return text === '' ? { declined: true, reason: 'no answer' } : { answer: text };
  } finally {
    prompt.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(pc.red(error instanceof Error ? error.message : String(error)));
      process.exit(1);
    },
  );
}
