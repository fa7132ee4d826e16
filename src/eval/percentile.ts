/**
 * Nearest-rank percentiles, for latencies.
 *
 * @module
 */

/**
 * The nearest-rank `q`-quantile (0 < q ≤ 1) of `values`: the smallest value with at least `q` of the
 * values at or below it (`sorted[ceil(q·n) − 1]`), always one of the values; `undefined` for none.
 *
 * @example
 * ```ts
 * percentile([40, 10, 30, 20], 0.5); // 20
 * percentile([40, 10, 30, 20], 0.9); // 40
 * ```
 */
export function percentile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1];
}
