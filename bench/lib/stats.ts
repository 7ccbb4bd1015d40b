/**
 * Small statistics helpers: percentiles of latency samples and medians across repetitions.
 *
 * @module
 */

/** Latency percentiles in microseconds. */
export interface LatencySummary {
  count: number;
  p50Us: number;
  p99Us: number;
  meanUs: number;
}

/** Percentiles of latency samples given in milliseconds (nearest-rank on the sorted copy). */
export function summarize(samplesMs: Float64Array): LatencySummary {
  const sorted = Float64Array.from(samplesMs).sort();
  const count = sorted.length;
  if (count === 0) return { count, p50Us: Number.NaN, p99Us: Number.NaN, meanUs: Number.NaN };
  const at = (q: number) => sorted[Math.min(count - 1, Math.ceil(q * count) - 1)]! * 1000;
  let sum = 0;
  for (const value of sorted) sum += value;
  return { count, p50Us: at(0.5), p99Us: at(0.99), meanUs: (sum / count) * 1000 };
}

/** Median of the finite values (the mean of the middle two for an even count); NaN when there are none. */
export function median(values: readonly number[]): number {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const mid = finite.length >> 1;
  return finite.length % 2 === 1 ? finite[mid]! : (finite[mid - 1]! + finite[mid]!) / 2;
}
