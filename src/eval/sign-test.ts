/**
 * The exact sign test: the paired comparison of two routes over the same tasks.
 *
 * @module
 */

/**
 * The two-sided p-value of the exact sign test: of the pairs that differ, `wins` went one way and
 * `losses` the other; under "no difference" each way has probability ½, so the p-value is
 * `min(1, 2 · P(X ≤ min(wins, losses)))` for `X ~ Binomial(wins + losses, ½)`. Ties are left out before
 * calling it. With no differing pairs it is 1.
 *
 * @example
 * ```ts
 * signTest(8, 0); // 0.0078125: 2 × ½⁸
 * signTest(3, 2); // 1
 * ```
 */
export function signTest(wins: number, losses: number): number {
  for (const [name, value] of [
    ["wins", wins],
    ["losses", losses],
  ] as const)
    if (!Number.isInteger(value) || value < 0)
      throw new RangeError(`signTest: ${name} must be a whole number ≥ 0, got ${value}`);
  // Equal counts, or one apart, leave half the mass on each side at least: exactly 1 (no rounding).
  if (Math.abs(wins - losses) <= 1) return 1;
  const m = wins + losses;
  const k = Math.min(wins, losses);
  // P(X = i) for i = 0…k, built term by term in log space (m may be in the thousands).
  let logTerm = -m * Math.LN2;
  let tail = 0;
  for (let i = 0; i <= k; i++) {
    tail += Math.exp(logTerm);
    logTerm += Math.log((m - i) / (i + 1));
  }
  return Math.min(1, 2 * tail);
}
