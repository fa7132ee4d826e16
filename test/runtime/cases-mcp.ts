/**
 * Shared runtime cases for the MCP client (`modelwire/mcp`) against a fake MCP server on the fetch layer:
 * they run in Node, workerd, Deno and Bun (see ./cases.ts), so the client needs nothing but `fetch`, Web
 * Streams and timers.
 */
import { runAgent } from "../../src/agent/run-agent.ts";
import { McpError, mcpClient } from "../../src/mcp/index.ts";
import { FakeProvider } from "../../src/testing.ts";
import { fakeMcpServer } from "../helpers/fake-mcp-server.ts";
import { equal, ok, rejects } from "./assert.ts";
import type { RuntimeCase } from "./case.ts";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const TOKEN = "mcp-runtime-token-91d2c7e4a5";

function server(sse: boolean) {
  return fakeMcpServer({
    sse,
    tools: [
      {
        name: "shot",
        description: "A screenshot",
        call: () => ({ result: { content: [{ type: "image", data: PNG, mimeType: "image/png" }] } }),
      },
      {
        name: "broken",
        call: () => ({ result: { content: [{ type: "text", text: "disk full" }], isError: true } }),
      },
      { name: "refused", call: () => ({ error: { code: -32602, message: "bad n" } }) },
    ],
  });
}

export const mcpCases: RuntimeCase[] = [true, false].flatMap((sse): RuntimeCase[] => [
  {
    name: `mcp (${sse ? "SSE" : "JSON"}): runAgent with a server's tools keeps images, isError and JSON-RPC errors as results`,
    run: async () => {
      const fake = server(sse);
      const client = mcpClient({
        url: "https://mcp.example.test/mcp",
        headers: { authorization: `Bearer ${TOKEN}` },
        fetch: fake.fetch,
      });
      const tools = await client.tools();
      equal(
        tools.map((tool) => tool.name),
        ["shot", "broken", "refused"],
      );
      const provider = new FakeProvider({
        script: [
          {
            toolCalls: [
              { id: "a", name: "shot", arguments: {} },
              { id: "b", name: "broken", arguments: {} },
              { id: "c", name: "refused", arguments: { n: -1 } },
            ],
          },
          { text: "done" },
        ],
      });
      const result = await runAgent({ provider, tools, messages: [{ role: "user", content: "go" }] });
      equal(result.status, "done");
      const results = provider.calls[1]!.messages.at(-1)!.toolResults;
      equal(results[0]!.content, [{ type: "image", mediaType: "image/png", data: PNG }]);
      equal(results[0]!.isError, false);
      equal([results[1]!.content, results[1]!.isError], ["disk full", true]);
      equal(results[2]!.isError, true);
      ok(String(results[2]!.content).includes("JSON-RPC error -32602: bad n"), String(results[2]!.content));
      // One session throughout, the token on every request, ended on close.
      await client.close();
      const sessions = new Set(fake.requests.slice(1).map((request) => request.headers["mcp-session-id"]));
      equal([...sessions], ["session-1"]);
      ok(fake.requests.every((request) => request.headers.authorization === `Bearer ${TOKEN}`));
      equal(fake.requests.at(-1)!.method, "DELETE");
      equal(fake.sessions.size, 0);
    },
  },
  {
    name: `mcp (${sse ? "SSE" : "JSON"}): a forgotten session is re-initialized once; errors never show the token`,
    run: async () => {
      const fake = server(sse);
      const client = mcpClient({
        url: "https://mcp.example.test/mcp",
        headers: { authorization: `Bearer ${TOKEN}` },
        fetch: fake.fetch,
      });
      await client.connect();
      fake.sessions.clear();
      const listed = await client.listTools();
      equal(listed.length, 3);
      equal(client.sessionId, "session-2");
      const refused = mcpClient({
        url: "https://mcp.example.test/mcp",
        headers: { authorization: `Bearer ${TOKEN}` },
        fetch: async () => new Response(`no such token: ${TOKEN}`, { status: 403 }),
      });
      await rejects(refused.listTools(), (error) => {
        ok(McpError.is(error));
        equal((error as McpError).status, 403);
        ok(!(error as Error).message.includes(TOKEN), (error as Error).message);
        ok((error as Error).message.startsWith('MCP server "https://mcp.example.test/mcp"'));
        return true;
      });
      await client.close();
    },
  },
]);
