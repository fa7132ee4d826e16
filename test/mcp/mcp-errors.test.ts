/**
 * The MCP client's failure paths, on the fetch layer: errors name the server and never a header's value,
 * every wait ends (timeout, abort), every read is bounded, a version the client does not speak is refused,
 * server requests on the stream are answered, a forgotten session is re-initialized once — not in a loop.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { McpError, mcpClient } from "../../src/mcp/index.ts";
import { mcpToolContent } from "../../src/mcp/mcp-tool-content.ts";
import { fakeMcpServer } from "../helpers/fake-mcp-server.ts";

const TOKEN = "sk-mcp-7f3a9c2e5b1d4f60a8e2";
const AUTH = { authorization: `Bearer ${TOKEN}` };
const echo = {
  name: "echo",
  call: (args: Record<string, unknown>) => ({
    result: { content: [{ type: "text", text: String(args.text) }] },
  }),
};

async function failureOf(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(McpError.is(error), String(error)).toBe(true);
  return error as McpError;
}

describe("mcpClient failures", () => {
  it("a server that is not there: a network error naming the URL (without its query), never the token", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const client = mcpClient({ url: `http://127.0.0.1:${port}/mcp?key=${TOKEN}`, headers: AUTH });
    const error = await failureOf(client.listTools());
    expect(error.kind).toBe("network");
    expect(error.message).toContain(
      `MCP server "http://127.0.0.1:${port}/mcp?…" (initialize): request failed`,
    );
    expect(error.message).not.toContain(TOKEN);
  });

  it("an HTTP error: the status and the body's JSON-RPC message, the echoed token scrubbed", async () => {
    const server = fakeMcpServer({
      tools: [],
      intercept: (request) =>
        Response.json(
          {
            jsonrpc: "2.0",
            error: { code: -32000, message: `bad credential ${request.headers.authorization}` },
            id: null,
          },
          { status: 401 },
        ),
    });
    const client = mcpClient({ url: "https://mcp.example.com/mcp", headers: AUTH, fetch: server.fetch });
    const error = await failureOf(client.connect());
    expect(error).toMatchObject({ kind: "http", status: 401, code: -32000, method: "initialize" });
    expect(error.message).toBe(
      'MCP server "https://mcp.example.com/mcp" (initialize): HTTP 401: bad credential [redacted]',
    );
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`);
  });

  it("a request with no answer times out, and the server is told the request is cancelled", async () => {
    const server = fakeMcpServer({ tools: [echo] });
    let held = 0;
    const fetchFn: typeof fetch = (input, init) => {
      const body = typeof init?.body === "string" ? init.body : "";
      if (body.includes('"tools/call"')) {
        held++;
        return new Promise((_resolve, reject) =>
          init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
        );
      }
      return server.fetch(input, init);
    };
    const client = mcpClient({ url: "https://mcp.example.com/mcp", fetch: fetchFn, timeoutMs: 50 });
    const error = await failureOf(client.callTool("echo", { text: "hi" }));
    expect(error).toMatchObject({ kind: "timeout", method: "tools/call" });
    expect(error.message).toContain("no answer within 50 ms");
    expect(held).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const cancelled = server.requests.find((request) => request.rpc === "notifications/cancelled");
    expect(cancelled?.body).toMatchObject({ params: { requestId: 2, reason: "timeout" } });
    expect(cancelled?.headers["mcp-session-id"]).toBe("session-1");
  });

  it("the caller's abort ends a request at once, as kind aborted", async () => {
    const server = fakeMcpServer({ tools: [echo] });
    const fetchFn: typeof fetch = (input, init) =>
      String(init?.body).includes('"tools/call"')
        ? new Promise((_resolve, reject) =>
            init?.signal?.addEventListener("abort", () => reject(init.signal?.reason)),
          )
        : server.fetch(input, init);
    const client = mcpClient({ url: "https://mcp.example.com/mcp", fetch: fetchFn });
    const controller = new AbortController();
    const pending = client.callTool("echo", { text: "hi" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 10);
    expect(await failureOf(pending)).toMatchObject({ kind: "aborted" });
  });

  it("a protocol version the client does not speak is refused, and the session it opened is deleted", async () => {
    const server = fakeMcpServer({ tools: [], protocolVersion: "1999-01-01" });
    const client = mcpClient({ url: "https://mcp.example.com/mcp", fetch: server.fetch });
    const error = await failureOf(client.connect());
    expect(error.kind).toBe("protocol");
    expect(error.message).toContain('answered protocol version "1999-01-01"');
    expect(server.requests.map((request) => request.method)).toEqual(["POST", "DELETE"]);
    expect(server.sessions.size).toBe(0);
  });

  it("answers a ping on the stream with {}, any other server request with -32601, and reads on to the response", async () => {
    const server = fakeMcpServer({
      tools: [echo],
      before: (method) =>
        method === "tools/call"
          ? [
              { jsonrpc: "2.0", id: "s1", method: "ping" },
              { jsonrpc: "2.0", id: "s2", method: "sampling/createMessage", params: {} },
              { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } },
            ]
          : [],
    });
    const seen: string[] = [];
    const client = mcpClient({
      url: "https://mcp.example.com/mcp",
      fetch: server.fetch,
      onNotification: (notification) => seen.push(notification.method),
    });
    expect(await client.callTool("echo", { text: "through" })).toEqual({
      content: [{ type: "text", text: "through" }],
    });
    expect(seen).toEqual(["notifications/progress"]);
    const replies = server.requests.filter(
      (request) => request.rpc === undefined && request.method === "POST",
    );
    expect(replies.map((request) => request.body)).toEqual([
      { jsonrpc: "2.0", id: "s1", result: {} },
      {
        jsonrpc: "2.0",
        id: "s2",
        error: { code: -32601, message: expect.stringContaining("sampling/createMessage") },
      },
    ]);
    expect(replies[0]!.headers["mcp-session-id"]).toBe("session-1");
  });

  it("bounds a stream: more messages than maxStreamMessages before the response is an error", async () => {
    const server = fakeMcpServer({
      tools: [echo],
      before: (method) =>
        method === "tools/call"
          ? Array.from({ length: 50 }, (_, n) => ({
              jsonrpc: "2.0",
              method: "notifications/message",
              params: { n },
            }))
          : [],
    });
    const client = mcpClient({
      url: "https://mcp.example.com/mcp",
      fetch: server.fetch,
      maxStreamMessages: 10,
    });
    const error = await failureOf(client.callTool("echo", { text: "x" }));
    expect(error).toMatchObject({ kind: "protocol" });
    expect(error.message).toContain("more than 10 messages");
  });

  it("a stream that ends without the response, and an answer that is neither JSON nor SSE, are protocol errors", async () => {
    let mode = "cut";
    const server = fakeMcpServer({
      tools: [echo],
      intercept: (request) => {
        if (request.rpc !== "tools/call") return undefined;
        return mode === "cut"
          ? new Response('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message"}\n\n', {
              headers: { "content-type": "text/event-stream" },
            })
          : new Response("<html>hi</html>", { headers: { "content-type": "text/html" } });
      },
    });
    const client = mcpClient({ url: "https://mcp.example.com/mcp", fetch: server.fetch });
    expect((await failureOf(client.callTool("echo"))).message).toContain(
      "the stream ended before the response",
    );
    mode = "html";
    expect((await failureOf(client.callTool("echo"))).message).toContain('content-type "text/html"');
  });

  it("a JSON answer larger than maxResponseBytes is refused", async () => {
    const big = "x".repeat(5000);
    const server = fakeMcpServer({
      tools: [{ name: "big", call: () => ({ result: { content: [{ type: "text", text: big }] } }) }],
      sse: false,
    });
    const client = mcpClient({
      url: "https://mcp.example.com/mcp",
      fetch: server.fetch,
      maxResponseBytes: 1000,
    });
    const error = await failureOf(client.callTool("big"));
    expect(error).toMatchObject({ kind: "protocol" });
    expect(error.message).toContain("larger than 1000 bytes");
  });

  it("a session that is gone again right after a new handshake is an error, not a loop", async () => {
    const server = fakeMcpServer({
      tools: [echo],
      intercept: (request) =>
        request.rpc === "tools/call"
          ? Response.json(
              { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null },
              { status: 404 },
            )
          : undefined,
    });
    const client = mcpClient({ url: "https://mcp.example.com/mcp", fetch: server.fetch });
    const error = await failureOf(client.callTool("echo", { text: "x" }));
    expect(error).toMatchObject({ kind: "http", status: 404 });
    expect(server.requests.map((request) => request.rpc ?? request.method)).toEqual([
      "initialize",
      "notifications/initialized",
      "tools/call",
      "initialize",
      "notifications/initialized",
      "tools/call",
    ]);
  });

  it("tool names providers refuse are rewritten (and reported); the call still uses the server's name", async () => {
    const server = fakeMcpServer({
      tools: [
        { name: "files.read", call: () => ({ result: { content: [{ type: "text", text: "read" }] } }) },
        { name: "files_read", call: () => ({ result: { content: [{ type: "text", text: "other" }] } }) },
      ],
    });
    const warnings: string[] = [];
    const client = mcpClient({
      url: "https://mcp.example.com/mcp",
      fetch: server.fetch,
      warn: (w) => warnings.push(w),
    });
    const tools = await client.tools({ prefix: "fs_" });
    expect(tools.map((tool) => tool.name)).toEqual(["fs_files_read", "fs_files_read_2"]);
    expect(warnings).toHaveLength(2);
    const output = await tools[0]!.execute(
      {},
      { call: { id: "1", name: "fs_files_read", arguments: {} }, signal: undefined },
    );
    expect(output).toMatchObject({ content: "read", isError: false });
    expect(server.requests.at(-1)!.body).toMatchObject({
      method: "tools/call",
      params: { name: "files.read" },
    });
    // Names the agent already has (its own tools) are kept free the same way.
    const beside = await client.tools({ reserved: ["files_read"] });
    expect(beside.map((tool) => tool.name)).toEqual(["files_read_2", "files_read_3"]);
  });
});

describe("what the review found", () => {
  it("an error's data is scrubbed of the credentials a server echoed; a Basic credential decoded too", async () => {
    const token = "tok_live_5f3c9a7e1d2b4c6a";
    const basic = `Basic ${btoa("alice:s3cret-pass")}`;
    const fetch = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body)) as { id?: number; method: string };
      if (body.method === "initialize") {
        return Response.json(
          {
            jsonrpc: "2.0",
            id: body.id,
            error: {
              code: -32001,
              message: "refused",
              data: {
                echoed: `Bearer ${token}`,
                basic: "alice:s3cret-pass",
                url: "https://x.test/mcp?key=k3y-abcdef",
              },
            },
          },
          { headers: { "content-type": "application/json" } },
        );
      }
      return new Response(null, { status: 202 });
    }) as typeof globalThis.fetch;
    const client = mcpClient({
      url: "https://x.test/mcp?key=k3y-abcdef",
      headers: { authorization: `Bearer ${token}`, "x-basic": basic },
      fetch,
    });
    const error = await client.connect().catch((caught: unknown) => caught as McpError);
    expect(error).toBeInstanceOf(McpError);
    const shown = JSON.stringify({ message: (error as McpError).message, data: (error as McpError).data });
    for (const secret of [token, "s3cret-pass", "alice:s3cret-pass", "k3y-abcdef"])
      expect(shown).not.toContain(secret);
    expect((error as McpError).data).toBeDefined();
  });

  it("an image type no provider reads (SVG) is sent as text with a warning, never as an image part", () => {
    const { content, warnings } = mcpToolContent(
      { content: [{ type: "image", mimeType: "image/svg+xml", data: btoa("<svg/>") }] },
      "draw",
    );
    // One text part is a plain string: the SVG's description, not an image.
    expect(typeof content).toBe("string");
    expect(content).toContain("image/svg+xml");
    expect(warnings).toHaveLength(1);
  });
});
