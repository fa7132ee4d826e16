/**
 * Shared pieces of the /v1/messages tests: the gateway's routes (first-party Anthropic, Bedrock
 * InvokeModel, OpenAI Chat, OpenAI Responses), recorded-style upstream answers with signed thinking, and a
 * client of each kind wired to the gateway with an injected fetch.
 */
import Anthropic from "@anthropic-ai/sdk";
import { invokeFrames } from "../helpers/bedrock-frames.ts";
import { ANTHROPIC_BASE, gateway, gatewayEnv, OPENAI_BASE, TOKEN, type UpstreamHandler } from "./helpers.ts";

export const BEDROCK_MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
export const BEDROCK_HOST = "bedrock-runtime.us-east-1.amazonaws.com";

/** The routes of the gateway under test. */
export const MESSAGES_ROUTES = {
  routes: {
    claude: {
      protocol: "anthropic",
      model: "claude-sonnet-4-5",
      baseURL: ANTHROPIC_BASE,
      apiKeySecret: "ANTHROPIC_API_KEY",
      aliases: ["claude-sonnet-4-5-20250929"],
    },
    bedrock: {
      protocol: "bedrock",
      model: BEDROCK_MODEL,
      settings: { api: "invoke" },
      region: "us-east-1",
      apiKeySecret: "OPENAI_API_KEY",
    },
    gpt: { protocol: "openai-chat", model: "gpt-4o", baseURL: OPENAI_BASE, apiKeySecret: "OPENAI_API_KEY" },
    /** A Chat server that wants its reasoning_content back with the tool calls (DeepSeek's thinking mode). */
    deepseek: {
      protocol: "openai-chat",
      model: "deepseek-reasoner",
      baseURL: "https://deepseek.upstream.test/v1",
      endpoint: { kind: "deepseek", echoReasoning: true, streamUsage: true },
      apiKeySecret: "OPENAI_API_KEY",
    },
    responses: {
      protocol: "openai-responses",
      model: "gpt-5-mini",
      baseURL: OPENAI_BASE,
      apiKeySecret: "OPENAI_API_KEY",
    },
    "responses-b": {
      protocol: "openai-responses",
      model: "gpt-5-mini",
      baseURL: OPENAI_BASE,
      apiKeySecret: "OPENAI_API_KEY",
    },
    demo: { demo: true },
  },
};

/** A gateway over {@link MESSAGES_ROUTES}, its upstream calls, and its `fetch` for clients. */
export function messagesGateway(handler: UpstreamHandler) {
  const { worker, calls, call } = gateway(handler, { config: MESSAGES_ROUTES, log: () => {} });
  const fetchImpl = (async (url: RequestInfo | URL, init?: RequestInit) =>
    worker.app.fetch(new Request(url, init), gatewayEnv)) as typeof fetch;
  return { calls, call, fetch: fetchImpl };
}

/** The official Anthropic client, pointed at the gateway. */
export function anthropicClient(fetchImpl: typeof fetch, maxRetries = 0): Anthropic {
  return new Anthropic({ apiKey: TOKEN, baseURL: "http://gateway.test", fetch: fetchImpl, maxRetries });
}

export const WEATHER_TOOL = {
  name: "get_weather",
  description: "Current weather in a city",
  input_schema: {
    type: "object" as const,
    properties: { city: { type: "string" } },
    required: ["city"],
  },
};

/** A signature as the API sends one (opaque base64). */
export const SIGNATURE =
  "EqQBCkYIBxgCKkBXsWJd1hdxPW1nMtOUYq9M8Fqa2xXZcIkCgmETS1ZygvT7qXbw8DlvmNQGRZkA2kgQr0s1Ea2qAqRn2vNsj5ZGEgw6s9";

/** The events of an Anthropic answer that thinks (signed), says a word and calls the weather tool. */
export function thinkingToolEvents(): Record<string, unknown>[] {
  return [
    {
      type: "message_start",
      message: {
        id: "msg_01ThinkTool",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5-20250929",
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 120,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 1,
        },
      },
    },
    {
      type: "content_block_start",
      index: 0,
      content_block: { type: "thinking", thinking: "", signature: "" },
    },
    { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "The user wants " } },
    { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "the weather." } },
    { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: SIGNATURE } },
    { type: "content_block_stop", index: 0 },
    { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
    { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "Checking." } },
    { type: "content_block_stop", index: 1 },
    {
      type: "content_block_start",
      index: 2,
      content_block: { type: "tool_use", id: "toolu_01Weather", name: "get_weather", input: {} },
    },
    { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: '{"city":' } },
    { type: "content_block_delta", index: 2, delta: { type: "input_json_delta", partial_json: ' "Paris"}' } },
    { type: "content_block_stop", index: 2 },
    {
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: 61 },
    },
    { type: "message_stop" },
  ];
}

/** The thinking-and-tool answer, whole (what `messages.create` gets). */
export function thinkingToolMessage(): Record<string, unknown> {
  return {
    id: "msg_01ThinkTool",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5-20250929",
    content: [
      { type: "thinking", thinking: "The user wants the weather.", signature: SIGNATURE },
      { type: "text", text: "Checking." },
      { type: "tool_use", id: "toolu_01Weather", name: "get_weather", input: { city: "Paris" } },
    ],
    stop_reason: "tool_use",
    stop_sequence: null,
    usage: {
      input_tokens: 120,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 61,
    },
  };
}

/** Anthropic events as SSE text. */
export function anthropicSse(events: readonly Record<string, unknown>[]): string {
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join("");
}

/** Anthropic events as an InvokeModelWithResponseStream body. */
export function bedrockStream(events: readonly Record<string, unknown>[]): Response {
  return new Response(invokeFrames(events) as Uint8Array<ArrayBuffer>, {
    headers: { "content-type": "application/vnd.amazon.eventstream" },
  });
}

export const sse = (text: string) =>
  new Response(text, { headers: { "content-type": "text/event-stream; charset=utf-8" } });
