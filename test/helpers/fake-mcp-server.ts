/**
 * A fake MCP server on the fetch layer (no sockets, no Node API: it runs in Node, workerd, Deno and Bun):
 * a `fetch` that speaks Streamable HTTP the way the SDK's server does — `initialize` gives a session id,
 * later requests without it are 400s, an unknown one is a 404, answers are SSE (`event: message`) or
 * plain JSON — with tools from a table. Every request is recorded.
 */

/** A tool of the fake server: its listing and what a call answers (a result, or a JSON-RPC error). */
export interface FakeMcpTool {
  name: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  call: (args: Record<string, unknown>) => { result: unknown } | { error: { code: number; message: string } };
}

export interface FakeMcpRequest {
  method: string;
  rpc: string | undefined;
  headers: Record<string, string>;
  body: unknown;
}

export interface FakeMcpServerOptions {
  tools: FakeMcpTool[];
  /** Answer requests as SSE (default) or JSON. */
  sse?: boolean;
  /** Messages sent on a request's SSE stream before its response (notifications, server requests). */
  before?: (method: string) => unknown[];
  /** Answers before anything else: return a Response to take over a request. */
  intercept?: (request: FakeMcpRequest) => Response | undefined;
  /** Answered by initialize (default 2025-11-25). */
  protocolVersion?: string;
}

export interface FakeMcpServer {
  fetch: typeof fetch;
  requests: FakeMcpRequest[];
  sessions: Set<string>;
}

/** A fake MCP server; `fetch` answers any URL. */
export function fakeMcpServer(options: FakeMcpServerOptions): FakeMcpServer {
  const requests: FakeMcpRequest[] = [];
  const sessions = new Set<string>();
  let counter = 0;
  const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });
  const answer = (messages: unknown[], headers: Record<string, string>) => {
    if (options.sse === false) return json(200, messages.at(-1), headers);
    const text = messages.map((message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`).join("");
    return new Response(`: keepalive\n\n${text}`, {
      status: 200,
      headers: { "content-type": "text/event-stream", ...headers },
    });
  };
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const text = request.method === "POST" ? await request.text() : "";
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    const seen: FakeMcpRequest = {
      method: request.method,
      rpc: typeof body?.method === "string" ? body.method : undefined,
      headers,
      body,
    };
    requests.push(seen);
    const taken = options.intercept?.(seen);
    if (taken) return taken;
    const sid = headers["mcp-session-id"];
    if (sid !== undefined && !sessions.has(sid)) {
      return json(404, { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
    }
    if (request.method === "DELETE") {
      if (sid !== undefined) sessions.delete(sid);
      return new Response(null, { status: 200 });
    }
    if (request.method !== "POST") return new Response(null, { status: 405 });
    if (body?.method === "initialize") {
      const session = `session-${++counter}`;
      sessions.add(session);
      return answer(
        [
          {
            jsonrpc: "2.0",
            id: body.id,
            result: {
              protocolVersion: options.protocolVersion ?? "2025-11-25",
              capabilities: { tools: {} },
              serverInfo: { name: "fake-mcp", version: "1.0.0" },
            },
          },
        ],
        { "mcp-session-id": session },
      );
    }
    if (sid === undefined) {
      return json(400, {
        jsonrpc: "2.0",
        error: { code: -32000, message: "Bad Request: Mcp-Session-Id header is required" },
        id: null,
      });
    }
    if (body?.id === undefined) return new Response(null, { status: 202 });
    if (body.method === undefined) return new Response(null, { status: 202 });
    const respond = (payload: { result: unknown } | { error: unknown }) =>
      answer(
        [...(options.before?.(String(body.method)) ?? []), { jsonrpc: "2.0", id: body.id, ...payload }],
        {
          "mcp-session-id": sid,
        },
      );
    if (body.method === "tools/list") {
      return respond({
        result: {
          tools: options.tools.map(({ call: _call, inputSchema, ...tool }) => ({
            ...tool,
            inputSchema: inputSchema ?? { type: "object", properties: {} },
          })),
        },
      });
    }
    if (body.method === "tools/call") {
      const params = body.params as { name: string; arguments?: Record<string, unknown> };
      const tool = options.tools.find((item) => item.name === params.name);
      if (!tool) return respond({ error: { code: -32602, message: `Unknown tool: ${params.name}` } });
      return respond(tool.call(params.arguments ?? {}));
    }
    return respond({ error: { code: -32601, message: "Method not found" } });
  };
  return { fetch: fetchFn as typeof fetch, requests, sessions };
}
