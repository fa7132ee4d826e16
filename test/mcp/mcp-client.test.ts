/**
 * The MCP client against the real reference server (`@modelcontextprotocol/sdk` 1.32.2 over Streamable
 * HTTP on 127.0.0.1), in both of its answer modes (SSE, and plain JSON with `enableJsonResponse`), driven
 * through `runAgent` with a scripted `FakeProvider`: what the model is offered, what it gets back, and
 * what went on the wire.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runAgent } from "../../src/agent/run-agent.ts";
import type { ToolResult } from "../../src/core/message.ts";
import { McpError, type McpNotification, mcpClient } from "../../src/mcp/index.ts";
import { FakeProvider } from "../../src/testing.ts";
import { PNG_1x1, startServer, type TestServer } from "./sdk-server.ts";

/** The tool results of a finished run, in order. */
function toolResults(messages: readonly { role: string; toolResults?: unknown[] }[]): ToolResult[] {
  return messages.flatMap((message) =>
    message.role === "tool" ? (message.toolResults as ToolResult[]) : [],
  );
}

describe.each([
  { mode: "SSE", json: false },
  { mode: "JSON", json: true },
])("mcpClient against McpServer ($mode answers)", ({ json }) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ kind: "mcp", json });
  });
  afterAll(async () => {
    await server.close();
  });

  it("offers the server's tools to the model, schemas passed through, and runs the calls it makes", async () => {
    const client = mcpClient({ url: server.url });
    const tools = await client.tools();
    expect(tools.map((tool) => tool.name)).toEqual([
      "echo",
      "image",
      "fail",
      "throws",
      "weather",
      "mixed",
      "slow",
      "session",
    ]);
    const echo = tools.find((tool) => tool.name === "echo")!;
    expect(echo.description).toBe("Echo text back");
    expect(echo.parameters).toMatchObject({
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    });
    const provider = new FakeProvider({
      script: [
        { toolCalls: [{ id: "c1", name: "echo", arguments: { text: "hello" } }] },
        { text: "it said hello" },
      ],
    });
    const result = await runAgent({ provider, tools, messages: [{ role: "user", content: "echo hello" }] });
    expect(result.status).toBe("done");
    // The schema as the server sent it; the provider gets it without its `$schema` dialect line, as any tool.
    const { $schema: dialect, ...schema } = echo.parameters as Record<string, unknown>;
    expect(dialect).toBe("http://json-schema.org/draft-07/schema#");
    expect(provider.calls[0]!.tools.find((tool) => tool.name === "echo")?.parameters).toEqual(schema);
    expect(toolResults(result.messages)).toEqual([
      { callId: "c1", name: "echo", content: "echo: hello", isError: false },
    ]);
    await client.close();
  });

  it("gives the model an isError result (returned or thrown by the tool, or an unknown tool) as an error result, not a crash", async () => {
    const client = mcpClient({ url: server.url });
    const tools = await client.tools();
    // A tool the server does not have, kept in the list the model sees: McpServer answers isError.
    const ghost = { ...tools.find((tool) => tool.name === "echo")!, name: "ghost" };
    const ghostTool = {
      ...ghost,
      execute: (args: Record<string, unknown>, context: { signal: AbortSignal | undefined }) =>
        client.callTool("ghost", args, { signal: context.signal }),
    };
    const provider = new FakeProvider({
      script: [
        {
          toolCalls: [
            { id: "f", name: "fail", arguments: {} },
            { id: "t", name: "throws", arguments: {} },
            { id: "bad", name: "echo", arguments: { text: 42 } },
          ],
        },
        { text: "sorry" },
      ],
    });
    const result = await runAgent({ provider, tools, messages: [{ role: "user", content: "try" }] });
    expect(result.status).toBe("done");
    const [fail, thrown, invalid] = toolResults(result.messages);
    expect(fail).toEqual({ callId: "f", name: "fail", content: "boom: something went wrong", isError: true });
    expect(thrown).toMatchObject({ callId: "t", content: "kaboom", isError: true });
    expect(invalid).toMatchObject({ callId: "bad", isError: true });
    expect(String(invalid!.content)).toContain("Input validation error");
    const unknown = await ghostTool.execute({ text: "x" }, { signal: undefined });
    expect(unknown).toMatchObject({ isError: true });
    await client.close();
  });

  it("keeps image parts, renders other kinds as text with a warning, and structuredContent as JSON text", async () => {
    const warnings: string[] = [];
    const client = mcpClient({ url: server.url, warn: (message) => warnings.push(message) });
    const tools = await client.tools();
    const provider = new FakeProvider({
      script: [
        {
          toolCalls: [
            { id: "i", name: "image", arguments: {} },
            { id: "w", name: "weather", arguments: { city: "Oslo" } },
            { id: "m", name: "mixed", arguments: {} },
          ],
        },
        { text: "a red pixel, 21.5 °C" },
      ],
    });
    const result = await runAgent({ provider, tools, messages: [{ role: "user", content: "look" }] });
    const [image, weather, mixed] = toolResults(result.messages);
    expect(image).toEqual({
      callId: "i",
      name: "image",
      content: [
        { type: "text", text: "a red pixel" },
        { type: "image", mediaType: "image/png", data: PNG_1x1 },
      ],
      isError: false,
    });
    expect(weather!.content).toBe('{"tempC":21.5,"city":"Oslo"}');
    expect(mixed!.content).toEqual([
      { type: "text", text: "see attached" },
      { type: "text", text: "[audio content (audio/wav), 3 bytes not shown]" },
      { type: "text", text: "[resource link notes.md <file:///notes.md>]" },
    ]);
    expect(warnings).toEqual([
      expect.stringContaining('"mixed" result: content[1] (audio)'),
      expect.stringContaining('"mixed" result: content[2] (resource_link)'),
    ]);
    // The model's second call carried the image to the provider as a part of the tool result.
    expect(provider.calls[1]!.messages.at(-1)!.toolResults[0]!.content).toEqual(image!.content);
    await client.close();
  });

  it("keeps the session: one id on every request after initialize, the negotiated version beside it, DELETE on close", async () => {
    const from = server.requests.length;
    const client = mcpClient({ url: server.url });
    const info = await client.connect();
    expect(info.protocolVersion).toBe("2025-06-18");
    expect(info.serverInfo.name).toBe("modelwire-test-server");
    expect(client.protocolVersion).toBe("2025-06-18");
    const sessionId = client.sessionId!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const seenByServer = await client.callTool("session");
    expect(seenByServer.content).toEqual([{ type: "text", text: sessionId }]);
    await client.callTool("echo", { text: "again" });
    await client.close();
    const mine = server.requests.slice(from);
    expect(mine.map((request) => `${request.method} ${request.rpc.join(",")}`)).toEqual([
      "POST initialize",
      "POST notifications/initialized",
      "POST tools/call",
      "POST tools/call",
      "DELETE ",
    ]);
    expect(mine[0]!.headers["mcp-session-id"]).toBeUndefined();
    expect(mine[0]!.headers["mcp-protocol-version"]).toBeUndefined();
    expect(mine[0]!.headers.accept).toBe("application/json, text/event-stream");
    for (const request of mine.slice(1)) {
      expect(request.headers["mcp-session-id"]).toBe(sessionId);
      expect(request.headers["mcp-protocol-version"]).toBe("2025-06-18");
    }
    expect(mine.at(-1)!.status).toBe(200);
    await expect(client.callTool("echo", { text: "after close" })).rejects.toMatchObject({ kind: "closed" });
  });

  it("re-initializes once when the server has forgotten the session (404), and retries the request", async () => {
    const client = mcpClient({ url: server.url });
    await client.connect();
    const first = client.sessionId;
    server.dropSessions();
    const from = server.requests.length;
    const result = await client.callTool("echo", { text: "still there?" });
    expect(result.content).toEqual([{ type: "text", text: "echo: still there?" }]);
    expect(client.sessionId).not.toBe(first);
    const mine = server.requests.slice(from);
    expect(mine.map((request) => `${request.status} ${request.rpc.join(",")}`)).toEqual([
      "404 tools/call",
      "200 initialize",
      expect.stringMatching(/^20[02] notifications\/initialized$/),
      "200 tools/call",
    ]);
    expect(mine[1]!.headers["mcp-session-id"]).toBeUndefined();
    await client.close();
  });

  it(
    json
      ? "reads the plain JSON answer (the SDK drops request-scoped notifications in this mode)"
      : "hands the notifications sent before a response on its SSE stream to onNotification, and still gets the response",
    async () => {
      const notifications: McpNotification[] = [];
      const client = mcpClient({ url: server.url, onNotification: (item) => notifications.push(item) });
      const result = await client.callTool("slow", { steps: 3 });
      expect(result.content).toEqual([{ type: "text", text: "done after 3 steps" }]);
      expect(notifications).toEqual(
        json
          ? []
          : [1, 2, 3].map((step) => ({
              method: "notifications/message",
              params: { level: "info", logger: "slow", data: `step ${step}` },
            })),
      );
      await client.close();
    },
  );
});

describe("mcpClient against a low-level Server (paginated tools/list, JSON-RPC errors)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ kind: "lowlevel" });
  });
  afterAll(async () => {
    await server.close();
  });

  it("follows nextCursor across every page, sending each cursor back as it came", async () => {
    const client = mcpClient({ url: server.url });
    const from = server.requests.length;
    const tools = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["alpha", "beta", "gamma", "delta", "epsilon"]);
    expect(tools[0]!.inputSchema).toEqual({
      type: "object",
      properties: { n: { type: "integer", minimum: 0 } },
      required: ["n"],
    });
    const lists = server.requests.slice(from).filter((request) => request.rpc[0] === "tools/list");
    expect(lists).toHaveLength(3);
    await client.close();
  });

  it("stops at maxPages instead of following cursors without end", async () => {
    const client = mcpClient({ url: server.url, maxPages: 2 });
    const error = await client.listTools().catch((caught: unknown) => caught);
    expect(McpError.is(error)).toBe(true);
    expect(error).toMatchObject({ kind: "protocol" });
    expect((error as Error).message).toContain("more than 2 pages");
    await client.close();
  });

  it("surfaces a JSON-RPC error with its code and message, and gives it to the model as an error result", async () => {
    const client = mcpClient({ url: server.url });
    const direct = await client.callTool("zz", {}).catch((caught: unknown) => caught);
    expect(direct).toMatchObject({ kind: "rpc", code: -32602, method: "tools/call" });
    expect((direct as Error).message).toBe(
      `MCP server "${server.url}" (tools/call): JSON-RPC error -32602: MCP error -32602: Unknown tool: zz`,
    );
    const tools = await client.tools();
    const provider = new FakeProvider({
      script: [
        {
          toolCalls: [
            { id: "a", name: "alpha", arguments: { n: 1 } },
            { id: "e", name: "epsilon", arguments: { n: 2 } },
          ],
        },
        { text: "alpha worked, epsilon did not" },
      ],
    });
    const result = await runAgent({ provider, tools, messages: [{ role: "user", content: "both" }] });
    expect(result.status).toBe("done");
    const [alpha, epsilon] = toolResults(result.messages);
    expect(alpha).toEqual({ callId: "a", name: "alpha", content: 'alpha({"n":1})', isError: false });
    expect(epsilon).toMatchObject({ callId: "e", isError: true });
    expect(epsilon!.content).toContain("JSON-RPC error -32603");
    expect(epsilon!.content).toContain("epsilon is out of order");
    await client.close();
  });
});
