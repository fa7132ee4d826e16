/**
 * The gateway over the other two protocols: an OpenAI Responses route and a Bedrock (Converse) route,
 * through the neutral API and the OpenAI-compatible facade, with the upstreams faked at the fetch layer.
 */
import { describe, expect, it } from "vitest";
import { converseFrames } from "../helpers/bedrock-frames.ts";
import { gateway } from "./helpers.ts";

const CONFIG = {
  routes: {
    responses: { protocol: "openai-responses", model: "gpt-5-mini", apiKeySecret: "OPENAI_API_KEY" },
    nova: {
      protocol: "bedrock",
      model: "amazon.nova-pro-v1:0",
      region: "us-east-1",
      apiKeySecret: "OPENAI_API_KEY",
    },
  },
};

const RESPONSE_JSON = {
  id: "resp_1",
  object: "response",
  status: "completed",
  model: "gpt-5-mini",
  output: [
    {
      type: "message",
      id: "msg_1",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "Hello from Responses", annotations: [] }],
    },
  ],
  usage: {
    input_tokens: 12,
    output_tokens: 4,
    input_tokens_details: { cached_tokens: 2 },
    output_tokens_details: { reasoning_tokens: 0 },
  },
};

const RESPONSES_SSE = [
  { type: "response.created", response: { ...RESPONSE_JSON, status: "in_progress", output: [] } },
  {
    type: "response.output_item.added",
    output_index: 0,
    item: { type: "message", id: "msg_1", role: "assistant", status: "in_progress", content: [] },
  },
  {
    type: "response.output_text.delta",
    output_index: 0,
    item_id: "msg_1",
    content_index: 0,
    delta: "Hello from ",
  },
  {
    type: "response.output_text.delta",
    output_index: 0,
    item_id: "msg_1",
    content_index: 0,
    delta: "Responses",
  },
  { type: "response.output_item.done", output_index: 0, item: RESPONSE_JSON.output[0] },
  { type: "response.completed", response: RESPONSE_JSON },
]
  .map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
  .join("");

const CONVERSE_JSON = {
  output: { message: { role: "assistant", content: [{ text: "Hello from Bedrock" }] } },
  stopReason: "end_turn",
  usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13 },
};

function upstream(call: { url: string; body: Record<string, unknown> }): Response {
  if (call.url.endsWith("/responses")) {
    return call.body.stream
      ? new Response(RESPONSES_SSE, { headers: { "content-type": "text/event-stream" } })
      : Response.json(RESPONSE_JSON);
  }
  if (call.url.endsWith("/converse-stream")) {
    const frames = converseFrames([
      { messageStart: { role: "assistant" } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: "Hello from " } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: "Bedrock" } } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      { messageStop: { stopReason: "end_turn" } },
      {
        metadata: { usage: { inputTokens: 9, outputTokens: 4, totalTokens: 13 }, metrics: { latencyMs: 5 } },
      },
    ]);
    return new Response(frames as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": "application/vnd.amazon.eventstream" },
    });
  }
  if (call.url.endsWith("/converse")) return Response.json(CONVERSE_JSON);
  return new Response("unexpected upstream", { status: 500 });
}

const cases = [
  { route: "responses", text: "Hello from Responses", host: "api.openai.com" },
  { route: "nova", text: "Hello from Bedrock", host: "bedrock-runtime.us-east-1.amazonaws.com" },
] as const;

describe.each(cases)("$route route", ({ route, text, host }) => {
  it("POST /v1/complete returns the neutral response", async () => {
    const { call, calls } = gateway((upstreamCall) => upstream(upstreamCall), {
      config: CONFIG,
      log: () => {},
    });
    const response = await call("/v1/complete", {
      json: { route, messages: [{ role: "user", content: "hi" }] },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      message: { role: "assistant", content: text },
      stopReason: "stop",
    });
    expect(calls[0]!.host).toBe(host);
  });

  it("POST /v1/stream sends text deltas and ends with done", async () => {
    const { call } = gateway((upstreamCall) => upstream(upstreamCall), { config: CONFIG, log: () => {} });
    const response = await call("/v1/stream", {
      json: { route, messages: [{ role: "user", content: "hi" }] },
    });
    const body = await response.text();
    const deltas = [...body.matchAll(/event: text-delta\ndata: (.*)\n/g)].map(
      (match) => JSON.parse(match[1]!).text,
    );
    expect(deltas.join("")).toBe(text);
    expect(body).toMatch(/event: done\n/);
    expect(body).not.toContain("event: error");
  });

  it("POST /v1/chat/completions answers in the OpenAI shape", async () => {
    const { call } = gateway((upstreamCall) => upstream(upstreamCall), { config: CONFIG, log: () => {} });
    const response = await call("/v1/chat/completions", {
      json: { model: route, messages: [{ role: "user", content: "hi" }] },
    });
    expect(await response.json()).toMatchObject({
      object: "chat.completion",
      model: route,
      choices: [{ message: { role: "assistant", content: text }, finish_reason: "stop" }],
    });
  });
});
