/**
 * toolwire's demo: a support agent whose tools query a real SQLite database in this process, driven by the
 * embedded stub service (or the one in TOOLWIRE_URL). Run with `npm start`; `npm start -- --help` for options.
 */
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import pc from 'picocolors';
import { type ApprovalRequest, Client, type RunEvent } from 'toolwire';
import {
  type Model,
  openAIChatModel,
  type StubServer,
  scriptedModel,
  startStubServer,
} from 'toolwire/server-stub';
import { openDatabase } from './db';
import { renderEvent } from './render';
import { DEMO_INPUT, demoScript } from './script';
import { demoTools } from './tools';

const HELP = `Usage: npm start -- [options]

  --yes            approve the refund without asking (also when stdin is not a terminal)
  --json           print the run's transcript as JSON instead of the live view
  --model NAME     scripted (default) or openai (reads OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL)
  --db PATH        SQLite file, created from examples/demo/seed.sql on first use (default examples/demo/demo.db;
                   ':memory:' for a throwaway one)
  --input TEXT     what the user says (default: Ada's keyboard problem)
  -h, --help       this text

Environment: TOOLWIRE_URL and TOOLWIRE_API_KEY connect to that service instead of the embedded stub.`;

export async function main(argv: string[], write: (line: string) => void = console.log): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      yes: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      model: { type: 'string', default: 'scripted' },
      db: { type: 'string', default: new URL('./demo.db', import.meta.url).pathname },
      input: { type: 'string', default: DEMO_INPUT },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    write(HELP);
    return 0;
  }
  const model = pickModel(values.model);
  const db = openDatabase(values.db);
  const { support, tools } = demoTools(db);
  const remote = process.env.TOOLWIRE_URL;
  let stub: StubServer | undefined;
  if (!remote) stub = await startStubServer({ apiKeys: ['demo-key'], model, logger: quietLogger });
  const url = remote ?? stub!.url;
  const apiKey = remote ? process.env.TOOLWIRE_API_KEY : 'demo-key';
  const live = !values.json;
  const client = new Client({
    url,
    ...(apiKey === undefined ? {} : { apiKey }),
    tools: Object.values(tools),
    onApproval: (request) => decide(request, values.yes, live ? write : () => {}),
  });
  const depths = new Map<string, number>();
  if (live) {
    client.on('run_event', (event: RunEvent) => {
      if (!depths.has(event.runId)) depths.set(event.runId, depths.size === 0 ? 0 : 1);
      renderEvent(event, depths, write);
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
          `connected to ${remote ? url : `the embedded stub at ${url}`} · model: ${values.model} · tenant: acme`,
        ),
      );
      write(`${pc.bold('user')}   ${values.input}`);
    }
    const result = await client.run(support, values.input, { context: { tenant: 'acme' } });
    if (values.json) {
      const nested = stub?.runs.list().filter((run) => run.parentRunId === result.runId) ?? [];
      const transcript = stub?.runs.get(result.runId) ?? result;
      write(
        JSON.stringify({ run: transcript, nested: nested.map((run) => stub?.runs.get(run.runId)) }, null, 2),
      );
    } else {
      write(`${pc.bold(pc.green('answer'))} ${String(result.finalOutput)}`);
      const failed = result.toolCalls.filter((call) => call.status !== 'ok').length;
      write(
        pc.dim(
          `${result.turns} model turns · ${result.toolCalls.length} tool calls (${failed} not ok) · run ${result.runId}`,
        ),
      );
    }
    return 0;
  } finally {
    await client.close();
    await stub?.close();
    db.close();
  }
}

function pickModel(name: string): Model {
  if (name === 'scripted') return scriptedModel(demoScript);
  if (name === 'openai') {
    const { OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL } = process.env;
    if (!OPENAI_API_KEY || !OPENAI_MODEL)
      throw new Error(
        '--model openai needs OPENAI_API_KEY and OPENAI_MODEL (and OPENAI_BASE_URL for a non-OpenAI endpoint)',
      );
    return openAIChatModel({
      baseURL: OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
      apiKey: OPENAI_API_KEY,
      model: OPENAI_MODEL,
    });
  }
  throw new Error(`unknown --model ${JSON.stringify(name)}: use scripted or openai`);
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

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(pc.red(error instanceof Error ? error.message : String(error)));
      process.exit(1);
    },
  );
}
