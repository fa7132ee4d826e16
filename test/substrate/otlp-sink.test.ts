import { describe, expect, it } from "vitest";
import { collectStream } from "../../src/index.ts";
import { fallback, type OtlpKeyValue, type OtlpSpan, otlpSink } from "../../src/substrate/index.ts";
import { failure, fake, HI } from "./helpers.ts";

/** A fake collector: records each export request's spans and headers. */
function collector(status = 200) {
  const exports: { url: string; headers: Headers; spans: OtlpSpan[]; body: Record<string, unknown> }[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = (await request.json()) as {
      resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
    };
    exports.push({
      url: request.url,
      headers: request.headers,
      spans: body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
      body,
    });
    return new Response("{}", { status });
  }) as typeof fetch;
  return { fetch: fetchImpl, exports, spans: () => exports.flatMap((e) => e.spans) };
}

function attrs(span: OtlpSpan): Record<string, OtlpKeyValue["value"]> {
  return Object.fromEntries(span.attributes.map((a) => [a.key, a.value]));
}

describe("otlpSink: span shape", () => {
  it("a complete() call is one CLIENT span in the GenAI conventions' names and OTLP types", async () => {
    const c = collector();
    const otlp = otlpSink({ endpoint: "https://collector.test/", fetch: c.fetch, serviceName: "svc" });
    const provider = fake("anthropic", {
      text: "ok",
      model: "claude-sonnet-4-6-20260101",
      rawStopReason: "end_turn",
      usage: {
        inputTokens: 10,
        outputTokens: 5,
        cachedInputTokens: 100,
        cacheWriteTokens: 20,
        reasoningTokens: 3,
      },
    });
    await otlp
      .observe(provider)
      .complete(HI, [], { maxTokens: 256, temperature: 0.5, topP: 0.9, sessionId: "s1" });
    expect(otlp.queued).toBe(1);
    await otlp.flush();
    expect(c.exports).toHaveLength(1);
    const [sent] = c.exports;
    expect(sent!.url).toBe("https://collector.test/v1/traces");
    expect(sent!.headers.get("content-type")).toBe("application/json");
    expect(JSON.stringify(sent!.body)).toContain('"service.name","value":{"stringValue":"svc"}');
    const [span] = c.spans();
    expect(span!.name).toBe("chat anthropic-model");
    expect(span!.kind).toBe(3);
    expect(span!.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span!.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span!.startTimeUnixNano).toMatch(/^\d{19}$/);
    expect(BigInt(span!.endTimeUnixNano) >= BigInt(span!.startTimeUnixNano)).toBe(true);
    expect(span!.status.code).toBe(0);
    expect(attrs(span!)).toEqual({
      "gen_ai.operation.name": { stringValue: "chat" },
      "gen_ai.provider.name": { stringValue: "anthropic" },
      "gen_ai.request.model": { stringValue: "anthropic-model" },
      "gen_ai.request.max_tokens": { intValue: "256" },
      "gen_ai.request.temperature": { doubleValue: 0.5 },
      "gen_ai.request.top_p": { doubleValue: 0.9 },
      "gen_ai.conversation.id": { stringValue: "s1" },
      "modelwire.stream": { boolValue: false },
      "modelwire.protocol": { stringValue: "fake" },
      "gen_ai.response.model": { stringValue: "claude-sonnet-4-6-20260101" },
      "gen_ai.response.finish_reasons": { arrayValue: { values: [{ stringValue: "end_turn" }] } },
      "gen_ai.usage.input_tokens": { intValue: "130" },
      "gen_ai.usage.output_tokens": { intValue: "5" },
      "gen_ai.usage.cache_read.input_tokens": { intValue: "100" },
      "gen_ai.usage.cache_creation.input_tokens": { intValue: "20" },
      "modelwire.usage.reasoning_tokens": { intValue: "3" },
      "modelwire.cost_usd": { doubleValue: expect.any(Number) },
    });
  });

  it("provider names map to the conventions' well-known values", async () => {
    const c = collector();
    const otlp = otlpSink({ endpoint: "https://collector.test", fetch: c.fetch });
    for (const name of ["bedrock", "vertex", "gemini", "openai", "self-hosted"]) {
      await otlp.observe(fake(name, { text: "ok" })).complete(HI);
    }
    await otlp.flush();
    expect(c.spans().map((span) => attrs(span)["gen_ai.provider.name"])).toEqual([
      { stringValue: "aws.bedrock" },
      { stringValue: "gcp.vertex_ai" },
      { stringValue: "gcp.gemini" },
      { stringValue: "openai" },
      { stringValue: "self-hosted" },
    ]);
  });

  it("usage not reported is absent; usage reported as 0 is 0", async () => {
    const c = collector();
    const otlp = otlpSink({ endpoint: "https://collector.test", fetch: c.fetch });
    await otlp.observe(fake("openai", { text: "ok", usage: {} })).complete(HI);
    await otlp
      .observe(fake("openai", { text: "ok", usage: { inputTokens: 0, outputTokens: 0 } }))
      .complete(HI);
    await otlp.flush();
    const [absent, zero] = c.spans().map(attrs);
    expect(absent).not.toHaveProperty("gen_ai.usage.input_tokens");
    expect(absent).not.toHaveProperty("gen_ai.usage.output_tokens");
    expect(absent).not.toHaveProperty("gen_ai.usage.cache_read.input_tokens");
    expect(absent).not.toHaveProperty("gen_ai.request.max_tokens");
    expect(zero!["gen_ai.usage.input_tokens"]).toEqual({ intValue: "0" });
    expect(zero!["gen_ai.usage.output_tokens"]).toEqual({ intValue: "0" });
  });

  it("a stream's span has time to first token and modelwire.stream", async () => {
    const c = collector();
    const otlp = otlpSink({ endpoint: "https://collector.test", fetch: c.fetch });
    await collectStream(otlp.observe(fake("anthropic", { text: "hello", delayMs: 5 })).stream(HI));
    await otlp.flush();
    const span = attrs(c.spans()[0]!);
    expect(span["modelwire.stream"]).toEqual({ boolValue: true });
    expect(span["modelwire.time_to_first_token_ms"]).toHaveProperty("doubleValue");
  });

  it("a failed call is a span with status ERROR and error.type, no response attributes", async () => {
    const c = collector();
    const otlp = otlpSink({ endpoint: "https://collector.test", fetch: c.fetch });
    const provider = fake("anthropic", { error: failure("rate_limit", { status: 429 }, "anthropic") });
    await expect(otlp.observe(provider).complete(HI)).rejects.toThrow();
    await otlp.flush();
    const [span] = c.spans();
    expect(span!.status).toEqual({ code: 2, message: "rate_limit failure" });
    expect(attrs(span!)["error.type"]).toEqual({ stringValue: "rate_limit" });
    expect(attrs(span!)).not.toHaveProperty("gen_ai.response.model");
    expect(attrs(span!)).not.toHaveProperty("gen_ai.usage.input_tokens");
  });

  it("a fallback chain's call is one span; the entry passed over is a modelwire.fallback event", async () => {
    const c = collector();
    const otlp = otlpSink({ endpoint: "https://collector.test", fetch: c.fetch });
    const chain = fallback([
      { provider: fake("anthropic", { error: failure("overloaded", {}, "anthropic") }) },
      { provider: fake("bedrock", { text: "ok", usage: { inputTokens: 1, outputTokens: 1 } }) },
    ]);
    await otlp.observe(chain).complete(HI);
    await otlp.flush();
    expect(c.spans()).toHaveLength(1);
    const [span] = c.spans();
    expect(attrs(span!)["gen_ai.provider.name"]).toEqual({ stringValue: "aws.bedrock" });
    expect(attrs(span!)["modelwire.fallback.served_index"]).toEqual({ intValue: "1" });
    expect(span!.events).toHaveLength(1);
    expect(span!.events[0]!.name).toBe("modelwire.fallback");
    expect(Object.fromEntries(span!.events[0]!.attributes.map((a) => [a.key, a.value]))).toMatchObject({
      "modelwire.fallback.index": { intValue: "0" },
      "gen_ai.provider.name": { stringValue: "anthropic" },
      "error.type": { stringValue: "overloaded" },
    });
  });
});

describe("otlpSink: content", () => {
  it("message content is off by default", async () => {
    const c = collector();
    const otlp = otlpSink({ endpoint: "https://collector.test", fetch: c.fetch });
    await otlp
      .observe(fake("anthropic", { text: "the secret answer" }))
      .complete([{ role: "user", content: "private" }]);
    await otlp.flush();
    const text = JSON.stringify(c.exports[0]!.body);
    expect(text).not.toContain("private");
    expect(text).not.toContain("the secret answer");
    expect(attrs(c.spans()[0]!)).not.toHaveProperty("gen_ai.input.messages");
  });

  it("captureContent: gen_ai.input.messages and gen_ai.output.messages as JSON in the conventions' shape", async () => {
    const c = collector();
    const otlp = otlpSink({ endpoint: "https://collector.test", fetch: c.fetch, captureContent: true });
    await otlp
      .observe(fake("anthropic", { text: "answer", rawStopReason: "end_turn" }))
      .complete([{ role: "user", content: "question" }]);
    await otlp.flush();
    const span = attrs(c.spans()[0]!);
    expect(JSON.parse((span["gen_ai.input.messages"] as { stringValue: string }).stringValue)).toEqual([
      { role: "user", parts: [{ type: "text", content: "question" }] },
    ]);
    expect(JSON.parse((span["gen_ai.output.messages"] as { stringValue: string }).stringValue)).toEqual([
      { role: "assistant", parts: [{ type: "text", content: "answer" }], finish_reason: "end_turn" },
    ]);
  });
});

describe("otlpSink: batching and failures", () => {
  it("flush() sends in batches of maxBatch and empties the queue", async () => {
    const c = collector();
    const otlp = otlpSink({ endpoint: "https://collector.test", fetch: c.fetch, maxBatch: 2 });
    const observed = otlp.observe(fake("openai", ...Array.from({ length: 5 }, () => ({ text: "ok" }))));
    for (let i = 0; i < 5; i++) await observed.complete(HI);
    expect(c.exports).toHaveLength(0);
    await otlp.flush();
    expect(c.exports.map((e) => e.spans.length)).toEqual([2, 2, 1]);
    expect(otlp.queued).toBe(0);
    await otlp.flush();
    expect(c.exports).toHaveLength(3);
  });

  it("the queue is bounded: when full the oldest span is dropped and counted", async () => {
    const c = collector();
    const otlp = otlpSink({ endpoint: "https://collector.test", fetch: c.fetch, maxQueue: 3 });
    for (let i = 0; i < 5; i++)
      await otlp.observe(fake("openai", { text: "ok", model: `m${i}` })).complete(HI);
    expect(otlp.queued).toBe(3);
    expect(otlp.dropped).toBe(2);
    await otlp.flush();
    expect(c.spans().map((span) => attrs(span)["gen_ai.response.model"])).toEqual([
      { stringValue: "m2" },
      { stringValue: "m3" },
      { stringValue: "m4" },
    ]);
  });

  it("a failed export never reaches the call: onExportError gets it, without the header secrets", async () => {
    const errors: Error[] = [];
    const secret = "otlp-header-secret-93ab";
    const failing = (async () => {
      throw new Error(`connection refused (sent ${secret})`);
    }) as typeof fetch;
    const otlp = otlpSink({
      endpoint: "https://collector.test",
      fetch: failing,
      headers: { "x-api-key": secret },
      onExportError: (error) => errors.push(error),
    });
    const response = await otlp.observe(fake("openai", { text: "ok" })).complete(HI);
    expect(response.message.content).toBe("ok");
    await expect(otlp.flush()).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain("connection refused");
    expect(errors[0]!.message).not.toContain(secret);
  });

  it("a non-2xx collector answer is reported, not thrown; without onExportError nothing is printed", async () => {
    const errors: Error[] = [];
    const c = collector(503);
    const otlp = otlpSink({
      endpoint: "https://collector.test",
      fetch: c.fetch,
      onExportError: (e) => errors.push(e),
    });
    await otlp.observe(fake("openai", { text: "ok" })).complete(HI);
    await otlp.flush();
    expect(errors[0]!.message).toContain("503");
    const quiet = otlpSink({ endpoint: "https://collector.test", fetch: c.fetch });
    await quiet.observe(fake("openai", { text: "ok" })).complete(HI);
    await expect(quiet.flush()).resolves.toBeUndefined();
  });

  it("headers go with every export", async () => {
    const c = collector();
    const otlp = otlpSink({
      endpoint: "https://collector.test",
      fetch: c.fetch,
      headers: { authorization: "Bearer t" },
    });
    await otlp.observe(fake("openai", { text: "ok" })).complete(HI);
    await otlp.flush();
    expect(c.exports[0]!.headers.get("authorization")).toBe("Bearer t");
  });

  it("flushIntervalMs flushes on its own", async () => {
    const c = collector();
    const otlp = otlpSink({ endpoint: "https://collector.test", fetch: c.fetch, flushIntervalMs: 10 });
    await otlp.observe(fake("openai", { text: "ok" })).complete(HI);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(c.spans()).toHaveLength(1);
  });
});
