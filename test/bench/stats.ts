/**
 * Medians, quartiles and markdown tables for the benchmark report.
 *
 * @module
 */

/** The `q`-quantile (0..1) of `values`, linearly interpolated between order statistics. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (position - low);
}

/** Median and interquartile range. */
export interface Summary {
  median: number;
  q1: number;
  q3: number;
}

export function summarize(values: readonly number[]): Summary {
  return { median: quantile(values, 0.5), q1: quantile(values, 0.25), q3: quantile(values, 0.75) };
}

/** Median of the per-round ratios `a[i] / b[i]` (paired: both ran in the same round). */
export function pairedRatio(a: readonly number[], b: readonly number[]): number {
  return quantile(
    a.map((value, index) => value / b[index]!),
    0.5,
  );
}

/** `value` with `digits` significant-looking decimals, or "–" when not a number. */
export function fixed(value: number, digits: number): string {
  return Number.isFinite(value) ? value.toFixed(digits) : "–";
}

/** `"median (q1–q3)"`. */
export function withIqr(summary: Summary, digits: number): string {
  return `${fixed(summary.median, digits)} (${fixed(summary.q1, digits)}–${fixed(summary.q3, digits)})`;
}

/** A markdown table; the first row is the header. Numeric-looking columns are right-aligned. */
export function markdownTable(
  rows: readonly (readonly string[])[],
  rightAligned: readonly number[] = [],
): string {
  const [header, ...body] = rows;
  if (!header) return "";
  const align = header.map((_, column) => (rightAligned.includes(column) ? "---:" : "---"));
  const line = (cells: readonly string[]): string => `| ${cells.join(" | ")} |`;
  return [line(header), line(align), ...body.map(line)].join("\n");
}
