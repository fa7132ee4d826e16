/**
 * `mcpClient()`: a Model Context Protocol client over Streamable HTTP, on `fetch` and Web Streams only (Workers,
 * Deno, Bun, Node 22+). Two layers, as the protocol's next revision (stateless, no handshake) will want:
 *
 * - **one message**: a JSON-RPC message POSTed to the endpoint; a request's answer is one JSON object or an
 *   SSE stream (read with `modelwire/wire`'s `readSse`) that may carry notifications and server requests
 *   before the response (a `ping` is answered `{}`, any other server request `-32601`);
 * - **the 2025 session**: `initialize` (the latest version offered, the server's answer checked against the
 *   versions this client speaks), `notifications/initialized`, `Mcp-Session-Id` and `MCP-Protocol-Version`
 *   on every later request, a 404 on a request that carried the session id → one fresh `initialize` and one
 *   retry, `DELETE` on `close()`.
 *
 * Every wait has a deadline (`timeoutMs`, the caller's signal; a request given up is followed by
 * `notifications/cancelled`), every read a limit (`maxResponseBytes`, `maxStreamMessages`, `maxPages`).
 * Errors are {@link McpError}s naming the server's URL, with every header value scrubbed out.
 *
 * @module
 */
import type { AgentTool } from "../agent/run-agent.ts";
import { toolOutput } from "../agent/tool-output.ts";
import { shownUrl } from "../core/content.ts";
import { redactSecrets } from "../core/provider-error.ts";
import type { JsonSchema } from "../core/tool-spec.ts";
import { readSse } from "../wire/sse.ts";
import { McpError, type McpErrorKind } from "./mcp-error.ts";
import { type McpCallToolResult, mcpToolContent } from "./mcp-tool-content.ts";

/**
 * Protocol revisions this client speaks. `initialize` offers 2025-06-18 — not 2025-11-25, whose servers
 * may end a POST's stream after a priming event and expect the client to poll it back with a GET and
 * `Last-Event-ID`, which this client does not do — and takes any of these the server answers with.
 */
export const MCP_PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
];

/** The revision `initialize` offers (see {@link MCP_PROTOCOL_VERSIONS}). */
export const MCP_OFFERED_VERSION = "2025-06-18";

/** Settings of {@link mcpClient}. */
export interface McpClientOptions {
  /** The server's MCP endpoint (`https://example.com/mcp`). */
  url: string | URL;
  /** Sent on every request (`authorization: Bearer …`); their values never appear in an error. */
  headers?: Record<string, string> | undefined;
  /** The `fetch` to use (default `globalThis.fetch`). */
  fetch?: typeof fetch | undefined;
  /** What `initialize` says this client is (default `{ name: "modelwire", version: "0.1.0" }`). */
  clientInfo?: { name: string; version: string } | undefined;
  /** Longest wait for one request's answer, stream included, in ms (default 60 000). */
  timeoutMs?: number | undefined;
  /** Most `tools/list` pages followed (default 100): a server that keeps sending cursors is an error. */
  maxPages?: number | undefined;
  /** Largest JSON answer, and most characters an SSE event may hold, read (default 16 MiB). */
  maxResponseBytes?: number | undefined;
  /** Most messages one SSE answer may carry before its response (default 10 000). */
  maxStreamMessages?: number | undefined;
  /** Receives every notification the server sends (progress, logs, `list_changed`). */
  onNotification?: ((notification: McpNotification) => void) | undefined;
  /** Receives what the client did not keep as it came (a content block sent as text, a renamed tool). */
  warn?: ((message: string) => void) | undefined;
}

/** A notification from the server. */
export interface McpNotification {
  method: string;
  params?: unknown;
}

/** A tool as `tools/list` describes it (unknown fields are kept). */
export interface McpTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: Record<string, unknown>;
  [field: string]: unknown;
}

/** What `initialize` answered. */
export interface McpServerInfo {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: { name: string; version: string; [field: string]: unknown };
  instructions?: string;
}

/** Per-call settings. */
export interface McpRequestOptions {
  signal?: AbortSignal | undefined;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number | undefined;
}

/** Settings of {@link McpClient.tools}. */
export interface McpToolsOptions extends McpRequestOptions {
  /** Put before every tool's name (`github_`), so two servers' tools cannot clash. */
  prefix?: string | undefined;
  /** Only the tools this returns true for. */
  filter?: ((tool: McpTool) => boolean) | undefined;
  /** Names already taken (the agent's own tools, another server's): a server tool with one is renamed. */
  reserved?: Iterable<string> | undefined;
}

/** A connection to one MCP server (see {@link mcpClient}). */
export interface McpClient {
  /** The server as errors name it. */
  readonly server: string;
  /** The session id the server gave, once connected (undefined for a stateless server). */
  readonly sessionId: string | undefined;
  /** The negotiated protocol version, once connected. */
  readonly protocolVersion: string | undefined;
  /** Runs the handshake now (otherwise the first request does); returns what the server said. */
  connect(options?: McpRequestOptions): Promise<McpServerInfo>;
  /** Every tool, following `nextCursor` (at most `maxPages` pages, a repeated cursor refused). */
  listTools(options?: McpRequestOptions): Promise<McpTool[]>;
  /** `tools/call`: the server's result as it came. A JSON-RPC error throws an `McpError` of kind `rpc`. */
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: McpRequestOptions,
  ): Promise<McpCallToolResult>;
  /**
   * The server's tools as agent tools for `runAgent`: the input schema passed through as the parameters'
   * JSON Schema, `execute` calling `tools/call`. An `isError` result or a JSON-RPC error is an error result
   * the model sees; content parts (text, images) are kept (see `mcpToolContent`). A name providers would
   * refuse (`a.b`, longer than 64) is rewritten (and `warn` told); the call uses the server's name.
   */
  tools(options?: McpToolsOptions): Promise<AgentTool[]>;
  /** Any JSON-RPC request, in the session; the result as it came. */
  request(method: string, params?: Record<string, unknown>, options?: McpRequestOptions): Promise<unknown>;
  /** Any notification, in the session. */
  notify(method: string, params?: Record<string, unknown>, options?: McpRequestOptions): Promise<void>;
  /** Ends the session (`DELETE`) and refuses further requests. Never throws. */
  close(): Promise<void>;
}

const ACCEPT = "application/json, text/event-stream";
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Most bytes of an HTTP error's body read into its message. */
const MAX_ERROR_BODY = 4096;

/** Thrown inside the transport when a request that carried the session id got a 404. */
class SessionGone extends Error {}
/** Thrown by `readBounded` when a body is over its limit. */
class TooLarge extends Error {}

/**
 * A client for the MCP server at `url`. Nothing is sent until the first call.
 *
 * @example
 * ```ts
 * const github = mcpClient({ url: "https://mcp.example.com/mcp", headers: { authorization: `Bearer ${token}` } });
 * try {
 *   const result = await runAgent({ provider, tools: await github.tools(), messages });
 * } finally {
 *   await github.close();
 * }
 * ```
 */
export function mcpClient(options: McpClientOptions): McpClient {
  const url = String(options.url);
  const server = shownUrl(url);
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const headers = { ...options.headers };
  // Every header value, the credential after an auth scheme (`Bearer xyz` → `xyz` too), the URL's secrets.
  const secrets = secretsOf(headers, url);
  /** An error's `data` with every secret removed from its text (a server may echo a request back). */
  const scrubbed = (data: unknown): unknown => {
    if (data === undefined) return undefined;
    try {
      return JSON.parse(redactSecrets(JSON.stringify(data), secrets)) as unknown;
    } catch {
      return "[data removed: it could not be scrubbed of credentials]";
    }
  };
  const timeoutMs = options.timeoutMs ?? 60_000;
  const maxPages = options.maxPages ?? 100;
  const maxBytes = options.maxResponseBytes ?? 16 * 1024 * 1024;
  const maxMessages = options.maxStreamMessages ?? 10_000;
  const clientInfo = options.clientInfo ?? { name: "modelwire", version: "0.1.0" };

  let nextId = 1;
  let sessionId: string | undefined;
  let protocolVersion: string | undefined;
  let connecting: Promise<McpServerInfo> | undefined;
  let closed = false;

  const fail = (
    kind: McpErrorKind,
    message: string,
    extra: Partial<ConstructorParameters<typeof McpError>[0]> = {},
  ) => new McpError({ ...extra, kind, server, message: redactSecrets(message, secrets) });

  /** The headers of a request; the session's only after the handshake (never on `initialize`). */
  const requestHeaders = (json: boolean, inSession: boolean): Headers => {
    const result = new Headers(headers);
    result.set("accept", ACCEPT);
    if (json) result.set("content-type", "application/json");
    if (inSession && sessionId !== undefined) result.set("mcp-session-id", sessionId);
    if (inSession && protocolVersion !== undefined) result.set("mcp-protocol-version", protocolVersion);
    return result;
  };

  /** A signal that fires on the caller's abort or at the deadline; `error()` says which happened. */
  const deadline = (call: McpRequestOptions) => {
    const controller = new AbortController();
    let timedOut = false;
    const ms = call.timeoutMs ?? timeoutMs;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException("timed out", "TimeoutError"));
    }, ms);
    const onAbort = () => controller.abort(call.signal?.reason);
    if (call.signal?.aborted) onAbort();
    else call.signal?.addEventListener("abort", onAbort, { once: true });
    return {
      signal: controller.signal,
      error(method: string, cause: unknown): McpError {
        if (timedOut) return fail("timeout", `no answer within ${ms} ms`, { method });
        if (call.signal?.aborted) return fail("aborted", "aborted by the caller", { method });
        const text = cause instanceof Error ? cause.message : String(cause);
        return fail("network", `request failed: ${text}`, { method });
      },
      /** Whether the request was given up (and so should be cancelled at the server). */
      get givenUp() {
        return controller.signal.aborted;
      },
      done() {
        clearTimeout(timer);
        call.signal?.removeEventListener("abort", onAbort);
      },
    };
  };

  /** POSTs one message; `undefined` for a notification or response (any 2xx), the answer for a request. */
  const post = async (
    message: Record<string, unknown>,
    call: McpRequestOptions,
    inSession: boolean,
  ): Promise<{ response: Record<string, unknown> | undefined; http: Response }> => {
    const method = typeof message.method === "string" ? message.method : "response";
    const id = message.id;
    const isRequest = typeof message.method === "string" && id !== undefined;
    const sentSession = inSession && sessionId !== undefined;
    const limit = deadline(call);
    try {
      let http: Response;
      try {
        http = await doFetch(url, {
          method: "POST",
          headers: requestHeaders(true, inSession),
          body: JSON.stringify(message),
          signal: limit.signal,
        });
      } catch (error) {
        throw limit.error(method, error);
      }
      if (http.status === 404 && sentSession) {
        await http.body?.cancel().catch(() => {});
        throw new SessionGone();
      }
      if (!http.ok) throw await httpError(http, method);
      if (!isRequest) {
        await http.body?.cancel().catch(() => {});
        return { response: undefined, http };
      }
      const type = http.headers.get("content-type")?.toLowerCase() ?? "";
      try {
        if (type.startsWith("application/json")) {
          const text = await readBounded(http, maxBytes);
          return { response: findResponse(parseJson(text, method), id, method), http };
        }
        if (type.startsWith("text/event-stream") && http.body) {
          return { response: await readStream(http.body, id, method, limit.signal), http };
        }
      } catch (error) {
        if (McpError.is(error)) throw error;
        if (error instanceof Error && (error.name === "WireError" || error instanceof TooLarge)) {
          throw fail("protocol", error.message, { method });
        }
        throw limit.error(method, error);
      }
      await http.body?.cancel().catch(() => {});
      throw fail("protocol", `answered a request with content-type "${type || "none"}" (${http.status})`, {
        method,
        status: http.status,
      });
    } catch (error) {
      // A request given up is not cancelled by the disconnect: say so (never for initialize).
      if (isRequest && limit.givenUp && method !== "initialize" && !(error instanceof SessionGone)) {
        void post(
          {
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: id, reason: McpError.is(error) ? error.kind : "aborted" },
          },
          { timeoutMs: 5000 },
          inSession,
        ).catch(() => {});
      }
      throw error;
    } finally {
      limit.done();
    }
  };

  /** An HTTP error status as an `McpError`: the body's JSON-RPC error if it has one, else its text, cut. */
  const httpError = async (http: Response, method: string): Promise<McpError> => {
    let text = "";
    try {
      text = await readBounded(http, MAX_ERROR_BODY, true);
    } catch {
      // The status is the error; a body that cannot be read adds nothing.
    }
    let detail = text.trim().slice(0, 500);
    let code: number | undefined;
    try {
      const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
      if (typeof body?.error?.message === "string") detail = body.error.message;
      if (typeof body?.error?.code === "number") code = body.error.code;
    } catch {
      // Not JSON (a proxy's HTML page): its text, cut.
    }
    return fail("http", `HTTP ${http.status}${detail ? `: ${detail}` : ""}`, {
      method,
      status: http.status,
      code,
    });
  };

  /** Reads an SSE answer until the response to `id`, handling what comes before it. */
  const readStream = async (
    body: ReadableStream<Uint8Array>,
    id: unknown,
    method: string,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> => {
    let seen = 0;
    for await (const event of readSse(body, { maxBufferSize: maxBytes })) {
      // A priming event (an id and no data) only moves the resume cursor.
      if (event.data.trim() === "") continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(event.data);
      } catch {
        options.warn?.(`MCP server ${server}: an SSE event on the ${method} stream is not JSON; ignored`);
        continue;
      }
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
        if (++seen > maxMessages) {
          throw fail("protocol", `sent more than ${maxMessages} messages on one stream before the response`, {
            method,
          });
        }
        if (typeof message !== "object" || message === null) continue;
        const item = message as Record<string, unknown>;
        if (typeof item.method === "string") {
          if (item.id === undefined || item.id === null) notified(item);
          else await answerServer(item, signal);
          continue;
        }
        if (item.id === id) return item;
      }
    }
    throw fail("protocol", "the stream ended before the response", { method });
  };

  /** A notification from the server, handed to `onNotification`. */
  const notified = (item: Record<string, unknown>) => {
    try {
      options.onNotification?.({ method: String(item.method), params: item.params });
    } catch {
      // The caller's callback does not break the stream.
    }
  };

  /** Answers a server request: `ping` with `{}`, anything else "method not found" (no capability offered). */
  const answerServer = async (item: Record<string, unknown>, signal: AbortSignal) => {
    const reply =
      item.method === "ping"
        ? { jsonrpc: "2.0", id: item.id, result: {} }
        : {
            jsonrpc: "2.0",
            id: item.id,
            error: {
              code: -32601,
              message: `Method not found: modelwire does not offer ${String(item.method)}`,
            },
          };
    await post(reply, { signal, timeoutMs: 10_000 }, true).catch(() => {});
  };

  const parseJson = (text: string, method: string): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      throw fail("protocol", "answered JSON that does not parse", { method });
    }
  };

  const findResponse = (parsed: unknown, id: unknown, method: string): Record<string, unknown> => {
    for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
      if (typeof item === "object" && item !== null && (item as Record<string, unknown>).id === id) {
        return item as Record<string, unknown>;
      }
    }
    throw fail("protocol", "the JSON answer holds no response to the request", { method });
  };

  /** The result of a response, or its JSON-RPC error as an `McpError` of kind `rpc`. */
  const resultOf = (response: Record<string, unknown>, method: string): unknown => {
    const error = response.error as { code?: unknown; message?: unknown; data?: unknown } | undefined;
    if (error !== undefined && error !== null) {
      const code = typeof error.code === "number" ? error.code : undefined;
      const message = typeof error.message === "string" ? error.message : "error without a message";
      throw fail("rpc", `JSON-RPC error ${code ?? "(no code)"}: ${message}`, {
        method,
        code,
        data: scrubbed(error.data),
      });
    }
    if (!("result" in response))
      throw fail("protocol", "a response with neither result nor error", { method });
    return response.result;
  };

  const handshake = async (call: McpRequestOptions): Promise<McpServerInfo> => {
    sessionId = undefined;
    protocolVersion = undefined;
    const id = nextId++;
    const { response, http } = await post(
      {
        jsonrpc: "2.0",
        id,
        method: "initialize",
        params: { protocolVersion: MCP_OFFERED_VERSION, capabilities: {}, clientInfo },
      },
      call,
      false,
    );
    const info = resultOf(response!, "initialize") as McpServerInfo;
    const session = http.headers.get("mcp-session-id") ?? undefined;
    if (typeof info?.protocolVersion !== "string" || !MCP_PROTOCOL_VERSIONS.includes(info.protocolVersion)) {
      sessionId = session;
      await endSession();
      throw fail(
        "protocol",
        `answered protocol version ${JSON.stringify(info?.protocolVersion)}; this client speaks ${MCP_PROTOCOL_VERSIONS.join(", ")}`,
        { method: "initialize" },
      );
    }
    sessionId = session;
    protocolVersion = info.protocolVersion;
    try {
      await post({ jsonrpc: "2.0", method: "notifications/initialized" }, call, true);
    } catch (error) {
      if (error instanceof SessionGone) {
        throw fail("http", "HTTP 404: the session it had just opened was not found", {
          method: "notifications/initialized",
          status: 404,
        });
      }
      // The server opened a session the handshake did not finish: it is ended, not left behind.
      await endSession().catch(() => {});
      throw error;
    }
    return info;
  };

  const connect = (call: McpRequestOptions = {}): Promise<McpServerInfo> => {
    if (closed) return Promise.reject(fail("closed", "the client is closed"));
    if (!connecting) {
      const attempt = handshake(call);
      connecting = attempt;
      // A failed handshake is tried again by the next request.
      attempt.catch(() => {
        if (connecting === attempt) connecting = undefined;
      });
    }
    return connecting;
  };

  /** One request in the session: a 404 on the session id → a fresh handshake and one retry. */
  const request = async (
    method: string,
    params: Record<string, unknown> | undefined,
    call: McpRequestOptions = {},
  ): Promise<unknown> => {
    for (let attempt = 0; ; attempt++) {
      const session = await connect(call);
      if (closed) throw fail("closed", "the client is closed", { method });
      const message: Record<string, unknown> = { jsonrpc: "2.0", id: nextId++, method };
      if (params !== undefined) message.params = params;
      try {
        const { response } = await post(message, call, true);
        return resultOf(response!, method);
      } catch (error) {
        if (!(error instanceof SessionGone)) throw error;
        if (attempt > 0)
          throw fail("http", "HTTP 404: the session was not found again after a new handshake", {
            method,
            status: 404,
          });
        // The server ended the session: start a new one (unless another request already did).
        if (connecting === undefined || (await connecting) === session) connecting = undefined;
      }
    }
  };

  const endSession = async () => {
    if (sessionId === undefined) return;
    const limit = deadline({ timeoutMs: Math.min(timeoutMs, 10_000) });
    try {
      const http = await doFetch(url, {
        method: "DELETE",
        headers: requestHeaders(false, true),
        signal: limit.signal,
      });
      await http.body?.cancel().catch(() => {});
    } catch {
      // 405 (not allowed), 404 (already gone) or no answer: the session is over for this client either way.
    } finally {
      limit.done();
      sessionId = undefined;
    }
  };

  const listTools = async (call: McpRequestOptions = {}): Promise<McpTool[]> => {
    const tools: McpTool[] = [];
    const cursors = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; ; page++) {
      if (page >= maxPages) {
        throw fail("protocol", `tools/list sent more than ${maxPages} pages (maxPages)`, {
          method: "tools/list",
        });
      }
      const result = (await request("tools/list", cursor === undefined ? undefined : { cursor }, call)) as {
        tools?: unknown;
        nextCursor?: unknown;
      };
      if (!Array.isArray(result?.tools)) {
        throw fail("protocol", "tools/list answered without a tools array", { method: "tools/list" });
      }
      for (const tool of result.tools) {
        if (typeof tool === "object" && tool !== null && typeof (tool as McpTool).name === "string") {
          tools.push(tool as McpTool);
        }
      }
      if (typeof result.nextCursor !== "string" || result.nextCursor === "") return tools;
      if (cursors.has(result.nextCursor)) {
        throw fail("protocol", "tools/list sent a cursor it had sent before", { method: "tools/list" });
      }
      cursors.add(result.nextCursor);
      cursor = result.nextCursor;
    }
  };

  const callTool = async (
    name: string,
    args: Record<string, unknown> = {},
    call: McpRequestOptions = {},
  ): Promise<McpCallToolResult> => {
    const result = await request("tools/call", { name, arguments: args }, call);
    if (typeof result !== "object" || result === null) {
      throw fail(
        "protocol",
        `tools/call of ${JSON.stringify(name)} answered a result that is not an object`,
        {
          method: "tools/call",
        },
      );
    }
    return result as McpCallToolResult;
  };

  const tools = async (settings: McpToolsOptions = {}): Promise<AgentTool[]> => {
    const listed = await listTools(settings);
    const taken = new Set<string>(settings.reserved);
    const out: AgentTool[] = [];
    for (const tool of listed) {
      if (settings.filter && !settings.filter(tool)) continue;
      const name = agentToolName(`${settings.prefix ?? ""}${tool.name}`, taken);
      if (name !== `${settings.prefix ?? ""}${tool.name}`) {
        options.warn?.(
          `MCP server ${server}: tool ${JSON.stringify(tool.name)} is offered to the model as "${name}"`,
        );
      }
      const description = tool.description ?? tool.title;
      const schema =
        typeof tool.inputSchema === "object" && tool.inputSchema !== null ? tool.inputSchema : undefined;
      out.push({
        name,
        ...(description === undefined ? {} : { description }),
        parameters: schema ?? { type: "object", properties: {} },
        execute: async (args, context) => {
          let result: McpCallToolResult;
          try {
            result = await callTool(tool.name, args, { signal: context.signal });
          } catch (error) {
            // The server refused the call (unknown tool, bad arguments): the model sees why and can react.
            if (McpError.is(error) && error.kind === "rpc")
              return toolOutput(error.message, { isError: true });
            throw error;
          }
          const converted = mcpToolContent(result, JSON.stringify(tool.name));
          for (const warning of converted.warnings) options.warn?.(warning);
          return toolOutput(converted.content, { isError: converted.isError });
        },
      });
    }
    return out;
  };

  return {
    server,
    get sessionId() {
      return sessionId;
    },
    get protocolVersion() {
      return protocolVersion;
    },
    connect,
    listTools,
    callTool,
    tools,
    request,
    async notify(method, params, call = {}) {
      await connect(call);
      const message: Record<string, unknown> = { jsonrpc: "2.0", method };
      if (params !== undefined) message.params = params;
      try {
        await post(message, call, true);
      } catch (error) {
        if (error instanceof SessionGone)
          throw fail("http", "HTTP 404: the session was not found", { method, status: 404 });
        throw error;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await connecting;
      } catch {
        // Never connected: nothing to end.
      }
      await endSession();
    },
  };
}

/** A name every provider takes (`^[a-zA-Z0-9_-]{1,64}$`), not yet `taken`; recorded in `taken`. */
function agentToolName(wanted: string, taken: Set<string>): string {
  const base = TOOL_NAME.test(wanted)
    ? wanted
    : wanted.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "tool";
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base.slice(0, 64 - String(n).length - 1)}_${n}`;
  taken.add(name);
  return name;
}

/** A body as text, at most `maxBytes`: more is an error, or with `cut` the first `maxBytes`. */
async function readBounded(http: Response, maxBytes: number, cut = false): Promise<string> {
  const reader = http.body?.getReader();
  if (!reader) return "";
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      if (cut)
        return text + decoder.decode(value.subarray(0, Math.max(0, value.byteLength - (size - maxBytes))));
      throw new TooLarge(`the answer is larger than ${maxBytes} bytes (maxResponseBytes)`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * The strings an error must never show: each header value, its credential after the scheme (`Bearer x`:
 * `x`), a Basic credential decoded (`user:pass`, and each half), and the URL's query values and userinfo.
 */
function secretsOf(headers: Readonly<Record<string, string>>, text: string): string[] {
  const secrets: string[] = [];
  for (const value of Object.values(headers)) {
    const credential = value.replace(/^\S+\s+/, "");
    secrets.push(value, credential);
    if (/^basic\s/i.test(value)) {
      try {
        const decoded = atob(credential.trim());
        secrets.push(decoded, ...decoded.split(":"));
      } catch {
        // Not base64: the value itself is already listed.
      }
    }
  }
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    // Not a URL: the request fails and says so; nothing in it to keep secret.
  }
  if (url) {
    for (const [, value] of url.searchParams) secrets.push(value);
    if (url.username) secrets.push(decodeURIComponent(url.username));
    if (url.password) secrets.push(decodeURIComponent(url.password));
  }
  return secrets.filter((secret) => secret.length >= 4);
}
