/**
 * The Markdown form of an eval report: one table per task × route, one per route, one of comparisons.
 *
 * @module
 */
import type { EvalReport, EvalStats } from "./run-eval.ts";

/**
 * The report as Markdown: a table of every task × route (n, pass rate and its Wilson 95 % interval, error
 * kinds, latency p50/p90, mean tokens in/out and cost per answered run), the per-route totals, and the
 * paired comparisons (tasks better / worse / tied, the mean per-task difference in pass rate and the exact
 * sign test's two-sided p). Unknown figures are `?` (a count not reported, a price not known); `–` where
 * there is nothing to measure.
 *
 * @example
 * ```ts
 * console.log(evalMarkdown(await runEval({ suite, routes, samples: 5 })));
 * ```
 */
export function evalMarkdown(report: EvalReport): string {
  const header =
    "| n | pass rate | 95 % CI | errors | p50 ms | p90 ms | tokens in / out | cost / run |\n" +
    "| --: | --: | :-: | :-- | --: | --: | --: | --: |";
  const lines = [
    `## ${report.suite}: ${report.routes.join(" vs ")}, ${report.samples} sample${report.samples === 1 ? "" : "s"} per task${report.complete ? "" : " (aborted: partial)"}`,
    "",
    `| task | route ${header.replace("\n", "\n| :-- | :-- ")}`,
    ...report.cells.map((cell) => `| ${cell.task} | ${cell.route} ${row(cell)}`),
    "",
    `| route ${header.replace("\n", "\n| :-- ")}`,
    ...report.totals.map((total) => `| ${total.route} ${row(total)}`),
  ];
  if (report.comparisons.length > 0) {
    lines.push(
      "",
      "| baseline | route | tasks better | worse | tied | mean Δ pass rate | p (exact sign test) |",
      "| :-- | :-- | --: | --: | --: | --: | --: |",
      ...report.comparisons.map(
        (comparison) =>
          `| ${comparison.baseline} | ${comparison.route} | ${comparison.better} | ${comparison.worse} | ${comparison.ties} | ${signed(comparison.meanDifference)} | ${comparison.pValue.toFixed(4)} |`,
      ),
    );
  }
  return `${lines.join("\n")}\n`;
}

function row(stats: EvalStats): string {
  const errors = Object.entries(stats.errors)
    .map(([kind, count]) => `${kind} ${count}`)
    .join(", ");
  const none = stats.answered === 0;
  const cells = [
    String(stats.n),
    percent(stats.passRate),
    `${percent(stats.interval.low)} – ${percent(stats.interval.high)}`,
    errors || "–",
    none ? "–" : ms(stats.latencyMs.p50),
    none ? "–" : ms(stats.latencyMs.p90),
    none ? "–" : `${tokens(stats.tokensPerRun.input)} / ${tokens(stats.tokensPerRun.output)}`,
    none ? "–" : dollars(stats.costPerRun),
  ];
  return `| ${cells.join(" | ")} |`;
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)} %`;
}

function signed(rate: number): string {
  return `${rate > 0 ? "+" : rate < 0 ? "−" : "±"}${(Math.abs(rate) * 100).toFixed(1)} pp`;
}

function ms(value: number | undefined): string {
  return value === undefined ? "–" : String(Math.round(value));
}

function tokens(value: number | undefined): string {
  return value === undefined ? "?" : String(Math.round(value));
}

function dollars(value: number | undefined): string {
  if (value === undefined) return "?";
  return `$${value < 0.01 ? value.toFixed(6) : value.toFixed(4)}`;
}
