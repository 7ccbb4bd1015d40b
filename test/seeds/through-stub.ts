/**
 * Runs tools from a reference document through a real `Client` against the stub over loopback: the tools are
 * given to the client (`new Client({ tools })`) and to the agent (`new Agent({ tools })`), the scripted model
 * calls them, and the run's tool calls come back as `name(arguments) → status: output` lines.
 */

import {
  type RunTranscript,
  type Script,
  scriptedModel,
  silentLogger,
  startStubServer,
} from '../../server-stub/index';
import {
  Agent,
  type ApprovalDecision,
  type ApprovalRequest,
  Client,
  type RunOptions,
  type RunResult,
  type ToolSet,
} from '../../src/index';

export interface SeedRun {
  tools: ToolSet;
  script: Script;
  context?: unknown;
  onApproval?: (request: ApprovalRequest) => ApprovalDecision;
  /** The agent to run; else one named `Seed` with `tools`. */
  agent?: Agent;
  /** `client.run()`'s `userId`: the end user the run acts for. */
  userId?: string;
  /** The stub's `apiKeys` (the client presents the first): each key is a tenant. */
  apiKeys?: string[];
  /** `client.run()`'s `toolChoice` and `metadata`. */
  runOptions?: Pick<RunOptions, 'toolChoice' | 'metadata'>;
  /** Given the stub's transcript of the run (its events, the steps kept with each call) and the run's result. */
  inspect?: (transcript: RunTranscript | undefined, result: RunResult) => void;
}

/** The run's tool calls as `name(arguments) → status: output`, in order. */
export async function runSeed(options: SeedRun): Promise<string[]> {
  const stub = await startStubServer({
    model: scriptedModel(options.script),
    logger: silentLogger,
    ...(options.apiKeys === undefined ? {} : { apiKeys: options.apiKeys }),
  });
  const client = new Client({
    url: stub.url,
    apiKey: options.apiKeys?.[0] ?? 'seed-key',
    tools: options.tools,
    ...(options.onApproval === undefined ? {} : { onApproval: options.onApproval }),
  });
  try {
    await client.connect();
    const agent =
      options.agent ?? new Agent({ name: 'Seed', instructions: 'Use the tools.', tools: options.tools });
    const result = await client.run(agent, 'go', {
      ...(options.context === undefined ? {} : { context: options.context }),
      ...(options.userId === undefined ? {} : { userId: options.userId }),
      ...options.runOptions,
    });
    options.inspect?.(stub.runs.get(result.runId), result);
    return result.toolCalls.map(
      (call) => `${call.toolName}(${JSON.stringify(call.arguments)}) → ${call.status}: ${call.output}`,
    );
  } finally {
    await client.close();
    await stub.close();
  }
}
