/**
 * toolwire: run your tools in your own process for a hosted model service, over one WebSocket.
 *
 * @packageDocumentation
 */

export { Agent, type AgentOptions, type AgentOutput, type AsToolOptions, DEFAULT_MAX_DEPTH } from './agent';
export { type DecodedArguments, decodeArguments } from './arguments';
export {
  Client,
  type ClientEvents,
  type ClientState,
  type CloseOptions,
  type RunOptions,
  type RunOutput,
  type ToolCallEvent,
} from './client';
export { type CallInfo, CLIENT_DEFAULTS, type ClientOptions } from './client-options';
export type { ReconnectOptions } from './connection';
export {
  AbortError,
  ConnectionError,
  ProtocolError,
  RunError,
  TimeoutError,
  ToolDefinitionError,
  ToolwireError,
  type ToolwireErrorOptions,
} from './errors';
export {
  type ApprovalDecision,
  type ApprovalRequest,
  type InvokeOptions,
  invokeTool,
  type ToolCallResult,
  type WidgetInvalidInfo,
} from './invoke';
export type { Logger, RedactRule } from './logger';
export { serializeOutput, thrownMessage, truncateUtf8 } from './output';
export {
  type AgentDefinition,
  CLOSE_CODES,
  PROTOCOL_DEFAULTS,
  PROTOCOL_VERSION,
  SUBPROTOCOL,
  type ToolCallStatus,
  type ToolDefinition,
} from './protocol';
export { ToolRegistry } from './registry';
export type { RunEvent, RunResult } from './runs';
export type { SchemaKind, ValidationIssue } from './schema/index';
export {
  type EmptyInput,
  type InferParameters,
  type JsonSchemaObject,
  type Tool,
  type ToolContext,
  type ToolInput,
  type ToolOptions,
  type ToolOutput,
  type ToolParameters,
  tool,
} from './tool';
export type { WebSocketConstructor, WebSocketLike } from './transport';
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
} from './widget';
