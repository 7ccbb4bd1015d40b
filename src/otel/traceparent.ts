/**
 * Reading a W3C `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header), as PROTOCOL.md §18.10
 * asks: a value that cannot be parsed is ignored, never an error.
 *
 * @module
 */

/** The parent a `traceparent` names. */
export interface RemoteParent {
  /** 32 lower-case hex digits, not all zero. */
  traceId: string;
  /** 16 lower-case hex digits, not all zero. */
  spanId: string;
  /** The trace flags (bit 0: sampled). */
  traceFlags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * The parent a W3C `traceparent` names, or `undefined` when it cannot be used: not a string, another shape,
 * upper case, version `ff`, all-zero ids, or version `00` with anything after the flags. A version above `00`
 * is read as `00` where it starts like one, as the recommendation asks.
 */
export function parseTraceparent(value: unknown): RemoteParent | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value);
  if (match === null) return undefined;
  const [, version, traceId, spanId, flags, rest] = match as unknown as [
    string,
    string,
    string,
    string,
    string,
    string?,
  ];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}
