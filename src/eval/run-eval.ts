/**
 * The eval runner: every task of a suite on every route, unchanged, `samples` times each; results as
 * distributions (pass rates with Wilson intervals, latency percentiles, tokens and cost per run) and a
 * paired comparison of the routes over the same tasks.
 *
 * @module
 */
import { type AgentTool, runAgent } from "../agent/run-agent.ts";
import type { CallOptions } from "../core/call-options.ts";
import type { MessageInput } from "../core/message.ts";
import type { Provider } from "../core/provider.ts";
import { ProviderError } from "../core/provider-error.ts";
import type { Response } from "../core/response.ts";
import { totalInputTokens, type Usage } from "../core/usage.ts";
import { costOf, type TokenPrices } from "../substrate/cost.ts";
import { checkAnswer, type EvalChecker } from "./check-answer.ts";
import { percentile } from "./percentile.ts";
import { signTest } from "./sign-test.ts";
import { wilsonInterval } from "./wilson-interval.ts";

/** One task: a conversation to answer (and tools to answer it with), and how the answer is checked. */
export interface EvalTask {
  /** Unique in its suite: 1 to 128 printable ASCII characters, no spaces. */
  id: string;
  messages: readonly MessageInput[];
  /** Tools the run may call (run by `runAgent`; a tool that throws becomes an error result, as there). */
  tools?: readonly AgentTool[];
  check: EvalChecker;
  /** Most model calls of one run (default: the suite's, else 8). A run that hits it fails as `max-steps`. */
  maxSteps?: number;
  /** Call options of this task's calls, over the suite's. */
  callOptions?: CallOptions;
}

/** A suite: named tasks, run the same way on every route. */
export interface EvalSuite {
  name: string;
  tasks: readonly EvalTask[];
  maxSteps?: number;
  /** Call options of every call (`maxTokens`, `temperature`, …). */
  callOptions?: CallOptions;
}

/**
 * A route to evaluate: a name and the provider behind it. `prices` prices its calls when the built-in
 * profiles do not know the model (a table, or a lookup by the model a response names); without either the
 * cost is unknown (`undefined`), never a guess.
 */
export interface EvalRoute {
  name: string;
  provider: Provider;
  prices?: TokenPrices | ((model: string) => TokenPrices | undefined);
}

/** One run of one task on one route. */
export interface EvalRun {
  task: string;
  route: string;
  /** 0-based sample number. */
  sample: number;
  pass: boolean;
  /**
   * Why the run failed without a verdict: a `ProviderError`'s kind (`rate_limit`, `server`, …),
   * `max-steps`, `timeout`, `aborted`, `checker` (the checker threw), or another error's name.
   */
  error?: { kind: string; message: string };
  /** The checker's reason for a failed verdict. */
  detail?: string;
  /** The final answer's text (at most 2,000 characters). */
  answer?: string;
  /** The model the last response names. */
  model?: string;
  /** Wall time of the run (every model call and tool of it), in milliseconds. */
  latencyMs: number;
  /** Model calls made. */
  steps: number;
  /** Usage of every call of the run, added up; absent when no call answered. */
  usage?: Usage;
  /** US dollars; `undefined` when a call's price is unknown or a count was not reported. */
  cost?: number | undefined;
}

/** Statistics of a set of runs (one task on one route, or a route's total). */
export interface EvalStats {
  /** Runs. */
  n: number;
  passes: number;
  passRate: number;
  /** Wilson score 95 % interval of the pass rate. */
  interval: { low: number; high: number };
  /** Failed runs without a verdict, by error kind (see {@link EvalRun.error}). */
  errors: Record<string, number>;
  /** Runs that got a response (the ones latency, tokens and cost are measured over). */
  answered: number;
  /** Nearest-rank percentiles of the answered runs' latency; `undefined` with none. */
  latencyMs: { p50: number | undefined; p90: number | undefined };
  /**
   * Mean tokens per answered run: input (uncached, cache reads and writes together) and output;
   * `undefined` when a run's provider did not report the count.
   */
  tokensPerRun: { input: number | undefined; output: number | undefined };
  /** Mean and total US dollars of the answered runs; `undefined` when any run's cost is unknown. */
  costPerRun: number | undefined;
  cost: number | undefined;
}

/** The statistics of one task on one route. */
export interface EvalCell extends EvalStats {
  task: string;
  route: string;
}

/** A paired comparison of a route with the baseline over the same tasks. */
export interface EvalComparison {
  baseline: string;
  route: string;
  method: "exact sign test (two-sided) over tasks, on per-task pass rates, ties dropped";
  /** Per task: both pass rates and `difference` = route − baseline. */
  tasks: { task: string; baseline: number; route: number; difference: number }[];
  /** Mean of the per-task differences. */
  meanDifference: number;
  /** Tasks where the route's pass rate is higher, lower, equal. */
  better: number;
  worse: number;
  ties: number;
  pValue: number;
}

/** What {@link runEval} reports; plain JSON (`JSON.stringify` keeps every field but `undefined` ones). */
export interface EvalReport {
  suite: string;
  samples: number;
  routes: string[];
  tasks: string[];
  /** False when the eval was aborted: the statistics then cover the runs that finished. */
  complete: boolean;
  /** Per task × route, tasks in suite order, routes in the order given. */
  cells: EvalCell[];
  /** Per route: all of its runs pooled. */
  totals: (EvalStats & { route: string })[];
  /** Every route after the first compared with the first (the baseline). */
  comparisons: EvalComparison[];
  /** Every run, in the order they were scheduled. */
  runs: EvalRun[];
}

/** Progress: after each run. */
export interface EvalProgress {
  done: number;
  total: number;
  run: EvalRun;
}

/** Settings of {@link runEval}. */
export interface RunEvalOptions {
  suite: EvalSuite;
  /** The routes, in order (the first is the baseline of the comparisons), or providers by route name. */
  routes: readonly EvalRoute[] | Readonly<Record<string, Provider>>;
  /** Runs of every task on every route (1 to 10,000; default 1). */
  samples?: number;
  /** Runs in flight at once (1 to 256; default 4). */
  concurrency?: number;
  onProgress?: (progress: EvalProgress) => void;
  /** Stops starting runs and aborts those in flight; the report then has `complete: false`. */
  signal?: AbortSignal;
  /** A run taking longer is aborted and fails with the error kind `timeout`. */
  timeoutMs?: number;
  /** The clock latency is measured with (default `performance.now`). */
  now?: () => number;
}

/** Most runs of one eval (tasks × routes × samples): every run is kept in the report. */
export const MAX_EVAL_RUNS = 100_000;

const TASK_ID = /^[\x21-\x7e]{1,128}$/;
const ANSWER_CHARS = 2000;
const METHOD = "exact sign test (two-sided) over tasks, on per-task pass rates, ties dropped" as const;

/**
 * Runs every task of `suite` on every route `samples` times, at most `concurrency` runs at once (each run
 * is `runAgent` on the task's messages and tools, then the task's checker on the final answer). A run
 * that fails — a provider error, a timeout, too many steps, a checker that throws — counts as a failure
 * with its error kind; it never ends the eval. Every run's call options carry the session id
 * `eval:<task>:<sample>` (a pool pins one member per run).
 *
 * The paired comparison: every route after the first against the first, over the same tasks — per task
 * the difference of pass rates, and the exact two-sided sign test on the tasks where they differ (the
 * task is the unit: samples of one task are not independent evidence).
 *
 * Throws a `TypeError` naming the field for a bad suite or option, before any call.
 *
 * @example
 * ```ts
 * const report = await runEval({ suite, routes: { claude, local }, samples: 5, concurrency: 4 });
 * report.totals[0].passRate;           // e.g. 0.9
 * report.comparisons[0].pValue;        // claude vs local
 * console.log(evalMarkdown(report));
 * ```
 */
export async function runEval(options: RunEvalOptions): Promise<EvalReport> {
  const { suite } = options;
  const routes = routesOf(options.routes);
  checkSuite(suite);
  const samples = wholeNumber(options.samples ?? 1, "samples", 1, 10_000);
  const concurrency = wholeNumber(options.concurrency ?? 4, "concurrency", 1, 256);
  if (options.timeoutMs !== undefined) wholeNumber(options.timeoutMs, "timeoutMs", 1, 2 ** 31 - 1);
  const total = suite.tasks.length * routes.length * samples;
  if (total > MAX_EVAL_RUNS)
    throw new TypeError(`runEval: ${total} runs (tasks × routes × samples) is over ${MAX_EVAL_RUNS}`);
  const now = options.now ?? (() => performance.now());

  // Sample by sample, so early progress (and an aborted eval) covers every task and route.
  const jobs: { task: EvalTask; route: EvalRoute; sample: number }[] = [];
  for (let sample = 0; sample < samples; sample++)
    for (const task of suite.tasks) for (const route of routes) jobs.push({ task, route, sample });
  const runs: (EvalRun | undefined)[] = new Array(jobs.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < jobs.length && !options.signal?.aborted) {
      const index = next++;
      const job = jobs[index]!;
      const run = await runOne(suite, job.task, job.route, job.sample, options, now);
      if (options.signal?.aborted && run.error?.kind === "aborted") continue;
      runs[index] = run;
      done++;
      options.onProgress?.({ done, total, run });
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  const finished = runs.filter((run): run is EvalRun => run !== undefined);

  const cells: EvalCell[] = [];
  for (const task of suite.tasks)
    for (const route of routes)
      cells.push({
        task: task.id,
        route: route.name,
        ...statsOf(finished.filter((run) => run.task === task.id && run.route === route.name)),
      });
  const totals = routes.map((route) => ({
    route: route.name,
    ...statsOf(finished.filter((run) => run.route === route.name)),
  }));
  const comparisons = routes.slice(1).map((route) => compare(cells, suite, routes[0]!.name, route.name));
  return {
    suite: suite.name,
    samples,
    routes: routes.map((route) => route.name),
    tasks: suite.tasks.map((task) => task.id),
    complete: finished.length === jobs.length,
    cells,
    totals,
    comparisons,
    runs: finished,
  };
}

async function runOne(
  suite: EvalSuite,
  task: EvalTask,
  route: EvalRoute,
  sample: number,
  options: RunEvalOptions,
  now: () => number,
): Promise<EvalRun> {
  const base = { task: task.id, route: route.name, sample };
  const timeout = options.timeoutMs === undefined ? undefined : AbortSignal.timeout(options.timeoutMs);
  const signals = [options.signal, timeout].filter((signal): signal is AbortSignal => signal !== undefined);
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  const callOptions: CallOptions = {
    ...suite.callOptions,
    ...task.callOptions,
    sessionId: `eval:${task.id}:${sample}`,
  };
  const responses: Response[] = [];
  const started = now();
  let latencyMs = 0;
  try {
    const result = await runAgent({
      provider: route.provider,
      messages: task.messages,
      tools: task.tools ?? [],
      maxSteps: task.maxSteps ?? suite.maxSteps ?? 8,
      callOptions,
      ...(signal ? { signal } : {}),
      onEvent: (event) => {
        if (event.type === "model-response") responses.push(event.response);
      },
    });
    latencyMs = now() - started;
    const measured = measuredOf(responses, route);
    const response = result.response;
    if (result.status === "aborted") return failed(base, latencyMs, measured, abortKind(timeout), "aborted");
    if (result.status === "max-steps")
      return failed(base, latencyMs, measured, "max-steps", `no final answer in ${result.steps} model calls`);
    if (result.status !== "done" || response === undefined)
      return failed(base, latencyMs, measured, "error", `the run ended ${result.status}`);
    const text = response.message.content;
    let verdict: { pass: boolean; detail?: string | undefined };
    try {
      verdict = await checkAnswer(task.check, {
        text,
        response,
        messages: result.messages,
        task: task.id,
        route: route.name,
      });
    } catch (error) {
      return { ...failed(base, latencyMs, measured, "checker", messageOf(error)), answer: clip(text) };
    }
    const run: EvalRun = {
      ...base,
      pass: verdict.pass,
      answer: clip(text),
      model: response.model,
      latencyMs,
      ...measured,
    };
    if (!verdict.pass && verdict.detail !== undefined) run.detail = verdict.detail;
    return run;
  } catch (error) {
    latencyMs = now() - started;
    const measured = measuredOf(responses, route);
    const kind = ProviderError.is(error)
      ? error.kind === "aborted"
        ? abortKind(timeout)
        : error.kind
      : error instanceof Error
        ? error.name
        : "error";
    return failed(base, latencyMs, measured, kind, messageOf(error));
  }
}

function failed(
  base: { task: string; route: string; sample: number },
  latencyMs: number,
  measured: { steps: number; usage?: Usage; cost?: number | undefined },
  kind: string,
  message: string,
): EvalRun {
  return { ...base, pass: false, error: { kind, message }, latencyMs, ...measured };
}

function abortKind(timeout: AbortSignal | undefined): string {
  return timeout?.aborted ? "timeout" : "aborted";
}

/** Usage and cost of the calls that answered; cost per call (each priced by the model it names). */
function measuredOf(
  responses: readonly Response[],
  route: EvalRoute,
): { steps: number; usage?: Usage; cost?: number | undefined } {
  if (responses.length === 0) return { steps: 0 };
  const usage: Usage = {};
  let cost: number | undefined = 0;
  for (const response of responses) {
    for (const [key, value] of Object.entries(response.usage) as [keyof Usage, number | undefined][])
      if (value !== undefined) usage[key] = (usage[key] ?? 0) + value;
    const prices = typeof route.prices === "function" ? route.prices(response.model) : route.prices;
    const one = costOf(response.usage, prices ?? response.model);
    cost = cost === undefined || one === undefined ? undefined : cost + one;
  }
  // A count one call reported and another did not is not known for the run.
  for (const key of Object.keys(usage) as (keyof Usage)[])
    if (responses.some((response) => response.usage[key] === undefined)) delete usage[key];
  return { steps: responses.length, usage, cost };
}

function statsOf(runs: readonly EvalRun[]): EvalStats {
  const n = runs.length;
  const passes = runs.filter((run) => run.pass).length;
  const errors: Record<string, number> = {};
  for (const run of runs) if (run.error) errors[run.error.kind] = (errors[run.error.kind] ?? 0) + 1;
  const answered = runs.filter((run) => run.usage !== undefined);
  const latencies = answered.map((run) => run.latencyMs);
  const mean = (values: readonly (number | undefined)[]): number | undefined =>
    values.length === 0 || values.some((value) => value === undefined)
      ? undefined
      : (values as number[]).reduce((sum, value) => sum + value, 0) / values.length;
  const costs = answered.map((run) => run.cost);
  const costPerRun = mean(costs);
  return {
    n,
    passes,
    passRate: n === 0 ? 0 : passes / n,
    interval: wilsonInterval(passes, n),
    errors,
    answered: answered.length,
    latencyMs: { p50: percentile(latencies, 0.5), p90: percentile(latencies, 0.9) },
    tokensPerRun: {
      input: mean(answered.map((run) => totalInputTokens(run.usage!))),
      output: mean(answered.map((run) => run.usage!.outputTokens)),
    },
    costPerRun,
    cost: costPerRun === undefined ? undefined : costPerRun * answered.length,
  };
}

function compare(
  cells: readonly EvalCell[],
  suite: EvalSuite,
  baseline: string,
  route: string,
): EvalComparison {
  const rateOf = (task: string, name: string) =>
    cells.find((cell) => cell.task === task && cell.route === name)?.passRate ?? 0;
  const tasks = suite.tasks.map((task) => {
    const a = rateOf(task.id, baseline);
    const b = rateOf(task.id, route);
    return { task: task.id, baseline: a, route: b, difference: b - a };
  });
  const better = tasks.filter((task) => task.difference > 0).length;
  const worse = tasks.filter((task) => task.difference < 0).length;
  return {
    baseline,
    route,
    method: METHOD,
    tasks,
    meanDifference:
      tasks.length === 0 ? 0 : tasks.reduce((sum, task) => sum + task.difference, 0) / tasks.length,
    better,
    worse,
    ties: tasks.length - better - worse,
    pValue: signTest(better, worse),
  };
}

function routesOf(routes: RunEvalOptions["routes"]): EvalRoute[] {
  const list: EvalRoute[] = Array.isArray(routes)
    ? [...(routes as readonly EvalRoute[])]
    : typeof routes === "object" && routes !== null
      ? Object.entries(routes as Record<string, Provider>).map(([name, provider]) => ({ name, provider }))
      : [];
  if (list.length === 0) throw new TypeError("runEval: routes must name at least one route");
  const seen = new Set<string>();
  list.forEach((route, index) => {
    if (typeof route?.name !== "string" || route.name === "")
      throw new TypeError(`runEval: routes[${index}].name must be a non-empty string`);
    if (seen.has(route.name))
      throw new TypeError(`runEval: routes[${index}].name "${route.name}" is listed twice`);
    seen.add(route.name);
    const provider = route.provider as Partial<Provider> | undefined;
    if (typeof provider?.stream !== "function")
      throw new TypeError(`runEval: routes[${index}].provider (${route.name}) is not a provider`);
  });
  return list;
}

function checkSuite(suite: EvalSuite): void {
  if (typeof suite !== "object" || suite === null) throw new TypeError("runEval: suite must be an object");
  if (typeof suite.name !== "string" || suite.name === "")
    throw new TypeError("runEval: suite.name must be a non-empty string");
  if (!Array.isArray(suite.tasks) || suite.tasks.length === 0)
    throw new TypeError("runEval: suite.tasks must be a non-empty array");
  const seen = new Set<string>();
  suite.tasks.forEach((task: EvalTask, index: number) => {
    const at = `suite.tasks[${index}]`;
    if (typeof task?.id !== "string" || !TASK_ID.test(task.id))
      throw new TypeError(`runEval: ${at}.id must be 1 to 128 printable ASCII characters without spaces`);
    if (seen.has(task.id)) throw new TypeError(`runEval: ${at}.id "${task.id}" is used twice`);
    seen.add(task.id);
    if (!Array.isArray(task.messages) || task.messages.length === 0)
      throw new TypeError(`runEval: ${at}.messages (${task.id}) must be a non-empty array`);
    if (typeof task.check !== "function" && (typeof task.check !== "object" || task.check === null))
      throw new TypeError(`runEval: ${at}.check (${task.id}) must be a checker`);
    if (task.maxSteps !== undefined) wholeNumber(task.maxSteps, `${at}.maxSteps`, 1, 1000);
  });
  if (suite.maxSteps !== undefined) wholeNumber(suite.maxSteps, "suite.maxSteps", 1, 1000);
}

function wholeNumber(value: number, name: string, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new TypeError(`runEval: ${name} must be a whole number from ${min} to ${max}, got ${value}`);
  return value;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function clip(text: string): string {
  return text.length > ANSWER_CHARS ? `${text.slice(0, ANSWER_CHARS)}…` : text;
}
