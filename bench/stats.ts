/** Summary statistics of a series of samples (nearest-rank percentiles). */

export interface Summary {
  n: number;
  median: number;
  p95: number;
  mean: number;
  /** Mean of the samples at or below p95 (drops GC pauses and scheduling outliers). */
  trimmedMean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array: the smallest value with at least p% of samples at or below it. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new Error('percentile of an empty series');
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
  const p95 = percentile(sorted, 95);
  const kept = sorted.filter((x) => x <= p95);
  return {
    n: sorted.length,
    median: percentile(sorted, 50),
    p95,
    mean,
    trimmedMean: kept.reduce((s, x) => s + x, 0) / kept.length,
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
  };
}

/** Rounds every number in a summary for the JSON file (milliseconds to the microsecond). */
export function rounded(s: Summary, digits = 4): Summary {
  const r = (x: number): number => Number(x.toFixed(digits));
  return { n: s.n, median: r(s.median), p95: r(s.p95), mean: r(s.mean), trimmedMean: r(s.trimmedMean), min: r(s.min), max: r(s.max) };
}
