import { describe, expect, it } from "vitest";
import {
  type CallOptions,
  collectStream,
  type Response as ModelResponse,
  type OpenAIChatEndpoint,
  openAIChatEndpointProfile,
  openaiChat,
  ProviderError,
  type StreamEvent,
  sessionAffinity,
  staticAffinity,
  ValidationError,
} from "../../src/index.ts";
import { byteStream } from "../helpers/byte-stream.ts";

/** Shaped like no known key, so only the provider's own redaction (not a pattern) can hide it. */
const KEY = "test-secret-key-4f9a2c71e0";
const HI = [{ role: "user" as const, content: "hi" }];
const WEATHER = { name: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } };

type Json = Record<string, unknown>;

interface Captured {
  url: string;
  headers: Headers;
  body: Json;
}

function fakeFetch(respond: (captured: Captured) => Response | Promise<Response>): {
  fetch: typeof fetch;
  requests: Captured[];
} {
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

function completion(message: Json, extra: Json = {}): Json {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    model: "served-model",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
    usage: {
      prompt_tokens: 20,
      completion_tokens: 5,
      total_tokens: 25,
      prompt_tokens_details: { cached_tokens: 8 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
    ...extra,
  };
}

const TEXT_COMPLETION = completion({ content: "Hello" });

function sse(chunks: readonly (Json | string)[]): string {
  return chunks
    .map((chunk) => `data: ${typeof chunk === "string" ? chunk : JSON.stringify(chunk)}\n\n`)
    .join("");
}

function sseResponse(text: string, chunkSize = 5): Response {
  return new Response(byteStream(new TextEncoder().encode(text), chunkSize), {
    headers: { "content-type": "text/event-stream" },
  });
}

function chunk(delta: Json, finish: string | null = null, extra: Json = {}): Json {
  return {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    model: "served-model",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  };
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

async function streamFailure(iterable: AsyncIterable<StreamEvent>): Promise<ProviderError> {
  return failure(collectStream(iterable));
}

function withParallel(options: CallOptions, parallelToolCalls: boolean): CallOptions {
  return { ...options, parallelToolCalls };
}

// ---------------------------------------------------------------------------------------------------

describe("openaiChat() transport", () => {
  it("posts to {baseURL}/chat/completions with a Bearer key, organisation, project and custom headers", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_COMPLETION));
    const provider = openaiChat({
      apiKey: KEY,
      model: "gpt-4.1-mini",
      fetch,
      organization: "org-1",
      project: "proj-1",
      headers: { "x-trace": "t1" },
    });
    expect(provider).toMatchObject({ name: "openai", model: "gpt-4.1-mini", protocol: "openai-chat" });
    const response = await provider.complete(HI, undefined, { maxTokens: 100 });
    const [request] = requests;
    expect(request!.url).toBe("https://api.openai.com/v1/chat/completions");
    expect(request!.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    expect(request!.headers.get("openai-organization")).toBe("org-1");
    expect(request!.headers.get("openai-project")).toBe("proj-1");
    expect(request!.headers.get("x-trace")).toBe("t1");
    expect(request!.headers.get("content-type")).toBe("application/json");
    expect(request!.body).toStrictEqual({
      model: "gpt-4.1-mini",
      messages: [{ role: "user", content: "hi" }],
      max_completion_tokens: 100,
    });
    expect(response).toMatchObject({
      message: { role: "assistant", content: "Hello" },
      stopReason: "stop",
      rawStopReason: "stop",
      id: "chatcmpl-1",
      model: "served-model",
      provider: "openai",
      usage: { inputTokens: 12, cachedInputTokens: 8, outputTokens: 5, reasoningTokens: 0 },
    });
  });

  it("self-hosted servers: the endpoint's default URL or baseURL (trailing slash ignored), no key, no auth header", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_COMPLETION));
    await openaiChat({ model: "qwen", endpoint: "vllm", fetch }).complete(HI);
    await openaiChat({ model: "llama3", endpoint: "ollama", fetch }).complete(HI);
    await openaiChat({
      model: "m",
      endpoint: "generic",
      baseURL: "https://gw.example/openai/v1/",
      fetch,
    }).complete(HI);
    expect(requests.map((r) => r.url)).toEqual([
      "http://localhost:8000/v1/chat/completions",
      "http://localhost:11434/v1/chat/completions",
      "https://gw.example/openai/v1/chat/completions",
    ]);
    for (const request of requests) expect(request.headers.has("authorization")).toBe(false);
  });

  it("validates its settings: model, apiKey for hosted OpenAI, baseURL for generic, endpoint names", () => {
    const issuePath = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        expect(ValidationError.is(error)).toBe(true);
        return (error as ValidationError).issues[0]!.path;
      }
      throw new Error("expected a ValidationError");
    };
    expect(issuePath(() => openaiChat({ apiKey: KEY, model: "" }))).toBe("model");
    expect(issuePath(() => openaiChat({ model: "gpt-4.1" }))).toBe("apiKey");
    expect(issuePath(() => openaiChat({ model: "m", endpoint: "generic" }))).toBe("baseURL");
    expect(issuePath(() => openaiChat({ model: "m", endpoint: { kind: "my-gateway" } }))).toBe("baseURL");
    for (const name of ["vllm2", "OpenAI", "", "constructor", "toString", "__proto__"]) {
      const make = () => openaiChat({ apiKey: KEY, model: "m", endpoint: name as OpenAIChatEndpoint });
      expect(issuePath(make), name).toBe("endpoint");
      expect(() => make()).toThrow(/unknown endpoint/);
    }
  });

  it("a profile object named like an Object.prototype member still gets the generic profile's fields", () => {
    const profile = openAIChatEndpointProfile({ kind: "constructor" });
    expect(profile).toMatchObject({ kind: "constructor", maxTokensField: "max_tokens", streamUsage: false });
    expect(openAIChatEndpointProfile({ kind: "vllm", textToolCalls: "hermes" })).toMatchObject({
      kind: "vllm",
      baseURL: "http://localhost:8000/v1",
      streamUsage: true,
      textToolCalls: "hermes",
    });
  });
});

describe("openaiChat() endpoint profiles", () => {
  async function bodyFor(
    endpoint: OpenAIChatEndpoint,
    options: CallOptions,
    { stream = false, model = "some-model", tools = [WEATHER] } = {},
  ): Promise<{ body: Json; response: ModelResponse }> {
    const { fetch, requests } = fakeFetch(() =>
      stream
        ? sseResponse(sse([chunk({ content: "ok" }, "stop"), "[DONE]"]))
        : Response.json(TEXT_COMPLETION),
    );
    const provider = openaiChat({ apiKey: KEY, model, endpoint, baseURL: "https://x.example/v1", fetch });
    const response = stream
      ? await collectStream(provider.stream(HI, tools, options))
      : await provider.complete(HI, tools, options);
    return { body: requests[0]!.body, response };
  }

  it("hosted non-reasoning models get no reasoning_effort (they reject it), with a warning", async () => {
    for (const model of ["gpt-4.1", "gpt-4o-mini", "gpt-5-chat-latest"]) {
      const { body, response } = await bodyFor("openai", { thinking: { effort: "low" } }, { model });
      expect(body.reasoning_effort, model).toBeUndefined();
      expect(response.warnings).toEqual([`thinking ignored: ${model} is not a reasoning model`]);
    }
  });

  it("gpt-5-chat models are not reasoning models: they keep temperature", async () => {
    const { body, response } = await bodyFor("openai", { temperature: 0.3 }, { model: "gpt-5-chat-latest" });
    expect(body.temperature).toBe(0.3);
    expect(response.warnings).toBeUndefined();
  });

  it("a baseURL with a query string keeps it after the path; a relative baseURL is refused up front", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_COMPLETION));
    await openaiChat({
      apiKey: KEY,
      model: "m",
      endpoint: "generic",
      baseURL: "https://gw.example/openai/v1?api-version=2",
      fetch,
    }).complete(HI);
    expect(requests[0]!.url).toBe("https://gw.example/openai/v1/chat/completions?api-version=2");
    expect(() => openaiChat({ model: "m", endpoint: "generic", baseURL: "/v1" })).toThrow(
      /^baseURL: must be an absolute URL/,
    );
  });

  it("the output limit goes in max_completion_tokens for OpenAI, max_tokens elsewhere", async () => {
    expect((await bodyFor("openai", { maxTokens: 64 })).body).toMatchObject({ max_completion_tokens: 64 });
    expect((await bodyFor("openai", { maxTokens: 64 })).body.max_tokens).toBeUndefined();
    for (const endpoint of ["vllm", "ollama", "generic", { kind: "deepseek" }] as OpenAIChatEndpoint[]) {
      const { body } = await bodyFor(endpoint, { maxTokens: 64 });
      expect(body.max_tokens, JSON.stringify(endpoint)).toBe(64);
      expect(body.max_completion_tokens).toBeUndefined();
    }
    // A profile may say otherwise.
    const { body } = await bodyFor(
      { kind: "vllm", maxTokensField: "max_completion_tokens" },
      { maxTokens: 9 },
    );
    expect(body).toMatchObject({ max_completion_tokens: 9 });
  });

  it("stream_options.include_usage only where the profile says, and only when streaming", async () => {
    for (const [endpoint, sent] of [
      ["openai", true],
      ["vllm", true],
      ["ollama", true],
      ["generic", false],
      [{ kind: "generic", streamUsage: true }, true],
      [{ kind: "vllm", streamUsage: false }, false],
    ] as [OpenAIChatEndpoint, boolean][]) {
      const { body } = await bodyFor(endpoint, {}, { stream: true });
      expect(body.stream).toBe(true);
      expect(body.stream_options, JSON.stringify(endpoint)).toStrictEqual(
        sent ? { include_usage: true } : undefined,
      );
      const whole = await bodyFor(endpoint, {});
      expect(whole.body.stream).toBeUndefined();
      expect(whole.body.stream_options).toBeUndefined();
    }
  });

  it("thinking → reasoning_effort where the endpoint takes it", async () => {
    const cases: [CallOptions["thinking"], string | undefined, RegExp | undefined][] = [
      [{ effort: "low" }, "low", undefined],
      [{ effort: "medium" }, "medium", undefined],
      [{ effort: "high" }, "high", undefined],
      [{ effort: "minimal" }, "minimal", undefined],
      [{ effort: "max" }, "high", /no "max"/],
      [{ budgetTokens: 1024 }, "low", /budgetTokens 1024/],
      [{ budgetTokens: 4096 }, "medium", /budgetTokens 4096/],
      [{ budgetTokens: 32000 }, "high", /budgetTokens 32000/],
      // o-series models cannot stop reasoning and reject "minimal": left to the server, with a warning.
      ["off", undefined, /thinking "off" has no reasoning_effort for o4-mini/],
      ["adaptive", undefined, undefined],
    ];
    for (const [thinking, effort, warning] of cases) {
      const { body, response } = await bodyFor("openai", { thinking }, { model: "o4-mini" });
      expect(body.reasoning_effort, JSON.stringify(thinking)).toBe(effort);
      if (warning) expect(response.warnings?.some((w) => warning.test(w))).toBe(true);
      else expect(response.warnings).toBeUndefined();
    }
    // The gpt-5 family does take "minimal" for "off".
    expect(
      (await bodyFor("openai", { thinking: "off" }, { model: "gpt-5-mini" })).body.reasoning_effort,
    ).toBe("minimal");
    expect((await bodyFor("vllm", { thinking: { effort: "low" } })).body.reasoning_effort).toBe("low");
    const generic = await bodyFor("generic", { thinking: { effort: "low" } });
    expect(generic.body.reasoning_effort).toBeUndefined();
    expect(generic.response.warnings).toEqual([
      "thinking ignored: the generic endpoint takes no reasoning_effort",
    ]);
  });

  it("hosted reasoning models lose temperature and top_p with a warning; other models and servers keep them", async () => {
    for (const model of ["o3", "o4-mini", "gpt-5", "gpt-5-mini"]) {
      const { body, response } = await bodyFor("openai", { temperature: 0.2, topP: 0.9 }, { model });
      expect(body.temperature, model).toBeUndefined();
      expect(body.top_p).toBeUndefined();
      expect(response.warnings).toEqual([
        `temperature is not supported by ${model}; left out`,
        `top_p is not supported by ${model}; left out`,
      ]);
    }
    const gpt41 = await bodyFor("openai", { temperature: 0.2, topP: 0.9 }, { model: "gpt-4.1" });
    expect(gpt41.body).toMatchObject({ temperature: 0.2, top_p: 0.9 });
    expect(gpt41.response.warnings).toBeUndefined();
    // A self-hosted model that happens to be called o3 is not OpenAI's.
    const local = await bodyFor("vllm", { temperature: 0 }, { model: "o3" });
    expect(local.body.temperature).toBe(0);
  });

  it("parallel_tool_calls only where the profile takes it, and only with tools", async () => {
    expect((await bodyFor("openai", withParallel({}, false))).body.parallel_tool_calls).toBe(false);
    expect((await bodyFor("vllm", withParallel({}, true))).body.parallel_tool_calls).toBe(true);
    const ollama = await bodyFor("ollama", withParallel({}, false));
    expect(ollama.body.parallel_tool_calls).toBeUndefined();
    expect(ollama.response.warnings).toEqual([
      "parallelToolCalls ignored: the ollama endpoint does not take it",
    ]);
    expect((await bodyFor("openai", {})).body.parallel_tool_calls).toBeUndefined();
    const noTools = await bodyFor("openai", withParallel({}, false), { tools: [] });
    expect(noTools.body.parallel_tool_calls).toBeUndefined();
    expect(noTools.body.tools).toBeUndefined();
  });

  it("tools and tool_choice", async () => {
    const { body } = await bodyFor("openai", { toolChoice: "any", stopSequences: ["END"] });
    expect(body.tools).toStrictEqual([
      {
        type: "function",
        function: {
          name: "weather",
          parameters: { type: "object", properties: { city: { type: "string" } } },
        },
      },
    ]);
    expect(body.tool_choice).toBe("required");
    expect(body.stop).toEqual(["END"]);
    expect((await bodyFor("openai", { toolChoice: { name: "weather" } })).body.tool_choice).toStrictEqual({
      type: "function",
      function: { name: "weather" },
    });
    expect((await bodyFor("openai", { toolChoice: "none" })).body.tool_choice).toBe("none");
    const unknown = await bodyFor("openai", { toolChoice: { name: "nope" } });
    expect(unknown.body.tool_choice).toBe("auto");
    expect(unknown.response.warnings?.[0]).toMatch(/"nope", which is not among the tools/);
  });
});

describe("openaiChat() errors", () => {
  const provider = (respond: () => Response | Promise<Response>) =>
    openaiChat({ apiKey: KEY, model: "gpt-4.1", fetch: fakeFetch(respond).fetch });

  it("400 context_length_exceeded → context_length, not retryable", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(
          400,
          {
            message:
              "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
            type: "invalid_request_error",
            param: "messages",
            code: "context_length_exceeded",
          },
          { "x-request-id": "req_1" },
        ),
      ).complete(HI),
    );
    expect(error).toMatchObject({
      kind: "context_length",
      status: 400,
      code: "context_length_exceeded",
      retryable: false,
      requestId: "req_1",
      provider: "openai",
      model: "gpt-4.1",
    });
    expect(error.message).toMatch(/^openai 400: This model's maximum context length/);
  });

  it("an overflow described only in the message is context_length too (servers without codes)", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(400, {
          message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
          type: "BadRequestError",
          code: 400,
        }),
      ).complete(HI),
    );
    expect(error.kind).toBe("context_length");
  });

  it("401 → auth; the key never appears in the error", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(401, {
          message: `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: "invalid_request_error",
          code: "invalid_api_key",
        }),
      ).complete(HI),
    );
    expect(error).toMatchObject({ kind: "auth", status: 401, retryable: false });
    expect(JSON.stringify(error.toJSON())).not.toContain(KEY);
    expect(error.message).toContain("[redacted]");
  });

  it("404 → not_found", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(404, {
          message: "The model `gpt-9` does not exist or you do not have access to it.",
          type: "invalid_request_error",
          code: "model_not_found",
        }),
      ).complete(HI),
    );
    expect(error).toMatchObject({
      kind: "not_found",
      status: 404,
      code: "model_not_found",
      retryable: false,
    });
  });

  it("429 with retry-after → rate_limit, retryable, retryAfterMs", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(
          429,
          {
            message: "Rate limit reached for gpt-4.1 on tokens per min.",
            type: "tokens",
            code: "rate_limit_exceeded",
          },
          { "retry-after": "7" },
        ),
      ).complete(HI),
    );
    expect(error).toMatchObject({ kind: "rate_limit", status: 429, retryable: true, retryAfterMs: 7000 });
    const ms = await failure(
      provider(() =>
        errorResponse(429, { message: "slow down" }, { "retry-after-ms": "250", "retry-after": "1" }),
      ).complete(HI),
    );
    expect(ms.retryAfterMs).toBe(250);
  });

  it("429 without Retry-After takes the wait from x-ratelimit-reset-* (the spent limit's)", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(
          429,
          { message: "Rate limit reached for requests", code: "rate_limit_exceeded" },
          {
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "1.5s",
            "x-ratelimit-remaining-tokens": "9000",
            "x-ratelimit-reset-tokens": "6m0s",
          },
        ),
      ).complete(HI),
    );
    expect(error).toMatchObject({ kind: "rate_limit", retryAfterMs: 1500 });
  });

  it("429 insufficient_quota → rate_limit but not retryable", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(429, {
          message: "You exceeded your current quota, please check your plan and billing details.",
          type: "insufficient_quota",
          code: "insufficient_quota",
        }),
      ).complete(HI),
    );
    expect(error).toMatchObject({
      kind: "rate_limit",
      status: 429,
      code: "insufficient_quota",
      retryable: false,
    });
  });

  it("500 → server, 503 → overloaded, both retryable; a non-JSON body is kept as the upstream body", async () => {
    const server = await failure(
      provider(() =>
        errorResponse(500, { message: "The server had an error", type: "server_error" }),
      ).complete(HI),
    );
    expect(server).toMatchObject({ kind: "server", status: 500, retryable: true });
    const overloaded = await failure(
      provider(() => new Response("upstream connect error", { status: 503 })).complete(HI),
    );
    expect(overloaded).toMatchObject({
      kind: "overloaded",
      status: 503,
      retryable: true,
      upstreamBody: "upstream connect error",
    });
  });

  it("stream(): HTTP errors throw from the iteration, before any event", async () => {
    const events: StreamEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const event of provider(() =>
          errorResponse(429, { message: "busy", code: "rate_limit_exceeded" }, { "retry-after": "2" }),
        ).stream(HI))
          events.push(event);
      })(),
    );
    expect(events).toEqual([]);
    expect(error).toMatchObject({ kind: "rate_limit", retryAfterMs: 2000, partialOutput: false });
  });

  it("a 200 without choices: the error inside it, or invalid_response", async () => {
    const inBody = await failure(
      provider(() => Response.json({ error: { message: "quota", code: "insufficient_quota" } })).complete(HI),
    );
    expect(inBody).toMatchObject({ kind: "rate_limit", retryable: false });
    const empty = await failure(provider(() => new Response("not json")).complete(HI));
    expect(empty).toMatchObject({ kind: "invalid_response", upstreamBody: "not json" });
  });

  it("network failures → network; the key is in no error, whatever path it takes", async () => {
    const network = await failure(
      provider(() => {
        throw new TypeError(`fetch failed (authorization: Bearer ${KEY})`);
      }).complete(HI),
    );
    expect(network.kind).toBe("network");
    const echo = `echo ${KEY}`;
    const errors = [
      network,
      await failure(provider(() => errorResponse(400, { message: echo })).complete(HI)),
      await failure(provider(() => new Response(echo, { status: 502 })).complete(HI)),
      await failure(provider(() => Response.json({ error: { message: echo } })).complete(HI)),
      await streamFailure(provider(() => errorResponse(500, { message: echo })).stream(HI)),
      // A mid-stream error that echoes the key, after output went out.
      await streamFailure(
        provider(() =>
          sseResponse(sse([chunk({ content: "partial" }), { error: { message: echo, code: 500 } }])),
        ).stream(HI),
      ),
      await streamFailure(provider(() => sseResponse(`data: {"oops": "${KEY}`)).stream(HI)),
    ];
    for (const error of errors) {
      expect(JSON.stringify(error.toJSON()), error.message).not.toContain(KEY);
      expect(error.message).not.toContain(KEY);
    }
    expect(errors[5]).toMatchObject({ kind: "server", partialOutput: true });
  });
});

describe("openaiChat() session affinity", () => {
  it("sessionAffinity adds a header and a query parameter per call, from options.sessionId", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_COMPLETION));
    const provider = openaiChat({
      model: "qwen",
      endpoint: "vllm",
      baseURL: "http://router.local/v1",
      fetch,
      affinity: sessionAffinity({ header: "x-session-affinity", query: "session" }),
    });
    await provider.complete(HI, undefined, { sessionId: "conv-1" });
    await collectStream(provider.stream(HI, undefined, { sessionId: "conv 2/é" })).catch(() => undefined);
    await provider.complete(HI);
    await provider.complete(HI, undefined, { sessionId: "" });
    const [first, second, none, empty] = requests;
    expect(first!.headers.get("x-session-affinity")).toBe("conv-1");
    expect(new URL(first!.url).searchParams.get("session")).toBe("conv-1");
    expect(new URL(first!.url).pathname).toBe("/v1/chat/completions");
    expect(second!.headers.get("x-session-affinity")).toBe("conv 2/é");
    expect(new URL(second!.url).searchParams.get("session")).toBe("conv 2/é");
    for (const request of [none!, empty!]) {
      expect(request.headers.has("x-session-affinity")).toBe(false);
      expect(request.url).toBe("http://router.local/v1/chat/completions");
    }
  });

  it("header-only and query-only resolvers add only what they name", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_COMPLETION));
    await openaiChat({
      model: "m",
      endpoint: "vllm",
      fetch,
      affinity: sessionAffinity({ header: "x-sticky" }),
    }).complete(HI, undefined, { sessionId: "s" });
    await openaiChat({
      model: "m",
      endpoint: "vllm",
      fetch,
      affinity: sessionAffinity({ query: "sid" }),
    }).complete(HI, undefined, { sessionId: "s" });
    expect(requests[0]!.url).toBe("http://localhost:8000/v1/chat/completions");
    expect(requests[0]!.headers.get("x-sticky")).toBe("s");
    expect(requests[1]!.url).toBe("http://localhost:8000/v1/chat/completions?sid=s");
    expect(requests[1]!.headers.has("x-sticky")).toBe(false);
  });

  it("staticAffinity sends the same value on every call, whatever the session", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_COMPLETION));
    const provider = openaiChat({
      model: "m",
      endpoint: "vllm",
      fetch,
      affinity: staticAffinity({ header: "x-replica", query: "replica", value: "r-3" }),
    });
    await provider.complete(HI);
    await provider.complete(HI, undefined, { sessionId: "a" });
    await provider.complete(HI, undefined, { sessionId: "b" });
    for (const request of requests) {
      expect(request.headers.get("x-replica")).toBe("r-3");
      expect(new URL(request.url).searchParams.get("replica")).toBe("r-3");
    }
  });

  it("a custom resolver is called per call with the session and model", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(TEXT_COMPLETION));
    const seen: unknown[] = [];
    const provider = openaiChat({
      model: "m",
      endpoint: "vllm",
      fetch,
      affinity: (call) => {
        seen.push(call);
        return call.sessionId ? { headers: { "x-shard": String(call.sessionId.length % 4) } } : undefined;
      },
    });
    await provider.complete(HI, undefined, { sessionId: "abcde" });
    await provider.complete(HI);
    expect(seen).toEqual([
      { sessionId: "abcde", model: "m" },
      { sessionId: undefined, model: "m" },
    ]);
    expect(requests[0]!.headers.get("x-shard")).toBe("1");
    expect(requests[1]!.headers.has("x-shard")).toBe(false);
  });
});

describe("openaiChat() tool calls written as text (vLLM without a tool parser)", () => {
  const HERMES_CONTENT =
    'Let me check the weather.\n<tool_call>\n{"name": "weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "weather", "arguments": {"city": "Zürich <tool_call>"}}\n</tool_call>';

  function server(content: string, pieceSize: number, reasoning = "") {
    const pieces: string[] = [];
    for (let i = 0; i < content.length; i += pieceSize) pieces.push(content.slice(i, i + pieceSize));
    const stream = sse([
      chunk({ role: "assistant", content: "" }),
      ...(reasoning ? [chunk({ reasoning_content: reasoning })] : []),
      ...pieces.map((piece) => chunk({ content: piece })),
      chunk({}, "stop"),
      {
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        model: "served-model",
        choices: [],
        usage: { prompt_tokens: 30, completion_tokens: 40 },
      },
      "[DONE]",
    ]);
    const json = completion(
      { content, ...(reasoning ? { reasoning_content: reasoning } : {}) },
      { usage: { prompt_tokens: 30, completion_tokens: 40 } },
    );
    return fakeFetch((request) => (request.body.stream ? sseResponse(stream, 7) : Response.json(json)));
  }

  const provider = (fetch: typeof globalThis.fetch) =>
    openaiChat({ model: "Qwen/Qwen3-8B", endpoint: { kind: "vllm", textToolCalls: "hermes" }, fetch });

  for (const pieceSize of [1, 2, 3, 5, 11, 1000]) {
    it(`stream() and complete() give the same response; the tag never reaches text events (deltas of ${pieceSize})`, async () => {
      const { fetch } = server(HERMES_CONTENT, pieceSize, "Need the weather.");
      const events: StreamEvent[] = [];
      const streamed = await collectStream(provider(fetch).stream(HI, [WEATHER]), {
        onEvent: (e) => events.push(e),
      });
      const completed = await provider(fetch).complete(HI, [WEATHER]);
      expect(streamed).toStrictEqual(completed);
      const text = events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");
      // The newline between the two calls is text too: nothing the model wrote outside a tag is dropped.
      expect(text).toBe("Let me check the weather.\n\n");
      expect(text).not.toContain("<tool");
      expect(streamed.message.content).toBe(text);
      expect(streamed.message.toolCalls).toStrictEqual([
        {
          id: "call_chatcmpl-1_0",
          name: "weather",
          arguments: { city: "Paris" },
          argumentsText: '{"city":"Paris"}',
        },
        {
          id: "call_chatcmpl-1_1",
          name: "weather",
          arguments: { city: "Zürich <tool_call>" },
          argumentsText: '{"city":"Zürich <tool_call>"}',
        },
      ]);
      expect(streamed.stopReason).toBe("tool-calls");
      expect(streamed.rawStopReason).toBe("stop");
      expect(streamed.reasoning).toBe("Need the weather.");
      expect(streamed.usage).toStrictEqual({ inputTokens: 30, outputTokens: 40 });
      // Tool-call events for both calls, in order, ending before done.
      expect(
        events.filter((e) => e.type === "tool-call-start").map((e) => e.type === "tool-call-start" && e.name),
      ).toEqual(["weather", "weather"]);
      expect(events.filter((e) => e.type === "tool-call-end")).toHaveLength(2);
      // Text before the first tag went out before any tool event. (The newline between the tags may come
      // before the first call's events when one delta completes the tag and carries it: the scanner hands
      // text and calls back separately per delta.)
      const firstTool = events.findIndex((e) => e.type === "tool-call-start");
      const before = events.slice(0, firstTool).flatMap((e) => (e.type === "text-delta" ? [e.text] : []));
      expect(before.join("")).toMatch(/^Let me check the weather\.\n\n?$/);
    });
  }

  it("text before a tag is yielded while the tag is still open (nothing waits for the end of the body)", async () => {
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
    });
    const send = (data: Json | string) => controller.enqueue(encoder.encode(sse([data])));
    const push = (delta: Json) => send(chunk(delta));
    const stream = provider(async () => new Response(body)).stream(HI, [WEATHER]);
    const iterator = stream[Symbol.asyncIterator]();
    const next = () =>
      Promise.race([
        iterator.next(),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("no event: text held back")), 1000),
        ),
      ]);
    push({ role: "assistant", content: "" });
    push({ content: "Let me check" });
    push({ content: " the weather.\n<tool" });
    push({ content: '_call>\n{"name": "weather", "arg' });
    let text = "";
    while (text !== "Let me check the weather.\n") {
      const { value } = await next();
      expect(value?.type).toBe("text-delta");
      if (value?.type === "text-delta") text += value.text;
    }
    push({ content: 'uments": {"city": "Paris"}}\n</tool_call>' });
    send(chunk({}, "stop"));
    send("[DONE]");
    controller.close();
    const rest: StreamEvent[] = [];
    for (let step = await next(); !step.done; step = await next()) rest.push(step.value);
    expect(rest.map((e) => e.type)).toEqual(["tool-call-start", "tool-call-delta", "tool-call-end", "done"]);
    expect(rest.some((e) => e.type === "text-delta")).toBe(false);
  });

  it("the replayed assistant turn sends the calls as tool_calls, not as text", async () => {
    const { fetch, requests } = server(HERMES_CONTENT, 4);
    const response = await collectStream(provider(fetch).stream(HI, [WEATHER]));
    await provider(fetch)
      .complete(
        [
          ...HI,
          response.message,
          {
            role: "tool",
            toolResults: response.message.toolCalls.map((c) => ({ callId: c.id, content: "sunny" })),
          },
        ],
        [WEATHER],
      )
      .catch(() => undefined);
    const replay = requests[1]!.body.messages as Json[];
    expect(replay[1]).toStrictEqual({
      role: "assistant",
      content: "Let me check the weather.\n\n",
      tool_calls: response.message.toolCalls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.argumentsText },
      })),
    });
    expect(replay.slice(2).map((m) => m.role)).toEqual(["tool", "tool"]);
  });

  it("a malformed tag stays text, with a warning, in both paths", async () => {
    const content = 'Sure.\n<tool_call>\n{"name": "weather", "arguments": {"city": \n</tool_call> done';
    for (const size of [1, 4, 1000]) {
      const { fetch } = server(content, size);
      const streamed = await collectStream(provider(fetch).stream(HI, [WEATHER]));
      const completed = await provider(fetch).complete(HI, [WEATHER]);
      expect(streamed).toStrictEqual(completed);
      expect(streamed.message.content).toBe(content);
      expect(streamed.message.toolCalls).toEqual([]);
      expect(streamed.stopReason).toBe("stop");
      expect(streamed.warnings?.length).toBeGreaterThan(0);
    }
  });

  it("without textToolCalls in the profile, the same text is just text", async () => {
    const { fetch } = server(HERMES_CONTENT, 3);
    const plain = openaiChat({ model: "Qwen/Qwen3-8B", endpoint: "vllm", fetch });
    const streamed = await collectStream(plain.stream(HI, [WEATHER]));
    expect(streamed.message.content).toBe(HERMES_CONTENT);
    expect(streamed.message.toolCalls).toEqual([]);
    expect(await plain.complete(HI, [WEATHER])).toStrictEqual(streamed);
  });
});

describe("openaiChat() stream assembly beyond the recordings", () => {
  const provider = (text: string) =>
    openaiChat({
      model: "m",
      endpoint: { kind: "gemini-compat" },
      baseURL: "https://x.example/v1",
      fetch: async () => sseResponse(text, 3),
    });
  const toolDelta = (call: Json) => chunk({ tool_calls: [call] });

  it("tool-call deltas without index (Gemini's compatible API): a new id is a new call, no id continues the last", async () => {
    const response = await collectStream(
      provider(
        sse([
          toolDelta({ id: "call_a", type: "function", function: { name: "weather", arguments: '{"city":' } }),
          toolDelta({ function: { arguments: '"Paris"}' } }),
          toolDelta({
            id: "call_b",
            type: "function",
            function: { name: "time", arguments: '{"tz":"CET"}' },
          }),
          // A server repeating the id on a continuation is the same call.
          toolDelta({ id: "call_b", function: { arguments: "" } }),
          chunk({}, "stop"),
          "[DONE]",
        ]),
      ).stream(HI),
    );
    expect(response.message.toolCalls).toStrictEqual([
      { id: "call_a", name: "weather", arguments: { city: "Paris" }, argumentsText: '{"city":"Paris"}' },
      { id: "call_b", name: "time", arguments: { tz: "CET" }, argumentsText: '{"tz":"CET"}' },
    ]);
    // Gemini streams finish_reason "stop" for tool calls; calls are what the caller must act on.
    expect(response.stopReason).toBe("tool-calls");
  });

  it("a delta without index after indexed ones continues the last call, whatever its wire index", async () => {
    const response = await collectStream(
      provider(
        sse([
          toolDelta({ index: 1, id: "toolu_1", type: "function", function: { name: "read", arguments: "" } }),
          toolDelta({ function: { arguments: '{"path":"a.txt"}' } }),
          chunk({}, "tool_calls"),
          "[DONE]",
        ]),
      ).stream(HI),
    );
    expect(response.message.toolCalls).toStrictEqual([
      { id: "toolu_1", name: "read", arguments: { path: "a.txt" }, argumentsText: '{"path":"a.txt"}' },
    ]);
    expect(response.warnings).toBeUndefined();
  });

  it("parallel calls interleaved by index, id and name once, arguments in pieces", async () => {
    const events: StreamEvent[] = [];
    const response = await collectStream(
      provider(
        sse([
          toolDelta({ index: 0, id: "c0", type: "function", function: { name: "a", arguments: "" } }),
          toolDelta({ index: 1, id: "c1", type: "function", function: { name: "b", arguments: '{"y"' } }),
          toolDelta({ index: 0, function: { arguments: '{"x"' } }),
          toolDelta({ index: 1, function: { arguments: ":2}" } }),
          toolDelta({ index: 0, function: { arguments: ":1}" } }),
          chunk({}, "tool_calls"),
          "[DONE]",
        ]),
      ).stream(HI),
      { onEvent: (event) => events.push(event) },
    );
    expect(response.message.toolCalls.map((c) => [c.id, c.name, c.argumentsText])).toEqual([
      ["c0", "a", '{"x":1}'],
      ["c1", "b", '{"y":2}'],
    ]);
    expect(
      events
        .filter((e) => e.type === "tool-call-delta")
        .map((e) => e.type === "tool-call-delta" && [e.index, e.argumentsDelta]),
    ).toEqual([
      [1, '{"y"'],
      [0, '{"x"'],
      [1, ":2}"],
      [0, ":1}"],
    ]);
  });

  it("a refusal: content-filter, the refusal as content, the same from complete()", async () => {
    const stream = sse([
      chunk({ role: "assistant", content: null, refusal: "" }),
      chunk({ refusal: "I can't " }),
      chunk({ refusal: "help with that." }),
      chunk({}, "stop"),
      "[DONE]",
    ]);
    const json = completion({ content: null, refusal: "I can't help with that." }, { usage: undefined });
    const fetch = fakeFetch((request) =>
      request.body.stream ? sseResponse(stream) : Response.json(json),
    ).fetch;
    const chat = openaiChat({ model: "m", endpoint: "generic", baseURL: "https://x.example/v1", fetch });
    const streamed = await collectStream(chat.stream(HI));
    expect(streamed).toMatchObject({
      message: { content: "I can't help with that." },
      stopReason: "content-filter",
      rawStopReason: "stop",
    });
    expect(streamed.message.native?.blocks).toEqual([
      { role: "assistant", content: null, refusal: "I can't help with that." },
    ]);
    expect(await chat.complete(HI)).toStrictEqual(streamed);
  });

  it("usage: DeepSeek's prompt_cache_hit_tokens count as cached input; absent details stay undefined", async () => {
    const response = await collectStream(
      provider(
        sse([
          chunk({ content: "hi" }, "stop"),
          {
            id: "chatcmpl-1",
            choices: [],
            usage: {
              prompt_tokens: 10,
              completion_tokens: 3,
              prompt_cache_hit_tokens: 4,
              prompt_cache_miss_tokens: 6,
            },
          },
          "[DONE]",
        ]),
      ).stream(HI),
    );
    expect(response.usage).toStrictEqual({ inputTokens: 6, cachedInputTokens: 4, outputTokens: 3 });
  });
});
