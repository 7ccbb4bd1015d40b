import type { CallTrace, ToolTracing } from '../../src/client/tracing';

/** A tracer that keeps what the client hands it: the arguments (read at the end, as toolwire/otel does), the result. */
export function recordingTracer(): { tracing: ToolTracing; seen: unknown[] } {
  const seen: unknown[] = [];
  const tracing: ToolTracing = {
    startCall(call) {
      const trace: CallTrace = {
        event: (name, attributes) => seen.push({ name, attributes }),
        run: (fn) => fn(),
        end: (result) => {
          const error =
            result.error === undefined
              ? undefined
              : { message: result.error.message, stack: result.error.stack };
          seen.push({ arguments: call.arguments(), output: result.output, error });
        },
      };
      return trace;
    },
  };
  return { tracing, seen };
}
