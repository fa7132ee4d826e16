/**
 * A task whose route config names an MCP server (`mcp: [{ url, tokenSecret }]`), in the TaskObject Durable
 * Object, against a fake MCP server on the fetch layer (`createWorker({ providers: { fetch } })`): the
 * server's tools are offered to the model beside the workflow's, the token read from the Worker secret is
 * sent as a Bearer token, each step's session is ended, and a failing server's error never shows the token.
 */
import { describe, expect, it } from "vitest";
import type { Workflow } from "../../src/agent/workflow.ts";
import { createWorker } from "../../src/worker/app.ts";
import { buildRoutes } from "../../src/worker/config.ts";
import type { TaskRuntime, TaskState } from "../../src/worker/task-object.ts";
import { type FakeMcpServer, fakeMcpServer } from "../helpers/fake-mcp-server.ts";
import { api, gatewayEnv, holdAlarms, runAlarm, stubOf, useRuntime } from "./helpers.ts";

const MCP_TOKEN = "mcp-token-4b7e1f9a2c6d8e03";
const MCP_URL = "https://mcp.tools.test/mcp";
const env = { ...gatewayEnv, MCP_TOKEN };
const CONFIG = {
  routes: {
    "demo-mcp": { demo: true, mcp: [{ url: MCP_URL, tokenSecret: "MCP_TOKEN" }] },
  },
};

/** The runtime a `createWorker` gateway gives its task objects, built for `env`. */
function runtimeOf(server: FakeMcpServer, workflow: Workflow): TaskRuntime {
  const worker = createWorker({
    config: CONFIG,
    workflows: { demo: workflow },
    providers: { fetch: server.fetch },
  });
  const prototype = worker.TaskObject.prototype as unknown as {
    runtime(this: { env: unknown }): TaskRuntime;
  };
  return prototype.runtime.call({ env });
}

async function startTask(id: string, server: FakeMcpServer, workflow: Workflow): Promise<void> {
  await useRuntime(id, runtimeOf(server, workflow));
  await holdAlarms(stubOf(id));
  const started = await api("/v1/tasks", { json: { workflow: "demo", input: "look it up", id } });
  expect(started.status).toBe(201);
}

async function task(id: string): Promise<TaskState> {
  const response = await api(`/v1/tasks/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as TaskState;
}

describe("tasks with the route's MCP servers", () => {
  it("offers the MCP server's tools, runs the model's call on the server with the secret as Bearer token, ends the session", async () => {
    const server = fakeMcpServer({
      tools: [
        {
          name: "lookup",
          description: "Looks a thing up",
          inputSchema: { type: "object", properties: { text: { type: "string" } } },
          call: (args) => ({ result: { content: [{ type: "text", text: `found: ${String(args.text)}` }] } }),
        },
      ],
    });
    const id = "task-mcp-tools";
    await startTask(id, server, { route: "demo-mcp", system: "Use the tools." });
    // Step 1: the demo model calls the first tool it is offered (the MCP server's) and the call runs.
    expect(await runAlarm(stubOf(id))).toBe(true);
    expect(await runAlarm(stubOf(id))).toBe(true);
    const state = await task(id);
    expect(state.status).toBe("done");
    const history = state.history as { role: string; content?: unknown; toolResults?: unknown[] }[];
    expect(history.map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(history[3]!.toolResults).toMatchObject([
      { name: "lookup", content: "found: look it up", isError: false },
    ]);
    expect(history[4]!.content).toBe("Done. The tool said: found: look it up");

    for (const request of server.requests) expect(request.headers.authorization).toBe(`Bearer ${MCP_TOKEN}`);
    const calls = server.requests.filter((request) => request.rpc === "tools/call");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toMatchObject({ params: { name: "lookup", arguments: { text: "look it up" } } });
    // One session per step, each ended with a DELETE.
    expect(server.requests.filter((request) => request.rpc === "initialize")).toHaveLength(2);
    expect(server.requests.filter((request) => request.method === "DELETE")).toHaveLength(2);
    expect(server.sessions.size).toBe(0);
  });

  it("a workflow tool keeps its name: an MCP tool of the same name does not shadow it", async () => {
    const server = fakeMcpServer({
      tools: [
        { name: "lookup", call: () => ({ result: { content: [{ type: "text", text: "from mcp" }] } }) },
      ],
    });
    const id = "task-mcp-names";
    const own = { name: "lookup", execute: () => "from the workflow" };
    await startTask(id, server, { route: "demo-mcp", tools: [own] });
    expect(await runAlarm(stubOf(id))).toBe(true);
    const history = (await task(id)).history as { role: string; toolResults?: unknown[] }[];
    // The demo model calls the first tool: the workflow's own.
    expect(history.at(-1)!.toolResults).toMatchObject([{ name: "lookup", content: "from the workflow" }]);
    expect(server.requests.filter((request) => request.rpc === "tools/call")).toHaveLength(0);
  });

  it("a server that refuses the token fails the task with an auth error naming the server, never the token", async () => {
    const server = fakeMcpServer({
      tools: [],
      intercept: (request) =>
        Response.json(
          {
            jsonrpc: "2.0",
            error: { code: -32000, message: `token ${request.headers.authorization} revoked` },
            id: null,
          },
          { status: 401 },
        ),
    });
    const id = "task-mcp-refused";
    await startTask(id, server, { route: "demo-mcp" });
    expect(await runAlarm(stubOf(id))).toBe(true);
    const state = await task(id);
    expect(state.status).toBe("failed");
    expect(state.error).toMatchObject({ kind: "auth", provider: "mcp", status: 401 });
    const text = JSON.stringify(state);
    expect(text).toContain(`MCP server \\"${MCP_URL}\\" (initialize): HTTP 401`);
    expect(text).not.toContain(MCP_TOKEN);
  });

  it("the config: mcp servers are checked, and a tokenSecret that is not set keeps the route from being served", () => {
    const table = buildRoutes(
      {
        routes: {
          ok: {
            demo: true,
            mcp: [{ url: MCP_URL, tokenSecret: "MCP_TOKEN" }, { url: "http://open.test/mcp" }],
          },
          missing: { demo: true, mcp: [{ url: MCP_URL, tokenSecret: "NOT_SET" }] },
          bad: { demo: true, mcp: [{ url: "ftp://x", token: MCP_TOKEN }] },
        },
      },
      env,
    );
    expect(table.routes.get("ok")!.mcp).toEqual([
      { url: MCP_URL, headers: { authorization: `Bearer ${MCP_TOKEN}` }, fetch: undefined },
      { url: "http://open.test/mcp", headers: {}, fetch: undefined },
    ]);
    expect(table.broken.get("missing")).toEqual([
      { path: "routes.missing.mcp[0].tokenSecret", message: "the Worker secret NOT_SET is not set" },
    ]);
    // A token written into the config itself is refused as an unknown field: tokens go in secrets.
    expect(table.broken.get("bad")!.map((issue) => issue.path)).toEqual([
      "routes.bad.mcp[0].url",
      "routes.bad.mcp[0].token",
    ]);
    expect(JSON.stringify([...table.broken.values()])).not.toContain(MCP_TOKEN);
  });
});
