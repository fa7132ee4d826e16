import { describe, expect, it } from "vitest";
import { anthropic, collectStream, type Provider, type StreamEvent } from "../../src/index.ts";
import {
  type ErrorTelemetry,
  fallback,
  type ResponseTelemetry,
  type TelemetryEvent,
  withTelemetry,
} from "../../src/substrate/index.ts";
import { clock, drainUntilError, failure, fake, HI } from "./helpers.ts";

const KEY = "telemetry-secret-4b1d8e2f";

function recorder() {
  const events: TelemetryEvent[] = [];
  return { events, sink: (event: TelemetryEvent) => void events.push(event) };
}

describe("withTelemetry: events", () => {
  it("complete(): a request event with counts, then a response event with latency, usage and cost", async () => {
    const time = clock();
    const inner = fake("anthropic", {
      text: "ok",
      model: "claude-sonnet-4-6",
      usage: { inputTokens: 1000, outputTokens: 100 },
      delayMs: 0,
    });
    const slow: Provider = {
      ...inner,
      name: inner.name,
      model: inner.model,
      protocol: inner.protocol,
      complete: async (...args) => {
        time.advance(250);
        return inner.complete(...args);
      },
      stream: (...args) => inner.stream(...args),
    };
    const { events, sink } = recorder();
    await withTelemetry(slow, sink, { now: time.now }).complete(
      [
        { role: "system", content: "s" },
        { role: "user", content: "summary", synthetic: true },
        { role: "user", content: "q" },
      ],
      [{ name: "t", parameters: { type: "object", properties: {} } }],
      { sessionId: "s1", maxTokens: 50, metadata: { tenant: "acme" } },
    );
    expect(events).toEqual([
      {
        type: "request",
        callId: 1,
        method: "complete",
        provider: "anthropic",
        model: "anthropic-model",
        protocol: "fake",
        messages: 3,
        syntheticMessages: 1,
        tools: 1,
        sessionId: "s1",
        maxTokens: 50,
        metadata: { tenant: "acme" },
      },
      {
        type: "response",
        callId: 1,
        method: "complete",
        provider: "anthropic",
        model: "anthropic-model",
        protocol: "fake",
        latencyMs: 250,
        responseProvider: "anthropic",
        responseModel: "claude-sonnet-4-6",
        stopReason: "stop",
        usage: { inputTokens: 1000, outputTokens: 100 },
        cost: (1000 * 3 + 100 * 15) / 1_000_000,
        synthetic: false,
      },
    ]);
  });

  it("stream(): time to first token is the first content event, not a usage event", async () => {
    const time = clock();
    const provider: Provider = {
      name: "p",
      model: "m",
      protocol: "fake",
      complete: () => Promise.reject(new Error("unused")),
      async *stream(): AsyncGenerator<StreamEvent> {
        time.advance(40);
        yield { type: "usage", usage: { inputTokens: 5 } };
        time.advance(60);
        yield { type: "text-delta", text: "hi" };
        time.advance(50);
        yield* fake("p", { text: "hi" }).stream(HI);
      },
    };
    const { events, sink } = recorder();
    await collectStream(withTelemetry(provider, sink, { now: time.now }).stream(HI));
    const response = events.find((event): event is ResponseTelemetry => event.type === "response");
    expect(response).toMatchObject({ method: "stream", timeToFirstTokenMs: 100, latencyMs: 150 });
  });

  it("a chain: one fallback event per entry passed over, then the response with servedBy", async () => {
    const chain = fallback([
      { provider: fake("a", { error: failure("overloaded", {}, "a") }) },
      { provider: fake("b", { error: failure("server", {}, "b") }) },
      { provider: fake("c", { text: "c", usage: { inputTokens: 1, outputTokens: 1 } }) },
    ]);
    const { events, sink } = recorder();
    await withTelemetry(chain, sink).complete(HI);
    expect(events.map((event) => event.type)).toEqual(["request", "fallback", "fallback", "response"]);
    expect(events[1]).toMatchObject({
      index: 0,
      entryProvider: "a",
      entryModel: "a-model",
      error: { kind: "overloaded" },
    });
    expect(events[2]).toMatchObject({ index: 1, entryProvider: "b", error: { kind: "server" } });
    expect(events[3]).toMatchObject({ provider: "fallback", servedBy: { index: 2, provider: "c" } });
  });

  it("a chain that fails: fallback events for the entries passed over, then the error", async () => {
    const chain = fallback([
      { provider: fake("a", { error: failure("overloaded", {}, "a") }) },
      { provider: fake("b", { error: failure("bad_request", {}, "b") }) },
      { provider: fake("c", { text: "never" }) },
    ]);
    const { events, sink } = recorder();
    await expect(withTelemetry(chain, sink).complete(HI)).rejects.toMatchObject({ kind: "bad_request" });
    expect(events.map((event) => event.type)).toEqual(["request", "fallback", "error"]);
    expect(events[2]).toMatchObject({ error: { kind: "bad_request", provider: "b" }, partialOutput: false });
  });

  it("a stream failing after output reports partialOutput; a reader stopping early ends the call too", async () => {
    const { events, sink } = recorder();
    const inner = fake(
      "a",
      { events: [{ type: "text-delta", text: "x" }], failAt: { at: 1, error: failure("network") } },
      { text: "abc", chunkSize: 1 },
    );
    const observed = withTelemetry(inner, sink);
    await drainUntilError(observed.stream(HI));
    expect(events.at(-1)).toMatchObject({ type: "error", partialOutput: true, error: { kind: "network" } });
    expect((events.at(-1) as ErrorTelemetry).timeToFirstTokenMs).toBeGreaterThanOrEqual(0);
    for await (const _event of observed.stream(HI)) break;
    expect(events.at(-1)).toMatchObject({
      type: "error",
      callId: 2,
      error: { name: "StreamClosed" },
      partialOutput: true,
    });
  });

  it("an object sink gets per-type callbacks; a sink that throws changes nothing", async () => {
    const seen: string[] = [];
    const observed = withTelemetry(fake("a", { text: "ok" }, { error: failure("auth") }), {
      onRequest: (event) => {
        seen.push(event.type);
        throw new Error("sink bug");
      },
      onResponse: (event) => void seen.push(event.type),
      onError: (event) => void seen.push(event.type),
    });
    expect((await observed.complete(HI)).message.content).toBe("ok");
    await expect(observed.complete(HI)).rejects.toMatchObject({ kind: "auth" });
    expect(seen).toEqual(["request", "response", "request", "error"]);
  });

  it("prices models the profiles do not know through options.prices; marks synthetic responses", async () => {
    const { events, sink } = recorder();
    const inner = fake("openai", {
      text: "ok",
      model: "gpt-4.1",
      usage: { inputTokens: 1_000_000, outputTokens: 0 },
    });
    await withTelemetry(inner, sink, {
      prices: (model) => (model === "gpt-4.1" ? { input: 2, output: 8 } : undefined),
    }).complete(HI);
    expect(events.at(-1)).toMatchObject({ type: "response", cost: 2, synthetic: false });
    const { events: unpriced, sink: sink2 } = recorder();
    await withTelemetry(
      fake("openai", { text: "ok", model: "gpt-4.1", usage: { inputTokens: 1, outputTokens: 1 } }),
      sink2,
    ).complete(HI);
    expect(unpriced.at(-1)).not.toHaveProperty("cost");
  });
});

describe("withTelemetry: credentials", () => {
  it("a key never appears in any event: success, upstream errors echoing it, and errors of any provider", async () => {
    const answers = [
      () =>
        Response.json({
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-6",
          content: [{ type: "text", text: "ok" }],
          stop_reason: "end_turn",
          stop_sequence: null,
          usage: { input_tokens: 1, output_tokens: 1 },
        }),
      () =>
        Response.json(
          { type: "error", error: { type: "authentication_error", message: `invalid x-api-key ${KEY}` } },
          { status: 401 },
        ),
      () => new Response(`proxy echo: x-api-key=${KEY}`, { status: 502 }),
    ];
    let call = 0;
    const fetchStub = (async () => answers[call++]!()) as typeof fetch;
    const { events, sink } = recorder();
    const claude = anthropic({ apiKey: KEY, model: "claude-sonnet-4-6", fetch: fetchStub });
    const chain = withTelemetry(
      fallback([
        {
          provider: fake(
            "leaky",
            { error: failure("overloaded", { message: `upstream said ${KEY}` }) },
            { error: failure("overloaded", { message: `upstream said ${KEY}` }) },
          ),
        },
        { provider: claude },
      ]),
      sink,
      { secrets: [KEY] },
    );
    await chain.complete(HI, undefined, { sessionId: "s" });
    await expect(chain.complete(HI)).rejects.toMatchObject({ kind: "auth" });
    await expect(withTelemetry(claude, sink).complete(HI)).rejects.toMatchObject({ kind: "server" });
    expect(events.length).toBeGreaterThanOrEqual(8);
    expect(events.map((event) => event.type)).toContain("fallback");
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it("key-shaped strings are scrubbed even when the host did not list them", async () => {
    const { events, sink } = recorder();
    const shaped = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";
    await expect(
      withTelemetry(fake("a", { error: new Error(`boom ${shaped}`) }), sink).complete(HI),
    ).rejects.toThrow();
    expect(JSON.stringify(events)).not.toContain(shaped);
  });
});
