/**
 * `openaiResponses()`: URL, headers, request body, the per-call options (`previousResponseId`, `store`),
 * errors mapped to `ProviderError` kinds, and the API key never appearing in an error.
 */
import { describe, expect, it } from "vitest";
import {
  collectStream,
  type Response as ModelResponse,
  ProviderError,
  type StreamEvent,
  ValidationError,
} from "../../src/index.ts";
import { openaiResponses } from "../../src/providers/openai-responses.ts";
import { byteStream, trackedByteStream } from "../helpers/byte-stream.ts";

/** Shaped like no known key, so only the provider's own redaction (not a pattern) can hide it. */
const KEY = "test-secret-key-7c1e94ab52";
const HI = [{ role: "user" as const, content: "hi" }];
const WEATHER = { name: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } };

type Json = Record<string, unknown>;

interface Captured {
  url: string;
  headers: Headers;
  body: Json;
}

function fakeFetch(respond: (captured: Captured) => Response | Promise<Response>) {
  const requests: Captured[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const captured = {
      url: String(input),
      headers: new Headers(init?.headers),
      body: JSON.parse(String(init?.body)) as Json,
    };
    requests.push(captured);
    return respond(captured);
  }) as typeof fetch;
  return { fetch: fetchImpl, requests };
}

const TEXT_RESPONSE: Json = {
  id: "resp_1",
  object: "response",
  model: "gpt-5-2025-08-07",
  status: "completed",
  output: [
    {
      id: "msg_1",
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: "Hello", annotations: [] }],
    },
  ],
  usage: {
    input_tokens: 20,
    input_tokens_details: { cached_tokens: 8 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
  },
};

function sse(events: readonly (Json | string)[]): string {
  return events
    .map((event) => `data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`)
    .join("");
}

function sseResponse(text: string, chunkSize = 7): Response {
  return new Response(byteStream(new TextEncoder().encode(text), chunkSize), {
    headers: { "content-type": "text/event-stream" },
  });
}

function errorResponse(status: number, error: Json, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ProviderError.is(error), String(error)).toBe(true);
  return error as ProviderError;
}

async function drain(events: AsyncIterable<StreamEvent>): Promise<{ seen: StreamEvent[]; error: unknown }> {
  const seen: StreamEvent[] = [];
  try {
    for await (const event of events) seen.push(event);
  } catch (error) {
    return { seen, error };
  }
  return { seen, error: undefined };
}

const created = {
  type: "response.created",
  response: { id: "resp_1", model: "gpt-5", status: "in_progress" },
};
const textItem = (text: string) => ({
  id: "msg_1",
  type: "message",
  status: "completed",
  role: "assistant",
  content: [{ type: "output_text", text, annotations: [] }],
});

describe("openaiResponses(): settings", () => {
  it("posts to <baseURL>/responses with the key as a bearer token and the caller's headers", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_RESPONSE));
    const provider = openaiResponses({ apiKey: KEY, model: "gpt-5", fetch, headers: { "x-trace": "t1" } });
    expect(provider).toMatchObject({ name: "openai", model: "gpt-5", protocol: "openai-responses" });
    const response = await provider.complete(HI);
    expect(requests[0]!.url).toBe("https://api.openai.com/v1/responses");
    expect(requests[0]!.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(requests[0]!.headers.get("content-type")).toBe("application/json");
    expect(requests[0]!.headers.get("x-trace")).toBe("t1");
    expect(response).toMatchObject({
      provider: "openai",
      model: "gpt-5-2025-08-07",
      id: "resp_1",
      stopReason: "stop",
      rawStopReason: "completed",
      usage: { inputTokens: 12, cachedInputTokens: 8, outputTokens: 5, reasoningTokens: 0 },
      message: {
        content: "Hello",
        native: { protocol: "openai-responses", origin: "openai", model: "gpt-5" },
      },
    });
  });

  it("another server: the path is appended (query kept), the origin is its host, the key is optional", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_RESPONSE));
    const provider = openaiResponses({
      model: "deepseek-v4-flash",
      baseURL: "https://api.deepseek.com/?v=2",
      fetch,
    });
    expect(provider.name).toBe("api.deepseek.com");
    const response = await provider.complete(HI);
    expect(requests[0]!.url).toBe("https://api.deepseek.com/responses?v=2");
    expect(requests[0]!.headers.has("authorization")).toBe(false);
    expect(response.message.native?.origin).toBe("api.deepseek.com");
    const named = openaiResponses({
      model: "m",
      baseURL: "http://proxy.local/v1",
      origin: "copilot",
      name: "gh",
      fetch,
    });
    expect(named.name).toBe("gh");
    expect((await named.complete(HI)).message.native?.origin).toBe("copilot");
  });

  it("bad settings fail when the provider is built, naming the field", () => {
    const bad = (settings: unknown) => {
      try {
        openaiResponses(settings as Parameters<typeof openaiResponses>[0]);
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        return (error as ValidationError).issues[0]?.path;
      }
      throw new Error("expected a ValidationError");
    };
    expect(bad({ apiKey: KEY })).toBe("model");
    expect(bad({ model: "gpt-5" })).toBe("apiKey");
    expect(bad({ model: "gpt-5", apiKey: "" })).toBe("apiKey");
    expect(bad({ model: "gpt-5", apiKey: KEY, baseURL: "not a url" })).toBe("baseURL");
  });
});

describe("openaiResponses(): request body", () => {
  it("stateless by default: store false with encrypted reasoning included; options mapped, warnings kept", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_RESPONSE));
    const provider = openaiResponses({ apiKey: KEY, model: "gpt-5", fetch });
    const response = await provider.complete(
      [{ role: "system", content: "Be brief." }, ...HI],
      [WEATHER, { ...WEATHER, name: "strict_one", strict: true, description: "d" }],
      {
        maxTokens: 300,
        thinking: { effort: "low" },
        toolChoice: { name: "weather" },
        parallelToolCalls: false,
        temperature: 0.2,
        stopSequences: ["END"],
        sessionId: "conv-1",
        metadata: { user_id: "u1" },
      },
    );
    expect(requests[0]!.body).toStrictEqual({
      model: "gpt-5",
      input: [{ role: "user", content: "hi" }],
      store: false,
      instructions: "Be brief.",
      include: ["reasoning.encrypted_content"],
      tools: [
        { type: "function", name: "weather", parameters: WEATHER.parameters, strict: false },
        {
          type: "function",
          name: "strict_one",
          parameters: WEATHER.parameters,
          strict: true,
          description: "d",
        },
      ],
      tool_choice: { type: "function", name: "weather" },
      parallel_tool_calls: false,
      max_output_tokens: 300,
      reasoning: { effort: "low", summary: "auto" },
      metadata: { user_id: "u1" },
      prompt_cache_key: "conv-1",
    });
    expect(response.warnings).toEqual([
      "temperature is not supported by gpt-5; left out",
      "stopSequences ignored: the Responses API has no stop parameter",
    ]);
  });

  it("encrypted reasoning is asked of reasoning models (or when thinking is asked for) only", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_RESPONSE));
    const include = async (model: string, options: Json = {}) => {
      await openaiResponses({ apiKey: KEY, model, fetch }).complete(HI, undefined, options);
      return requests.at(-1)!.body.include;
    };
    const wanted = ["reasoning.encrypted_content"];
    for (const model of ["gpt-5", "gpt-5-mini", "gpt-5.1-codex-max", "o3", "o4-mini", "openai/gpt-5"])
      expect(await include(model), model).toEqual(wanted);
    for (const model of ["gpt-4o", "gpt-4.1-mini", "gpt-5-chat-latest", "deepseek-v4-flash"])
      expect(await include(model), model).toBeUndefined();
    expect(await include("gpt-4.1", { thinking: { effort: "low" } })).toEqual(wanted);
    expect(await include("gpt-4.1", { thinking: "off" })).toBeUndefined();
  });

  it("thinking and tool choice variants", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_RESPONSE));
    const body = async (model: string, options: Json) => {
      await openaiResponses({ apiKey: KEY, model, fetch }).complete(HI, [WEATHER], options);
      return requests.at(-1)!.body;
    };
    expect((await body("gpt-5", { thinking: "adaptive", toolChoice: "any" })).reasoning).toEqual({
      summary: "auto",
    });
    expect((await body("gpt-5", { toolChoice: "any" })).tool_choice).toBe("required");
    expect((await body("gpt-5", { thinking: "off" })).reasoning).toEqual({ effort: "minimal" });
    expect((await body("gpt-5.1", { thinking: "off" })).reasoning).toEqual({ effort: "none" });
    expect((await body("o3", { thinking: "off" })).reasoning).toBeUndefined();
    expect((await body("o3", { thinking: { budgetTokens: 10000 } })).reasoning).toEqual({
      effort: "high",
      summary: "auto",
    });
    expect((await body("gpt-4.1", { temperature: 0.5, topP: 0.9 })).temperature).toBe(0.5);
    expect((await body("gpt-4.1", {})).reasoning).toBeUndefined();
  });

  it("previousResponseId and store: per call, or store on the provider", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_RESPONSE));
    const history = [
      { role: "system" as const, content: "Be brief." },
      ...HI,
      { role: "assistant" as const, content: "Hello" },
      { role: "user" as const, content: "again" },
    ];
    const stateless = openaiResponses({ apiKey: KEY, model: "gpt-5", fetch });
    await stateless.complete(history, undefined, { previousResponseId: "resp_0", store: true });
    expect(requests[0]!.body).toStrictEqual({
      model: "gpt-5",
      input: [{ role: "user", content: "again" }],
      store: true,
      instructions: "Be brief.",
      previous_response_id: "resp_0",
    });
    const stored = openaiResponses({ apiKey: KEY, model: "gpt-5", fetch, store: true });
    await stored.complete(history);
    expect(requests[1]!.body.store).toBe(true);
    expect(requests[1]!.body.include).toBeUndefined();
    expect(requests[1]!.body.input).toHaveLength(3);
    await stored.complete(history, undefined, { store: false });
    expect(requests[2]!.body).toMatchObject({ store: false, include: ["reasoning.encrypted_content"] });
  });

  it("stream() asks for a stream", async () => {
    const { fetch, requests } = fakeFetch(() =>
      sseResponse(
        sse([
          created,
          { type: "response.completed", response: { ...TEXT_RESPONSE, output: [textItem("Hello")] } },
        ]),
      ),
    );
    const response = await collectStream(openaiResponses({ apiKey: KEY, model: "gpt-5", fetch }).stream(HI));
    expect(requests[0]!.body.stream).toBe(true);
    expect(response.message.content).toBe("Hello");
  });
});

describe("openaiResponses(): errors", () => {
  const cases: [string, () => Response, Partial<ProviderError>][] = [
    [
      "400 context_length_exceeded",
      () =>
        errorResponse(400, {
          message: "Your input exceeds the context window",
          code: "context_length_exceeded",
        }),
      { kind: "context_length", status: 400, retryable: false },
    ],
    [
      "401 invalid_api_key",
      () => errorResponse(401, { message: "Incorrect API key", code: "invalid_api_key" }),
      { kind: "auth", status: 401, retryable: false },
    ],
    ["403", () => errorResponse(403, { message: "forbidden" }), { kind: "auth", status: 403 }],
    [
      "404 model_not_found",
      () => errorResponse(404, { message: "no such model", code: "model_not_found" }),
      { kind: "not_found", status: 404 },
    ],
    [
      "429 rate_limit_exceeded with retry-after",
      () => errorResponse(429, { message: "slow down", code: "rate_limit_exceeded" }, { "retry-after": "2" }),
      { kind: "rate_limit", status: 429, retryable: true, retryAfterMs: 2000 },
    ],
    [
      "429 insufficient_quota",
      () => errorResponse(429, { message: "quota", code: "insufficient_quota" }),
      { kind: "rate_limit", retryable: false, code: "insufficient_quota" },
    ],
    [
      "500",
      () => errorResponse(500, { message: "boom", type: "server_error" }),
      { kind: "server", retryable: true },
    ],
    ["503", () => new Response("unavailable", { status: 503 }), { kind: "overloaded", retryable: true }],
    [
      "200 that is not JSON",
      () => new Response("<html>", { status: 200 }),
      { kind: "invalid_response", retryable: false },
    ],
    [
      "200 with an error and no output",
      () => Response.json({ error: { message: "nope", code: "rate_limit_exceeded" } }),
      { kind: "rate_limit" },
    ],
    [
      "200 with a failed response",
      () =>
        Response.json({
          id: "resp_1",
          status: "failed",
          output: [],
          error: { code: "server_error", message: "The model failed" },
        }),
      { kind: "server", retryable: true },
    ],
  ];
  for (const [label, respond, expected] of cases) {
    it(`complete(): ${label} → ${expected.kind}`, async () => {
      const { fetch } = fakeFetch(respond);
      const error = await failure(openaiResponses({ apiKey: KEY, model: "gpt-5", fetch }).complete(HI));
      expect(error).toMatchObject({ provider: "openai", model: "gpt-5", ...expected });
    });
    // A 200 stream is read as SSE: see the stream cases below.
    if (!label.startsWith("200"))
      it(`stream(): ${label} → ${expected.kind}`, async () => {
        const { fetch } = fakeFetch(respond);
        const { seen, error } = await drain(
          openaiResponses({ apiKey: KEY, model: "gpt-5", fetch }).stream(HI),
        );
        expect(seen).toEqual([]);
        expect(error).toMatchObject({ ...expected, partialOutput: false });
      });
  }

  it("a rejected fetch is network; an abort is aborted", async () => {
    const down = openaiResponses({
      apiKey: KEY,
      model: "gpt-5",
      fetch: async () => {
        throw new TypeError("fetch failed");
      },
    });
    expect(await failure(down.complete(HI))).toMatchObject({ kind: "network", retryable: true });
    const controller = new AbortController();
    const slow = openaiResponses({
      apiKey: KEY,
      model: "gpt-5",
      fetch: (_url, init) =>
        new Promise((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
        }),
    });
    const pending = failure(slow.complete(HI, undefined, { signal: controller.signal }));
    controller.abort();
    expect(await pending).toMatchObject({ kind: "aborted", retryable: false });
  });

  it("a 200 stream whose first event is an error is a ProviderError before any output", async () => {
    const { fetch } = fakeFetch(() =>
      sseResponse(
        sse([
          {
            type: "error",
            error: { type: "invalid_request_error", code: "context_length_exceeded", message: "too long" },
          },
        ]),
      ),
    );
    const { seen, error } = await drain(openaiResponses({ apiKey: KEY, model: "gpt-5", fetch }).stream(HI));
    expect(seen).toEqual([]);
    expect(error).toMatchObject({ name: "ProviderError", kind: "context_length", partialOutput: false });
  });

  it("response.failed after some text: a partial ProviderError; the text came first", async () => {
    const { fetch } = fakeFetch(() =>
      sseResponse(
        sse([
          created,
          { type: "response.output_item.added", output_index: 0, item: { ...textItem(""), content: [] } },
          { type: "response.output_text.delta", output_index: 0, content_index: 0, delta: "Hel" },
          {
            type: "response.failed",
            response: { id: "resp_1", status: "failed", error: { code: "server_error", message: "died" } },
          },
        ]),
      ),
    );
    const { seen, error } = await drain(openaiResponses({ apiKey: KEY, model: "gpt-5", fetch }).stream(HI));
    expect(seen).toEqual([{ type: "text-delta", text: "Hel" }]);
    expect(error).toMatchObject({ kind: "server", code: "server_error", partialOutput: true });
    expect((error as Error).message).toContain("died");
  });

  it("response.incomplete (max_output_tokens) ends with stop reason length, stream and complete alike", async () => {
    const incomplete = {
      ...TEXT_RESPONSE,
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [
        { id: "rs_1", type: "reasoning", encrypted_content: "gAAAA-x", summary: [] },
        { ...textItem("Hel"), status: "incomplete" },
      ],
    };
    const { fetch } = fakeFetch(({ body }) =>
      body.stream
        ? sseResponse(
            sse([
              created,
              { type: "response.output_text.delta", output_index: 1, content_index: 0, delta: "Hel" },
              { type: "response.incomplete", response: incomplete },
            ]),
          )
        : Response.json(incomplete),
    );
    const provider = openaiResponses({ apiKey: KEY, model: "gpt-5", fetch });
    const streamed = await collectStream(provider.stream(HI));
    expect(streamed).toMatchObject({ stopReason: "length", rawStopReason: "max_output_tokens" });
    expect(streamed.message.content).toBe("Hel");
    expect(await provider.complete(HI)).toStrictEqual(streamed);
    // Replayed, the reasoning item keeps its message after it; nothing is lost.
    const { fetch: next, requests } = fakeFetch(() => Response.json(TEXT_RESPONSE));
    await openaiResponses({ apiKey: KEY, model: "gpt-5", fetch: next }).complete([
      ...HI,
      streamed.message,
      ...HI,
    ]);
    expect((requests[0]!.body.input as Json[]).map((item) => item.type ?? item.role)).toEqual([
      "user",
      "reasoning",
      "message",
      "user",
    ]);
  });

  it("a stream that ends before its terminal event is truncated; a non-JSON event is invalid_response", async () => {
    const cut = fakeFetch(() =>
      sseResponse(sse([created, { type: "response.output_text.delta", output_index: 0, delta: "Hi" }])),
    );
    const truncated = await drain(
      openaiResponses({ apiKey: KEY, model: "gpt-5", fetch: cut.fetch }).stream(HI),
    );
    expect(truncated.error).toMatchObject({ kind: "truncated", partialOutput: true, retryable: true });
    const garbled = fakeFetch(() => sseResponse(sse([created, "{not json"])));
    const invalid = await drain(
      openaiResponses({ apiKey: KEY, model: "gpt-5", fetch: garbled.fetch }).stream(HI),
    );
    expect(invalid.error).toMatchObject({ kind: "invalid_response", partialOutput: false });
  });

  it("the API key never appears in an error, wherever the server echoes it", async () => {
    const echo = `bad key ${KEY} (Authorization: Bearer ${KEY})`;
    const responders: (() => Response)[] = [
      () => errorResponse(401, { message: echo, code: "invalid_api_key" }),
      () => Response.json({ id: "r", status: "failed", output: [], error: { code: "x", message: echo } }),
      () => sseResponse(sse([{ type: "error", error: { code: "invalid_api_key", message: echo } }])),
      () =>
        sseResponse(
          sse([
            created,
            { type: "response.failed", response: { status: "failed", error: { message: echo } } },
          ]),
        ),
      () => new Response(`<html>${echo}</html>`),
    ];
    for (const respond of responders) {
      const { fetch } = fakeFetch(respond);
      const provider = openaiResponses({ apiKey: KEY, model: "gpt-5", fetch });
      const errors = [
        await failure(provider.complete(HI)),
        (await drain(provider.stream(HI))).error as ProviderError,
      ];
      for (const error of errors) {
        expect(ProviderError.is(error)).toBe(true);
        for (const text of [
          error.message,
          error.upstreamBody ?? "",
          JSON.stringify(error),
          JSON.stringify(error.toJSON()),
        ])
          expect(text).not.toContain(KEY);
      }
    }
  });
});

describe("openaiResponses(): streaming", () => {
  it("breaking out of the loop cancels the body", async () => {
    const bytes = new TextEncoder().encode(
      sse([
        created,
        { type: "response.output_text.delta", output_index: 0, delta: "a" },
        { type: "response.output_text.delta", output_index: 0, delta: "b" },
        { type: "response.completed", response: TEXT_RESPONSE },
      ]),
    );
    const tracked = trackedByteStream(bytes, 16);
    const provider = openaiResponses({
      apiKey: KEY,
      model: "gpt-5",
      fetch: async () => new Response(tracked.stream, { headers: { "content-type": "text/event-stream" } }),
    });
    for await (const event of provider.stream(HI)) if (event.type === "text-delta") break;
    expect(tracked.state.cancelled).toBe(true);
    expect(tracked.state.closed).toBe(false);
  });

  it("a function call streams start, deltas and end; done equals complete() on the same response", async () => {
    const item = {
      id: "fc_1",
      type: "function_call",
      status: "completed",
      arguments: '{"city":"Zürich"}',
      call_id: "call_1",
      name: "weather",
    };
    const final = { ...TEXT_RESPONSE, output: [item] };
    const { fetch } = fakeFetch(({ body }) =>
      body.stream
        ? sseResponse(
            sse([
              created,
              { type: "response.output_item.added", output_index: 0, item: { ...item, arguments: "" } },
              { type: "response.function_call_arguments.delta", output_index: 0, delta: '{"city":' },
              { type: "response.function_call_arguments.delta", output_index: 0, delta: '"Zürich"}' },
              { type: "response.function_call_arguments.done", output_index: 0, arguments: item.arguments },
              { type: "response.output_item.done", output_index: 0, item },
              { type: "response.completed", response: final },
            ]),
            3,
          )
        : Response.json(final),
    );
    const provider = openaiResponses({ apiKey: KEY, model: "gpt-5", fetch });
    const seen: StreamEvent[] = [];
    const streamed: ModelResponse = await collectStream(provider.stream(HI, [WEATHER]), {
      onEvent: (event) => seen.push(event),
    });
    const toolCall = {
      id: "call_1",
      name: "weather",
      arguments: { city: "Zürich" },
      argumentsText: item.arguments,
    };
    expect(seen.filter((e) => e.type.startsWith("tool-call"))[0]).toEqual({
      type: "tool-call-start",
      index: 0,
      id: "call_1",
      name: "weather",
    });
    expect(seen.flatMap((e) => (e.type === "tool-call-delta" ? [e.argumentsDelta] : [])).join("")).toBe(
      item.arguments,
    );
    expect(seen.find((e) => e.type === "tool-call-end")).toEqual({
      type: "tool-call-end",
      index: 0,
      toolCall,
    });
    expect(streamed.stopReason).toBe("tool-calls");
    expect(streamed.message.toolCalls).toEqual([toolCall]);
    expect(await provider.complete(HI, [WEATHER])).toStrictEqual(streamed);
  });
});
