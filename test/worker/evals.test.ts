/**
 * `POST /v1/evals` inside workerd: a suite run against the gateway's own routes (here two `openai-chat`
 * routes whose factory hands out `FakeProvider`s), the report as JSON and Markdown; a registered suite
 * with a function checker; the request bounds, and unknown routes answered as a call to them would be.
 */
import { env } from "cloudflare:workers";
import type { EvalReport } from "modelwire/eval";
import { FakeProvider, type FakeStep } from "modelwire/testing";
import { describe, expect, it } from "vitest";
import { createWorker, type WorkerEnv } from "../../src/worker/app.ts";

/** A fake route: right ("\\boxed{4}") on even samples, wrong on odd ones when `flaky`; 10 in / 2 out tokens. */
function fake(model: string, flaky: boolean): FakeProvider {
  const step: FakeStep = (call) => {
    const sample = Number(call.options.sessionId?.split(":")[2]);
    const right = !flaky || sample % 2 === 0;
    return { text: right ? "2 + 2 = \\boxed{4}" : "\\boxed{5}", usage: { inputTokens: 10, outputTokens: 2 } };
  };
  return new FakeProvider({ model, script: Array(200).fill(step) });
}

function gateway() {
  const providers: Record<string, FakeProvider> = {
    hosted: fake("hosted-model", false),
    local: fake("local-model", true),
  };
  const worker = createWorker({
    config: {
      routes: {
        hosted: {
          protocol: "openai-chat",
          model: "hosted-model",
          endpoint: "generic",
          baseURL: "http://unused.test/v1",
        },
        local: {
          protocol: "openai-chat",
          model: "local-model",
          endpoint: "generic",
          baseURL: "http://unused.test/v1",
        },
      },
      prices: { "hosted-model": { input: 1, output: 4 } },
    },
    providers: {
      factories: {
        "openai-chat": (config: { model: string }) =>
          config.model === "hosted-model" ? providers.hosted! : providers.local!,
      },
    } as never,
    evalSuites: {
      registered: {
        name: "registered",
        tasks: [
          {
            id: "sum",
            messages: [{ role: "user", content: "2 + 2?" }],
            check: ({ text }) => ({ pass: text.includes("4"), detail: "no 4" }),
          },
        ],
      },
    },
  });
  const send = (json: unknown) =>
    worker.app.fetch(
      new Request("http://worker.test/v1/evals", {
        method: "POST",
        headers: { authorization: "Bearer test-token-a", "content-type": "application/json" },
        body: JSON.stringify(json),
      }),
      env as unknown as WorkerEnv,
    );
  return { send, providers };
}

const SUITE = {
  name: "edge",
  tasks: [
    {
      id: "sum",
      messages: [{ role: "user", content: "2 + 2? Answer in \\boxed{}." }],
      check: { boxed: "4" },
    },
    {
      id: "sum-exact",
      messages: [{ role: "user", content: "2 + 2?" }],
      check: { exact: "2 + 2 = \\boxed{4}" },
    },
  ],
};

describe("POST /v1/evals", () => {
  it("runs a suite sent in the body on two routes and answers with the report and its table", async () => {
    const { send, providers } = gateway();
    const response = await send({ suite: SUITE, routes: ["hosted", "local"], samples: 4, concurrency: 3 });
    expect(response.status).toBe(200);
    const { report, markdown } = (await response.json()) as { report: EvalReport; markdown: string };
    expect(report.runs).toHaveLength(16);
    expect(report.totals.map((t) => [t.route, t.n, t.passes])).toEqual([
      ["hosted", 8, 8],
      ["local", 8, 4],
    ]);
    const local = report.cells.find((cell) => cell.route === "local" && cell.task === "sum")!;
    // 2 of 4: Wilson 95 % [0.1500, 0.8500].
    expect([
      local.passes,
      Number(local.interval.low.toFixed(4)),
      Number(local.interval.high.toFixed(4)),
    ]).toEqual([2, 0.15, 0.85]);
    // Priced by the config's prices: 10 × $1 + 2 × $4 per million.
    expect(report.totals[0]!.costPerRun).toBeCloseTo(0.000018, 12);
    expect(report.totals[1]!.costPerRun).toBeUndefined();
    expect(report.comparisons[0]).toMatchObject({
      baseline: "hosted",
      route: "local",
      worse: 2,
      better: 0,
      ties: 0,
      pValue: 0.5,
    });
    expect(markdown).toContain("| sum | local | 4 | 50.0 % | 15.0 % – 85.0 % |");
    // Every call went through the route, with the run's session id.
    expect(providers.hosted!.calls).toHaveLength(8);
    expect(providers.local!.calls.map((call) => call.options.sessionId).sort()).toEqual(
      ["sum", "sum-exact"].flatMap((task) => [0, 1, 2, 3].map((sample) => `eval:${task}:${sample}`)).sort(),
    );
  });

  it("runs a registered suite by name (function checkers stay in code)", async () => {
    const { send } = gateway();
    const response = await send({ suite: "registered", routes: ["local"], samples: 2 });
    expect(response.status).toBe(200);
    const { report } = (await response.json()) as { report: EvalReport };
    expect(report.cells.map((cell) => [cell.task, cell.n, cell.passes])).toEqual([["sum", 2, 1]]);
    expect(report.runs.find((run) => !run.pass)!.detail).toBe("no 4");
  });

  it("refuses what it cannot run, naming the field", async () => {
    const { send, providers } = gateway();
    const unknownSuite = await send({ suite: "nope", routes: ["local"] });
    expect(unknownSuite.status).toBe(400);
    expect(JSON.stringify(await unknownSuite.json())).toContain(
      'no suite \\"nope\\"; registered: registered',
    );
    const three = { ...SUITE, tasks: [...SUITE.tasks, { ...SUITE.tasks[0]!, id: "third" }] };
    const tooMany = await send({ suite: three, routes: ["hosted", "local"], samples: 34 });
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(await tooMany.json())).toContain(
      "204 runs (tasks × routes × samples) is over the 200",
    );
    const functionCheck = await send({
      suite: { ...SUITE, tasks: [{ ...SUITE.tasks[0], check: { contains: "4" } }] },
      routes: ["local"],
    });
    expect(functionCheck.status).toBe(400);
    const noRoute = await send({ suite: SUITE, routes: ["hosted", "missing"] });
    expect(noRoute.status).toBe(400);
    expect(JSON.stringify(await noRoute.json())).toContain(
      'no route \\"missing\\"; configured: hosted, local',
    );
    expect(providers.hosted!.calls).toHaveLength(0);
  });
});
