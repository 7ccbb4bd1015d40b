/**
 * `npm start -- --ui`: the embedded stub serves the agent UI, the demo's agents are registered with it by name,
 * and this process stays connected with the tools, so a person can chat with the Support agent in a browser,
 * watch the tools run, see their widgets and decide the refund there.
 */
import pc from 'picocolors';
import { type Agent, type AgentDefinition, Client, type Tool } from 'toolwire';
import { type Model, type StubServer, silentLogger, startStubServer } from 'toolwire/server-stub';
import type { DemoContext } from './tools';

/** What {@link startDemoUi} needs. */
export interface DemoUiOptions {
  model: Model;
  /** Agents the page can start, by name (the first is the page's default). */
  agents: Agent[];
  tools: Tool<never, unknown, never>[];
  /** Port of the stub; 0 picks a free one. */
  port: number;
  /** The run context for runs started from the page (they belong to no client, so the client supplies it). */
  context: DemoContext;
  /** Where progress lines go. */
  write: (line: string) => void;
}

/** A running UI: the page's URL (carrying the API key in its fragment), and how to stop it. */
export interface DemoUi {
  url: string;
  stub: StubServer;
  client: Client;
  close(): Promise<void>;
}

/** The demo's API key: loopback only, and known to the page through the URL's fragment. */
export const DEMO_API_KEY = 'demo-key';

/**
 * Starts the stub with the agent UI and connects the demo's client to it. No `onApproval`: approvals are held
 * by the stub and decided in the page.
 */
export async function startDemoUi(options: DemoUiOptions): Promise<DemoUi> {
  const { write } = options;
  const stub = await startStubServer({
    apiKeys: [DEMO_API_KEY],
    model: options.model,
    port: options.port,
    agents: options.agents.map(definitionOf),
    logger: silentLogger,
  });
  const client = new Client({
    url: stub.url,
    apiKey: DEMO_API_KEY,
    tools: options.tools,
    context: options.context,
  });
  client.on('tool_result', (info) => {
    const colour = info.status === 'ok' ? pc.green : info.status === 'rejected' ? pc.yellow : pc.red;
    write(
      `  ${pc.cyan('call')} ${pc.bold(info.toolName)} ${colour(info.status)} ${pc.dim(`${info.durationMs}ms · ${info.runId}`)}`,
    );
  });
  let closing = false;
  client.on('disconnected', (info) => {
    if (!closing) write(pc.yellow(`  client disconnected (${info.code}); reconnecting`));
  });
  try {
    await client.connect();
  } catch (error) {
    await stub.close();
    throw error;
  }
  return {
    url: `${stub.httpUrl}/#key=${encodeURIComponent(DEMO_API_KEY)}`,
    stub,
    client,
    async close() {
      closing = true;
      await client.close();
      await stub.close();
    },
  };
}

/** The wire definition of an agent: what the stub needs to run it by name. */
function definitionOf(agent: Agent): AgentDefinition {
  return {
    name: agent.name,
    instructions: agent.instructions,
    tools: agent.tools.map((item) => item.name),
    ...(agent.model === undefined ? {} : { model: agent.model }),
  };
}
