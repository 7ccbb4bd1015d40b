/**
 * toolwire: run your tools in your own process for a hosted model service, over one WebSocket.
 *
 * The core entry (browsers, workers, and runtimes without the `node` export condition). Node, Bun and Deno get
 * ./node.ts, which registers the optional schema parts and re-exports this. Each name here is one a user writes:
 * a function or class of the public API, or the type of one of their parameters or results. The adapters
 * (`toolwire/mcp`, `toolwire/ai-sdk`, `toolwire/otel`) import the modules they need directly.
 *
 * @packageDocumentation
 */

export { invokeTool } from './call/invoke';
export { ToolRegistry } from './call/registry';
// What a call and its hooks hand over: results, approvals, questions, policies, progress.
export type {
  ApprovalDecision,
  ApprovalRequest,
  CallPolicy,
  InvokeOptions,
  PolicyCall,
  PolicyDecision,
  PreliminaryResult,
  ProgressUpdate,
  QuestionReply,
  QuestionRequest,
  ToolCallResult,
  ToolEvent,
} from './call/types';
// The client and its agents.
export { Agent, type AgentOptions, type AsToolOptions } from './client/agent';
export { Client, type ClientEvents, type ClientState } from './client/client';
export type { CallInfo, ClientOptions, CloseOptions, RunOptions } from './client/client-options';
export type { RunEvent, RunEventOf, RunResult, RunToolCall, ToolResultPart } from './client/runs';
// The tracing option (`new Client({ tracing })`); the shapes a tracer is handed are `toolwire/otel`'s.
export type { ToolTracing } from './client/tracing';
// Errors: one class per fault, each with a string `code` (docs/reference/errors.md).
export {
  AbortError,
  ApprovalError,
  ConnectionError,
  OptionsError,
  ProtocolError,
  QuestionError,
  RunError,
  TimeoutError,
  ToolDefinitionError,
  ToolwireError,
  type ToolwireErrorOptions,
} from './errors';
export type { Logger, RedactRule } from './logger';
export { type ContentInput, type ContentPart, content, type ToolContent } from './tool/content';
export { type ToolObject, type ToolSet, toolsOf } from './tool/shapes';
// Defining tools, and calling one without a network (`invokeTool`, above; `toolwire/testing` has it too, with
// replay and the widget check).
export {
  type AnyTool,
  type AppContext,
  type ApprovalAnswer,
  type ApprovalPolicy,
  approvalRequired,
  type DefaultContext,
  inputSchemaOf,
  type JsonSchemaObject,
  type RetryOptions,
  type SideEffect,
  type Tool,
  type ToolContext,
  type ToolInput,
  type ToolOptions,
  type ToolOutput,
  type ToolParameters,
  tool,
} from './tool/tool';
export type { Widget } from './tool/widget';
export type { ConnectOptions, ReconnectOptions } from './wire/connection';

// The wire contract's names a user meets: a tool's and an agent's definition, a result's status, close codes, step limits.
export {
  type AgentDefinition,
  CLOSE_CODES,
  STEP_LIMITS,
  type ToolCallStatus,
  type ToolChoice,
  type ToolDefinition,
} from './wire/protocol';
