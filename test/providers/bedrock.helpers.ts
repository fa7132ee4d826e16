/** Shared by the bedrock() provider tests: credentials, a recording fetch, Bedrock bodies and frames. */
import {
  type MessageInput,
  type Response as ModelResponse,
  ProviderError,
  type StreamEvent,
} from "../../src/index.ts";
import { byteStream } from "../helpers/byte-stream.ts";
import { listFixtures, loadFixture } from "../helpers/fixtures.ts";

export type Json = Record<string, unknown>;

export const ACCESS_KEY = "AKIDEXAMPLE";
export const SECRET_KEY = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
export const SESSION_TOKEN = "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKEN/abc+def==";
export const BEARER = "bedrock-api-key-ABSKQmVkcm9ja0FQSUtleS1leGFtcGxl";
export const CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
export const HISTORY: MessageInput[] = [{ role: "user", content: "What is the weather in Paris?" }];

export interface Captured {
  url: string;
  method: string;
  headers: Headers;
  body: string;
  json: Json;
}

export function fakeFetch(respond: (captured: Captured) => Response | Promise<Response>) {
  const requests: Captured[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const body = String(init?.body ?? "");
    const captured: Captured = {
      url: String(input),
      method: init?.method ?? "GET",
      headers: new Headers(init?.headers),
      body,
      json: JSON.parse(body) as Json,
    };
    requests.push(captured);
    return respond(captured);
  }) as typeof fetch;
  return { fetch: fetchImpl, requests };
}

export const eventStream = (bytes: Uint8Array, sizes?: readonly number[]) =>
  new Response(byteStream(bytes, sizes ?? bytes.length), {
    headers: { "content-type": "application/vnd.amazon.eventstream" },
  });

export const json = (value: unknown, init: ResponseInit = {}) =>
  new Response(JSON.stringify(value), {
    ...init,
    headers: { "content-type": "application/json", ...(init.headers as Record<string, string>) },
  });

export const quiet = { logger: false as const };

export async function collect(
  events: AsyncIterable<StreamEvent>,
): Promise<{ events: StreamEvent[]; response: ModelResponse }> {
  const seen: StreamEvent[] = [];
  for await (const event of events) seen.push(event);
  const done = seen.at(-1);
  if (done?.type !== "done") throw new Error("no done event");
  return { events: seen, response: done.response };
}

export async function failure(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

// ---------------------------------------------------------------------------------------------------
// Streams used below.

export const SIGNATURE = "EqQBCkYIBxgCKkBsignedThinkingSignature+/==";
export const THINKING_TOOL_EVENTS: Json[] = [
  {
    type: "message_start",
    message: {
      id: "msg_bdrk_01",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5-20250929",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 50,
        output_tokens: 1,
        cache_read_input_tokens: 10,
        cache_creation_input_tokens: 0,
      },
    },
  },
  { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "The user wants " } },
  { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "the weather." } },
  { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: SIGNATURE } },
  { type: "content_block_stop", index: 0 },
  {
    type: "content_block_start",
    index: 1,
    content_block: { type: "redacted_thinking", data: "RW5jcnlwdGVk" },
  },
  { type: "content_block_stop", index: 1 },
  { type: "content_block_start", index: 2, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 2, delta: { type: "text_delta", text: "Let me check." } },
  { type: "content_block_stop", index: 2 },
  {
    type: "content_block_start",
    index: 3,
    content_block: { type: "tool_use", id: "toolu_bdrk_01", name: "weather", input: {} },
  },
  { type: "content_block_delta", index: 3, delta: { type: "input_json_delta", partial_json: '{"city":' } },
  { type: "content_block_delta", index: 3, delta: { type: "input_json_delta", partial_json: '"Paris"}' } },
  { type: "content_block_stop", index: 3 },
  {
    type: "message_delta",
    delta: { stop_reason: "tool_use", stop_sequence: null },
    usage: { output_tokens: 42 },
  },
  { type: "message_stop", "amazon-bedrock-invocationMetrics": { inputTokenCount: 50, outputTokenCount: 42 } },
];

export const CONVERSE_EVENTS: Json[] = [
  { messageStart: { role: "assistant" } },
  { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: "Weather " } } } },
  { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: "lookup." } } } },
  { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { signature: SIGNATURE } } } },
  { contentBlockStop: { contentBlockIndex: 0 } },
  { contentBlockDelta: { contentBlockIndex: 1, delta: { text: "Checking " } } },
  { contentBlockDelta: { contentBlockIndex: 1, delta: { text: "Paris." } } },
  { contentBlockStop: { contentBlockIndex: 1 } },
  {
    contentBlockStart: {
      contentBlockIndex: 2,
      start: { toolUse: { toolUseId: "tooluse_abc123", name: "weather" } },
    },
  },
  { contentBlockDelta: { contentBlockIndex: 2, delta: { toolUse: { input: '{"ci' } } } },
  { contentBlockDelta: { contentBlockIndex: 2, delta: { toolUse: { input: 'ty":"Paris"}' } } } },
  { contentBlockStop: { contentBlockIndex: 2 } },
  { messageStop: { stopReason: "tool_use" } },
  {
    metadata: {
      usage: {
        inputTokens: 30,
        outputTokens: 20,
        totalTokens: 60,
        cacheReadInputTokens: 10,
        cacheWriteInputTokens: 0,
      },
      metrics: { latencyMs: 100 },
    },
  },
];

export const CONVERSE_JSON = {
  output: {
    message: {
      role: "assistant",
      content: [
        { reasoningContent: { reasoningText: { text: "Weather lookup.", signature: SIGNATURE } } },
        { text: "Checking Paris." },
        { toolUse: { toolUseId: "tooluse_abc123", name: "weather", input: { city: "Paris" } } },
      ],
    },
  },
  stopReason: "tool_use",
  usage: {
    inputTokens: 30,
    outputTokens: 20,
    totalTokens: 60,
    cacheReadInputTokens: 10,
    cacheWriteInputTokens: 0,
  },
  metrics: { latencyMs: 100 },
};

export function invokeMessageJson(events: Json[]): Json {
  // The whole message a non-streaming InvokeModel returns for the same output.
  const start = (events[0]!.message as Json) ?? {};
  return {
    ...start,
    content: [
      { type: "thinking", thinking: "The user wants the weather.", signature: SIGNATURE },
      { type: "redacted_thinking", data: "RW5jcnlwdGVk" },
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "toolu_bdrk_01", name: "weather", input: { city: "Paris" } },
    ],
    stop_reason: "tool_use",
    usage: {
      input_tokens: 50,
      output_tokens: 42,
      cache_read_input_tokens: 10,
      cache_creation_input_tokens: 0,
    },
  };
}

// ---------------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------------

/** What a first-party response looks like served by Bedrock: only provider and native provenance differ. */
export function provenance(response: ModelResponse, model: string): ModelResponse {
  return {
    ...response,
    provider: "bedrock",
    message: { ...response.message, native: { ...response.message.native!, origin: "bedrock", model } },
  };
}

export async function outcome(
  events: AsyncIterable<StreamEvent>,
): Promise<{ response: ModelResponse } | { error: Json }> {
  try {
    return { response: (await collect(events)).response };
  } catch (error) {
    const data = ProviderError.is(error) ? error.toJSON() : { message: String(error) };
    return { error: { kind: (data as Json).kind, partialOutput: (data as Json).partialOutput } };
  }
}

/** Every message of every recorded Anthropic SSE body (the `data:` JSON events, split at `message_start`). */
export async function recordedAnthropicMessages(): Promise<{ name: string; events: Json[] }[]> {
  const decoder = new TextDecoder();
  const out: { name: string; events: Json[] }[] = [];
  for (const info of listFixtures("anthropic")) {
    const fixture = await loadFixture(info.path);
    for (const interaction of fixture.interactions) {
      if (interaction.bodyKind !== "sse") continue;
      const events = decoder
        .decode(interaction.body)
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
        .filter((data) => data !== "[DONE]")
        .map((data) => JSON.parse(data) as Json);
      let current: Json[] | undefined;
      for (const event of events) {
        if (event.type === "message_start" || current === undefined) {
          current = [];
          out.push({ name: `${info.path}#${interaction.index}/${out.length}`, events: current });
        }
        current.push(event);
      }
    }
  }
  return out;
}
