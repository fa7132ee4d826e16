/**
 * The Wilson score interval of a pass rate: the interval an eval reports beside every rate.
 *
 * @module
 */

/** The normal quantile of a two-sided 95 % interval. */
export const Z_95 = 1.959963984540054;

/**
 * The Wilson score interval of `passes` successes in `n` runs (95 % by default; pass another `z` for
 * another level). Unlike the normal ("Wald") interval it stays inside [0, 1] and is not zero-width at
 * 0 % or 100 %: 5 of 5 is [0.5655, 1], not [1, 1]. With no runs it is [0, 1] (nothing is known).
 *
 * `low, high = (p + z²/2n ∓ z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n)`, with `p = passes / n`.
 *
 * @example
 * ```ts
 * wilsonInterval(7, 10); // { low: 0.3968, high: 0.8922 } (to 4 decimals)
 * wilsonInterval(5, 5);  // { low: 0.5655, high: 1 }
 * ```
 */
export function wilsonInterval(passes: number, n: number, z: number = Z_95): { low: number; high: number } {
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`wilsonInterval: n must be a whole number ≥ 0, got ${n}`);
  if (!Number.isInteger(passes) || passes < 0 || passes > n)
    throw new RangeError(`wilsonInterval: passes must be a whole number from 0 to n (${n}), got ${passes}`);
  if (n === 0) return { low: 0, high: 1 };
  const p = passes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const center = (p + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // Exact ends at 0 and n (rounding would leave 1e-17 outside the rate).
  return {
    low: passes === 0 ? 0 : Math.max(0, center - half),
    high: passes === n ? 1 : Math.min(1, center + half),
  };
}
