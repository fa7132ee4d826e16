/**
 * The CLI, spawned as a user runs it (`modelwire eval suite.ts --route … --samples …`, with Node 22 from
 * node_modules/.bin and the package's source condition), on the example suite and a route config in the
 * Worker's MODELWIRE_CONFIG format whose two routes are OpenAI-compatible servers faked on 127.0.0.1: a
 * "hosted" one (its key read from the environment variable the config names, priced by the config) that
 * answers every task right, and a "local" vLLM one that gets the capital wrong.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { EvalReport } from "modelwire/eval";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleAnswer, exampleTaskOf } from "./example-answers.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const node = join(root, "node_modules", ".bin", "node");
const cli = join(root, "bin", "modelwire.mjs");

let server: Server;
let work: string;
let config: string;
const seen: { route: string; authorization: string | undefined; model: string }[] = [];

/** One SSE chunk of a Chat Completions stream. */
const chunk = (body: Record<string, unknown>) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", ...body })}\n\n`;

async function bodyOf(request: IncomingMessage): Promise<Record<string, unknown>> {
  let text = "";
  for await (const piece of request) text += piece;
  return JSON.parse(text);
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const route = request.url!.split("/")[1]!;
    const body = await bodyOf(request);
    const model = String(body.model);
    seen.push({ route, authorization: request.headers.authorization, model });
    if (route === "hosted" && request.headers.authorization !== "Bearer sk-hosted-test") {
      response.writeHead(401, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: { message: "bad key", type: "invalid_request_error" } }));
      return;
    }
    const messages = body.messages as { role: string; content: unknown }[];
    const prompt = String(messages.find((message) => message.role === "user")!.content);
    const task = exampleTaskOf(typeof prompt === "string" ? prompt : JSON.stringify(prompt));
    response.writeHead(200, { "content-type": "text/event-stream" });
    const base = { created: 1, model };
    const usage = { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 };
    if (task === "weather-tool" && !messages.some((message) => message.role === "tool")) {
      response.write(
        chunk({
          ...base,
          choices: [
            {
              index: 0,
              delta: {
                role: "assistant",
                tool_calls: [
                  {
                    index: 0,
                    id: "call_1",
                    type: "function",
                    function: { name: "weather", arguments: '{"city":"Oslo"}' },
                  },
                ],
              },
              finish_reason: null,
            },
          ],
        }),
      );
      response.write(chunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] }));
    } else {
      const right = !(route === "local" && task === "capital");
      const text = exampleAnswer(task, right);
      response.write(
        chunk({
          ...base,
          choices: [{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }],
        }),
      );
      response.write(chunk({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }));
    }
    response.write(chunk({ ...base, choices: [], usage }));
    response.end("data: [DONE]\n\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  work = mkdtempSync(join(tmpdir(), "modelwire-eval-cli-"));
  config = join(work, "routes.json");
  writeFileSync(
    config,
    JSON.stringify({
      routes: {
        hosted: {
          protocol: "openai-chat",
          endpoint: "generic",
          baseURL: `http://127.0.0.1:${port}/hosted/v1`,
          model: "gpt-eval-test",
          apiKeySecret: "EVAL_HOSTED_KEY",
        },
        local: {
          protocol: "openai-chat",
          endpoint: "vllm",
          baseURL: `http://127.0.0.1:${port}/local/v1`,
          model: "Qwen/Qwen3-8B",
        },
      },
      prices: { "gpt-eval-test": { input: 2, output: 8 } },
    }),
  );
});

afterAll(() => {
  server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, ["--conditions=modelwire-source", cli, ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (data) => {
      stdout += data;
    });
    child.stderr.on("data", (data) => {
      stderr += data;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe("modelwire eval (the CLI)", () => {
  it("runs the example suite on two routes, prints progress, the table, and writes the JSON report", async () => {
    const out = join(work, "report.json");
    const result = await runCli(
      [
        "eval",
        "examples/eval/suite.ts",
        "--config",
        config,
        "--route",
        "hosted",
        "--route",
        "local",
        "--samples",
        "3",
        "--concurrency",
        "2",
        "--json",
        out,
      ],
      { EVAL_HOSTED_KEY: "sk-hosted-test" },
    );
    expect(result.stderr).not.toContain("Error");
    expect(result.code).toBe(0);
    // Progress on stderr: one line per run, 4 tasks × 2 routes × 3 samples.
    const progress = result.stderr.split("\n").filter((line) => /^\[\d+\/24\] /.test(line));
    expect(progress).toHaveLength(24);
    expect(progress.some((line) => /capital on local #\d: fail/.test(line))).toBe(true);
    expect(result.stderr).toContain(`report written to ${out}`);
    // The table on stdout.
    const stdout = result.stdout;
    expect(stdout).toContain("## modelwire-example: hosted vs local, 3 samples per task\n");
    expect(stdout).toMatch(
      /\| arithmetic \| hosted \| 3 \| 100\.0 % \| 43\.9 % – 100\.0 % \| – \| \d+ \| \d+ \| 50 \/ 10 \| \$0\.000180 \|\n/,
    );
    expect(stdout).toMatch(
      /\| capital \| local \| 3 \| 0\.0 % \| 0\.0 % – 56\.1 % \| – \| \d+ \| \d+ \| 50 \/ 10 \| \? \|\n/,
    );
    expect(stdout).toMatch(
      /\| weather-tool \| hosted \| 3 \| 100\.0 % \| .* \| 100 \/ 20 \| \$0\.000360 \|\n/,
    );
    expect(stdout).toMatch(/\| hosted \| 12 \| 100\.0 % \| 75\.8 % – 100\.0 % \|/);
    expect(stdout).toMatch(/\| local \| 12 \| 75\.0 % \| 46\.8 % – 91\.1 % \|/);
    expect(stdout).toContain("| hosted | local | 0 | 1 | 3 | −25.0 pp | 1.0000 |");
    // The JSON report: the same figures, every run.
    const report = JSON.parse(readFileSync(out, "utf8")) as EvalReport;
    expect(report.routes).toEqual(["hosted", "local"]);
    expect(report.runs).toHaveLength(24);
    expect(report.totals.map((total) => [total.route, total.n, total.passes])).toEqual([
      ["hosted", 12, 12],
      ["local", 12, 9],
    ]);
    const capital = report.cells.find((cell) => cell.task === "capital" && cell.route === "local")!;
    expect(capital.interval.high).toBeCloseTo(0.5615, 4);
    expect(report.runs.find((run) => run.task === "capital" && run.route === "local")!.detail).toBe(
      'expected "Canberra", got "Sydney"',
    );
    // Hosted: 3 runs × (50 × $2 + 10 × $8) / 1e6 per call, the weather task two calls a run.
    expect(report.totals[0]!.cost).toBeCloseTo(3 * 5 * 0.00018, 10);
    expect(report.totals[1]!.cost).toBeUndefined();
    expect(report.comparisons[0]).toMatchObject({
      baseline: "hosted",
      route: "local",
      better: 0,
      worse: 1,
      ties: 3,
      pValue: 1,
    });
    // Keys came from the variable the config names, and only the hosted route got one.
    expect(new Set(seen.filter((s) => s.route === "hosted").map((s) => s.authorization))).toEqual(
      new Set(["Bearer sk-hosted-test"]),
    );
    expect(seen.filter((s) => s.route === "local").every((s) => s.model === "Qwen/Qwen3-8B")).toBe(true);
  });

  it("counts a route's failed calls by kind instead of stopping (a missing key: 401 → auth)", async () => {
    const result = await runCli(
      [
        "eval",
        "examples/eval/suite.ts",
        "--config",
        config,
        "--route",
        "hosted",
        "--samples",
        "1",
        "--quiet",
      ],
      { EVAL_HOSTED_KEY: "sk-wrong" },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(
      /\| arithmetic \| hosted \| 1 \| 0\.0 % \| 0\.0 % – 79\.3 % \| auth 1 \| – \| – \| – \| – \|/,
    );
  });

  it("refuses bad usage with exit code 2, naming the problem", async () => {
    const noRoute = await runCli(["eval", "examples/eval/suite.ts", "--config", config]);
    expect([noRoute.code, noRoute.stderr]).toEqual([
      2,
      expect.stringContaining("modelwire: name at least one --route"),
    ]);
    const unknown = await runCli(["eval", "examples/eval/suite.ts", "--config", config, "--route", "nope"]);
    expect([unknown.code, unknown.stderr]).toEqual([
      2,
      expect.stringContaining(
        'no route "nope" in the config; it serves local; not served (problems): hosted',
      ),
    ]);
    const missingKey = await runCli([
      "eval",
      "examples/eval/suite.ts",
      "--config",
      config,
      "--route",
      "hosted",
    ]);
    expect([missingKey.code, missingKey.stderr]).toEqual([
      2,
      expect.stringContaining(
        "route hosted: routes.hosted.apiKeySecret: the Worker secret EVAL_HOSTED_KEY is not set",
      ),
    ]);
    const samples = await runCli([
      "eval",
      "examples/eval/suite.ts",
      "--config",
      config,
      "--route",
      "local",
      "--samples",
      "x",
    ]);
    expect([samples.code, samples.stderr]).toEqual([
      2,
      expect.stringContaining('--samples must be a whole number, got "x"'),
    ]);
  });
});
