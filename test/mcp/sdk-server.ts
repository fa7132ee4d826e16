/**
 * The reference MCP servers the client is tested against: `@modelcontextprotocol/sdk` 1.32.2 (a dev
 * dependency only) over Streamable HTTP on node:http, 127.0.0.1, an ephemeral port, one transport and
 * server per session (as the SDK's own examples keep them), 404 for an unknown session.
 *
 * - `mcpServer`: the high-level `McpServer` with zod-described tools (echo, image, fail, throws, weather,
 *   slow — which sends request-scoped notifications before its result — and session);
 * - `lowLevelServer`: the low-level `Server` with hand-written JSON Schemas, `tools/list` in pages of 2
 *   (cursors `"2"`, `"4"`), and an unknown tool as a real JSON-RPC error (`McpError(InvalidParams)`).
 *
 * Every request's method and headers are recorded (`requests`) so tests can see what went on the wire.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server as HttpServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

/** A 1×1 red PNG. */
export const PNG_1x1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** One request the server saw. */
export interface SeenRequest {
  method: string;
  /** The JSON-RPC method(s) of a POST body. */
  rpc: string[];
  headers: IncomingMessage["headers"];
  status?: number;
}

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  /** Ends every session, as a server that restarted would: the next request with an old id gets 404. */
  dropSessions(): void;
  close(): Promise<void>;
}

function buildMcpServer(): McpServer {
  const mcp = new McpServer(
    { name: "modelwire-test-server", version: "0.0.1" },
    { capabilities: { logging: {} }, instructions: "Test server for modelwire." },
  );
  mcp.registerTool(
    "echo",
    { title: "Echo", description: "Echo text back", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }),
  );
  mcp.registerTool("image", { description: "Return a 1x1 PNG" }, async () => ({
    content: [
      { type: "text", text: "a red pixel" },
      { type: "image", data: PNG_1x1, mimeType: "image/png" },
    ],
  }));
  mcp.registerTool("fail", { description: "Always fails (tool execution error)" }, async () => ({
    content: [{ type: "text", text: "boom: something went wrong" }],
    isError: true,
  }));
  mcp.registerTool("throws", { description: "Handler throws" }, async () => {
    throw new Error("kaboom");
  });
  mcp.registerTool(
    "weather",
    {
      description: "Structured output only",
      inputSchema: { city: z.string() },
      outputSchema: { tempC: z.number(), city: z.string() },
    },
    async ({ city }) => ({ content: [], structuredContent: { tempC: 21.5, city } }),
  );
  mcp.registerTool("mixed", { description: "Audio and a resource link beside text" }, async () => ({
    content: [
      { type: "text", text: "see attached" },
      { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      { type: "resource_link", uri: "file:///notes.md", name: "notes.md" },
    ],
  }));
  mcp.registerTool(
    "slow",
    {
      description: "Sends log and progress notifications before the result",
      inputSchema: { steps: z.number().int() },
    },
    async ({ steps }, extra) => {
      for (let i = 1; i <= steps; i++) {
        await extra.sendNotification({
          method: "notifications/message",
          params: { level: "info", logger: "slow", data: `step ${i}` },
        });
      }
      return { content: [{ type: "text", text: `done after ${steps} steps` }] };
    },
  );
  mcp.registerTool("session", { description: "The session id the server sees" }, async (extra) => ({
    content: [{ type: "text", text: String(extra.sessionId) }],
  }));
  return mcp;
}

const LOW_LEVEL_TOOLS = ["alpha", "beta", "gamma", "delta", "epsilon"].map((name) => ({
  name,
  description: `the ${name} tool`,
  inputSchema: { type: "object", properties: { n: { type: "integer", minimum: 0 } }, required: ["n"] },
}));

function buildLowLevelServer(): Server {
  const server = new Server(
    { name: "modelwire-lowlevel", version: "0.0.1" },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const start = request.params?.cursor === undefined ? 0 : Number(request.params.cursor);
    if (!Number.isInteger(start) || start < 0 || start > LOW_LEVEL_TOOLS.length) {
      throw new McpError(ErrorCode.InvalidParams, "Invalid cursor");
    }
    const tools = LOW_LEVEL_TOOLS.slice(start, start + 2);
    const next = start + 2 < LOW_LEVEL_TOOLS.length ? String(start + 2) : undefined;
    return next === undefined ? { tools } : { tools, nextCursor: next };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (!LOW_LEVEL_TOOLS.some((tool) => tool.name === request.params.name)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    }
    if (request.params.name === "epsilon")
      throw new McpError(ErrorCode.InternalError, "epsilon is out of order");
    return {
      content: [
        { type: "text", text: `${request.params.name}(${JSON.stringify(request.params.arguments)})` },
      ],
    };
  });
  return server;
}

/** Starts a server; `json` answers plain JSON (`enableJsonResponse`) instead of SSE. */
export async function startServer(options: {
  kind: "mcp" | "lowlevel";
  json?: boolean;
}): Promise<TestServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const requests: SeenRequest[] = [];
  const http: HttpServer = createServer(async (req, res) => {
    const seen: SeenRequest = { method: req.method ?? "", rpc: [], headers: { ...req.headers } };
    requests.push(seen);
    res.on("finish", () => {
      seen.status = res.statusCode;
    });
    try {
      let body: unknown;
      if (req.method === "POST") {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const text = Buffer.concat(chunks).toString("utf8");
        body = text ? JSON.parse(text) : undefined;
        for (const message of Array.isArray(body) ? body : [body]) {
          const item = message as { method?: string; id?: unknown };
          seen.rpc.push(item?.method ?? `response:${String(item?.id)}`);
        }
      }
      const sid = req.headers["mcp-session-id"];
      let transport = typeof sid === "string" ? sessions.get(sid) : undefined;
      if (typeof sid === "string" && !transport) {
        const gone = { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null };
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify(gone));
        return;
      }
      if (!transport) {
        if (req.method !== "POST" || !isInitializeRequest(body)) {
          res.writeHead(400, { "content-type": "application/json" }).end(
            JSON.stringify({
              jsonrpc: "2.0",
              error: { code: -32000, message: "Bad Request: No valid session ID provided" },
              id: null,
            }),
          );
          return;
        }
        const created: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: options.json === true,
          onsessioninitialized: (id) => {
            sessions.set(id, created);
          },
          onsessionclosed: (id) => {
            sessions.delete(id);
          },
        });
        transport = created;
        await (options.kind === "mcp" ? buildMcpServer() : buildLowLevelServer()).connect(created);
      }
      await transport.handleRequest(req, res, body);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    }
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    dropSessions() {
      for (const transport of sessions.values()) void transport.close();
      sessions.clear();
    },
    async close() {
      for (const transport of sessions.values()) await transport.close();
      sessions.clear();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
