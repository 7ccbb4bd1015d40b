/**
 * `toolwire/otel`: every tool call a `Client` runs becomes an OpenTelemetry span, `execute_tool <name>` after the
 * GenAI semantic conventions, a child of the service's span of the call. Needs `@opentelemetry/api` 1.x (an
 * optional peer dependency of toolwire) and a tracer provider registered by your OpenTelemetry setup.
 *
 * @packageDocumentation
 */
export { type OtelTracingOptions, otelTracing } from './otel-tracing';
export { parseTraceparent, type RemoteParent } from './traceparent';
