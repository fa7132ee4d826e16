/**
 * The protocol contract (src/protocols/protocol.ts), held against every protocol object: each member is
 * wired to the folder's own function, and each keeps what the contract says — `name` is `native.protocol`,
 * a whole answer and the same answer streamed give one `Response`, `mapError` / `mapUsage` /
 * `mapStopReason` are total, and `replaysNative` is the rule `buildRequest` actually applies.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PROVIDER_ERROR_KINDS } from "../../src/core/provider-error.ts";
import type { Response as ModelResponse } from "../../src/core/response.ts";
import type { StreamEvent } from "../../src/core/stream-event.ts";
import {
  ANTHROPIC_MESSAGES,
  anthropicMessagesProtocol,
  assembleAnthropicStream,
  buildAnthropicRequest,
  mapAnthropicError,
  mapAnthropicStopReason,
  mapAnthropicUsage,
  parseAnthropicResponse,
} from "../../src/protocols/anthropic-messages/index.ts";
import {
  assembleBedrockConverseStream,
  BEDROCK_CONVERSE,
  bedrockConverseProtocol,
  buildBedrockConverseRequest,
  mapBedrockConverseStopReason,
  mapBedrockConverseUsage,
  mapBedrockHttpError,
  parseBedrockConverseResponse,
} from "../../src/protocols/bedrock-converse/index.ts";
import {
  assembleBedrockInvokeStream,
  BEDROCK_ANTHROPIC_VERSION,
  bedrockInvokeProtocol,
  buildBedrockInvokeRequest,
} from "../../src/protocols/bedrock-invoke/index.ts";
import {
  assembleGeminiStream,
  buildGeminiRequest,
  GOOGLE_GEMINI,
  googleGeminiProtocol,
  mapGeminiError,
  mapGeminiStopReason,
  mapGeminiUsage,
  parseGeminiResponse,
} from "../../src/protocols/google-gemini/index.ts";
import {
  assembleOpenAIChatStream,
  buildOpenAIChatRequest,
  mapOpenAIChatError,
  mapOpenAIChatStopReason,
  mapOpenAIChatUsage,
  OPENAI_CHAT,
  openAIChatProtocol,
  parseOpenAIChatResponse,
} from "../../src/protocols/openai-chat/index.ts";
import {
  assembleOpenAIResponsesStream,
  buildOpenAIResponsesRequest,
  mapOpenAIResponsesError,
  mapOpenAIResponsesUsage,
  OPENAI_RESPONSES,
  openAIResponsesProtocol,
  parseOpenAIResponsesResponse,
} from "../../src/protocols/openai-responses/index.ts";
import type { Protocol, ProtocolWire, ReplayTarget } from "../../src/protocols/protocol.ts";
import {
  buildVertexAnthropicRequest,
  mapVertexAnthropicError,
  VERTEX_ANTHROPIC_VERSION,
  vertexAnthropicProtocol,
} from "../../src/protocols/vertex-anthropic/index.ts";
import { anthropicModelProfile } from "../../src/providers/anthropic-model-profiles.ts";
import { openAIChatEndpointProfile } from "../../src/providers/openai-chat.ts";
import { readAwsEventStream } from "../../src/wire/aws-event-stream.ts";
import { readSseBatches } from "../../src/wire/sse.ts";
import { NDJSON_CHAT, ndjsonChatProtocol } from "../fixtures-code/ndjson-chat/protocol.ts";
import { converseFrames, invokeFrames } from "../helpers/bedrock-frames.ts";
import { byteStream } from "../helpers/byte-stream.ts";

const encoder = new TextEncoder();
const MARK = "NATIVE-MARK-7f3a";

function sseBytes(events: readonly unknown[], named = false): Uint8Array {
  return encoder.encode(
    events
      .map((event) => {
        const data = typeof event === "string" ? event : JSON.stringify(event);
        const name = named && typeof event === "object" ? `event: ${(event as { type: string }).type}\n` : "";
        return `${name}data: ${data}\n\n`;
      })
      .join(""),
  );
}

async function drain(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** One protocol under the contract, with what the checks need to drive it. */
interface Case {
  label: string;
  protocol: Protocol<ProtocolWire>;
  name: string;
  /** The folder's own functions each member must be wired to (members that are the function itself). */
  wired: Partial<Record<keyof Protocol, unknown>>;
  context: ProtocolWire["context"] & { origin?: string };
  /** The origin and model a request goes to (for the provenance matrix). */
  target: ReplayTarget;
  /** The request input for `messages`, sent to `target`. */
  request(messages: readonly unknown[]): ProtocolWire["request"];
  /** One assistant turn's `native.blocks` carrying {@link MARK} where a replay would show it. */
  nativeBlocks: unknown[];
  /** A whole answer saying "Hello", and the same answer as stream bytes. */
  answer: object;
  streamed: Uint8Array;
  /** The stream without its terminal event: what a dropped connection leaves. */
  cut: Uint8Array;
  /** The raw stop reason of `answer`, as `mapStopReason`'s arguments. */
  stopReason: readonly unknown[];
}

const CLAUDE = "claude-sonnet-4-5-20250929";
const BEDROCK_CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const VERTEX_CLAUDE = "claude-sonnet-4-5@20250929";
const ANTHROPIC_MESSAGE = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: CLAUDE,
  content: [{ type: "text", text: "Hello" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 2 },
};
const ANTHROPIC_EVENTS = [
  {
    type: "message_start",
    message: {
      ...ANTHROPIC_MESSAGE,
      content: [],
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } },
  { type: "content_block_stop", index: 0 },
  {
    type: "message_delta",
    delta: { stop_reason: "end_turn", stop_sequence: null },
    usage: { output_tokens: 2 },
  },
  { type: "message_stop" },
];
const CHAT_PROFILE = { ...openAIChatEndpointProfile("vllm"), echoReasoning: true };
const RESPONSES_ANSWER = {
  id: "resp_1",
  object: "response",
  model: "gpt-5",
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
  usage: { input_tokens: 20, output_tokens: 5, input_tokens_details: { cached_tokens: 8 } },
};
const CONVERSE_ANSWER = {
  output: { message: { role: "assistant", content: [{ text: "Hello" }] } },
  stopReason: "end_turn",
  usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 },
};
const NDJSON_ANSWER = {
  object: "answer",
  model: "nd-1",
  parts: [{ type: "text", text: "Hello" }],
  finish: "end",
  usage: { input: 10, output: 2, cached: 4 },
};
const NDJSON_LINES = [
  { type: "text", delta: "Hel" },
  { type: "text", delta: "lo" },
  { type: "end", finish: "end", usage: { input: 10, output: 2, cached: 4 } },
];

const GEMINI = "gemini-2.5-flash";
const GEMINI_CHUNKS = [
  {
    candidates: [{ content: { role: "model", parts: [{ text: "Hel" }] }, index: 0 }],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 1, totalTokenCount: 13 },
    modelVersion: GEMINI,
    responseId: "resp-g1",
  },
  {
    candidates: [{ content: { role: "model", parts: [{ text: "lo" }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 2, totalTokenCount: 14 },
    modelVersion: GEMINI,
    responseId: "resp-g1",
  },
];
const GEMINI_ANSWER = {
  candidates: [
    {
      content: { role: "model", parts: [{ text: "Hel" }, { text: "lo" }] },
      finishReason: "STOP",
      index: 0,
    },
  ],
  usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 2, totalTokenCount: 14 },
  modelVersion: GEMINI,
  responseId: "resp-g1",
};

function ndjsonBytes(lines: readonly unknown[]): Uint8Array {
  return encoder.encode(lines.map((line) => `${JSON.stringify(line)}\n`).join(""));
}

const CASES: Case[] = [
  {
    label: "anthropic-messages",
    protocol: anthropicMessagesProtocol as unknown as Protocol<ProtocolWire>,
    name: ANTHROPIC_MESSAGES,
    wired: {
      buildRequest: buildAnthropicRequest,
      parseResponse: parseAnthropicResponse,
      readFrames: readSseBatches,
      assembleStream: assembleAnthropicStream,
      mapError: mapAnthropicError,
      mapUsage: mapAnthropicUsage,
      mapStopReason: mapAnthropicStopReason,
    },
    context: { provider: "anthropic", model: CLAUDE, origin: "anthropic" },
    target: { origin: "anthropic", model: CLAUDE },
    request: (messages) => ({
      messages,
      tools: [],
      options: {},
      target: { model: CLAUDE, origin: "anthropic" },
      profile: anthropicModelProfile(CLAUDE),
      stream: false,
    }),
    nativeBlocks: [{ type: "text", text: MARK }],
    answer: ANTHROPIC_MESSAGE,
    streamed: sseBytes(ANTHROPIC_EVENTS, true),
    cut: sseBytes(ANTHROPIC_EVENTS.slice(0, -1), true),
    stopReason: ["end_turn"],
  },
  {
    label: "bedrock-invoke (anthropic-messages over InvokeModel)",
    protocol: bedrockInvokeProtocol as unknown as Protocol<ProtocolWire>,
    name: ANTHROPIC_MESSAGES,
    wired: {
      buildRequest: buildBedrockInvokeRequest,
      parseResponse: parseAnthropicResponse,
      readFrames: readAwsEventStream,
      assembleStream: assembleBedrockInvokeStream,
      mapError: mapBedrockHttpError,
      mapUsage: mapAnthropicUsage,
      mapStopReason: mapAnthropicStopReason,
    },
    context: { provider: "bedrock", model: BEDROCK_CLAUDE, origin: "bedrock" },
    target: { origin: "bedrock", model: BEDROCK_CLAUDE },
    request: (messages) => ({
      messages,
      tools: [],
      options: {},
      model: BEDROCK_CLAUDE,
      profile: anthropicModelProfile(BEDROCK_CLAUDE),
    }),
    nativeBlocks: [{ type: "text", text: MARK }],
    answer: ANTHROPIC_MESSAGE,
    streamed: invokeFrames(ANTHROPIC_EVENTS),
    cut: invokeFrames(ANTHROPIC_EVENTS.slice(0, -1)),
    stopReason: ["end_turn"],
  },
  {
    label: "vertex-anthropic (anthropic-messages over Vertex rawPredict)",
    protocol: vertexAnthropicProtocol as unknown as Protocol<ProtocolWire>,
    name: ANTHROPIC_MESSAGES,
    wired: {
      buildRequest: buildVertexAnthropicRequest,
      parseResponse: parseAnthropicResponse,
      readFrames: readSseBatches,
      assembleStream: assembleAnthropicStream,
      mapError: mapVertexAnthropicError,
      mapUsage: mapAnthropicUsage,
      mapStopReason: mapAnthropicStopReason,
    },
    context: { provider: "vertex", model: VERTEX_CLAUDE, origin: "vertex" },
    target: { origin: "vertex", model: VERTEX_CLAUDE },
    request: (messages) => ({
      messages,
      tools: [],
      options: {},
      model: VERTEX_CLAUDE,
      profile: anthropicModelProfile(VERTEX_CLAUDE),
      stream: false,
    }),
    nativeBlocks: [{ type: "text", text: MARK }],
    answer: ANTHROPIC_MESSAGE,
    streamed: sseBytes(ANTHROPIC_EVENTS, true),
    cut: sseBytes(ANTHROPIC_EVENTS.slice(0, -1), true),
    stopReason: ["end_turn"],
  },
  {
    label: "openai-chat",
    protocol: openAIChatProtocol as unknown as Protocol<ProtocolWire>,
    name: OPENAI_CHAT,
    wired: {
      buildRequest: buildOpenAIChatRequest,
      parseResponse: parseOpenAIChatResponse,
      readFrames: readSseBatches,
      assembleStream: assembleOpenAIChatStream,
      mapError: mapOpenAIChatError,
      mapUsage: mapOpenAIChatUsage,
      mapStopReason: mapOpenAIChatStopReason,
    },
    context: { provider: "vllm", model: "qwen", profile: CHAT_PROFILE } as Case["context"],
    target: { origin: CHAT_PROFILE.kind, model: "qwen" },
    request: (messages) => ({
      messages,
      tools: [],
      options: {},
      model: "qwen",
      profile: CHAT_PROFILE,
      stream: false,
    }),
    // Chat replays a same-source turn's reasoning (for endpoints that take it back).
    nativeBlocks: [{ role: "assistant", content: "rebuilt", reasoning_content: MARK }],
    answer: {
      id: "chatcmpl-1",
      object: "chat.completion",
      model: "qwen",
      choices: [{ index: 0, message: { role: "assistant", content: "Hello" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 5, completion_tokens: 1 },
    },
    streamed: sseBytes([
      {
        id: "chatcmpl-1",
        model: "qwen",
        choices: [{ index: 0, delta: { role: "assistant", content: "Hel" } }],
      },
      {
        id: "chatcmpl-1",
        model: "qwen",
        choices: [{ index: 0, delta: { content: "lo" }, finish_reason: "stop" }],
      },
      { id: "chatcmpl-1", model: "qwen", choices: [], usage: { prompt_tokens: 5, completion_tokens: 1 } },
      "[DONE]",
    ]),
    cut: sseBytes([
      {
        id: "chatcmpl-1",
        model: "qwen",
        choices: [{ index: 0, delta: { role: "assistant", content: "Hel" } }],
      },
    ]),
    stopReason: ["stop"],
  },
  {
    label: "openai-responses",
    protocol: openAIResponsesProtocol as unknown as Protocol<ProtocolWire>,
    name: OPENAI_RESPONSES,
    wired: {
      buildRequest: buildOpenAIResponsesRequest,
      parseResponse: parseOpenAIResponsesResponse,
      readFrames: readSseBatches,
      assembleStream: assembleOpenAIResponsesStream,
      mapError: mapOpenAIResponsesError,
      mapUsage: mapOpenAIResponsesUsage,
    },
    context: { provider: "openai", model: "gpt-5", origin: "openai" },
    target: { origin: "openai", model: "gpt-5" },
    request: (messages) => ({
      messages,
      tools: [],
      options: {},
      model: "gpt-5",
      origin: "openai",
      stream: false,
    }),
    nativeBlocks: [
      { id: "msg_9", type: "message", role: "assistant", content: [{ type: "output_text", text: MARK }] },
    ],
    answer: RESPONSES_ANSWER,
    streamed: sseBytes([
      { type: "response.created", response: { ...RESPONSES_ANSWER, status: "in_progress", output: [] } },
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { id: "msg_1", type: "message", status: "in_progress", role: "assistant", content: [] },
      },
      {
        type: "response.content_part.added",
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        part: { type: "output_text", text: "", annotations: [] },
      },
      {
        type: "response.output_text.delta",
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        delta: "Hel",
      },
      {
        type: "response.output_text.delta",
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        delta: "lo",
      },
      {
        type: "response.output_text.done",
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        text: "Hello",
      },
      { type: "response.output_item.done", output_index: 0, item: RESPONSES_ANSWER.output[0] },
      { type: "response.completed", response: RESPONSES_ANSWER },
    ]),
    cut: sseBytes([
      { type: "response.created", response: { ...RESPONSES_ANSWER, status: "in_progress", output: [] } },
    ]),
    stopReason: ["completed", undefined, false],
  },
  {
    label: "bedrock-converse",
    protocol: bedrockConverseProtocol as unknown as Protocol<ProtocolWire>,
    name: BEDROCK_CONVERSE,
    wired: {
      buildRequest: buildBedrockConverseRequest,
      parseResponse: parseBedrockConverseResponse,
      readFrames: readAwsEventStream,
      assembleStream: assembleBedrockConverseStream,
      mapError: mapBedrockHttpError,
      mapUsage: mapBedrockConverseUsage,
      mapStopReason: mapBedrockConverseStopReason,
    },
    context: { provider: "bedrock", model: "amazon.nova-pro-v1:0", origin: "bedrock" },
    target: { origin: "bedrock", model: "amazon.nova-pro-v1:0" },
    request: (messages) => ({ messages, tools: [], options: {}, model: "amazon.nova-pro-v1:0" }),
    nativeBlocks: [{ text: MARK }],
    answer: CONVERSE_ANSWER,
    streamed: converseFrames([
      { messageStart: { role: "assistant" } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: "Hel" } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: "lo" } } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      { messageStop: { stopReason: "end_turn" } },
      { metadata: { usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 } } },
    ]),
    cut: converseFrames([
      { messageStart: { role: "assistant" } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: "Hel" } } },
    ]),
    stopReason: ["end_turn"],
  },
  {
    label: "google-gemini",
    protocol: googleGeminiProtocol as unknown as Protocol<ProtocolWire>,
    name: GOOGLE_GEMINI,
    wired: {
      buildRequest: buildGeminiRequest,
      parseResponse: parseGeminiResponse,
      readFrames: readSseBatches,
      assembleStream: assembleGeminiStream,
      mapError: mapGeminiError,
      mapUsage: mapGeminiUsage,
      mapStopReason: mapGeminiStopReason,
    },
    context: { provider: "gemini", model: GEMINI, origin: "gemini" },
    target: { origin: "gemini", model: GEMINI },
    request: (messages) => ({ messages, tools: [], options: {}, model: GEMINI, origin: "gemini" }),
    nativeBlocks: [{ text: MARK, thoughtSignature: "c2lnbmVk" }],
    answer: GEMINI_ANSWER,
    streamed: sseBytes(GEMINI_CHUNKS),
    cut: sseBytes(GEMINI_CHUNKS.slice(0, 1)),
    stopReason: ["STOP"],
  },
  {
    // A protocol from outside the package, written against modelwire/protocols alone: held to the same
    // contract. Its members are its own closures, so there is no folder function to compare them with.
    label: "ndjson-chat (from outside: test/fixtures-code/ndjson-chat/)",
    protocol: ndjsonChatProtocol as unknown as Protocol<ProtocolWire>,
    name: NDJSON_CHAT,
    wired: {},
    context: { provider: "ndjson-chat", model: "nd-1", origin: "ndjson-chat.example" },
    target: { origin: "ndjson-chat.example", model: "nd-1" },
    request: (messages) => ({
      messages,
      tools: [],
      options: {},
      model: "nd-1",
      origin: "ndjson-chat.example",
      stream: false,
    }),
    nativeBlocks: [{ type: "text", text: MARK }],
    answer: NDJSON_ANSWER,
    streamed: ndjsonBytes(NDJSON_LINES),
    cut: ndjsonBytes(NDJSON_LINES.slice(0, -1)),
    stopReason: ["end"],
  },
];

/** A history whose assistant turn carries `native`, and whose neutral text differs from the native text. */
function historyWith(native: unknown): unknown[] {
  return [
    { role: "user", content: "hi" },
    { role: "assistant", content: "rebuilt", toolCalls: [], toolResults: [], synthetic: false, native },
    { role: "user", content: "again" },
  ];
}

describe.each(CASES)("$label", (entry) => {
  const { protocol } = entry;

  it("names its wire protocol, and every member is wired to the folder's own function", () => {
    expect(protocol.name).toBe(entry.name);
    for (const [member, fn] of Object.entries(entry.wired)) {
      expect(protocol[member as keyof Protocol], member).toBe(fn);
    }
    for (const member of [
      "buildRequest",
      "isResponse",
      "parseResponse",
      "readFrames",
      "assembleStream",
      "mapError",
      "mapUsage",
      "mapStopReason",
      "replaysNative",
    ] as const) {
      expect(typeof protocol[member], member).toBe("function");
    }
  });

  it("a whole answer: isResponse accepts it, parseResponse stamps native with name, origin and model", () => {
    expect(protocol.isResponse(entry.answer)).toBe(true);
    expect(protocol.isResponse({ nope: true })).toBe(false);
    const response = protocol.parseResponse(entry.answer, { ...entry.context, warnings: ["w"] });
    expect(response.message.content).toBe("Hello");
    expect(response.message.native).toMatchObject({
      protocol: entry.name,
      origin: entry.target.origin,
      model: entry.context.model,
    });
    expect(response.stopReason).toBe(protocol.mapStopReason(...entry.stopReason));
    expect(response.warnings).toEqual(["w"]);
  });

  it("the same answer streamed: readFrames → assembleStream ends with one done equal to parseResponse", async () => {
    for (const chunk of [1, 7, 4096]) {
      const events = await drain(
        protocol.assembleStream(protocol.readFrames(byteStream(entry.streamed, chunk)), entry.context),
      );
      expect(events.filter((event) => event.type === "done")).toHaveLength(1);
      const done = events.at(-1);
      expect(done?.type).toBe("done");
      const streamed = (done as { response: ModelResponse }).response;
      const whole = protocol.parseResponse(entry.answer, entry.context);
      expect(streamed.message, `chunks of ${chunk}`).toEqual(whole.message);
      expect(streamed.stopReason).toBe(whole.stopReason);
      expect(streamed.usage).toEqual(whole.usage);
      const text = events.flatMap((event) => (event.type === "text-delta" ? [event.text] : [])).join("");
      expect(text).toBe("Hello");
    }
  });

  it("a stream that ends before its terminal event is truncated, never a silent success", async () => {
    const failure = await drain(
      protocol.assembleStream(protocol.readFrames(byteStream(entry.cut, 5)), entry.context),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({ name: "ProviderError", kind: "truncated" });
  });

  it("framing cut inside a frame is a WireError from readFrames (the shell maps it)", async () => {
    const half = entry.streamed.slice(0, Math.floor(entry.streamed.length / 2));
    const failure = await drain(
      protocol.assembleStream(protocol.readFrames(byteStream(half, 5)), entry.context),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    if (protocol.readFrames === readAwsEventStream) {
      expect(failure).toMatchObject({ name: "WireError", code: "truncated" });
    } else {
      // SSE dispatches a last event left without its blank line (some servers omit it): cut JSON in it is
      // unreadable, and says so.
      expect(failure).toMatchObject({ name: "ProviderError", kind: "invalid_response" });
    }
  });

  it("mapError is total: any status, body and headers give a known kind and a message", () => {
    const bodies: unknown[] = [
      undefined,
      null,
      "text",
      42,
      [],
      {},
      { error: "flat" },
      { error: { message: 5 } },
    ];
    for (const status of [400, 401, 404, 408, 413, 429, 500, 503, 529]) {
      for (const body of bodies) {
        const info = protocol.mapError(status, body, new Headers());
        expect(PROVIDER_ERROR_KINDS, `${status} ${JSON.stringify(body)}`).toContain(info.kind);
        expect(info.message).toEqual(expect.any(String));
      }
    }
    expect(protocol.mapError(429, {}, new Headers()).kind).toBe("rate_limit");
    expect(protocol.mapError(401, {}, new Headers()).kind).toBe("auth");
  });

  it("mapUsage keeps absent counts undefined and is total over missing usage", () => {
    expect(protocol.mapUsage(undefined)).toEqual({});
    expect(protocol.mapUsage(null)).toEqual({});
    expect(protocol.mapUsage({})).toEqual({});
  });

  it('mapStopReason is total: a reason it does not know is "other"', () => {
    const unknown =
      entry.name === OPENAI_RESPONSES ? ["brand-new-status", undefined, false] : ["brand_new_reason"];
    expect(protocol.mapStopReason(...unknown)).toBe("other");
  });

  it("replaysNative is the provenance rule, and the one buildRequest applies", () => {
    const own = { protocol: entry.name, origin: entry.target.origin, model: entry.target.model };
    const natives: [unknown, boolean][] = [
      [{ ...own, blocks: entry.nativeBlocks }, true],
      [{ ...own, protocol: "someone-else", blocks: entry.nativeBlocks }, false],
      [{ ...own, origin: "elsewhere", blocks: entry.nativeBlocks }, false],
      [{ ...own, model: "another-model", blocks: entry.nativeBlocks }, false],
      [{ ...own, blocks: "not an array" }, false],
      [{ ...own }, false],
      [null, false],
      ["native", false],
      [undefined, false],
    ];
    for (const [native, replays] of natives) {
      expect(protocol.replaysNative(native, entry.target), JSON.stringify(native)).toBe(replays);
      const { body } = protocol.buildRequest(entry.request(historyWith(native)));
      expect(JSON.stringify(body).includes(MARK), `buildRequest with ${JSON.stringify(native)}`).toBe(
        replays,
      );
    }
  });

  it("buildRequest never throws on stored history that is not what the types say", () => {
    const junk: unknown[] = [
      null,
      42,
      "text",
      { role: "assistant", toolCalls: [{ id: 5, name: null, arguments: "{bad" }] },
      { role: "tool", toolResults: [{ callId: undefined, content: { nested: true } }] },
      { role: "user", content: [{ type: "image" }] },
      { role: "wizard", content: "?" },
      {
        role: "assistant",
        native: {
          protocol: entry.name,
          origin: entry.target.origin,
          model: entry.target.model,
          blocks: [null, 7, {}],
        },
      },
      Object.create(null),
    ];
    const { body, warnings } = protocol.buildRequest(entry.request(junk));
    expect(body).toEqual(expect.any(Object));
    expect(warnings.length).toBeGreaterThan(0);
  });
});

// ---------------------------------------------------------------------------------------------------
// Content parts and structured output, over every protocol (issue 16).

/** A part that can be found again in a request body: its marker is unique to it. */
interface MarkedPart {
  part: Record<string, unknown>;
  /** Strings of which one must be in the body if the part went out (its data, its decoded text, its URL). */
  markers: string[];
}

const asciiBase64 = (text: string) => btoa(text);

/** Random valid parts, each carrying a unique marker: text, images and files, inline and by URL. */
function partArb(tag: string): fc.Arbitrary<MarkedPart> {
  const unique = fc
    .string({ unit: fc.constantFrom(..."abcdefghijklmnop"), minLength: 8, maxLength: 8 })
    .map((letters) => `${tag}${letters}`);
  return fc.oneof(
    unique.map((mark) => ({ part: { type: "text", text: `text ${mark}` }, markers: [`text ${mark}`] })),
    fc
      .tuple(unique, fc.constantFrom("image/png", "image/jpeg", "image/gif", "image/webp", "image/tiff"))
      .map(([mark, mediaType]) => {
        const data = asciiBase64(`img-${mark}`);
        return { part: { type: "image", mediaType, data }, markers: [data] };
      }),
    fc
      .tuple(unique, fc.constantFrom("https://img.example/", "gs://bucket/", "s3://bucket/"))
      .map(([mark, base]) => {
        const url = `${base}${mark}.png`;
        return { part: { type: "image", url }, markers: [url] };
      }),
    fc
      .tuple(
        unique,
        fc.constantFrom("application/pdf", "text/plain", "text/csv", "application/x-unknown"),
        fc.option(fc.constantFrom("report.pdf", "notes (v2).txt", "a  b?.pdf"), { nil: undefined }),
      )
      .map(([mark, mediaType, filename]) => {
        const text = `doc-${mark}`;
        const data = asciiBase64(text);
        const part: Record<string, unknown> = { type: "file", mediaType, data };
        if (filename !== undefined) part.filename = filename;
        return { part, markers: [data, text] };
      }),
    fc.tuple(unique, fc.constantFrom("https://docs.example/", "s3://bucket/")).map(([mark, base]) => {
      const url = `${base}${mark}.pdf`;
      return { part: { type: "file", url, mediaType: "application/pdf" }, markers: [url] };
    }),
  );
}

/** A history of user messages with parts and one tool turn whose result has parts; the path of every part. */
const partsHistoryArb = fc
  .tuple(
    fc.array(fc.array(partArb("u"), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 }),
    fc.array(partArb("r"), { minLength: 1, maxLength: 4 }),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([users, generated, isError, markedAlready]) => {
    // A result whose own first part says "Error:" (a failed one then gets no marker put in front).
    const result: MarkedPart[] = markedAlready
      ? [{ part: { type: "text", text: "Error:" }, markers: ["Error:"] }, ...generated]
      : generated;
    const messages: unknown[] = [];
    const placed: { path: string; marked: MarkedPart }[] = [];
    users.forEach((parts, position) => {
      const index = messages.length;
      messages.push({ role: "user", content: parts.map((marked) => marked.part) });
      parts.forEach((marked, at) => {
        placed.push({ path: `messages[${index}].content[${at}]`, marked });
      });
      if (position === 0) {
        messages.push({
          role: "assistant",
          content: "",
          toolCalls: [{ id: "call_1", name: "shoot", arguments: {} }],
          toolResults: [],
          synthetic: false,
        });
        const tool = messages.length;
        messages.push({
          role: "tool",
          toolResults: [{ callId: "call_1", content: result.map((marked) => marked.part), isError }],
        });
        result.forEach((marked, at) => {
          placed.push({ path: `messages[${tool}].toolResults[0].content[${at}]`, marked });
        });
      }
    });
    return { messages, placed };
  });

/** Whether `text` names `path` exactly (not `content[1]` for `content[12]`). */
function names(text: string, path: string): boolean {
  return new RegExp(`${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![\\d])`).test(text);
}

describe.each(CASES)("$label: content parts and responseFormat", (entry) => {
  it("random part lists never throw, and every part goes out or is named in a warning or a refusal", () => {
    fc.assert(
      fc.property(partsHistoryArb, ({ messages, placed }) => {
        const built = entry.protocol.buildRequest(entry.request(messages));
        const body = JSON.stringify(built.body);
        const said = [
          ...built.warnings,
          ...(built.refused ?? []).map((issue) => `${issue.path}: ${issue.message}`),
        ];
        for (const { path, marked } of placed) {
          const sent = marked.markers.some((marker) => body.includes(marker));
          const named = said.some((line) => names(line, path));
          expect(
            sent || named,
            `${path} ${JSON.stringify(marked.part).slice(0, 120)}: neither sent nor named`,
          ).toBe(true);
        }
        for (const issue of built.refused ?? []) expect(issue.path).toMatch(/^(messages|responseFormat)/);
      }),
      { seed: 1616, numRuns: 300 },
    );
  });

  it("a system message given as parts keeps its text; an image in it is named, never dropped in silence", () => {
    const built = entry.protocol.buildRequest(
      entry.request([
        {
          role: "system",
          content: [
            { type: "text", text: "Be terse, sys-mark-41." },
            { type: "image", url: "https://img.example/sys.png" },
          ],
        },
        { role: "user", content: "hi" },
      ]),
    );
    expect(JSON.stringify(built.body)).toContain("Be terse, sys-mark-41.");
    const said = [...built.warnings, ...(built.refused ?? []).map((issue) => issue.path)];
    expect(
      JSON.stringify(built.body).includes("https://img.example/sys.png") ||
        said.some((line) => names(line, "messages[0].content[1]")),
    ).toBe(true);
  });

  it("responseFormat is never ignored: mapped into the body, sent as the output tool, or refused", () => {
    const format = {
      type: "json_schema" as const,
      name: "city_fmt",
      schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      strict: true,
    };
    const request = { ...entry.request([{ role: "user", content: "Oslo?" }]), format };
    const built = entry.protocol.buildRequest(request);
    const plain = entry.protocol.buildRequest(entry.request([{ role: "user", content: "Oslo?" }]));
    const refused = (built.refused ?? []).some((issue) => issue.path.startsWith("responseFormat"));
    const body = JSON.stringify(built.body);
    if (!refused) {
      expect(body).not.toBe(JSON.stringify(plain.body));
      expect(body.includes("city_fmt") || body.includes('"city"')).toBe(true);
      if (built.outputTool !== undefined) expect(built.outputTool).toBe("city_fmt");
    }
  });
});

describe("vertexAnthropicProtocol", () => {
  it("puts the Messages body in Vertex's envelope: anthropic_version first, no model, stream kept", () => {
    const { body } = vertexAnthropicProtocol.buildRequest({
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      options: { metadata: { user_id: "u1" } },
      model: VERTEX_CLAUDE,
      profile: anthropicModelProfile(VERTEX_CLAUDE),
      stream: true,
    });
    expect(Object.keys(body)[0]).toBe("anthropic_version");
    expect(body).toMatchObject({
      anthropic_version: VERTEX_ANTHROPIC_VERSION,
      stream: true,
      metadata: { user_id: "u1" },
    });
    expect(body).not.toHaveProperty("model");
  });

  it("shares the Anthropic reading and SSE framing; reads both Vertex error shapes; replays only to origin vertex", () => {
    expect(vertexAnthropicProtocol.name).toBe(anthropicMessagesProtocol.name);
    expect(vertexAnthropicProtocol.readFrames).toBe(anthropicMessagesProtocol.readFrames);
    expect(
      vertexAnthropicProtocol.mapError(
        429,
        { error: { code: 429, status: "RESOURCE_EXHAUSTED", message: "Quota exceeded" } },
        new Headers(),
      ).kind,
    ).toBe("rate_limit");
    expect(
      vertexAnthropicProtocol.mapError(
        529,
        [{ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }],
        new Headers(),
      ).kind,
    ).toBe("overloaded");
    const native = { protocol: ANTHROPIC_MESSAGES, origin: "anthropic", model: VERTEX_CLAUDE, blocks: [] };
    expect(vertexAnthropicProtocol.replaysNative(native, { origin: "vertex", model: VERTEX_CLAUDE })).toBe(
      false,
    );
    expect(
      vertexAnthropicProtocol.replaysNative(
        { ...native, origin: "vertex" },
        { origin: "vertex", model: VERTEX_CLAUDE },
      ),
    ).toBe(true);
    expect(
      anthropicMessagesProtocol.replaysNative(
        { ...native, origin: "vertex" },
        { origin: "anthropic", model: VERTEX_CLAUDE },
      ),
    ).toBe(false);
  });
});

describe("bedrockInvokeProtocol", () => {
  it("puts the Messages body in Bedrock's envelope: anthropic_version first, no model, stream or metadata", () => {
    const { body, warnings } = bedrockInvokeProtocol.buildRequest({
      messages: [{ role: "user", content: "hi" }],
      tools: [],
      options: { metadata: { user_id: "u1" } },
      model: BEDROCK_CLAUDE,
      profile: anthropicModelProfile(BEDROCK_CLAUDE),
      betas: ["context-1m-2025-08-07"],
    });
    expect(Object.keys(body)[0]).toBe("anthropic_version");
    expect(body).toMatchObject({
      anthropic_version: BEDROCK_ANTHROPIC_VERSION,
      anthropic_beta: ["context-1m-2025-08-07"],
    });
    expect(body).not.toHaveProperty("model");
    expect(body).not.toHaveProperty("stream");
    expect(body).not.toHaveProperty("metadata");
    expect(warnings).toContain("Bedrock InvokeModel takes no metadata.user_id; left out");
  });

  it("shares the Anthropic reading but not its framing: same name, AWS event-stream frames, Bedrock errors", () => {
    expect(bedrockInvokeProtocol.name).toBe(anthropicMessagesProtocol.name);
    expect(bedrockInvokeProtocol.parseResponse).toBe(anthropicMessagesProtocol.parseResponse);
    expect(bedrockInvokeProtocol.readFrames).not.toBe(anthropicMessagesProtocol.readFrames);
    const throttled = bedrockInvokeProtocol.mapError(
      400,
      {},
      new Headers({ "x-amzn-errortype": "ThrottlingException" }),
    );
    expect(throttled.kind).toBe("rate_limit");
  });

  it("a Claude turn from the first-party API is not replayed through InvokeModel (and back)", () => {
    const native = { protocol: ANTHROPIC_MESSAGES, origin: "anthropic", model: BEDROCK_CLAUDE, blocks: [] };
    expect(bedrockInvokeProtocol.replaysNative(native, { origin: "bedrock", model: BEDROCK_CLAUDE })).toBe(
      false,
    );
    expect(
      anthropicMessagesProtocol.replaysNative(
        { ...native, origin: "bedrock" },
        { origin: "anthropic", model: BEDROCK_CLAUDE },
      ),
    ).toBe(false);
  });
});

describe("errorInResponse: failures a server reports in a 200 body", () => {
  it("OpenAI Chat and Responses read an { error } body; the others report no such failures", () => {
    const quota = { error: { message: "quota", code: "insufficient_quota" } };
    expect(openAIChatProtocol.errorInResponse?.(quota)).toMatchObject({
      kind: "rate_limit",
      retryable: false,
    });
    expect(openAIResponsesProtocol.errorInResponse?.(quota)).toMatchObject({
      kind: "rate_limit",
      retryable: false,
    });
    expect(openAIChatProtocol.errorInResponse?.({ nope: true })).toBeUndefined();
    expect(openAIResponsesProtocol.errorInResponse?.({ error: null })).toBeUndefined();
    expect(anthropicMessagesProtocol.errorInResponse).toBeUndefined();
    expect(bedrockConverseProtocol.errorInResponse).toBeUndefined();
  });

  it("OpenAI's mapError takes the wait of a 429 from x-ratelimit-reset-* headers", () => {
    const headers = new Headers({ "x-ratelimit-reset-tokens": "6m0s" });
    expect(openAIChatProtocol.mapError(429, {}, headers).retryAfterMs).toBe(360_000);
    expect(openAIResponsesProtocol.mapError(429, {}, headers).retryAfterMs).toBe(360_000);
    expect(openAIChatProtocol.mapError(500, {}, headers).retryAfterMs).toBeUndefined();
  });

  it("a failed Responses response is a ProviderError from parseResponse", () => {
    expect(() =>
      openAIResponsesProtocol.parseResponse(
        { ...RESPONSES_ANSWER, status: "failed", error: { code: "server_error", message: "boom" } },
        { provider: "openai", model: "gpt-5", origin: "openai" },
      ),
    ).toThrow(expect.objectContaining({ name: "ProviderError", kind: "server" }));
  });
});
