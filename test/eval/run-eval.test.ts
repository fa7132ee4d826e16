/**
 * `runEval` on `FakeProvider` routes with scripted, seeded randomness: every run's outcome is drawn from a
 * PRNG seeded by the route and the run's session id (`eval:<task>:<sample>`), so the expected pass counts,
 * Wilson intervals, latency percentiles, costs and the sign test are computed here, independently, from
 * the formulas — and they hold whatever order the concurrent runs finish in.
 */
import { type EvalReport, type EvalRoute, evalMarkdown, runEval } from "modelwire/eval";
import { FakeProvider, type FakeStep } from "modelwire/testing";
import { describe, expect, it } from "vitest";
import suite from "../../examples/eval/suite.ts";
import { ProviderError } from "../../src/core/provider-error.ts";
import { seededRandom } from "../bench/prng.ts";
import { exampleAnswer, exampleTaskOf, fnv1a } from "./example-answers.ts";

const SAMPLES = 20;
const Z = 1.959963984540054;

/** The Wilson score interval, written out from its formula (not the library's code). */
function wilson(k: number, n: number): [number, number] {
  const p = k / n;
  const center = (p + (Z * Z) / (2 * n)) / (1 + (Z * Z) / n);
  const half = (Z / (1 + (Z * Z) / n)) * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n));
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

/** Whether run `sample` of `task` on `route` is answered right: the same draw the fake makes. */
function drawsRight(route: string, task: string, sample: number, p: number): boolean {
  return seededRandom(fnv1a(`${route}|eval:${task}:${sample}`)).next() < p;
}

interface Clock {
  t: number;
}

/**
 * A route whose runs are right with probability `p`; every call takes `latency(sample)` ms of a fake
 * clock and reports 100 input / 20 output tokens.
 */
function fakeRoute(name: string, p: number, clock: Clock, prices?: EvalRoute["prices"]): EvalRoute {
  const step: FakeStep = (call) => {
    const sessionId = call.options.sessionId!;
    const [, task, sample] = sessionId.split(":");
    clock.t += 10 * (Number(sample) + 1);
    const usage = { inputTokens: 100, outputTokens: 20 };
    const first = call.messages.find((message) => message.role === "user")!;
    const kind = exampleTaskOf(String(first.content));
    if (kind === "weather-tool" && !call.messages.some((message) => message.role === "tool"))
      return { toolCalls: [{ id: `call_${sample}`, name: "weather", arguments: { city: "Oslo" } }], usage };
    const right = seededRandom(fnv1a(`${name}|${sessionId}`)).next() < p;
    expect(task).toBe(kind);
    return { text: exampleAnswer(kind, right), usage };
  };
  const provider = new FakeProvider({ model: `${name}-model`, script: Array(1000).fill(step) });
  return prices === undefined ? { name, provider } : { name, provider, prices };
}

async function evalOf(concurrency: number, clock: Clock = { t: 0 }): Promise<EvalReport> {
  return runEval({
    suite,
    routes: [fakeRoute("hosted", 0.85, clock, { input: 3, output: 15 }), fakeRoute("local", 0.55, clock)],
    samples: SAMPLES,
    concurrency,
    now: () => clock.t,
  });
}

describe("runEval on FakeProvider with seeded randomness", () => {
  it("gives each task × route the pass rate and Wilson interval the draws and the formula give", async () => {
    const report = await evalOf(4);
    expect(report.routes).toEqual(["hosted", "local"]);
    expect(report.tasks).toEqual(["arithmetic", "capital", "json-person", "weather-tool"]);
    expect(report.cells).toHaveLength(8);
    expect(report.runs).toHaveLength(4 * 2 * SAMPLES);
    expect(report.complete).toBe(true);
    for (const cell of report.cells) {
      const p = cell.route === "hosted" ? 0.85 : 0.55;
      let passes = 0;
      for (let sample = 0; sample < SAMPLES; sample++)
        if (drawsRight(cell.route, cell.task, sample, p)) passes++;
      const [low, high] = wilson(passes, SAMPLES);
      expect([cell.task, cell.route, cell.n, cell.passes]).toEqual([cell.task, cell.route, SAMPLES, passes]);
      expect(cell.passRate).toBeCloseTo(passes / SAMPLES, 4);
      expect(cell.interval.low).toBeCloseTo(low, 4);
      expect(cell.interval.high).toBeCloseTo(high, 4);
      expect(cell.errors).toEqual({});
    }
    // The pooled totals: 80 runs per route.
    for (const total of report.totals) {
      const p = total.route === "hosted" ? 0.85 : 0.55;
      let passes = 0;
      for (const task of report.tasks)
        for (let sample = 0; sample < SAMPLES; sample++)
          if (drawsRight(total.route, task, sample, p)) passes++;
      const [low, high] = wilson(passes, 4 * SAMPLES);
      expect([total.n, total.passes]).toEqual([80, passes]);
      expect(total.interval.low).toBeCloseTo(low, 4);
      expect(total.interval.high).toBeCloseTo(high, 4);
    }
    // The seeds give these counts (a regression guard on the draws themselves).
    expect(report.totals.map((total) => total.passes)).toEqual(
      report.totals.map((total) =>
        report.cells.filter((c) => c.route === total.route).reduce((s, c) => s + c.passes, 0),
      ),
    );
  });

  it("pins the figures of this seed to 4 decimals", async () => {
    const report = await evalOf(4);
    const figures = report.cells.map((cell) => [
      cell.task,
      cell.route,
      cell.passes,
      Number(cell.interval.low.toFixed(4)),
      Number(cell.interval.high.toFixed(4)),
    ]);
    expect(figures).toEqual(PINNED);
    // hosted 69 of 80, local 44 of 80.
    expect(
      report.totals.map((t) => [
        t.passes,
        Number(t.interval.low.toFixed(4)),
        Number(t.interval.high.toFixed(4)),
      ]),
    ).toEqual([
      [69, 0.7703, 0.9215],
      [44, 0.4412, 0.6542],
    ]);
    // Local is worse on all 4 tasks (−30, −55, −30, −10 points): p = 2 × ½⁴ = 0.125.
    const comparison = report.comparisons[0]!;
    expect(comparison.tasks.map((t) => Number(t.difference.toFixed(4)))).toEqual([-0.3, -0.55, -0.3, -0.1]);
    expect([comparison.better, comparison.worse, comparison.ties, comparison.pValue]).toEqual([
      0, 4, 0, 0.125,
    ]);
    expect(comparison.meanDifference).toBeCloseTo(-0.3125, 10);
  });

  it("compares the routes with the exact sign test over the per-task pass rates", async () => {
    const report = await evalOf(3);
    expect(report.comparisons).toHaveLength(1);
    const comparison = report.comparisons[0]!;
    expect([comparison.baseline, comparison.route]).toEqual(["hosted", "local"]);
    const rate = (route: string, task: string) =>
      report.cells.find((c) => c.route === route && c.task === task)!.passRate;
    const differences = report.tasks.map((task) => rate("local", task) - rate("hosted", task));
    expect(comparison.tasks.map((task) => task.difference)).toEqual(differences);
    const better = differences.filter((d) => d > 0).length;
    const worse = differences.filter((d) => d < 0).length;
    expect([comparison.better, comparison.worse, comparison.ties]).toEqual([
      better,
      worse,
      4 - better - worse,
    ]);
    expect(comparison.meanDifference).toBeCloseTo(differences.reduce((s, d) => s + d, 0) / 4, 10);
    // Two-sided exact binomial tail, from the definition.
    const m = better + worse;
    const k = Math.min(better, worse);
    let tail = 0;
    for (let i = 0; i <= k; i++) tail += choose(m, i) / 2 ** m;
    expect(comparison.pValue).toBeCloseTo(Math.min(1, 2 * tail), 10);
    expect(comparison.method).toContain("sign test");
  });

  it("gives the same statistics whatever the concurrency", async () => {
    const strip = (report: EvalReport) => report.cells.map(({ latencyMs: _l, ...cell }) => cell);
    expect(strip(await evalOf(1))).toEqual(strip(await evalOf(16)));
  });

  it("measures latency percentiles, tokens and cost per run; an unknown price stays unknown", async () => {
    // Concurrency 1: every clock tick belongs to the run in flight.
    const report = await evalOf(1);
    const hosted = report.cells.find((c) => c.task === "arithmetic" && c.route === "hosted")!;
    // Runs take 10, 20, …, 200 ms: nearest rank p50 = the 10th = 100, p90 = the 18th = 180.
    expect(hosted.latencyMs).toEqual({ p50: 100, p90: 180 });
    expect(hosted.tokensPerRun).toEqual({ input: 100, output: 20 });
    // 100 × $3 + 20 × $15 per million.
    expect(hosted.costPerRun).toBeCloseTo(0.0006, 10);
    expect(hosted.cost).toBeCloseTo(0.012, 10);
    const tool = report.cells.find((c) => c.task === "weather-tool" && c.route === "hosted")!;
    // Two model calls a run, each ticking the clock.
    expect(tool.latencyMs).toEqual({ p50: 200, p90: 360 });
    expect(tool.tokensPerRun).toEqual({ input: 200, output: 40 });
    expect(tool.costPerRun).toBeCloseTo(0.0012, 10);
    expect(report.runs.find((run) => run.task === "weather-tool")!.steps).toBe(2);
    const local = report.cells.find((c) => c.route === "local")!;
    expect(local.tokensPerRun).toEqual({ input: 100, output: 20 });
    expect(local.costPerRun).toBeUndefined();
    expect(local.cost).toBeUndefined();
    expect(report.totals[0]!.cost).toBeCloseTo(SAMPLES * (0.0006 * 3 + 0.0012), 10);
  });

  it("writes the Markdown table with every cell's figures", async () => {
    const report = await evalOf(4);
    const markdown = evalMarkdown(report);
    expect(markdown).toContain("## modelwire-example: hosted vs local, 20 samples per task\n");
    expect(markdown).toContain(
      "| task | route | n | pass rate | 95 % CI | errors | p50 ms | p90 ms | tokens in / out | cost / run |",
    );
    for (const cell of report.cells) {
      const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
      expect(markdown).toContain(
        `| ${cell.task} | ${cell.route} | 20 | ${pct(cell.passRate)} | ${pct(cell.interval.low)} – ${pct(cell.interval.high)} | – |`,
      );
    }
    expect(markdown).toMatch(/\| arithmetic \| hosted \| .* \| 100 \/ 20 \| \$0\.000600 \|\n/);
    expect(markdown).toMatch(/\| arithmetic \| local \| .* \| 100 \/ 20 \| \? \|\n/);
    const c = report.comparisons[0]!;
    expect(markdown).toContain(`| hosted | local | ${c.better} | ${c.worse} | ${c.ties} |`);
  });
});

describe("runEval: failures are counted, never thrown", () => {
  const task = (id: string, check: (typeof suite.tasks)[number]["check"], maxSteps?: number) => ({
    id,
    messages: [{ role: "user" as const, content: id }],
    check,
    ...(maxSteps ? { maxSteps } : {}),
  });

  it("counts provider errors by kind, a throwing checker, too many steps and a timeout", async () => {
    const rateLimited = new ProviderError({
      kind: "rate_limit",
      message: "slow down",
      provider: "fake",
      model: "m",
    });
    const step: FakeStep = (call) => {
      const [, id, sample] = call.options.sessionId!.split(":");
      if (id === "flaky" && sample === "0") return { error: rateLimited };
      if (id === "flaky" && sample === "1") return { error: new TypeError("socket hang up") };
      if (id === "loops")
        return { toolCalls: [{ id: `c${call.messages.length}`, name: "nothing", arguments: {} }] };
      if (id === "slow") return { text: "late", delayMs: 5_000 };
      return { text: "ok", usage: { inputTokens: 1, outputTokens: 1 } };
    };
    const report = await runEval({
      suite: {
        name: "failures",
        tasks: [
          task("flaky", { exact: "ok" }),
          task("checker-throws", () => {
            throw new Error("bad checker");
          }),
          task("loops", { exact: "ok" }, 2),
          task("slow", { exact: "late" }),
        ],
      },
      routes: { fake: new FakeProvider({ script: Array(100).fill(step) }) },
      samples: 3,
      concurrency: 4,
      timeoutMs: 50,
    });
    const cell = (id: string) => report.cells.find((c) => c.task === id)!;
    expect([cell("flaky").passes, cell("flaky").errors]).toEqual([1, { rate_limit: 1, TypeError: 1 }]);
    expect(cell("checker-throws").errors).toEqual({ checker: 3 });
    expect(report.runs.find((run) => run.task === "checker-throws")!.error!.message).toBe("bad checker");
    expect(cell("loops").errors).toEqual({ "max-steps": 3 });
    expect(cell("slow").errors).toEqual({ timeout: 3 });
    expect(report.totals[0]!.errors).toEqual({
      rate_limit: 1,
      TypeError: 1,
      checker: 3,
      "max-steps": 3,
      timeout: 3,
    });
    expect([report.totals[0]!.n, report.totals[0]!.passes]).toEqual([12, 1]);
    // The failed runs without a response are not in the answered count, latency, tokens or cost.
    expect(cell("flaky").answered).toBe(1);
    expect(evalMarkdown(report)).toContain("| flaky | fake | 3 | 33.3 % |");
    expect(evalMarkdown(report)).toContain("rate_limit 1, TypeError 1");
  });

  it("records a failed verdict's reason", async () => {
    const report = await runEval({
      suite: {
        name: "detail",
        tasks: [task("boxed", { boxed: "4" }), task("json", { jsonSchema: { type: "object" } })],
      },
      routes: { fake: new FakeProvider({ script: [{ text: "\\boxed{5}" }, { text: "[1]" }] }) },
      concurrency: 1,
    });
    expect(report.runs.map((run) => [run.task, run.pass, run.detail])).toEqual([
      ["boxed", false, 'boxed "5", expected "4"'],
      ["json", false, "$: expected object, got array"],
    ]);
  });

  it("stops at an abort and reports the finished runs as partial", async () => {
    const controller = new AbortController();
    const report = await runEval({
      suite: { name: "abort", tasks: [task("a", { exact: "ok" })] },
      routes: { fake: new FakeProvider({ script: Array(10).fill({ text: "ok" }) }) },
      samples: 10,
      concurrency: 1,
      signal: controller.signal,
      onProgress: ({ done }) => {
        if (done === 3) controller.abort();
      },
    });
    expect([report.complete, report.runs.length, report.cells[0]!.n, report.cells[0]!.passes]).toEqual([
      false,
      3,
      3,
      3,
    ]);
    expect(evalMarkdown(report)).toContain("(aborted: partial)");
  });

  it("reports progress after every run", async () => {
    const seen: string[] = [];
    await runEval({
      suite: { name: "progress", tasks: [task("a", { exact: "ok" }), task("b", { exact: "no" })] },
      routes: { fake: new FakeProvider({ script: Array(4).fill({ text: "ok" }) }) },
      samples: 2,
      concurrency: 1,
      onProgress: ({ done, total, run }) =>
        seen.push(`${done}/${total} ${run.task}#${run.sample} ${run.pass}`),
    });
    expect(seen).toEqual(["1/4 a#0 true", "2/4 b#0 false", "3/4 a#1 true", "4/4 b#1 false"]);
  });

  it("refuses a bad suite or option naming the field, before any call", async () => {
    const fake = new FakeProvider();
    const base = { suite: { name: "s", tasks: [task("a", { exact: "x" })] }, routes: { fake } };
    await expect(runEval({ ...base, samples: 0 })).rejects.toThrow(
      "samples must be a whole number from 1 to 10000, got 0",
    );
    await expect(runEval({ ...base, concurrency: 1.5 })).rejects.toThrow(
      "concurrency must be a whole number",
    );
    await expect(runEval({ ...base, routes: {} })).rejects.toThrow("routes must name at least one route");
    await expect(
      runEval({
        ...base,
        suite: { name: "s", tasks: [task("a", { exact: "x" }), task("a", { exact: "y" })] },
      }),
    ).rejects.toThrow('suite.tasks[1].id "a" is used twice');
    await expect(
      runEval({ ...base, suite: { name: "s", tasks: [task("has space", { exact: "x" })] } }),
    ).rejects.toThrow("suite.tasks[0].id must be 1 to 128 printable ASCII characters");
    expect(fake.calls).toHaveLength(0);
  });
});

function choose(n: number, k: number): number {
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return result;
}

/**
 * task, route, passes of 20, Wilson low and high: what the seeds give for hosted p = 0.85 and local
 * p = 0.55 (the intervals checked against the formula computed apart, in Python, for k of 20).
 */
const PINNED: unknown[] = [
  ["arithmetic", "hosted", 18, 0.699, 0.9721],
  ["arithmetic", "local", 12, 0.3866, 0.7812],
  ["capital", "hosted", 19, 0.7639, 0.9911],
  ["capital", "local", 8, 0.2188, 0.6134],
  ["json-person", "hosted", 18, 0.699, 0.9721],
  ["json-person", "local", 12, 0.3866, 0.7812],
  ["weather-tool", "hosted", 14, 0.481, 0.8545],
  ["weather-tool", "local", 12, 0.3866, 0.7812],
];
