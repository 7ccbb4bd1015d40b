/**
 * Shared by the small examples: starts the embedded stub with a scripted model, connects a Client, runs one
 * agent and prints each tool call and the answer. Your own program would connect to the hosted service instead.
 */
import {
  type Agent,
  type ApprovalRequest,
  Client,
  type QuestionReply,
  type QuestionRequest,
  type RunEvent,
  type RunResult,
} from 'toolwire';
import {
  type Script,
  type StubServerOptions,
  scriptedModel,
  silentLogger,
  startStubServer,
} from 'toolwire/server-stub';

export interface ExampleOptions {
  agent: Agent;
  input: string;
  script: Script;
  onApproval?: (request: ApprovalRequest) => boolean | { approved: boolean; reason?: string };
  /** Answers the tools' questions in this process (else the stub's UI or HTTP API would). */
  onQuestion?: (request: QuestionRequest) => QuestionReply | Promise<QuestionReply>;
  /** Told about each event of the run as it happens. */
  onEvent?: (event: RunEvent) => void;
  /** Options of the embedded stub (e.g. a short `callDeadlineMs`). */
  stub?: StubServerOptions;
  /** `ctx.context` of the run's tool calls (never sent). */
  context?: unknown;
}

export async function runExample(options: ExampleOptions): Promise<RunResult> {
  const stub = await startStubServer({
    model: scriptedModel(options.script),
    logger: silentLogger,
    ...options.stub,
  });
  const client = new Client({
    url: stub.url,
    apiKey: 'example-key',
    tools: [],
    ...(options.onApproval ? { onApproval: options.onApproval } : {}),
    ...(options.onQuestion ? { onQuestion: options.onQuestion } : {}),
  });
  client.on('widget_invalid', (info) => console.log(`widget dropped: ${info.path}: ${info.message}`));
  try {
    await client.connect();
    const result = await client.run(options.agent, options.input, {
      ...(options.onEvent ? { onEvent: options.onEvent } : {}),
      ...(options.context === undefined ? {} : { context: options.context }),
    });
    for (const call of result.toolCalls) {
      console.log(`${call.toolName}(${JSON.stringify(call.arguments)}) → ${call.status}: ${call.output}`);
      if (call.widget) console.log(`  widget for the UI: ${JSON.stringify(call.widget)}`);
    }
    console.log(`answer: ${String(result.finalOutput)}`);
    return result;
  } finally {
    await client.close();
    await stub.close();
  }
}

/** A scripted turn that answers with the last tool output. */
export const answerWithLastOutput = ({
  messages,
}: {
  messages: readonly { role: string; content: string }[];
}) => ({
  text: [...messages].reverse().find((message) => message.role === 'tool')?.content ?? '',
});
