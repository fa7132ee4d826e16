/** openaiChat(): the request it sends, and the endpoint profiles (openai, vllm, ollama, generic). */
import { describe, expect, it } from "vitest";
import {
  type CallOptions,
  collectStream,
  type Response as ModelResponse,
  type OpenAIChatEndpoint,
  openAIChatEndpointProfile,
  openaiChat,
  ValidationError,
} from "../../src/index.ts";
import {
  chunk,
  fakeFetch,
  HI,
  type Json,
  KEY,
  sse,
  sseResponse,
  TEXT_COMPLETION,
  WEATHER,
  withParallel,
} from "./openai-chat.helpers.ts";

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
