/**
 * The Messages dialect's mapping, outside workerd: the request field table (mapped, ignored, refused by
 * name), blocks to neutral parts and turns, reasoning envelopes on the way in, the `Message` and the SSE
 * frames on the way out (block order and indexes, tool calls whose events interleave, usage that was not
 * reported), and the native passthrough's body and headers.
 */
import type Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import type { Response as ModelResponse } from "../../src/core/response.ts";
import type { StreamEvent } from "../../src/core/stream-event.ts";
import { ValidationError, type ValidationIssue } from "../../src/core/validation-error.ts";
import { estimateInputTokens } from "../../src/worker/anthropic-dialect/count-tokens.ts";
import { anthropicMessageOf, anthropicUsageOf } from "../../src/worker/anthropic-dialect/messages-answer.ts";
import { betasOf, withoutCarriedThinking } from "../../src/worker/anthropic-dialect/messages-native.ts";
import {
  MESSAGES_REQUEST_FIELDS,
  MessagesRequestSchema,
  messagesHeadOf,
  messagesRequestToNeutral,
} from "../../src/worker/anthropic-dialect/messages-request.ts";
import { anthropicFramesOf } from "../../src/worker/anthropic-dialect/messages-stream.ts";
import { wrapReasoning } from "../../src/worker/reasoning-envelope.ts";
import { dialectHeaders } from "../../src/worker/response-headers.ts";
import type { Frame } from "../../src/worker/write-sse.ts";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const PDF = "JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSPj4Kc3RyZWFtCg==";

const request = (fields: Record<string, unknown> = {}) => ({
  model: "gpt",
  max_tokens: 100,
  messages: [{ role: "user", content: "hi" }],
  ...fields,
});

function issuesOf(body: unknown): readonly ValidationIssue[] {
  try {
    messagesRequestToNeutral(body, "gpt");
  } catch (error) {
    if (ValidationError.is(error)) return error.issues;
    throw error;
  }
  throw new Error("expected a ValidationError");
}

const NATIVE = {
  protocol: "openai-responses",
  origin: "openai",
  model: "gpt-5-mini",
  blocks: [{ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA" }],
};

describe("the field table", () => {
  it("names every field of the official client's request type, and the schema takes exactly those", () => {
    // Compile-time: a field `@anthropic-ai/sdk` can send and the table does not list fails `npm run lint`.
    type ClientField = keyof Anthropic.MessageCreateParamsNonStreaming;
    type Unlisted = Exclude<ClientField, keyof typeof MESSAGES_REQUEST_FIELDS>;
    const everyFieldListed: [Unlisted] extends [never] ? true : Unlisted = true;
    expect(everyFieldListed).toBe(true);
    expect(Object.keys(MessagesRequestSchema.def.shape).sort()).toEqual(
      Object.keys(MESSAGES_REQUEST_FIELDS).sort(),
    );
  });

  it("maps the sampling, stop, metadata and tool settings", () => {
    const call = messagesRequestToNeutral(
      request({
        temperature: 0.3,
        top_p: 0.9,
        stop_sequences: ["END"],
        metadata: { user_id: "user-7" },
        tool_choice: { type: "any", disable_parallel_tool_use: true },
        tools: [{ name: "f", description: "d", input_schema: { type: "object" }, strict: true }],
      }),
      "gpt",
    );
    expect(call.options).toEqual({
      maxTokens: 100,
      temperature: 0.3,
      topP: 0.9,
      stopSequences: ["END"],
      metadata: { user_id: "user-7" },
      toolChoice: "any",
      parallelToolCalls: false,
    });
    expect(call.tools).toEqual([
      { name: "f", description: "d", parameters: { type: "object" }, strict: true },
    ]);
    expect(call.warnings).toEqual([]);
  });

  it.each([
    [{ thinking: { type: "enabled", budget_tokens: 2048 } }, { budgetTokens: 2048 }],
    [{ thinking: { type: "adaptive" } }, "adaptive"],
    [{ thinking: { type: "disabled" } }, "off"],
    [{ thinking: { type: "adaptive" }, output_config: { effort: "low" } }, { effort: "low" }],
    [{ output_config: { effort: "xhigh" } }, { effort: "max" }],
  ])("thinking %j → %j", (fields, thinking) => {
    expect(messagesRequestToNeutral(request(fields), "gpt").options.thinking).toEqual(thinking);
  });

  it("output_config.format (and the beta output_format) is a strict json_schema response format", () => {
    const schema = {
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a"],
      additionalProperties: false,
    };
    for (const fields of [
      { output_config: { format: { type: "json_schema", schema } } },
      { output_format: { type: "json_schema", schema } },
    ]) {
      expect(messagesRequestToNeutral(request(fields), "gpt").options.responseFormat).toEqual({
        type: "json_schema",
        schema,
        name: "output",
        strict: true,
      });
    }
  });

  it("refuses what would change the answer, by name; ignores Anthropic's service hints", () => {
    expect(
      issuesOf(request({ top_k: 40, container: "c_1", mcp_servers: [{ type: "url" }], compaction: {} })).map(
        (issue) => issue.path,
      ),
    ).toEqual(["top_k", "container", "mcp_servers", "compaction"]);
    const call = messagesRequestToNeutral(
      request({ mcp_servers: [], service_tier: "auto", speed: "fast", inference_geo: "us", top_k: null }),
      "gpt",
    );
    expect(call.warnings).toEqual([]);
    expect(issuesOf(request({ presence_penalty: 1 }))).toEqual([
      { path: "presence_penalty", message: 'unknown field "presence_penalty"' },
    ]);
    expect(issuesOf(request({ tools: [{ type: "bash_20250124", name: "bash" }] }))[0]!.path).toBe(
      "tools[0].type",
    );
    expect(issuesOf(request({ tool_choice: { type: "tool" } }))[0]!.path).toBe("tool_choice.name");
  });

  it("cache_control marks and context_management are warnings, not errors", () => {
    const call = messagesRequestToNeutral(
      request({
        cache_control: { type: "ephemeral" },
        context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
        system: [
          { type: "text", text: "a", cache_control: { type: "ephemeral" } },
          { type: "text", text: "b" },
        ],
      }),
      "gpt",
    );
    expect(call.messages[0]).toEqual({ role: "system", content: "a\n\nb" });
    expect(call.warnings).toEqual([
      expect.stringMatching(/^context_management: /),
      expect.stringMatching(/^cache_control \(cache_control, system\[0\]\.cache_control\): /),
    ]);
  });
});

describe("blocks", () => {
  it("user blocks: text, images and documents of every source, tool results with parts", () => {
    const call = messagesRequestToNeutral(
      request({
        messages: [
          {
            role: "user",
            content: [
              {
                type: "tool_result",
                tool_use_id: "toolu_1",
                content: [
                  { type: "text", text: "42" },
                  { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } },
                ],
                is_error: true,
              },
              { type: "text", text: "Read these." },
              { type: "image", source: { type: "url", url: "https://example.com/a.png" } },
              {
                type: "document",
                source: { type: "base64", media_type: "application/pdf", data: PDF },
                title: "Q3.pdf",
              },
              { type: "document", source: { type: "text", media_type: "text/plain", data: "plain words" } },
            ],
          },
        ],
      }),
      "gpt",
    );
    expect(call.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Read these." },
          { type: "image", url: "https://example.com/a.png" },
          { type: "file", mediaType: "application/pdf", data: PDF, filename: "Q3.pdf" },
          { type: "file", mediaType: "text/plain", data: btoa("plain words") },
        ],
        toolResults: [
          {
            callId: "toolu_1",
            isError: true,
            content: [
              { type: "text", text: "42" },
              { type: "image", mediaType: "image/png", data: PNG },
            ],
          },
        ],
      },
    ]);
  });

  it("bad blocks are named: a file id, a bad base64, a thinking block in a user turn, an unknown type", () => {
    const paths = issuesOf(
      request({
        messages: [
          {
            role: "user",
            content: [
              { type: "document", source: { type: "file", file_id: "file_1" } },
              { type: "image", source: { type: "base64", media_type: "image/png", data: "not base64!" } },
              { type: "thinking", thinking: "x", signature: "y" },
              { type: "search_result", source: "s", title: "t", content: [] },
            ],
          },
        ],
      }),
    ).map((issue) => issue.path);
    expect(paths).toEqual([
      "messages[0].content[0].source.file_id",
      "messages[0].content[1].source",
      "messages[0].content[2].type",
      "messages[0].content[3].type",
    ]);
  });

  it("assistant turns: text and tool calls; Anthropic's own thinking left out with a warning", () => {
    const call = messagesRequestToNeutral(
      request({
        messages: [
          { role: "user", content: "q" },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "hmm", signature: "EqQBCkYIBxgC" },
              { type: "redacted_thinking", data: "EmwKAhgBEgy" },
              { type: "text", text: "Let me look." },
              { type: "tool_use", id: "toolu_1", name: "f", input: { a: 1 } },
            ],
          },
        ],
      }),
      "gpt",
    );
    expect(call.messages[1]).toEqual({
      role: "assistant",
      content: "Let me look.",
      toolCalls: [{ id: "toolu_1", name: "f", arguments: { a: 1 } }],
    });
    expect(call.warnings).toEqual([
      "messages[1].content[0], messages[1].content[1]: Anthropic thinking, redacted_thinking and server tool blocks mean nothing to this route; left out",
    ]);
  });

  it("an envelope of the same route gives the turn its native back, and covers the display copy", () => {
    const assistant = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "summary", signature: "" },
        { type: "tool_use", id: "call_1", name: "f", input: {} },
        { type: "thinking", thinking: "", signature: wrapReasoning({ route: "gpt", native: NATIVE }) },
      ],
    };
    const call = messagesRequestToNeutral(
      request({ messages: [{ role: "user", content: "q" }, assistant] }),
      "gpt",
    );
    expect(call.messages[1]).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [{ id: "call_1", name: "f", arguments: {} }],
      native: NATIVE,
    });
    expect(call.warnings).toEqual([]);

    const elsewhere = messagesRequestToNeutral(
      request({ messages: [{ role: "user", content: "q" }, assistant] }),
      "other",
    );
    expect(elsewhere.messages[1]!.native).toBeUndefined();
    expect(elsewhere.warnings[0]).toBe(
      'messages[1]: reasoning carried from route "gpt" does not replay on route "other"; left out',
    );

    const damaged = messagesRequestToNeutral(
      request({
        messages: [
          { role: "user", content: "q" },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "", signature: "mw1.%%%" },
              { type: "text", text: "a" },
            ],
          },
        ],
      }),
      "gpt",
    );
    expect(damaged.warnings[0]).toBe("messages[1]: carried reasoning that cannot be read; left out");
  });

  it("the head every route reads: a metadata.user_id that is no session id is no session, and no error", () => {
    expect(messagesHeadOf(request({ metadata: { user_id: "user_a_session_b" } })).userId).toBe(
      "user_a_session_b",
    );
    expect(messagesHeadOf(request({ metadata: { user_id: " padded " } })).userId).toBeUndefined();
    expect(messagesHeadOf(request({ stream: true })).stream).toBe(true);
    expect(() => messagesHeadOf({ messages: [] })).toThrow(ValidationError);
  });
});

function response(overrides: Partial<ModelResponse> = {}): ModelResponse {
  return {
    message: { role: "assistant", content: "", toolCalls: [], toolResults: [], synthetic: false },
    usage: { inputTokens: 10, outputTokens: 5 },
    stopReason: "stop",
    model: "m",
    provider: "p",
    ...overrides,
  };
}

async function framesOf(events: StreamEvent[]): Promise<Record<string, unknown>[]> {
  const frames: Frame[] = [];
  for await (const frame of anthropicFramesOf(
    (async function* () {
      yield* events;
    })(),
    { model: "gpt", route: "gpt" },
  )) {
    frames.push(frame);
  }
  return frames.map((frame) => {
    const { event, data } = frame as { event: string; data: Record<string, unknown> };
    expect(data.type).toBe(event);
    return data;
  });
}

const call = (id: string, args: Record<string, unknown>) => ({
  id,
  name: "f",
  arguments: args,
  argumentsText: JSON.stringify(args),
});

describe("the stream", () => {
  it("tool calls whose events interleave still go out one block after the other, whole", async () => {
    const done = response({
      message: {
        role: "assistant",
        content: "",
        toolCalls: [call("c0", { a: 1 }), call("c1", { b: 2 })],
        toolResults: [],
        synthetic: false,
      },
      stopReason: "tool-calls",
    });
    const frames = await framesOf([
      { type: "tool-call-start", index: 0, id: "c0", name: "f" },
      { type: "tool-call-start", index: 1, id: "c1", name: "f" },
      { type: "tool-call-delta", index: 1, id: "c1", argumentsDelta: '{"b":2}' },
      { type: "tool-call-delta", index: 0, id: "c0", argumentsDelta: '{"a":' },
      { type: "text-delta", text: "after" },
      { type: "tool-call-delta", index: 0, id: "c0", argumentsDelta: "1}" },
      { type: "tool-call-end", index: 0, toolCall: call("c0", { a: 1 }) },
      { type: "tool-call-end", index: 1, toolCall: call("c1", { b: 2 }) },
      { type: "done", response: done },
    ]);
    const shown = frames.map((frame) => {
      const delta = frame.delta as { partial_json?: string; text?: string } | undefined;
      const block = frame.content_block as { type: string; id?: string } | undefined;
      return [frame.type, frame.index, block?.id ?? block?.type ?? delta?.partial_json ?? delta?.text]
        .filter((part) => part !== undefined)
        .join(" ");
    });
    expect(shown).toEqual([
      "message_start",
      "content_block_start 0 c0",
      'content_block_delta 0 {"a":',
      "content_block_delta 0 1}",
      "content_block_stop 0",
      "content_block_start 1 c1",
      'content_block_delta 1 {"b":2}',
      "content_block_stop 1",
      "content_block_start 2 text",
      "content_block_delta 2 after",
      "content_block_stop 2",
      "message_delta",
      "message_stop",
    ]);
    expect(frames.at(-2)).toMatchObject({ delta: { stop_reason: "tool_use" } });
  });

  it("a call whose arguments came only at its end, a refusal never streamed as text, usage not reported", async () => {
    const done = response({
      message: {
        role: "assistant",
        content: "",
        toolCalls: [call("c0", { q: "x" })],
        toolResults: [],
        synthetic: false,
      },
      usage: {},
      stopReason: "content-filter",
      refusal: "I can't help with that.",
    });
    const frames = await framesOf([
      { type: "tool-call-start", index: 0, id: "c0", name: "f" },
      { type: "tool-call-end", index: 0, toolCall: call("c0", { q: "x" }) },
      { type: "done", response: done },
    ]);
    expect(frames[0]).toMatchObject({
      message: { usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: null } },
    });
    expect(frames[2]).toEqual({
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: '{"q":"x"}' },
    });
    expect(frames[5]).toEqual({
      type: "content_block_delta",
      index: 1,
      delta: { type: "text_delta", text: "I can't help with that." },
    });
    expect(frames.at(-2)).toEqual({
      type: "message_delta",
      delta: { stop_reason: "refusal", stop_sequence: null },
      usage: {
        input_tokens: null,
        output_tokens: 0,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: null,
      },
      warnings: ["usage: the route did not report input_tokens or output_tokens; 0 is sent in its place"],
    });
  });

  it("usage reported before the first content is in message_start; reasoning is a thinking block", async () => {
    const frames = await framesOf([
      { type: "usage", usage: { inputTokens: 30, cachedInputTokens: 12 } },
      { type: "reasoning-delta", text: "Think." },
      { type: "text-delta", text: "Done." },
      {
        type: "done",
        response: response({
          message: { role: "assistant", content: "Done.", toolCalls: [], toolResults: [], synthetic: false },
          usage: { inputTokens: 30, cachedInputTokens: 12, outputTokens: 9 },
        }),
      },
    ]);
    expect(frames[0]).toMatchObject({
      message: { usage: { input_tokens: 30, cache_read_input_tokens: 12 } },
    });
    expect(frames[1]).toEqual({
      type: "content_block_start",
      index: 0,
      content_block: { type: "thinking", thinking: "", signature: "" },
    });
    expect(frames[2]).toMatchObject({ delta: { type: "thinking_delta", thinking: "Think." } });
    expect(frames.at(-2)).toEqual({
      type: "message_delta",
      delta: { stop_reason: "end_turn", stop_sequence: null },
      usage: {
        input_tokens: 30,
        output_tokens: 9,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: 12,
      },
    });
  });
});

describe("the Message", () => {
  it("blocks in order: display thinking, text, tool calls, the envelope; usage and stop reason mapped", () => {
    const warnings: string[] = [];
    const message = anthropicMessageOf(
      response({
        message: {
          role: "assistant",
          content: "Calling.",
          toolCalls: [call("c0", { a: 1 })],
          toolResults: [],
          synthetic: false,
          native: NATIVE,
        },
        reasoning: "Reasoned.",
        stopReason: "tool-calls",
        usage: { inputTokens: 3, outputTokens: 4, cacheWriteTokens: 5, cacheWrite1hTokens: 5 },
      }),
      "gpt",
      "gpt",
      warnings,
    );
    expect(message.content).toEqual([
      { type: "thinking", thinking: "Reasoned.", signature: "" },
      { type: "text", text: "Calling.", citations: null },
      { type: "tool_use", id: "c0", name: "f", input: { a: 1 } },
      { type: "thinking", thinking: "", signature: wrapReasoning({ route: "gpt", native: NATIVE }) },
    ]);
    expect(message.stop_reason).toBe("tool_use");
    expect(message.usage).toEqual({
      input_tokens: 3,
      output_tokens: 4,
      cache_creation_input_tokens: 5,
      cache_read_input_tokens: null,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 5 },
    });
    expect(warnings).toEqual([]);
  });

  it.each([
    ["stop", "stop_sequence", "stop_sequence"],
    ["stop", "stop", "end_turn"],
    ["length", "length", "max_tokens"],
    ["length", "model_context_window_exceeded", "model_context_window_exceeded"],
    ["pause", "pause_turn", "pause_turn"],
    ["error", "error", "end_turn"],
  ] as const)("stop %s (raw %s) → %s", (stopReason, rawStopReason, expected) => {
    const warnings: string[] = [];
    expect(
      anthropicMessageOf(response({ stopReason, rawStopReason }), "gpt", "gpt", warnings).stop_reason,
    ).toBe(expected);
    expect(warnings.length > 0).toBe(stopReason === "error");
  });

  it("a native turn without reasoning rides nowhere: no envelope block", () => {
    const message = anthropicMessageOf(
      response({
        message: {
          role: "assistant",
          content: "Hi",
          toolCalls: [],
          toolResults: [],
          synthetic: false,
          native: { ...NATIVE, blocks: [{ role: "assistant", content: "Hi" }] },
        },
      }),
      "gpt",
      "gpt",
      [],
    );
    expect(message.content).toEqual([{ type: "text", text: "Hi", citations: null }]);
    expect(anthropicUsageOf({ outputTokens: 1 })).toMatchObject({
      input_tokens: 0,
      cache_read_input_tokens: null,
    });
  });
});

describe("native passthrough pieces", () => {
  it("a body without the gateway's thinking blocks is the same object; with them, a copy without", () => {
    const body = { model: "claude", messages: [{ role: "user", content: "q" }] };
    expect(withoutCarriedThinking(body, [])).toBe(body);
    const envelope = wrapReasoning({ route: "gpt", native: NATIVE });
    const warnings: string[] = [];
    const cleaned = withoutCarriedThinking(
      {
        model: "claude",
        messages: [
          { role: "user", content: "q" },
          { role: "assistant", content: [{ type: "thinking", thinking: "", signature: envelope }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "shown", signature: "" },
              { type: "thinking", thinking: "real", signature: "EqQB" },
              { type: "text", text: "a" },
            ],
          },
        ],
      },
      warnings,
    );
    expect(cleaned.messages).toEqual([
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "real", signature: "EqQB" },
          { type: "text", text: "a" },
        ],
      },
    ]);
    expect(warnings).toHaveLength(2);
  });

  it("headers: warnings as ASCII JSON, cut to fit; dropped betas as a comma list; betas parsed", () => {
    const headers = dialectHeaders(["café ☕"], ["a", "b"]);
    expect(headers["x-modelwire-warnings"]).toBe('["caf\\u00e9 \\u2615"]');
    expect(JSON.parse(headers["x-modelwire-warnings"]!)).toEqual(["café ☕"]);
    expect(headers["x-modelwire-dropped-betas"]).toBe("a,b");
    const long = dialectHeaders(Array.from({ length: 100 }, (_, index) => `${index}: ${"x".repeat(100)}`));
    const shown = JSON.parse(long["x-modelwire-warnings"]!) as string[];
    expect(long["x-modelwire-warnings"]!.length).toBeLessThanOrEqual(4000);
    expect(shown.at(-1)).toBe(`… and ${100 - (shown.length - 1)} more`);
    expect(dialectHeaders([])).toEqual({});
    expect(betasOf(" a, b,,a ,")).toEqual(["a", "b"]);
  });

  it("the count estimate: characters of system, messages and tools over four, rounded up", () => {
    const body = { model: "x", system: "s", messages: [{ role: "user", content: "hello" }], max_tokens: 9 };
    const json = JSON.stringify({ system: "s", messages: body.messages, tools: [] });
    expect(estimateInputTokens(body)).toBe(Math.ceil(json.length / 4));
  });
});
