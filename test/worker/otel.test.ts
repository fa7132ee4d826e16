/**
 * OpenTelemetry traces of the gateway inside workerd: with `OTEL_EXPORTER_OTLP_ENDPOINT` set, each model
 * call is one OTLP/HTTP JSON span in the GenAI conventions, sent to a fake collector on the fetch layer
 * (`createWorker({ otel: { fetch } })`) within `ctx.waitUntil`; with no endpoint nothing is sent.
 */
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createWorker, type WorkerEnv } from "../../src/worker/app.ts";
import {
  anthropicError,
  anthropicEvents,
  anthropicFrames,
  anthropicMessage,
  fakeUpstream,
  gatewayEnv,
  ROUTES,
  sseResponse,
  streamBody,
  TOKEN,
} from "./helpers.ts";

interface Span {
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: Record<string, unknown> }[];
  status: { code: number; message?: string };
}

const COLLECTOR = "https://collector.test:4318";
const SECRET = "otlp-secret-key-7f3e9a";

function collector(status = 200) {
  const exports: { url: string; headers: Headers; spans: Span[] }[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = (await request.json()) as { resourceSpans: { scopeSpans: { spans: Span[] }[] }[] };
    exports.push({
      url: request.url,
      headers: request.headers,
      spans: body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)),
    });
    return new Response("{}", { status });
  }) as typeof fetch;
  return { fetch: fetchImpl, exports, spans: () => exports.flatMap((e) => e.spans) };
}

function attrs(span: Span): Record<string, unknown> {
  return Object.fromEntries(span.attributes.map((a) => [a.key, a.value]));
}

const tracedEnv: WorkerEnv = {
  ...gatewayEnv,
  OTEL_EXPORTER_OTLP_ENDPOINT: COLLECTOR,
  OTEL_EXPORTER_OTLP_HEADERS: `x-honeycomb-team=${SECRET},x-dataset=gateway%20traces`,
};

/** A gateway over `ROUTES` whose upstream answers `upstream` and whose spans go to a fake collector. */
function tracedGateway(upstream: () => Response, collectorStatus = 200) {
  const fake = fakeUpstream(upstream);
  const traces = collector(collectorStatus);
  const logs: string[] = [];
  const worker = createWorker({
    config: ROUTES,
    providers: { fetch: fake.fetch },
    otel: { fetch: traces.fetch },
    log: (message) => logs.push(message),
  });
  /** Calls the gateway, reads the whole answer, and waits for its `waitUntil` work. */
  const call = async (path: string, json: unknown, environment: WorkerEnv = tracedEnv) => {
    const ctx = createExecutionContext();
    const response = await worker.app.fetch(
      new Request(`http://gateway.test${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(json),
      }),
      environment,
      ctx,
    );
    const text = await response.text();
    await waitOnExecutionContext(ctx);
    return { response, text };
  };
  return { call, traces, upstream: fake.calls, logs };
}

const HELLO = [{ role: "user", content: "Hello there" }];

describe("OpenTelemetry spans of the gateway", () => {
  it("/v1/chat/completions on an Anthropic route: one chat span in the GenAI conventions", async () => {
    const { call, traces } = tracedGateway(() => Response.json(anthropicMessage("Hi!")));
    const { response } = await call("/v1/chat/completions", {
      model: "claude",
      messages: HELLO,
      max_tokens: 300,
      temperature: 0.2,
    });
    expect(response.status).toBe(200);
    expect(traces.exports).toHaveLength(1);
    const [sent] = traces.exports;
    expect(sent!.url).toBe(`${COLLECTOR}/v1/traces`);
    expect(sent!.headers.get("content-type")).toBe("application/json");
    expect(sent!.headers.get("x-honeycomb-team")).toBe(SECRET);
    expect(sent!.headers.get("x-dataset")).toBe("gateway traces");
    expect(sent!.spans).toHaveLength(1);
    const span = sent!.spans[0]!;
    expect(span.name).toBe("chat claude-sonnet-4-5");
    expect(span.kind).toBe(3);
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(span.status.code).toBe(0);
    expect(attrs(span)).toMatchObject({
      "gen_ai.operation.name": { stringValue: "chat" },
      "gen_ai.provider.name": { stringValue: "anthropic" },
      "gen_ai.request.model": { stringValue: "claude-sonnet-4-5" },
      "gen_ai.request.max_tokens": { intValue: "300" },
      "gen_ai.request.temperature": { doubleValue: 0.2 },
      "gen_ai.response.model": { stringValue: "claude-sonnet-4-5-20250929" },
      "gen_ai.response.id": { stringValue: "msg_01Aq9w938a90dw8q" },
      "gen_ai.response.finish_reasons": { arrayValue: { values: [{ stringValue: "end_turn" }] } },
      "gen_ai.usage.input_tokens": { intValue: "572" },
      "gen_ai.usage.output_tokens": { intValue: "89" },
      "gen_ai.usage.cache_read.input_tokens": { intValue: "100" },
      "gen_ai.usage.cache_creation.input_tokens": { intValue: "0" },
      "modelwire.stream": { boolValue: false },
    });
    // Message content is off by default.
    expect(attrs(span)).not.toHaveProperty("gen_ai.input.messages");
    expect(JSON.stringify(traces.exports[0]!.spans)).not.toContain("Hello there");
  });

  it("/v1/chat/completions streamed: one span with time to first token", async () => {
    const { call, traces } = tracedGateway(() =>
      sseResponse(streamBody(anthropicFrames(anthropicEvents(["Hi", "!"])))),
    );
    const { response } = await call("/v1/chat/completions", {
      model: "claude",
      messages: HELLO,
      stream: true,
    });
    expect(response.status).toBe(200);
    expect(traces.spans()).toHaveLength(1);
    const span = attrs(traces.spans()[0]!);
    expect(span).toMatchObject({
      "gen_ai.operation.name": { stringValue: "chat" },
      "gen_ai.provider.name": { stringValue: "anthropic" },
      "gen_ai.usage.output_tokens": { intValue: "89" },
      "modelwire.stream": { boolValue: true },
    });
    expect(span["modelwire.time_to_first_token_ms"]).toHaveProperty("doubleValue");
  });

  it("/v1/messages passed through natively: one span, JSON and streamed", async () => {
    const json = tracedGateway(() => Response.json(anthropicMessage("Hi!")));
    const plain = await json.call("/v1/messages", { model: "claude", max_tokens: 64, messages: HELLO });
    expect(plain.response.status).toBe(200);
    expect(json.traces.spans()).toHaveLength(1);
    expect(json.traces.spans()[0]!.name).toBe("chat claude-sonnet-4-5");
    expect(attrs(json.traces.spans()[0]!)).toMatchObject({
      "gen_ai.provider.name": { stringValue: "anthropic" },
      "gen_ai.request.max_tokens": { intValue: "64" },
      "gen_ai.response.id": { stringValue: "msg_01Aq9w938a90dw8q" },
      "gen_ai.usage.input_tokens": { intValue: "572" },
      "gen_ai.usage.output_tokens": { intValue: "89" },
      "modelwire.stream": { boolValue: false },
    });

    const streamed = tracedGateway(() =>
      sseResponse(streamBody(anthropicFrames(anthropicEvents(["Hi", "!"])))),
    );
    const { response, text } = await streamed.call("/v1/messages", {
      model: "claude",
      max_tokens: 64,
      messages: HELLO,
      stream: true,
    });
    expect(response.status).toBe(200);
    expect(text).toContain("message_stop");
    expect(streamed.traces.spans()).toHaveLength(1);
    const span = attrs(streamed.traces.spans()[0]!);
    expect(span).toMatchObject({
      "gen_ai.operation.name": { stringValue: "chat" },
      "gen_ai.response.model": { stringValue: "claude-sonnet-4-5-20250929" },
      "gen_ai.response.finish_reasons": { arrayValue: { values: [{ stringValue: "end_turn" }] } },
      "gen_ai.usage.input_tokens": { intValue: "572" },
      "gen_ai.usage.output_tokens": { intValue: "89" },
      "modelwire.stream": { boolValue: true },
    });
    expect(span["modelwire.time_to_first_token_ms"]).toHaveProperty("doubleValue");
  });

  it("an upstream refusal is an error span with error.type, and the client still gets its 429", async () => {
    const { call, traces } = tracedGateway(() => anthropicError(429, "rate_limit_error", "slow down"));
    const { response } = await call("/v1/messages", { model: "claude", max_tokens: 64, messages: HELLO });
    expect(response.status).toBe(429);
    expect(traces.spans()).toHaveLength(1);
    const span = traces.spans()[0]!;
    expect(span.status.code).toBe(2);
    expect(attrs(span)["error.type"]).toEqual({ stringValue: "rate_limit" });
    expect(attrs(span)).not.toHaveProperty("gen_ai.usage.input_tokens");
  });

  it("captureContent with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true", async () => {
    const { call, traces } = tracedGateway(() => Response.json(anthropicMessage("Hi!")));
    await call(
      "/v1/chat/completions",
      { model: "claude", messages: HELLO },
      { ...tracedEnv, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" },
    );
    const span = attrs(traces.spans()[0]!) as Record<string, { stringValue: string }>;
    expect(JSON.parse(span["gen_ai.input.messages"]!.stringValue)).toEqual([
      { role: "user", parts: [{ type: "text", content: "Hello there" }] },
    ]);
    expect(JSON.parse(span["gen_ai.output.messages"]!.stringValue)[0]).toMatchObject({
      role: "assistant",
      parts: [{ type: "text", content: "Hi!" }],
    });
  });

  it("no endpoint configured: nothing is sent", async () => {
    const { call, traces, upstream } = tracedGateway(() => Response.json(anthropicMessage("Hi!")));
    const plain = await call("/v1/chat/completions", { model: "claude", messages: HELLO }, gatewayEnv);
    const native = await call(
      "/v1/messages",
      { model: "claude", max_tokens: 8, messages: HELLO },
      gatewayEnv,
    );
    expect(plain.response.status).toBe(200);
    expect(native.response.status).toBe(200);
    expect(upstream).toHaveLength(2);
    expect(traces.exports).toHaveLength(0);
  });

  it("a failing collector never changes the answer, and its header secret is not logged", async () => {
    const { call, traces, logs } = tracedGateway(() => Response.json(anthropicMessage("Hi!")), 500);
    const { response } = await call("/v1/chat/completions", { model: "claude", messages: HELLO });
    expect(response.status).toBe(200);
    expect(traces.exports).toHaveLength(1);
    expect(logs.some((line) => line.includes("500"))).toBe(true);
    expect(logs.join("\n")).not.toContain(SECRET);
  });
});
