/**
 * `toolwire/tracing`: what a tracer of your own is handed (`new Client({ tracing })` takes a `ToolTracing`, from
 * the root): the call as it starts ({@link TracedCall}), the hooks the tracer returns for it ({@link CallTrace}),
 * how it ended ({@link TracedResult}, with what was thrown as a {@link TracedError}), the attributes it may record
 * ({@link TraceAttributes}), and the names of the events it is told of ({@link TRACE_EVENTS}). Nothing here needs
 * OpenTelemetry.
 *
 * @packageDocumentation
 */
export {
  type CallTrace,
  TRACE_EVENTS,
  type TraceAttributes,
  type TracedCall,
  type TracedError,
  type TracedResult,
} from './client/tracing';
