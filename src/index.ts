/**
 * toolwire: run your tools in your own process for a hosted model service, over one WebSocket.
 *
 * @packageDocumentation
 */

export { type DecodedArguments, decodeArguments } from './call/arguments';
export { type ApprovalNeededOptions, approvalNeeded, invokeTool } from './call/invoke';
export { ToolRegistry } from './call/registry';
export type { StepRecord } from './call/steps';
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
  RejectionReason,
  ToolCallResult,
  ToolEvent,
  WidgetInvalidInfo,
} from './call/types';
export {
  Agent,
  type AgentOptions,
  type AgentOutput,
  type AsToolOptions,
  DEFAULT_MAX_DEPTH,
} from './client/agent';
export {
  Client,
  type ClientEvents,
  type ClientState,
  type RunOutput,
  type ToolCallEvent,
} from './client/client';
export type { CloseOptions, RunOptions } from './client/client-options';
export { type CallInfo, CLIENT_DEFAULTS, type ClientOptions } from './client/client-options';
export type { RunEvent, RunResult } from './client/runs';
export {
  type CallTrace,
  type ToolTracing,
  TRACE_EVENTS,
  type TraceAttributes,
  type TracedCall,
  type TracedResult,
} from './client/tracing';
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
export { sensitiveValues } from './redact';
/**
 * The options checker toolwire's own entry points use, for adapters and extensions that take options the same
 * way (unknown option → "did you mean", each value checked by its rule, the owner's error class): see
 * src/tool/check-options.ts. `toolwire/mcp` and `toolwire/ai-sdk` use it with `OptionsError`.
 */
export {
  aBoolean,
  aDuration,
  aFunction,
  anything,
  aString,
  checkOptions,
  type OptionsOwner,
  type OptionsSpec,
  oneOf,
  type Rule,
} from './tool/check-options';
export {
  type BinaryData,
  type ContentInput,
  type ContentPart,
  content,
  type ToolContent,
} from './tool/content';
export { serializeOutput, thrownMessage, truncateUtf8 } from './tool/output';
export type { SchemaKind, ValidationIssue } from './tool/schema';
export type {
  NamedToolObject,
  SchemaInput,
  ToolEntry,
  ToolFunction,
  ToolItem,
  ToolObject,
  ToolSet,
  ToolSetOf,
  ToolSource,
  ToolSourceOf,
  ToolsGiven,
  TypedToolObject,
} from './tool/shapes';
export { toolsOf } from './tool/shapes';
export type {
  AskOptions,
  ContextMethods,
  ContextScope,
  IdempotencyKeyOptions,
  ProgressInput,
  SideEffect,
} from './tool/tool';
export {
  type AnyTool,
  type ApprovalAnswer,
  type ApprovalPolicy,
  approvalRequired,
  DEFAULT_SIDE_EFFECT,
  type EmptyInput,
  type InferParameters,
  inputSchemaOf,
  type JsonSchemaObject,
  RETRY_DEFAULTS,
  type RetryOptions,
  type Tool,
  type ToolContext,
  type ToolInput,
  type ToolOptions,
  type ToolOutput,
  type ToolParameters,
  tool,
} from './tool/tool';
export {
  BADGE_COLORS,
  type BadgeWidget,
  type CardWidget,
  CHART_KINDS,
  type ChartDatum,
  type ChartWidget,
  type ImageWidget,
  type ListWidget,
  type TableCell,
  type TableWidget,
  type TextWidget,
  validateWidget,
  WIDGET_TYPES,
  type Widget,
  type WidgetValidation,
  widgetSchema,
} from './tool/widget';
export type { ConnectOptions, ReconnectOptions } from './wire/connection';
export {
  type AgentDefinition,
  CLOSE_CODES,
  PROTOCOL_DEFAULTS,
  PROTOCOL_VERSION,
  STEP_LIMITS,
  SUBPROTOCOL,
  type ToolCallStatus,
  type ToolDefinition,
} from './wire/protocol';
export type { WebSocketConstructor, WebSocketLike } from './wire/transport';
