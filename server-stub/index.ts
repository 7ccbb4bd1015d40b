/**
 * `toolwire/server-stub`: a stand-in for the hosted model service, speaking wire protocol v1 (docs/protocol/index.md)
 * with a pluggable model, so that examples, tests and benchmarks run on one machine with no account.
 *
 * @example
 * ```ts
 * import { scriptedModel, startStubServer } from 'toolwire/server-stub';
 *
 * const stub = await startStubServer({
 *   model: scriptedModel([{ toolCalls: [{ name: 'add', arguments: { a: 1, b: 2 } }] }, { text: 'done' }]),
 * });
 * // connect a Client to stub.url, start runs over HTTP at stub.httpUrl, read stub.runs.get(runId)
 * await stub.close();
 * ```
 *
 * @packageDocumentation
 */
export type { StubEvents } from './events';
export { consoleLogger, type StubLogger, silentLogger } from './logger';
export {
  type ChatMessage,
  type ChatToolCall,
  type Model,
  ModelError,
  type ModelInfo,
  type ModelRequest,
  type ModelToolCall,
  type ModelTurn,
} from './model';
export { OPENAI_MODEL_DEFAULTS, type OpenAIChatModelOptions, openAIChatModel } from './openai-model';
export { STUB_DEFAULTS, type StubServerOptions } from './options';
export { type Script, type ScriptedTurn, type ScriptInput, scriptedModel } from './scripted-model';
export { type StubRuns, type StubServer, startStubServer, WEBSOCKET_PATHS } from './server';
export type { SessionInfo } from './service';
export type {
  CallApproval,
  CallState,
  RunEventKind,
  RunEventRecord,
  RunOrigin,
  RunStatus,
  RunSummary,
  RunTranscript,
  TranscriptToolCall,
} from './transcript';
