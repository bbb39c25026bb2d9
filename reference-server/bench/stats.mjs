/**
 * Small statistics helpers for the bench: percentiles over latency samples and rounding for the report.
 * Must never invent a figure: an empty sample set yields NaN, and callers skip the result instead.
 */

/** Nearest-rank percentile (p in 0..100) of an array of numbers; NaN when empty. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** p50, p99 and max of latency samples (ms), rounded to 0.01 ms. */
export function summarize(values) {
  return {
    count: values.length,
    p50: round(percentile(values, 50), 2),
    p99: round(percentile(values, 99), 2),
    max: round(percentile(values, 100), 2),
  };
}

export function round(n, digits = 0) {
  if (!Number.isFinite(n)) return n;
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
