/**
 * The agent loop of one run: ask the model for a turn; a text answer ends the run, tool calls are dispatched
 * in parallel and the next turn starts when every result is in.
 *
 * @module
 */
import { Validator } from '@cfworker/json-schema';
import { jsonSyntaxError } from '../src/json-syntax';
import type { ToolChoice, ToolDefinition } from '../src/wire/protocol';
import { Call } from './call';
import type { Dispatcher } from './dispatcher';
import type { ChatMessage, ChatToolCall, Model, ModelToolCall, ModelTurn } from './model';
import { type Run, type RunEnd, toolChoiceFor } from './run';
import type { RunEventKind } from './transcript';

/** What the loop needs from the service. */
export interface TurnLoopDeps {
  model: Model;
  dispatcher: Dispatcher;
  /** Definitions of the agent's tools that some client offers now, as the model is shown them. */
  toolsFor(run: Run): ToolDefinition[];
  /** The definition that holds a call of `toolName` for a person, given the one shown (server-stub/definitions.ts). */
  gateFor(run: Run, toolName: string, shown: ToolDefinition | undefined): ToolDefinition | undefined;
  emit(run: Run, kind: RunEventKind, data: unknown): void;
  /** The model sends its request for turn `turn` again (see `ModelRequest.onRetry`). */
  retried?(run: Run, info: { turn: number; attempt: number; status?: number }): void;
  /** Ends the run (idempotent: a cancel may have ended it already). */
  end(run: Run, end: RunEnd): void;
  newCallId(): string;
}

/** Plays a run to its end. Never rejects: a model failure fails the run with the error's message. */
export async function driveRun(run: Run, deps: TurnLoopDeps): Promise<void> {
  try {
    await loop(run, deps);
  } catch (error) {
    deps.end(run, { status: 'failed', error: error instanceof Error ? error.message : String(error) });
  }
}

async function loop(run: Run, deps: TurnLoopDeps): Promise<void> {
  if (run.messages.length === 0) {
    // An agent without instructions gets no system message (an empty one is refused by some models).
    if (run.agent.instructions !== '') run.messages.push({ role: 'system', content: run.agent.instructions });
    run.messages.push({ role: 'user', content: run.input });
  }
  for (;;) {
    if (run.status !== 'running') return;
    if (run.turns >= run.maxTurns) {
      deps.end(run, {
        status: 'failed',
        error: `Max turns (${run.maxTurns}) exceeded: the model was still calling tools after ${run.maxTurns} turns`,
      });
      return;
    }
    const number = run.turns + 1;
    deps.emit(run, 'turn', { turn: number });
    let streaming = true;
    run.partialText = '';
    let turn: ModelTurn;
    const toolChoice = toolChoiceFor(run);
    // The definitions this turn shows: each call keeps the one of its tool (server-stub/definitions.ts).
    const shown = deps.toolsFor(run);
    try {
      turn = await deps.model.nextTurn({
        messages: run.messages.map((message) => ({ ...message })),
        tools: offered(shown, toolChoice),
        toolChoice,
        agent: run.agent,
        runId: run.id,
        depth: run.depth,
        turn: run.turns,
        signal: run.abort.signal,
        onRetry: (info) => deps.retried?.(run, { turn: number, ...info }),
        onText: (delta) => {
          if (!streaming || run.status !== 'running' || typeof delta !== 'string' || delta === '') return;
          run.partialText += delta;
          deps.emit(run, 'text_delta', { turn: number, delta });
        },
      });
    } finally {
      streaming = false;
      run.partialText = '';
    }
    if (run.status !== 'running') return;
    run.turns += 1;
    const requested = turn.toolCalls ?? [];
    const refused = againstChoice(toolChoice, requested);
    if (refused !== undefined) {
      deps.end(run, { status: 'failed', error: refused });
      return;
    }
    const model = deps.model.info?.kind;
    const by = model === undefined ? {} : { model };
    if (requested.length === 0) {
      const text = turn.text ?? '';
      addMessage(run, deps, { role: 'assistant', content: text, ...by });
      const final = finalOutput(run, text);
      if ('error' in final) deps.end(run, { status: 'failed', error: final.error, code: 'invalid_output' });
      else deps.end(run, { status: 'completed', finalOutput: final.value });
      return;
    }
    const toolCalls: ChatToolCall[] = requested.map((call, index) => ({
      id: call.id ?? `call_${run.turns}_${index + 1}`,
      name: call.name,
      arguments: call.arguments ?? null,
    }));
    addMessage(run, deps, { role: 'assistant', content: turn.text ?? '', toolCalls, ...by });
    const outcomes = await Promise.all(
      toolCalls.map((toolCall) => {
        const definition = shown.find((tool) => tool.name === toolCall.name);
        return deps.dispatcher.submit(
          new Call({
            callId: deps.newCallId(),
            modelCallId: toolCall.id,
            run,
            toolName: toolCall.name,
            arguments: toolCall.arguments,
            turn: run.turns,
            shown: definition,
            gate: deps.gateFor(run, toolCall.name, definition),
          }),
        );
      }),
    );
    if (run.status !== 'running') return;
    outcomes.forEach((outcome, index) => {
      run.messages.push({
        role: 'tool',
        content: outcome.output,
        toolCallId: toolCalls[index]!.id,
        ...(outcome.content === undefined ? {} : { parts: outcome.content }),
      });
    });
  }
}

/** The tools the model is offered under `choice`. */
function offered(tools: ToolDefinition[], choice: ToolChoice): ToolDefinition[] {
  if (choice === 'none') return [];
  if (typeof choice === 'object') return tools.filter((tool) => tool.name === choice.name);
  return tools;
}

/** Why a turn goes against the run's tool choice, or `undefined` when it keeps to it. */
function againstChoice(choice: ToolChoice, requested: readonly ModelToolCall[]): string | undefined {
  if (choice === 'none' && requested.length > 0)
    return `the model called ${requested[0]?.name} although toolChoice is 'none'`;
  if (choice === 'required' && requested.length === 0)
    return `the model answered without calling a tool although toolChoice is 'required'`;
  if (typeof choice === 'object') {
    const other = requested.find((call) => call.name !== choice.name);
    if (requested.length === 0 || other !== undefined)
      return `the model ${other === undefined ? 'answered without calling a tool' : `called ${other.name}`} although toolChoice names ${choice.name}`;
  }
  return undefined;
}

function addMessage(run: Run, deps: TurnLoopDeps, message: ChatMessage): void {
  run.messages.push(message);
  deps.emit(run, 'message', message);
}

/** The final text, or the JSON value it holds when the agent has an `outputSchema` (checked against it). */
function finalOutput(run: Run, text: string): { value: unknown } | { error: string } {
  const schema = run.agent.outputSchema;
  if (schema === undefined) return { value: text };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      error: `the final output is not JSON, but the agent has an outputSchema (the SDK's outputType): ${jsonSyntaxError(text)}`,
    };
  }
  const result = new Validator(
    schema as ConstructorParameters<typeof Validator>[0],
    '2020-12',
    false,
  ).validate(value);
  if (result.valid) return { value };
  const detail = result.errors
    .slice(0, 3)
    .map((error) => `${error.instanceLocation}: ${error.error}`)
    .join('; ');
  return {
    error: `the final output does not match the agent's outputSchema (the SDK's outputType): ${detail}`,
  };
}
