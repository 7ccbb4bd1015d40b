/**
 * toolwire: run your tools in your own process for a hosted model service, over one WebSocket.
 *
 * @packageDocumentation
 */

// ---------------------------------------------------------------- core: tools and one call
export { type DecodedArguments, decodeArguments } from './arguments';
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

// ---------------------------------------------------------------- client, agents and runs
export { Agent, type AgentOptions, type AsToolOptions, DEFAULT_MAX_DEPTH } from './agent';
export {
  Client,
  type ClientEvents,
  type ClientState,
  type CloseOptions,
  type RunOptions,
  type ToolCallEvent,
} from './client';
export { CLIENT_DEFAULTS, type CallInfo, type ClientOptions } from './client-options';
export type { ReconnectOptions } from './connection';
export type { Logger, RedactRule } from './logger';
export type { RunEvent, RunResult } from './runs';
export type { WebSocketConstructor, WebSocketLike } from './transport';
