/**
 * `modelwire/eval`: run a suite of tasks on several routes, unchanged, and report distributions — pass
 * rates with Wilson intervals, latency percentiles, tokens and cost per run, and a paired comparison of the
 * routes.
 *
 * @example
 * ```ts
 * import { evalMarkdown, runEval } from "modelwire/eval";
 * const report = await runEval({ suite, routes: { hosted, local }, samples: 5 });
 * console.log(evalMarkdown(report));
 * ```
 *
 * @module
 */
export type { CheckResult, EvalAnswer, EvalChecker } from "./check-answer.ts";
export { checkAnswer } from "./check-answer.ts";
export { evalMarkdown } from "./eval-markdown.ts";
export { type JsonSchema, jsonSchemaIssues } from "./json-schema-issues.ts";
export { percentile } from "./percentile.ts";
export {
  type EvalCell,
  type EvalComparison,
  type EvalProgress,
  type EvalReport,
  type EvalRoute,
  type EvalRun,
  type EvalStats,
  type EvalSuite,
  type EvalTask,
  MAX_EVAL_RUNS,
  type RunEvalOptions,
  runEval,
} from "./run-eval.ts";
export { signTest } from "./sign-test.ts";
export { wilsonInterval, Z_95 } from "./wilson-interval.ts";
