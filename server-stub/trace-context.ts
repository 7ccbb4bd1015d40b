/**
 * W3C Trace Context ids of the stub (docs/protocol/trace-context.md): a trace per top-level run, continued by its
 * nested
 * runs, and a span id per call, sent as `tool_call.traceparent` to a client that negotiated `trace_context`.
 * The stub records no spans itself.
 *
 * @module
 */
import { randomBytes } from 'node:crypto';

/** A new random trace id: 32 lower-case hex digits, never all zero. */
export function newTraceId(): string {
  return nonZeroHex(16);
}

/** A new random span id: 16 lower-case hex digits, never all zero. */
export function newSpanId(): string {
  return nonZeroHex(8);
}

/** The `traceparent` of a sampled span (flags `01`). */
export function traceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

function nonZeroHex(bytes: number): string {
  for (;;) {
    const hex = randomBytes(bytes).toString('hex');
    if (/[^0]/.test(hex)) return hex;
  }
}
