/**
 * The gateway's model routes inside workerd, with the upstream providers faked at the fetch layer:
 * validation, /v1/complete, /v1/stream and /v1/chat/completions on an Anthropic route and an OpenAI Chat
 * route, a stream cut mid-way, a client disconnect, upstream errors before output, and a bad config.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createWorker, type WorkerEnv } from "../../src/worker/app.ts";
import {
  ANTHROPIC_BASE,
  ANTHROPIC_KEY,
  anthropicError,
  anthropicEvents,
  anthropicFrames,
  anthropicMessage,
  dataOf,
  gateway,
  gatewayEnv,
  OPENAI_BASE,
  OPENAI_KEY,
  openaiCompletion,
  openaiFrames,
  readSse,
  sseResponse,
  streamBody,
  TOKEN,
  type UpstreamCall,
  waitFor,
} from "./helpers.ts";

type Json = Record<string, unknown>;

const WEATHER = {
  name: "get_weather",
  description: "Current weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const MESSAGES = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Weather in Paris?" },
];
const TOOL_PIECES = ['{"ci', 'ty": "Pa', 'ris"}'];

/** Answers like the real APIs: Anthropic on its host, OpenAI on its host; JSON or SSE as asked. */
function realisticUpstream(call: UpstreamCall): Response {
  const stream = call.body.stream === true;
  if (call.url === `${ANTHROPIC_BASE}/messages`) {
    if (!stream)
      return Response.json(
        anthropicMessage("Let me check.", { id: "toolu_01", name: "get_weather", input: { city: "Paris" } }),
      );
    return sseResponse(
      streamBody(
        anthropicFrames(
          anthropicEvents(["Let me ", "check."], {
            id: "toolu_01",
            name: "get_weather",
            pieces: TOOL_PIECES,
          }),
        ),
      ),
    );
  }
  if (call.url === `${OPENAI_BASE}/chat/completions`) {
    if (!stream)
      return Response.json(
        openaiCompletion("gpt-4o-2024-08-06", "Let me check.", {
          id: "call_01",
          name: "get_weather",
          arguments: '{"city": "Paris"}',
        }),
      );
    return sseResponse(
      streamBody(
        openaiFrames("gpt-4o-2024-08-06", ["Let me ", "check."], {
          tool: { id: "call_01", name: "get_weather", pieces: TOOL_PIECES },
        }),
      ),
    );
  }
  return Response.json({ error: { message: "unexpected upstream" } }, { status: 599 });
}

const PROTOCOLS = [
  { route: "claude", protocol: "anthropic", callId: "toolu_01" },
  { route: "gpt", protocol: "openai-chat", callId: "call_01" },
] as const;

/** The body of a streamed call on `route` for `path`: neutral, or Chat Completions. */
function streamBodyFor(path: string, route: string): Json {
  return path === "/v1/stream"
    ? { route, messages: MESSAGES }
    : { model: route, messages: MESSAGES, stream: true };
}

/** The upstream request carried the route's key, and went to the configured URL only. */
function expectUpstreamRequest(call: UpstreamCall, route: "claude" | "gpt", stream: boolean) {
  if (route === "claude") {
    expect(call.url).toBe(`${ANTHROPIC_BASE}/messages`);
    expect(call.headers.get("x-api-key")).toBe(ANTHROPIC_KEY);
    expect(call.body).toMatchObject({
      model: "claude-sonnet-4-5",
      system: [{ type: "text", text: "Be brief." }],
      messages: [{ role: "user", content: [{ type: "text", text: "Weather in Paris?" }] }],
      tools: [{ name: "get_weather", input_schema: WEATHER.parameters }],
    });
  } else {
    expect(call.url).toBe(`${OPENAI_BASE}/chat/completions`);
    expect(call.headers.get("authorization")).toBe(`Bearer ${OPENAI_KEY}`);
    expect(call.body).toMatchObject({
      model: "gpt-4o",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "Weather in Paris?" },
      ],
      tools: [{ type: "function", function: { name: "get_weather" } }],
    });
  }
  if (stream) expect(call.body.stream).toBe(true);
  else expect(call.body.stream).toBeUndefined();
  // The gateway's own token never travels upstream.
  expect([...call.headers.values()].join(" ")).not.toContain(TOKEN);
}

describe("validation", () => {
  const { call } = gateway(realisticUpstream);

  /**
   * The paths of the bad fields a 400 names: in modelwire's shape (`kind: "bad_request"`, `issues`), or on
   * `/v1/chat/completions` in OpenAI's (`type: "invalid_request_error"`, the first bad field in `param`,
   * every one still listed in `issues`).
   */
  async function issues(response: Response, path = "") {
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      error: { kind?: string; type?: string; param?: string; code?: unknown; issues: { path: string }[] };
    };
    if (path === "/v1/chat/completions") {
      expect(body.error).toMatchObject({
        message: expect.any(String),
        type: "invalid_request_error",
        param: body.error.issues[0]!.path,
        code: null,
      });
      expect(body.error.kind).toBeUndefined();
    } else {
      expect(body.error.kind).toBe("bad_request");
    }
    return body.error.issues.map((issue) => issue.path);
  }

  it("a body that is not JSON: 400 naming the body", async () => {
    for (const path of ["/v1/complete", "/v1/stream", "/v1/chat/completions", "/v1/tasks"]) {
      const response = await call(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"route": "claude", ',
      });
      expect(await issues(response, path)).toEqual(["body"]);
    }
  });

  it("missing messages, a bad option, an unknown field, an unknown route: 400 naming the field", async () => {
    expect(await issues(await call("/v1/complete", { json: { route: "claude" } }))).toEqual(["messages"]);
    expect(await issues(await call("/v1/stream", { json: { route: "claude", messages: [] } }))).toEqual([
      "messages",
    ]);
    expect(
      await issues(
        await call("/v1/complete", {
          json: { route: "claude", messages: MESSAGES, options: { temperature: 7 } },
        }),
      ),
    ).toEqual(["options.temperature"]);
    expect(
      await issues(
        await call("/v1/stream", {
          json: { route: "claude", messages: MESSAGES, options: { maxTokens: "lots" } },
        }),
      ),
    ).toEqual(["options.maxTokens"]);
    expect(
      await issues(
        await call("/v1/complete", {
          json: { route: "claude", messages: [{ role: "wizard", content: "hi" }] },
        }),
      ),
    ).toEqual([expect.stringMatching(/^messages\[0\]/)]);
    const unknownRoute = await call("/v1/complete", { json: { route: "nope", messages: MESSAGES } });
    expect(unknownRoute.status).toBe(400);
    expect(await unknownRoute.json()).toMatchObject({
      error: { issues: [{ path: "route", message: expect.stringContaining("claude, gpt, pool, demo") }] },
    });
  });

  it("chat completions: missing model, bad temperature: 400 naming the field, in OpenAI's shape", async () => {
    const chat = "/v1/chat/completions";
    expect(await issues(await call(chat, { json: { messages: MESSAGES } }), chat)).toEqual(["model"]);
    expect(
      await issues(await call(chat, { json: { model: "gpt", messages: MESSAGES, temperature: 5 } }), chat),
    ).toEqual(["temperature"]);
    expect(await issues(await call(chat, { json: { model: "gpt", messages: [] } }), chat)).toEqual([
      "messages",
    ]);
  });

  it("chat completions: an unknown model is OpenAI's 404 model_not_found, streamed or not", async () => {
    for (const stream of [false, true]) {
      const response = await call("/v1/chat/completions", {
        json: { model: "nope", messages: MESSAGES, stream },
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({
        error: {
          message: "The model `nope` does not exist or you do not have access to it.",
          type: "invalid_request_error",
          param: "model",
          code: "model_not_found",
        },
      });
    }
  });

  it("tasks: unknown workflow and bad input: 400 naming the field", async () => {
    expect(await issues(await call("/v1/tasks", { json: { workflow: "nope", input: "x" } }))).toEqual([
      "workflow",
    ]);
    expect(await issues(await call("/v1/tasks", { json: { workflow: "demo", input: "" } }))).toEqual([
      "input",
    ]);
    expect(
      await issues(await call("/v1/tasks", { json: { workflow: "demo", input: "x", id: "a/b" } })),
    ).toEqual(["id"]);
  });

  it("an oversized body: 413 before any upstream call", async () => {
    const small = gateway(realisticUpstream, { maxBodyBytes: 2048 });
    const big = { route: "claude", messages: [{ role: "user", content: "x".repeat(4096) }] };
    for (const path of ["/v1/complete", "/v1/stream", "/v1/chat/completions"]) {
      const response = await small.call(path, {
        json: path.endsWith("completions") ? { ...big, model: "claude" } : big,
      });
      expect(response.status, path).toBe(413);
      // In the path's dialect: OpenAI's shape on /v1/chat/completions.
      expect(await response.json()).toEqual(
        path === "/v1/chat/completions"
          ? {
              error: {
                message: "request body too large",
                type: "invalid_request_error",
                param: null,
                code: "request_too_large",
              },
            }
          : { error: { kind: "bad_request", message: "request body too large" } },
      );
    }
    // A body streamed without content-length is counted as it arrives.
    const chunked = await small.call("/v1/complete", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: new Blob([JSON.stringify(big)]).stream(),
    });
    expect(chunked.status).toBe(413);
    expect(small.calls).toHaveLength(0);
  });

  it("the deployed Worker's default limit is 4 MiB", async () => {
    const body = JSON.stringify({
      route: "demo",
      messages: [{ role: "user", content: "x".repeat(4 * 1024 * 1024) }],
    });
    const response = await exports.default.fetch("http://worker.test/v1/complete", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      body,
    });
    expect(response.status).toBe(413);
  });
});

describe.each(PROTOCOLS)("$protocol route ($route)", ({ route, callId }) => {
  it("POST /v1/complete: the neutral Response as JSON", async () => {
    const { call, calls } = gateway(realisticUpstream);
    const response = await call("/v1/complete", {
      json: { route, messages: MESSAGES, tools: [WEATHER], options: { maxTokens: 300 } },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(calls).toHaveLength(1);
    expectUpstreamRequest(calls[0]!, route, false);
    const body = (await response.json()) as Json;
    expect(body).toMatchObject({
      message: {
        role: "assistant",
        content: "Let me check.",
        toolCalls: [{ id: callId, name: "get_weather", arguments: { city: "Paris" } }],
      },
      stopReason: "tool-calls",
      usage: { outputTokens: route === "claude" ? 89 : 17 },
    });
  });

  it("POST /v1/stream: SSE of StreamEvents, named by type, ending with done", async () => {
    const { call, calls } = gateway(realisticUpstream);
    const response = await call("/v1/stream", { json: { route, messages: MESSAGES, tools: [WEATHER] } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const frames = await readSse(response);
    expectUpstreamRequest(calls[0]!, route, true);
    const events = dataOf(frames) as { type: string; text?: string; argumentsDelta?: string }[];
    expect(frames.map((frame) => frame.event)).toEqual(events.map((event) => event.type));
    expect(frames.some((frame) => frame.event === "error")).toBe(false);
    expect(frames.at(-1)!.event).toBe("done");
    expect(
      events
        .filter((event) => event.type === "text-delta")
        .map((event) => event.text)
        .join(""),
    ).toBe("Let me check.");
    expect(events.map((event) => event.type)).toContain("tool-call-start");
    expect(
      events
        .filter((event) => event.type === "tool-call-delta")
        .map((event) => event.argumentsDelta)
        .join(""),
    ).toBe('{"city": "Paris"}');
    expect(events.at(-1)).toMatchObject({
      type: "done",
      response: {
        message: { content: "Let me check.", toolCalls: [{ id: callId, arguments: { city: "Paris" } }] },
        stopReason: "tool-calls",
      },
    });
  });

  it("POST /v1/chat/completions, not streamed: a chat.completion with the tool call and usage", async () => {
    const { call, calls } = gateway(realisticUpstream);
    const response = await call("/v1/chat/completions", {
      json: {
        model: route,
        messages: MESSAGES,
        tools: [{ type: "function", function: WEATHER }],
        max_tokens: 300,
      },
    });
    expect(response.status).toBe(200);
    expectUpstreamRequest(calls[0]!, route, false);
    const body = (await response.json()) as Json;
    expect(body).toMatchObject({
      object: "chat.completion",
      model: route,
      choices: [
        {
          index: 0,
          finish_reason: "tool_calls",
          message: {
            role: "assistant",
            content: "Let me check.",
            tool_calls: [{ id: callId, type: "function", function: { name: "get_weather" } }],
          },
        },
      ],
      usage:
        route === "claude"
          ? {
              prompt_tokens: 572,
              completion_tokens: 89,
              total_tokens: 661,
              prompt_tokens_details: { cached_tokens: 100 },
            }
          : {
              prompt_tokens: 82,
              completion_tokens: 17,
              total_tokens: 99,
              prompt_tokens_details: { cached_tokens: 64 },
            },
    });
    const toolCall = (
      body as { choices: { message: { tool_calls: { function: { arguments: string } }[] } }[] }
    ).choices[0]!.message.tool_calls[0]!;
    expect(JSON.parse(toolCall.function.arguments)).toEqual({ city: "Paris" });
  });

  it("POST /v1/chat/completions, streamed: chunks, finish_reason, usage chunk, [DONE]", async () => {
    const { call, calls } = gateway(realisticUpstream);
    const response = await call("/v1/chat/completions", {
      json: {
        model: route,
        messages: MESSAGES,
        tools: [{ type: "function", function: WEATHER }],
        stream: true,
        stream_options: { include_usage: true },
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const frames = await readSse(response);
    expectUpstreamRequest(calls[0]!, route, true);
    expect(frames.every((frame) => frame.event === undefined)).toBe(true);
    expect(frames.at(-1)!.data).toBe("[DONE]");
    const chunks = dataOf(frames.slice(0, -1)) as {
      object: string;
      choices: { delta: Json; finish_reason: string | null }[];
      usage?: Json;
    }[];
    expect(chunks.every((chunk) => chunk.object === "chat.completion.chunk")).toBe(true);
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: "assistant", content: "" });
    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));
    expect(deltas.map((delta) => delta.content ?? "").join("")).toBe("Let me check.");
    const toolDeltas = deltas.flatMap(
      (delta) =>
        (delta.tool_calls as { id?: string; function: { name?: string; arguments?: string } }[]) ?? [],
    );
    expect(toolDeltas[0]).toMatchObject({ id: callId, function: { name: "get_weather" } });
    expect(toolDeltas.map((delta) => delta.function.arguments ?? "").join("")).toBe('{"city": "Paris"}');
    const finishes = chunks
      .flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason))
      .filter(Boolean);
    expect(finishes).toEqual(["tool_calls"]);
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: { completion_tokens: route === "claude" ? 89 : 17 },
    });
  });

  it("an upstream cut mid-stream ends the SSE with an error frame (modelwire's or OpenAI's), never done", async () => {
    const full =
      route === "claude"
        ? anthropicFrames(anthropicEvents(["Let me ", "check ", "the ", "weather."]))
        : openaiFrames("gpt-4o-2024-08-06", ["Let me ", "check ", "the ", "weather."]);
    for (const end of ["close", "error"] as const) {
      const { call } = gateway(() => sseResponse(streamBody(full.slice(0, 5), { end })));
      for (const path of ["/v1/stream", "/v1/chat/completions"]) {
        const response = await call(path, { json: streamBodyFor(path, route) });
        expect(response.status).toBe(200);
        const frames = await readSse(response);
        const last = frames.at(-1)!;
        expect(frames.some((frame) => frame.event === "done" || frame.data === "[DONE]")).toBe(false);
        const error = JSON.parse(last.data) as Json;
        const kind = end === "close" ? "truncated" : "network";
        if (path === "/v1/chat/completions") {
          // OpenAI's error frame: no event name, `{"error": {message, type, param, code}}`, then the end.
          expect(frames.every((frame) => frame.event === undefined)).toBe(true);
          expect(frames.filter((frame) => frame.data.startsWith('{"error"'))).toHaveLength(1);
          expect(error).toEqual({
            error: { message: expect.any(String), type: "server_error", param: null, code: "server_error" },
          });
        } else {
          expect(last.event, `${end} ${path}`).toBe("error");
          expect(frames.filter((frame) => frame.event === "error")).toHaveLength(1);
          expect(error).toMatchObject({
            name: "ProviderError",
            kind,
            partialOutput: true,
            retryable: expect.any(Boolean),
          });
        }
        expect(last.data).not.toContain(route === "claude" ? ANTHROPIC_KEY : OPENAI_KEY);
        // Some text did go out before the cut.
        expect(frames.length).toBeGreaterThan(1);
      }
    }
  });

  it("a client disconnect aborts the upstream fetch (stream and chat completions)", async () => {
    const frames =
      route === "claude"
        ? anthropicFrames(anthropicEvents(["Hello"])).slice(0, 4)
        : openaiFrames("gpt-4o-2024-08-06", ["Hello"]).slice(0, 2);
    for (const path of ["/v1/stream", "/v1/chat/completions"]) {
      const { call, calls } = gateway((upstream) =>
        sseResponse(streamBody(frames, { end: "hang", signal: upstream.signal })),
      );
      const response = await call(path, { json: streamBodyFor(path, route) });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(first.done).toBe(false);
      const signal = calls[0]!.signal!;
      expect(signal.aborted).toBe(false);
      await reader.cancel();
      await waitFor(() => signal.aborted);
    }
  });

  it("a client disconnect aborts the upstream fetch of /v1/complete", async () => {
    let seen: AbortSignal | undefined;
    const { worker } = gateway(
      (upstream) =>
        new Promise<Response>((_resolve, reject) => {
          seen = upstream.signal;
          upstream.signal?.addEventListener("abort", () => reject(upstream.signal?.reason), { once: true });
        }),
    );
    const client = new AbortController();
    const pending = worker.app.fetch(
      new Request("http://gateway.test/v1/complete", {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ route, messages: MESSAGES }),
        signal: client.signal,
      }),
      gatewayEnv,
    );
    await waitFor(() => seen);
    client.abort();
    await waitFor(() => seen!.aborted);
    const response = await pending;
    expect(response.status).toBe(499);
    expect(await response.json()).toMatchObject({ error: { kind: "aborted" } });
  });
});

describe("upstream errors before any output", () => {
  it("Anthropic 429: HTTP 429 with the error JSON (kind, retry-after), no key even when upstream echoes it", async () => {
    const { call } = gateway(() =>
      anthropicError(
        429,
        "rate_limit_error",
        `Number of request tokens has exceeded your rate limit (key ${ANTHROPIC_KEY})`,
        {
          "retry-after": "7",
        },
      ),
    );
    for (const [path, json] of [
      ["/v1/complete", { route: "claude", messages: MESSAGES }],
      ["/v1/stream", { route: "claude", messages: MESSAGES }],
      ["/v1/chat/completions", { model: "claude", messages: MESSAGES, stream: true }],
      ["/v1/chat/completions", { model: "claude", messages: MESSAGES }],
    ] as const) {
      const response = await call(path, { json });
      expect(response.status, path).toBe(429);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(response.headers.get("retry-after"), path).toBe("7");
      expect(response.headers.get("retry-after-ms"), path).toBe("7000");
      const text = await response.text();
      expect(text).not.toContain(ANTHROPIC_KEY);
      if (path === "/v1/chat/completions") {
        // OpenAI's shape: the openai SDK reads message/type/code (and raises its RateLimitError on the 429).
        expect(JSON.parse(text)).toEqual({
          error: {
            message: expect.stringContaining("Number of request tokens has exceeded your rate limit"),
            type: "requests",
            param: null,
            code: "rate_limit_exceeded",
          },
        });
        continue;
      }
      expect(JSON.parse(text)).toMatchObject({
        error: {
          name: "ProviderError",
          kind: "rate_limit",
          status: 429,
          retryable: true,
          retryAfterMs: 7000,
          provider: "anthropic",
          code: "rate_limit_error",
          requestId: "req_011CSHoEeqs5C35K2UUqR7Fy",
          partialOutput: false,
        },
      });
    }
  });

  it("Anthropic 529 overloaded: HTTP 503 with the error JSON, not an SSE body", async () => {
    const { call } = gateway(() => anthropicError(529, "overloaded_error", "Overloaded"));
    const response = await call("/v1/stream", { json: { route: "claude", messages: MESSAGES } });
    expect(response.status).toBe(503);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toMatchObject({
      error: { kind: "overloaded", status: 529, code: "overloaded_error", retryable: true },
    });
  });

  it("OpenAI 401 (a bad upstream key): 502, the key never in the answer", async () => {
    const { call } = gateway(() =>
      Response.json(
        {
          error: {
            message: `Incorrect API key provided: ${OPENAI_KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
            type: "invalid_request_error",
            param: null,
            code: "invalid_api_key",
          },
        },
        { status: 401 },
      ),
    );
    const response = await call("/v1/complete", { json: { route: "gpt", messages: MESSAGES } });
    expect(response.status).toBe(502);
    const text = await response.text();
    expect(text).not.toContain(OPENAI_KEY);
    expect(JSON.parse(text)).toMatchObject({ error: { kind: "auth", status: 401, code: "invalid_api_key" } });
  });
});

describe("configuration", () => {
  it("GET /v1/models lists the routes", async () => {
    const { call } = gateway(realisticUpstream);
    const response = await call("/v1/models");
    expect(await response.json()).toEqual({
      object: "list",
      data: ["claude", "gpt", "pool", "demo"].map((id) => ({
        id,
        object: "model",
        created: 0,
        owned_by: "modelwire",
      })),
    });
  });

  /**
   * A configuration problem's error object: modelwire's `kind: "config"`, or on the OpenAI endpoints
   * OpenAI's shape (`server_error`, code `config`); the fields to fix are listed either way.
   */
  const configErrorShape = (path: string) =>
    path === "/v1/chat/completions" || path === "/v1/models"
      ? { type: "server_error", param: null, code: "config", issues: expect.any(Array) }
      : { kind: "config", issues: expect.any(Array) };

  /** Configs the gateway cannot read at all: every route is a 500 naming the field. */
  const UNREADABLE: [label: string, config: string, field: string][] = [
    ["not JSON", "{ routes: ", "MODELWIRE_CONFIG"],
    ["no routes object", JSON.stringify({ routez: {} }), "routez"],
  ];

  const sender =
    (worker: ReturnType<typeof createWorker>, badEnv: WorkerEnv) => (path: string, json?: unknown) =>
      worker.app.fetch(
        new Request(`http://worker.test${path}`, {
          method: json === undefined ? "GET" : "POST",
          headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
          ...(json === undefined ? {} : { body: JSON.stringify(json) }),
        }),
        badEnv,
      );

  it.each(UNREADABLE)(
    "an unreadable MODELWIRE_CONFIG (%s): 500 naming the field, logged once",
    async (_label, config, field) => {
      const logs: string[] = [];
      const worker = createWorker({ log: (message) => logs.push(message) });
      const badEnv: WorkerEnv = { ...env, MODELWIRE_CONFIG: config };
      const send = sender(worker, badEnv);
      for (const [path, json] of [
        ["/v1/models", undefined],
        ["/v1/complete", { route: "demo", messages: MESSAGES }],
        ["/v1/stream", { route: "demo", messages: MESSAGES }],
        ["/v1/chat/completions", { model: "demo", messages: MESSAGES }],
      ] as const) {
        const response = await send(path, json);
        expect(response.status, path).toBe(500);
        const body = (await response.json()) as { error: Record<string, unknown> & { message: string } };
        expect(body.error, path).toMatchObject(configErrorShape(path));
        expect(body.error.message).toContain(field);
      }
      expect(logs).toHaveLength(1);
      expect(logs[0]).toContain(field);
      const health = await worker.app.fetch(new Request("http://worker.test/health"), badEnv);
      expect(health.status).toBe(200);
    },
  );

  /** Configs with one bad route: that route is a 500 naming every problem; the others are served. */
  const BAD_ROUTES: [label: string, route: unknown, fields: string[]][] = [
    [
      "a missing secret",
      { protocol: "anthropic", model: "claude-sonnet-4-5", apiKeySecret: "NO_SUCH_SECRET" },
      ["routes.bad.apiKeySecret"],
    ],
    ["a route without a model", { protocol: "openai-chat" }, ["routes.bad.model"]],
    [
      "a misspelt setting",
      { protocol: "openai-chat", model: "m", basURL: "http://x" },
      ["routes.bad.basURL"],
    ],
    [
      "a bad pool (every member's problem)",
      {
        pool: [
          { endpoint: "vllm", model: "" },
          { protocol: "anthropic", model: "claude-sonnet-4-5" },
        ],
      },
      ["routes.bad.pool[0].model", "routes.bad.pool[1].apiKeySecret"],
    ],
  ];

  it.each(BAD_ROUTES)(
    "a bad route (%s): a 500 naming it, logged once; every other route served",
    async (_label, route, fields) => {
      const logs: string[] = [];
      const worker = createWorker({ log: (message) => logs.push(message) });
      const badEnv: WorkerEnv = {
        ...env,
        MODELWIRE_CONFIG: JSON.stringify({ routes: { demo: { demo: true }, bad: route } }),
      };
      const send = sender(worker, badEnv);
      for (const [path, json] of [
        ["/v1/complete", { route: "bad", messages: MESSAGES }],
        ["/v1/stream", { route: "bad", messages: MESSAGES }],
        ["/v1/chat/completions", { model: "bad", messages: MESSAGES }],
      ] as const) {
        const response = await send(path, json);
        expect(response.status, path).toBe(500);
        const body = (await response.json()) as {
          error: { message: string; issues: { path: string }[] };
        };
        expect(body.error, path).toMatchObject(configErrorShape(path));
        expect(body.error.issues.map((issue) => issue.path)).toEqual(fields);
        for (const field of fields) expect(body.error.message).toContain(field);
        expect(JSON.stringify(body)).not.toContain(ANTHROPIC_KEY);
      }
      // The healthy route works, and is the only model listed.
      expect((await send("/v1/complete", { route: "demo", messages: MESSAGES })).status).toBe(200);
      const models = (await (await send("/v1/models")).json()) as { data: { id: string }[] };
      expect(models.data.map((model) => model.id)).toEqual(["demo"]);
      expect(logs).toHaveLength(1);
      for (const field of fields) expect(logs[0]).toContain(field);
      expect(logs[0]).not.toContain(ANTHROPIC_KEY);
      expect(logs[0]).not.toContain(TOKEN);
    },
  );

  it("a route's base URL comes from the config only, never from the request", async () => {
    const { call, calls } = gateway(realisticUpstream);
    const response = await call("/v1/complete", {
      json: { route: "claude", messages: MESSAGES, baseURL: "https://evil.test/v1" },
    });
    expect(response.status).toBe(400);
    const chat = await call("/v1/chat/completions", {
      json: {
        model: "claude",
        messages: MESSAGES,
        baseURL: "https://evil.test/v1",
        base_url: "https://evil.test",
      },
    });
    // Chat Completions refuses a field it does not know, as OpenAI does: naming both, calling nothing.
    expect(chat.status).toBe(400);
    const body = (await chat.json()) as { error: { issues: { path: string }[] } };
    expect(body.error.issues.map((issue) => issue.path).sort()).toEqual(["baseURL", "base_url"]);
    expect(calls).toEqual([]);
  });
});

describe("a provider stream that stops without done", () => {
  it("ends the /v1/stream SSE with an error frame, never a clean end", async () => {
    const stopsEarly = {
      name: "custom",
      model: "m",
      protocol: "openai-chat",
      complete: async () => {
        throw new Error("unused");
      },
      async *stream() {
        yield { type: "text-delta" as const, text: "half an answer" };
      },
    };
    const worker = createWorker({
      config: {
        routes: {
          custom: {
            protocol: "openai-chat",
            model: "m",
            endpoint: "generic",
            baseURL: "http://unused.test/v1",
          },
        },
      },
      providers: { factories: { "openai-chat": () => stopsEarly } },
    });
    const response = await worker.app.fetch(
      new Request("http://worker.test/v1/stream", {
        method: "POST",
        headers: { authorization: "Bearer test-token-a", "content-type": "application/json" },
        body: JSON.stringify({ route: "custom", messages: [{ role: "user", content: "hi" }] }),
      }),
      env as unknown as WorkerEnv,
    );
    const text = await response.text();
    expect(text).toContain("event: text-delta");
    expect(text).toMatch(/event: error\ndata: \{[^\n]*"kind":"truncated"/);
    expect(text).not.toContain("event: done");
  });
});

describe("configuration rules", () => {
  it("refuses a key written into MODELWIRE_CONFIG, naming the field", async () => {
    const logs: string[] = [];
    const worker = createWorker({
      config: {
        routes: {
          leaky: { protocol: "anthropic", model: "claude-sonnet-4-5", apiKey: "sk-ant-inline-000000000000" },
        },
      },
      log: (line) => logs.push(line),
    });
    const response = await worker.app.fetch(
      new Request("http://worker.test/v1/complete", {
        method: "POST",
        headers: { authorization: "Bearer test-token-a", "content-type": "application/json" },
        body: JSON.stringify({ route: "leaky", messages: MESSAGES }),
      }),
      env as unknown as WorkerEnv,
    );
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).toContain("routes.leaky.apiKey");
    expect(text).not.toContain("sk-ant-inline");
    expect(logs.join("\n")).not.toContain("sk-ant-inline");
  });

  it("hands AWS_BEARER_TOKEN_BEDROCK to a bedrock route that names no key", async () => {
    const seen: Array<string | null> = [];
    const worker = createWorker({
      config: {
        routes: { nova: { protocol: "bedrock", model: "amazon.nova-pro-v1:0", region: "us-east-1" } },
      },
      providers: {
        fetch: (async (_url: RequestInfo | URL, init?: RequestInit) => {
          seen.push(new Headers(init?.headers).get("authorization"));
          return Response.json(
            { message: "stop here" },
            { status: 400, headers: { "x-amzn-errortype": "ValidationException" } },
          );
        }) as typeof fetch,
      },
      log: () => {},
    });
    const response = await worker.app.fetch(
      new Request("http://worker.test/v1/complete", {
        method: "POST",
        headers: { authorization: "Bearer test-token-a", "content-type": "application/json" },
        body: JSON.stringify({ route: "nova", messages: [{ role: "user", content: "hi" }] }),
      }),
      { ...(env as unknown as WorkerEnv), AWS_BEARER_TOKEN_BEDROCK: "bedrock-bearer-7777777" },
    );
    expect(response.status).toBe(400);
    expect(seen).toEqual(["Bearer bedrock-bearer-7777777"]);
    expect(await response.text()).not.toContain("bedrock-bearer-7777777");
  });
});
