/**
 * toolwire: run your tools in your own process for a hosted model service, over one WebSocket.
 *
 * @packageDocumentation
 */
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
  type AgentDefinition,
  CLOSE_CODES,
  PROTOCOL_DEFAULTS,
  PROTOCOL_VERSION,
  SUBPROTOCOL,
  type ToolCallStatus,
  type ToolDefinition,
} from './protocol';
