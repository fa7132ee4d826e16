/**
 * Neutral history → Anthropic `system` + `messages`: named cases for every rule of
 * `convertToAnthropicMessages`, then a fast-check property over arbitrary (and garbage) histories that
 * checks the request the API would receive is always valid — and that `buildAnthropicRequest` over the
 * same histories, with arbitrary options, never sends an unsatisfiable thinking budget or too many cache
 * marks.
 */
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { CacheOption, CallOptions, Thinking, ToolChoice } from "../../../src/core/call-options.ts";
import type { MessageInput } from "../../../src/core/message.ts";
import type { ToolSpec } from "../../../src/core/tool-spec.ts";
import {
  type AnthropicBlock,
  type AnthropicMessageParam,
  type AnthropicReplayTarget,
  buildAnthropicRequest,
  type ConvertedAnthropicMessages,
  convertToAnthropicMessages,
  MISSING_TOOL_RESULT,
} from "../../../src/protocols/anthropic-messages/index.ts";
import { anthropicModelProfile } from "../../../src/providers/anthropic-model-profiles.ts";

const MODEL = "claude-sonnet-4-5";
const TARGET: AnthropicReplayTarget = { model: MODEL, origin: "anthropic" };
const SIGNATURE = "EqQBCkYIBxgCKkBsig+/nature==";

function convert(messages: readonly unknown[]): ConvertedAnthropicMessages {
  return convertToAnthropicMessages(messages, TARGET);
}

function native(blocks: unknown[], overrides: Record<string, unknown> = {}) {
  return { protocol: "anthropic-messages", origin: "anthropic", model: MODEL, blocks, ...overrides };
}

function allBlocks(messages: readonly AnthropicMessageParam[]): AnthropicBlock[] {
  return messages.flatMap((message) => message.content);
}

function blocksOfType(messages: readonly AnthropicMessageParam[], type: string): AnthropicBlock[] {
  return allBlocks(messages).filter((block) => block.type === type);
}

/**
 * The structural rules the Messages API enforces on `messages` (and that the converter promises).
 * Returns the first violation, or undefined.
 */
function violation(converted: ConvertedAnthropicMessages): string | undefined {
  const { messages, system } = converted;
  for (const block of system) {
    if (block.type !== "text" || typeof block.text !== "string" || block.text.trim() === "")
      return `blank or non-text system block ${JSON.stringify(block)}`;
  }
  for (let index = 0; index < messages.length; index++) {
    const message = messages[index]!;
    const where = `messages[${index}]`;
    if (message.role !== "user" && message.role !== "assistant") return `${where}: role ${message.role}`;
    if (!Array.isArray(message.content) || message.content.length === 0) return `${where}: empty content`;
    if (index > 0 && messages[index - 1]!.role === message.role) return `${where}: same role as previous`;
    for (const block of message.content) {
      if (typeof block !== "object" || block === null || typeof block.type !== "string")
        return `${where}: not a block ${JSON.stringify(block)}`;
      if (block.type === "text" && (typeof block.text !== "string" || block.text.trim() === ""))
        return `${where}: blank text block ${JSON.stringify(block)}`;
      if (block.type === "tool_use") {
        if (message.role !== "assistant") return `${where}: tool_use in a user turn`;
        if (typeof block.id !== "string" || block.id === "") return `${where}: tool_use without id`;
        if (typeof block.name !== "string" || block.name === "") return `${where}: tool_use without name`;
        const input = block.input;
        if (typeof input !== "object" || input === null || Array.isArray(input))
          return `${where}: tool_use input not a plain object: ${JSON.stringify(input)}`;
      }
      if ((block.type === "thinking" || block.type === "redacted_thinking") && message.role !== "assistant")
        return `${where}: ${block.type} in a user turn`;
      if (block.type === "tool_result" && message.role !== "user")
        return `${where}: tool_result outside user`;
    }
    if (message.role === "user") {
      const firstOther = message.content.findIndex((block) => block.type !== "tool_result");
      const lastResult = message.content.findLastIndex((block) => block.type === "tool_result");
      if (firstOther !== -1 && lastResult > firstOther) return `${where}: tool_result after other content`;
      const previous = messages[index - 1];
      const callIds = new Set(
        previous?.role === "assistant"
          ? previous.content.filter((block) => block.type === "tool_use").map((block) => block.id)
          : [],
      );
      const seen = new Set<unknown>();
      for (const block of message.content) {
        if (block.type !== "tool_result") continue;
        if (!callIds.has(block.tool_use_id))
          return `${where}: tool_result ${String(block.tool_use_id)} answers no tool_use of the previous turn`;
        if (seen.has(block.tool_use_id)) return `${where}: two tool_results for ${String(block.tool_use_id)}`;
        seen.add(block.tool_use_id);
      }
    }
    if (message.role === "assistant") {
      const next = messages[index + 1];
      for (const block of message.content) {
        if (block.type !== "tool_use") continue;
        const answered =
          next?.role === "user" &&
          next.content.some((other) => other.type === "tool_result" && other.tool_use_id === block.id);
        if (!answered) return `${where}: tool_use ${String(block.id)} has no tool_result in the next turn`;
      }
    }
  }
  const last = messages.at(-1);
  const tail = last?.role === "assistant" ? last.content.at(-1) : undefined;
  if (tail?.type === "text" && String(tail.text) !== String(tail.text).trimEnd())
    return "final assistant (prefill) text ends with whitespace";
  return undefined;
}

function expectValid(converted: ConvertedAnthropicMessages): void {
  expect(violation(converted)).toBeUndefined();
}

// ---------------------------------------------------------------------------------------------------

describe("convertToAnthropicMessages: system, turns, tool calls", () => {
  it("turns system messages into system blocks, in order, leaving blank ones out", () => {
    const out = convert([
      { role: "system", content: "You are terse." },
      { role: "system", content: "   \n" },
      { role: "system", content: "" },
      { role: "user", content: "hi" },
      { role: "system", content: "Answer in French." },
    ]);
    expect(out.system).toEqual([
      { type: "text", text: "You are terse." },
      { type: "text", text: "Answer in French." },
    ]);
    expect(out.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    expect(JSON.stringify(out.messages)).not.toContain("terse");
  });

  it("maps user, assistant and tool turns to user/assistant messages", () => {
    const out = convert([
      { role: "user", content: "What is the weather in Paris?" },
      {
        role: "assistant",
        content: "Let me check.",
        toolCalls: [{ id: "toolu_1", name: "get_weather", arguments: { city: "Paris" } }],
      },
      { role: "tool", toolResults: [{ callId: "toolu_1", content: "18°C, cloudy" }] },
      { role: "assistant", content: "It is 18°C and cloudy." },
    ]);
    expect(out.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "What is the weather in Paris?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check." },
          { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
        ],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "18°C, cloudy" }] },
      { role: "assistant", content: [{ type: "text", text: "It is 18°C and cloudy." }] },
    ]);
    expect(out.warnings).toEqual([]);
    expectValid(out);
  });

  it("keeps parallel tool calls and their results with their ids, in order", () => {
    const out = convert([
      { role: "user", content: "Weather in three cities" },
      {
        role: "assistant",
        toolCalls: [
          { id: "toolu_a", name: "get_weather", arguments: { city: "Paris" } },
          { id: "toolu_b", name: "get_weather", arguments: { city: "Oslo" } },
          { id: "toolu_c", name: "get_time", arguments: { zone: "UTC" } },
        ],
      },
      { role: "tool", toolResults: [{ callId: "toolu_a", content: "18" }] },
      { role: "tool", toolResults: [{ callId: "toolu_b", content: "4" }] },
      { role: "tool", toolResults: [{ callId: "toolu_c", content: "12:00" }] },
    ]);
    const [, assistant, results] = out.messages;
    expect(assistant!.content.map((block) => [block.type, block.id, block.name, block.input])).toEqual([
      ["tool_use", "toolu_a", "get_weather", { city: "Paris" }],
      ["tool_use", "toolu_b", "get_weather", { city: "Oslo" }],
      ["tool_use", "toolu_c", "get_time", { zone: "UTC" }],
    ]);
    expect(results!.role).toBe("user");
    expect(results!.content.map((block) => [block.tool_use_id, block.content])).toEqual([
      ["toolu_a", "18"],
      ["toolu_b", "4"],
      ["toolu_c", "12:00"],
    ]);
    expect(out.messages).toHaveLength(3);

    // Results recorded in another order keep that order (and all their ids).
    const reversed = convert([
      { role: "user", content: "go" },
      {
        role: "assistant",
        toolCalls: [
          { id: "toolu_a", name: "f", arguments: {} },
          { id: "toolu_b", name: "f", arguments: {} },
        ],
      },
      {
        role: "tool",
        toolResults: [
          { callId: "toolu_b", content: "B" },
          { callId: "toolu_a", content: "A" },
        ],
      },
    ]);
    expect(reversed.messages[2]!.content.map((block) => block.tool_use_id)).toEqual(["toolu_b", "toolu_a"]);
    expectValid(reversed);
  });

  it("sends tool results carried by a user message, with is_error for failed tools", () => {
    const out = convert([
      { role: "user", content: "run it" },
      {
        role: "assistant",
        toolCalls: [
          { id: "toolu_ok", name: "run", arguments: {} },
          { id: "toolu_bad", name: "run", arguments: {} },
        ],
      },
      {
        role: "user",
        content: "and then summarise",
        toolResults: [
          { callId: "toolu_ok", content: "done", isError: false },
          { callId: "toolu_bad", content: "permission denied", isError: true },
        ],
      },
    ]);
    expect(out.messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_ok", content: "done" },
        { type: "tool_result", tool_use_id: "toolu_bad", content: "permission denied", is_error: true },
        { type: "text", text: "and then summarise" },
      ],
    });
    expect(out.messages[2]!.content[0]).not.toHaveProperty("is_error");
  });

  it("puts tool results before text in the user turn, also when merging a text turn and a tool turn", () => {
    const out = convert([
      { role: "user", content: "q" },
      { role: "assistant", toolCalls: [{ id: "toolu_1", name: "f", arguments: {} }] },
      { role: "user", content: "I interrupt you" },
      { role: "tool", toolResults: [{ callId: "toolu_1", content: "r" }] },
    ]);
    expect(out.messages).toHaveLength(3);
    expect(out.messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: "r" },
      { type: "text", text: "I interrupt you" },
    ]);
    expectValid(out);
  });

  it("merges consecutive messages of one role into one turn, keeping every block in order", () => {
    const out = convert([
      { role: "user", content: "one" },
      { role: "user", content: "two" },
      { role: "assistant", content: "three" },
      { role: "assistant", content: "four" },
      { role: "user", content: "five" },
    ]);
    expect(out.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "one" },
          { type: "text", text: "two" },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "text", text: "three" },
          { type: "text", text: "four" },
        ],
      },
      { role: "user", content: [{ type: "text", text: "five" }] },
    ]);
  });

  it("drops an assistant message with no content (and so merges the user turns around it)", () => {
    const out = convert([
      { role: "user", content: "a" },
      { role: "assistant", content: "" },
      { role: "assistant", content: "  \n\t" },
      { role: "assistant", toolCalls: [] },
      { role: "user", content: "b" },
    ]);
    expect(out.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
    ]);
    expect(blocksOfType(out.messages, "text").every((block) => String(block.text).trim() !== "")).toBe(true);
  });

  it("answers a tool call that has no recorded result with the synthetic error result", () => {
    const out = convert([
      { role: "user", content: "q" },
      {
        role: "assistant",
        toolCalls: [
          { id: "toolu_1", name: "f", arguments: {} },
          { id: "toolu_2", name: "f", arguments: {} },
        ],
      },
      { role: "tool", toolResults: [{ callId: "toolu_2", content: "two" }] },
      { role: "user", content: "next" },
    ]);
    expect(out.messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_1", content: MISSING_TOOL_RESULT, is_error: true },
      { type: "tool_result", tool_use_id: "toolu_2", content: "two" },
      { type: "text", text: "next" },
    ]);
    expect(out.warnings.some((warning) => warning.includes("toolu_1"))).toBe(true);

    // A call at the very end (the run stopped before the tool ran) gets a user turn of its own.
    const dangling = convert([
      { role: "user", content: "q" },
      { role: "assistant", toolCalls: [{ id: "toolu_9", name: "f", arguments: {} }] },
    ]);
    expect(dangling.messages.at(-1)).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_9", content: MISSING_TOOL_RESULT, is_error: true },
      ],
    });
    expectValid(dangling);
  });

  it("trims trailing whitespace off a final assistant prefill", () => {
    const out = convert([
      { role: "user", content: "Write a haiku" },
      { role: "assistant", content: "Autumn moon  \n\n" },
    ]);
    expect(out.messages.at(-1)).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Autumn moon" }],
    });
    expect(out.warnings.some((warning) => /whitespace/.test(warning))).toBe(true);

    // Only the final turn is a prefill: earlier assistant text keeps its whitespace.
    const earlier = convert([
      { role: "user", content: "a" },
      { role: "assistant", content: "kept  \n" },
      { role: "user", content: "b" },
    ]);
    expect(earlier.messages[1]!.content).toEqual([{ type: "text", text: "kept  \n" }]);
  });
});

describe("convertToAnthropicMessages: tool calls a stored history cannot be trusted with", () => {
  const call = (fields: Record<string, unknown>) => [
    { role: "user", content: "go" },
    { role: "assistant", toolCalls: [{ id: "toolu_1", name: "f", ...fields }] },
    { role: "tool", toolResults: [{ callId: "toolu_1", content: "ok" }] },
  ];
  const inputOf = (out: ConvertedAnthropicMessages) => blocksOfType(out.messages, "tool_use")[0]?.input;

  it.each([
    ["malformed argumentsText", { argumentsText: '{"city": "Par' }],
    ["argumentsText that is an array", { argumentsText: "[1, 2]" }],
    ["malformed string arguments", { arguments: "{not json" }],
    ["string arguments holding a JSON string", { arguments: '"Paris"' }],
    ["string arguments holding a JSON number", { arguments: "42" }],
    ["array arguments", { arguments: ["Paris"] }],
    ["null arguments", { arguments: null }],
    ["numeric arguments", { arguments: 7 }],
  ])("%s → input {} with a warning, and the call stays paired with its result", (_label, fields) => {
    const out = convert(call(fields));
    expect(inputOf(out)).toEqual({});
    expect(out.warnings.some((warning) => warning.includes("toolCalls[0]"))).toBe(true);
    expect(out.messages[2]!.content[0]).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_1",
      content: "ok",
    });
    expectValid(out);
  });

  it("keeps object arguments, and parses string arguments that hold a JSON object", () => {
    expect(inputOf(convert(call({ arguments: { city: "Paris", days: [1, 2] } })))).toEqual({
      city: "Paris",
      days: [1, 2],
    });
    expect(inputOf(convert(call({ arguments: '{"city":"Oslo"}' })))).toEqual({ city: "Oslo" });
    expect(inputOf(convert(call({ argumentsText: '{"city":"Rome"}' })))).toEqual({ city: "Rome" });
    // Parsed arguments win over a malformed raw text kept beside them.
    expect(inputOf(convert(call({ arguments: { a: 1 }, argumentsText: '{"a": 1, "b"' })))).toEqual({ a: 1 });
  });

  it("drops a call missing its id or its name with a warning, and turns its orphan result into text", () => {
    const out = convert([
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "Calling tools",
        toolCalls: [
          { name: "no_id", arguments: {} },
          { id: "", name: "empty_id", arguments: {} },
          { id: "toolu_noname", arguments: {} },
          { id: "toolu_emptyname", name: "", arguments: {} },
          { id: "toolu_good", name: "good", arguments: {} },
        ],
      },
      {
        role: "tool",
        toolResults: [
          { callId: "toolu_noname", content: "result of the nameless call" },
          { callId: "toolu_good", content: "good result" },
          { content: "result without a call id" },
        ],
      },
    ]);
    const uses = blocksOfType(out.messages, "tool_use");
    expect(uses.map((block) => block.id)).toEqual(["toolu_good"]);
    expect(JSON.stringify(out.messages)).not.toMatch(/"id":""/);
    expect(out.warnings.filter((warning) => /without an id or a name/.test(warning))).toHaveLength(4);
    const results = out.messages[2]!.content;
    expect(results[0]).toEqual({ type: "tool_result", tool_use_id: "toolu_good", content: "good result" });
    const texts = results.filter((block) => block.type === "text").map((block) => String(block.text));
    expect(texts.some((text) => text.includes("result of the nameless call"))).toBe(true);
    expect(texts.some((text) => text.includes("result without a call id"))).toBe(true);
    expect(blocksOfType(out.messages, "tool_result").map((block) => block.tool_use_id)).toEqual([
      "toolu_good",
    ]);
    expectValid(out);
  });

  it("turns a result whose call was never recorded into text, even at the start of the history", () => {
    const out = convert([
      { role: "tool", toolResults: [{ callId: "toolu_lost", content: "42", isError: true }] },
    ]);
    expect(out.messages).toHaveLength(1);
    expect(out.messages[0]!.role).toBe("user");
    expect(out.messages[0]!.content).toHaveLength(1);
    expect(out.messages[0]!.content[0]!.type).toBe("text");
    expect(String(out.messages[0]!.content[0]!.text)).toContain("42");
    expectValid(out);
  });

  it("sends one tool_use per id when a stored turn repeats a tool-call id (the API rejects duplicate tool_use ids)", () => {
    // Reachable from stored history (a proxy that replays a call, a merge of two recorded turns); the
    // API answers `messages.1.content.1: tool_use ids must be unique` to every later turn.
    const out = convert([
      { role: "user", content: "q" },
      {
        role: "assistant",
        toolCalls: [
          { id: "toolu_dup", name: "f", arguments: { n: 1 } },
          { id: "toolu_dup", name: "f", arguments: { n: 2 } },
        ],
      },
    ]);
    const ids = blocksOfType(out.messages, "tool_use").map((block) => block.id);
    expect(new Set(ids).size).toBe(ids.length);
    expectValid(out);
  });

  it("makes tool-call ids from other providers valid for Anthropic (^[a-zA-Z0-9_-]+$), in tool_use and tool_result alike", () => {
    // Kimi K2 via OpenRouter and similar OpenAI-compatible servers emit ids like "functions.search:0";
    // the Messages API rejects them (`tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`), so
    // a conversation moved from such a server to Anthropic would 400 on every turn.
    const out = convert([
      { role: "user", content: "q" },
      { role: "assistant", toolCalls: [{ id: "functions.search:0", name: "search", arguments: {} }] },
      { role: "tool", toolResults: [{ callId: "functions.search:0", content: "found" }] },
    ]);
    const [use] = blocksOfType(out.messages, "tool_use");
    const [result] = blocksOfType(out.messages, "tool_result");
    expect(String(use?.id)).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(result?.tool_use_id).toBe(use?.id);
    expect(result?.content).toBe("found");
  });
});

describe("convertToAnthropicMessages: native replay", () => {
  const thinking = {
    type: "thinking",
    thinking: "The user wants the weather; I should call the tool.",
    signature: SIGNATURE,
  };
  const redacted = {
    type: "redacted_thinking",
    data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP",
  };
  const signatureOnly = { type: "thinking", thinking: "", signature: "EpADCokBCA8YAipAsfSSBF77IhHThF" };
  const text = { type: "text", text: "Let me look that up." };
  const toolUse = { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } };
  const serverUse = { type: "server_tool_use", id: "srvtoolu_01", name: "web_search", input: { query: "x" } };
  const serverResult = { type: "web_search_tool_result", tool_use_id: "srvtoolu_01", content: [] };
  const history = (nativeValue: unknown, extra: Record<string, unknown> = {}) => [
    { role: "user", content: "Weather in Paris?" },
    {
      role: "assistant",
      content: "Let me look that up.",
      toolCalls: [{ id: "toolu_01", name: "get_weather", arguments: { city: "Paris" } }],
      native: nativeValue,
      ...extra,
    },
    { role: "tool", toolResults: [{ callId: "toolu_01", content: "18°C" }] },
  ];

  it("replays blocks verbatim and in order when protocol, origin and model all match", () => {
    const blocks = [redacted, thinking, signatureOnly, serverUse, serverResult, text, toolUse];
    const before = structuredClone(blocks);
    const out = convert(history(native(blocks)));
    const assistant = out.messages[1]!;
    expect(assistant.role).toBe("assistant");
    expect(assistant.content).toStrictEqual(before);
    // Signatures and redacted data untouched, byte for byte; the signature-only block with empty thinking kept.
    expect(assistant.content[1]!.signature).toBe(SIGNATURE);
    expect(assistant.content[0]!.data).toBe(redacted.data);
    expect(assistant.content[2]).toStrictEqual(signatureOnly);
    expect(blocks).toStrictEqual(before);
    expect(out.warnings).toEqual([]);
    expectValid(out);
  });

  it("replays the native blocks rather than content/toolCalls when they differ", () => {
    const out = convert(
      history(native([thinking, toolUse]), { content: "neutral text that is not in the blocks" }),
    );
    expect(out.messages[1]!.content).toStrictEqual([thinking, toolUse]);
    expect(JSON.stringify(out.messages)).not.toContain("neutral text that is not in the blocks");
  });

  it.each([
    ["protocol", { protocol: "openai-responses" }],
    ["origin (bedrock vs anthropic)", { origin: "bedrock" }],
    ["model", { model: "claude-opus-4-5" }],
  ])(
    "on a %s mismatch rebuilds from content/toolCalls, drops thinking with a warning, never demotes it to text",
    (_what, overrides) => {
      const out = convert(history(native([redacted, thinking, text, toolUse], overrides)));
      const assistant = out.messages[1]!;
      expect(assistant.content).toEqual([
        { type: "text", text: "Let me look that up." },
        { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } },
      ]);
      expect(blocksOfType(out.messages, "thinking")).toEqual([]);
      expect(blocksOfType(out.messages, "redacted_thinking")).toEqual([]);
      const serialized = JSON.stringify(out);
      expect(serialized).not.toContain(thinking.thinking);
      expect(serialized).not.toContain(SIGNATURE);
      expect(serialized).not.toContain(redacted.data);
      for (const block of blocksOfType(out.messages, "text")) {
        expect(String(block.text)).not.toContain("should call the tool");
      }
      expect(out.warnings.some((warning) => /rebuilt/.test(warning) && /reasoning/.test(warning))).toBe(true);
      expectValid(out);
    },
  );

  it("drops thinking when rebuilding even if content is empty, never inventing a text block from it", () => {
    const out = convert([
      { role: "user", content: "q" },
      { role: "assistant", content: "", native: native([thinking], { model: "claude-opus-4-7" }) },
      { role: "user", content: "again" },
    ]);
    expect(out.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "q" },
          { type: "text", text: "again" },
        ],
      },
    ]);
    expect(JSON.stringify(out)).not.toContain(thinking.thinking);
  });

  it("leaves whitespace-only text blocks out of replayed native blocks", () => {
    // Adaptive-thinking models really emit a "\n\n" text block before thinking.
    const out = convert([
      { role: "user", content: "q" },
      {
        role: "assistant",
        native: native([
          { type: "text", text: "\n\n" },
          thinking,
          { type: "text", text: "  " },
          text,
          toolUse,
        ]),
      },
      { role: "tool", toolResults: [{ callId: "toolu_01", content: "r" }] },
    ]);
    expect(out.messages[1]!.content).toStrictEqual([thinking, text, toolUse]);
    expectValid(out);

    // Rebuilt turns too: whitespace-only content gives no text block, on either side.
    const rebuilt = convert([
      { role: "user", content: "q" },
      { role: "assistant", content: "\n\n", toolCalls: [{ id: "toolu_2", name: "f", arguments: {} }] },
      { role: "tool", content: "  ", toolResults: [{ callId: "toolu_2", content: "r" }] },
    ]);
    expect(rebuilt.messages[1]!.content).toEqual([{ type: "tool_use", id: "toolu_2", name: "f", input: {} }]);
    expect(rebuilt.messages[2]!.content).toEqual([
      { type: "tool_result", tool_use_id: "toolu_2", content: "r" },
    ]);
  });

  it("leaves out replayed blocks the API would reject, keeps unknown ones, and never throws on junk", () => {
    const unknown = { type: "mystery_block_2027", payload: { nested: [1, 2] } };
    const out = convert([
      { role: "user", content: "q" },
      {
        role: "assistant",
        native: native([
          null,
          7,
          "text",
          { type: 5 },
          { type: "thinking", thinking: "unsigned" },
          { type: "redacted_thinking" },
          { type: "tool_use", name: "f", input: {} },
          { type: "tool_use", id: "toolu_arr", name: "f", input: ["x"] },
          { type: "text", text: 42 },
          unknown,
          thinking,
        ]),
      },
    ]);
    const assistant = out.messages[1]!;
    expect(assistant.content.map((block) => block.type)).toEqual([
      "tool_use",
      "mystery_block_2027",
      "thinking",
    ]);
    expect(assistant.content[0]).toEqual({ type: "tool_use", id: "toolu_arr", name: "f", input: {} });
    expect(assistant.content[1]).toStrictEqual(unknown);
    expect(assistant.content[2]).toStrictEqual(thinking);
    expect(JSON.stringify(out)).not.toContain("unsigned");
    expectValid(out);
  });
});

describe("convertToAnthropicMessages: garbage never throws", () => {
  it.each<[string, unknown]>([
    ["null", null],
    ["a string", "hello"],
    ["an object", { role: "user", content: "hi" }],
    ["a number", 3],
  ])("messages that are %s → nothing to send, no throw", (_label, value) => {
    const out = convertToAnthropicMessages(value as unknown[], TARGET);
    expect(out.messages).toEqual([]);
    expect(out.system).toEqual([]);
  });

  it("skips garbage entries with warnings and keeps the rest", () => {
    const out = convert([
      null,
      undefined,
      42,
      "user: hi",
      [],
      {},
      { role: "wizard", content: "abracadabra" },
      { role: 7, content: "x" },
      { role: "user", content: { text: "an object" } },
      { role: "user", content: ["an", "array"] },
      { role: "user", content: 12 },
      { role: "assistant", content: null, toolCalls: "not an array", toolResults: 5, native: "nope" },
      {
        role: "assistant",
        native: { protocol: "anthropic-messages", origin: "anthropic", model: MODEL, blocks: "x" },
      },
      { role: "tool", toolResults: [null, 1, "r", { callId: 5 }, { callId: "toolu_x", content: { a: 1 } }] },
      { role: "system", content: { a: 1 } },
      { role: "user", content: "the real question" },
    ]);
    expect(JSON.stringify(out)).not.toContain("abracadabra");
    expect(JSON.stringify(out)).not.toContain("an object");
    expect(blocksOfType(out.messages, "text").map((block) => block.text)).toContain("the real question");
    expect(blocksOfType(out.messages, "text").map((block) => block.text)).toContain("12");
    expect(out.warnings.length).toBeGreaterThanOrEqual(8);
    expectValid(out);
  });
});

// ---------------------------------------------------------------------------------------------------
// Property: arbitrary histories.

const THINK_MARK = "⟦think";

/** Mostly two ids, so calls and results often match and ids often repeat; sometimes junk. */
const idArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("toolu_1", "toolu_2") },
  { weight: 2, arbitrary: fc.constantFrom<unknown>("toolu_3", "call_x", "", undefined, null, 7) },
);
const nameArb = fc.constantFrom<unknown>("search", "get_weather", "", undefined, null, 3);
const textArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom("", " ", "  ", "\n\n", "\t \n", "hello", "ends with space  ", "日本語 🎌", "\u00a0"),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.constantFrom<unknown>(null, undefined, 0, 1.5, true, { text: "obj" }, ["arr"]),
);
const jsonObjectArb = fc.dictionary(
  fc.string({ maxLength: 4 }),
  fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.boolean()),
  { maxKeys: 3 },
);
const argumentsArb: fc.Arbitrary<unknown> = fc.oneof(
  jsonObjectArb,
  fc.constantFrom('{"a":1}', "{bad", "[1,2]", '"str"', "", "  ", "null", "42"),
  fc.string({ maxLength: 8 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.constantFrom<unknown>(null, undefined, 5, true),
);
const toolCallArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        id: idArb,
        name: nameArb,
        arguments: argumentsArb,
        argumentsText: fc.constantFrom<unknown>('{"x":1}', '{"x":', "[]", '"s"', "", 9),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, "call", 3, []) },
);
const toolResultArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      { callId: idArb, content: textArb, isError: fc.constantFrom<unknown>(true, false, "yes", undefined) },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, "result", 0) },
);
const nativeBlockArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({
    type: fc.constant("thinking"),
    thinking: fc.oneof(
      fc.constant(""),
      fc.string({ maxLength: 6 }).map((s) => `${THINK_MARK}:${s}⟧`),
    ),
    signature: fc.oneof(fc.constantFrom("sigA", "sigB", ""), fc.base64String({ maxLength: 12 })),
  }),
  fc.record({ type: fc.constant("thinking"), thinking: fc.constant(`${THINK_MARK}:unsigned⟧`) }),
  fc.record({
    type: fc.constant("thinking"),
    thinking: fc.constant(`${THINK_MARK}:badsig⟧`),
    signature: fc.constantFrom<unknown>(null, 5),
  }),
  fc.record({ type: fc.constant("redacted_thinking"), data: fc.base64String({ maxLength: 16 }) }),
  fc.constant({ type: "redacted_thinking" }),
  fc.record({ type: fc.constant("text"), text: textArb }),
  fc.record(
    {
      type: fc.constant("tool_use"),
      id: idArb,
      name: nameArb,
      input: fc.oneof(jsonObjectArb, fc.constantFrom<unknown>(null, "str", [1], undefined, 3)),
    },
    { requiredKeys: ["type"] },
  ),
  fc.constantFrom<unknown>(
    { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
    { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
    { type: "mystery_block", value: 1 },
    { type: 3 },
    { no_type: true },
    null,
    5,
    "text",
    [],
  ),
);
const matchingNativeArb = fc.record({
  protocol: fc.constant("anthropic-messages"),
  origin: fc.constant("anthropic"),
  model: fc.constant(MODEL),
  blocks: fc.array(nativeBlockArb, { maxLength: 6 }),
});
const nativeArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: matchingNativeArb },
  {
    weight: 3,
    arbitrary: fc.record({
      protocol: fc.constantFrom<unknown>("anthropic-messages", "openai-responses", undefined),
      origin: fc.constantFrom<unknown>("anthropic", "bedrock", 1),
      model: fc.constantFrom<unknown>(MODEL, "claude-opus-4-7", undefined),
      blocks: fc.oneof(fc.array(nativeBlockArb, { maxLength: 6 }), fc.constantFrom<unknown>("x", null, {})),
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, "native", 3, []) },
);
const messageArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record(
      {
        role: fc.constantFrom<unknown>(
          "user",
          "user",
          "assistant",
          "assistant",
          "assistant",
          "tool",
          "tool",
          "system",
          "developer",
          "",
          3,
          null,
        ),
        content: textArb,
        toolCalls: fc.oneof(
          fc.array(toolCallArb, { maxLength: 4 }),
          fc.constantFrom<unknown>("x", null, { id: "toolu_1" }),
        ),
        toolResults: fc.oneof(fc.array(toolResultArb, { maxLength: 4 }), fc.constantFrom<unknown>("x", null)),
        native: nativeArb,
      },
      { requiredKeys: ["role"] },
    ),
  },
  {
    // Parallel calls, well formed: ids from a pool of two, so they often repeat.
    weight: 2,
    arbitrary: fc.record({
      role: fc.constant("assistant"),
      toolCalls: fc.array(
        fc.record({
          id: fc.constantFrom("toolu_1", "toolu_2"),
          name: fc.constant("search"),
          arguments: jsonObjectArb,
        }),
        { minLength: 2, maxLength: 4 },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, undefined, 0, "user", true, [], {}) },
);
const historyArb = fc.array(messageArb, { maxLength: 12 });

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function isMatchingNative(value: unknown): value is { blocks: unknown[] } {
  return (
    isRecord(value) &&
    value.protocol === "anthropic-messages" &&
    value.origin === TARGET.origin &&
    value.model === TARGET.model &&
    Array.isArray(value.blocks)
  );
}

/** Every block of every native whose provenance matches the target: the only source of reasoning blocks. */
function replayableBlocks(history: readonly unknown[]): unknown[] {
  return history.flatMap((message) =>
    isRecord(message) && message.role === "assistant" && isMatchingNative(message.native)
      ? message.native.blocks
      : [],
  );
}

/**
 * The same history with each tool-call id kept on its first occurrence only (toolCalls and native tool_use
 * blocks, across the whole history): a history the API's uniqueness rule does not reject by itself.
 */
function withUniqueCallIds(history: unknown[]): unknown[] {
  const seen = new Set<unknown>();
  const fresh = (id: unknown): boolean => {
    if (typeof id !== "string" || id === "") return true;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  };
  return history.map((message) => {
    if (!isRecord(message) || message.role !== "assistant") return message;
    const copy: Record<string, unknown> = { ...message };
    if (isMatchingNative(message.native)) {
      copy.native = {
        ...message.native,
        blocks: message.native.blocks.filter(
          (block) => !(isRecord(block) && block.type === "tool_use") || fresh(block.id),
        ),
      };
    } else if (Array.isArray(message.toolCalls)) {
      copy.toolCalls = message.toolCalls.filter((call) => !isRecord(call) || fresh(call.id));
    }
    return copy;
  });
}

function checkConversion(history: unknown[]): void {
  const out = convertToAnthropicMessages(history, TARGET);
  const problem = violation(out);
  if (problem) throw new Error(`${problem}\n${JSON.stringify(out.messages)}`);
  const sources = replayableBlocks(history);
  for (const block of allBlocks(out.messages)) {
    if (block.type === "thinking" || block.type === "redacted_thinking") {
      if (!sources.some((source) => isDeepStrictEqual(source, block)))
        throw new Error(
          `reasoning block not replayed verbatim from a matching native: ${JSON.stringify(block)}`,
        );
    }
    if (block.type === "text" && String(block.text).includes(THINK_MARK))
      throw new Error(`thinking text demoted to a text block: ${JSON.stringify(block)}`);
  }
}

describe("convertToAnthropicMessages: property over arbitrary histories", () => {
  it("never throws and always produces a request the Messages API accepts", () => {
    fc.assert(
      fc.property(historyArb, (history) => {
        checkConversion(history);
      }),
      { numRuns: 600 },
    );
  });

  it("the same, for histories whose tool-call ids are unique (isolates the duplicate-id case)", () => {
    fc.assert(
      fc.property(historyArb.map(withUniqueCallIds), (history) => {
        checkConversion(history);
      }),
      { numRuns: 600 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// Property: the whole request builder over the same histories, with arbitrary options.

const TOOLS: ToolSpec[] = [
  {
    name: "search",
    description: "Search",
    parameters: { type: "object", properties: { q: { type: "string" } } },
  },
  { name: "get_weather", parameters: { type: "object", properties: {} } },
];
const PROFILE_MODELS = [
  "claude-sonnet-4-5",
  "claude-haiku-4-5-20251001",
  "claude-opus-4-5",
  "claude-opus-4-20250514",
  "claude-opus-4-7",
  "claude-sonnet-4-6",
  "claude-sonnet-5",
  "claude-3-5-sonnet-20241022",
  "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
];
const thinkingArb: fc.Arbitrary<Thinking | undefined> = fc.oneof(
  fc.constantFrom<Thinking | undefined>(undefined, "off", "adaptive"),
  fc
    .oneof(
      fc.constantFrom(1, 512, 1023, 1024, 1025, 8192, 31_999, 32_000, 64_000),
      fc.integer({ min: 1, max: 300_000 }),
    )
    .map((budgetTokens) => ({ budgetTokens })),
  fc.constantFrom("minimal", "low", "medium", "high", "max").map((effort) => ({ effort }) as Thinking),
);
const cacheArb: fc.Arbitrary<CacheOption | undefined> = fc.oneof(
  fc.constantFrom<CacheOption | undefined>(undefined, "auto", "off", { ttl: "1h" }, { ttl: "5m" }),
  fc
    .array(
      fc.oneof(
        fc.constantFrom<"tools" | "system">("tools", "system"),
        fc.nat(14).map((message) => ({ message })),
      ),
      {
        maxLength: 7,
      },
    )
    .map((breakpoints) => ({ breakpoints })),
);
const optionsArb: fc.Arbitrary<CallOptions> = fc.record(
  {
    maxTokens: fc.oneof(fc.integer({ min: 1, max: 2048 }), fc.integer({ min: 1, max: 300_000 })),
    thinking: thinkingArb,
    temperature: fc.oneof(fc.constantFrom(0, 0.5, 1, 2), fc.double({ min: 0, max: 2, noNaN: true })),
    topP: fc.oneof(fc.constantFrom(0.1, 0.9, 0.95, 1), fc.double({ min: 0, max: 1, noNaN: true })),
    toolChoice: fc.constantFrom<ToolChoice>("auto", "any", "none", { name: "search" }, { name: "missing" }),
    cache: cacheArb,
    stopSequences: fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);

function countCacheMarks(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countCacheMarks(item), 0);
  if (!isRecord(value)) return 0;
  let count = "cache_control" in value ? 1 : 0;
  for (const [key, child] of Object.entries(value))
    if (key !== "cache_control") count += countCacheMarks(child);
  return count;
}

describe("buildAnthropicRequest: property over arbitrary histories and options", () => {
  it("never throws, never sends an unsatisfiable thinking budget, at most 4 cache marks, none on thinking", () => {
    fc.assert(
      fc.property(
        historyArb,
        optionsArb,
        fc.constantFrom(...PROFILE_MODELS),
        fc.subarray(TOOLS),
        fc.boolean(),
        fc.constantFrom<CacheOption | undefined>(undefined, "auto", "off"),
        (history, options, profileModel, tools, stream, defaultCache) => {
          const profile = anthropicModelProfile(profileModel);
          const snapshot = structuredClone(history);
          const { body, warnings } = buildAnthropicRequest({
            messages: history as MessageInput[],
            tools,
            options,
            target: TARGET,
            profile,
            stream,
            defaultCache,
          });
          expect(Array.isArray(warnings)).toBe(true);
          expect(Number.isInteger(body.max_tokens) && body.max_tokens > 0).toBe(true);
          const requestedMax = options.maxTokens ?? profile.defaultMaxTokens;
          if (body.max_tokens !== requestedMax)
            expect(body.max_tokens).toBeLessThanOrEqual(profile.maxOutputTokens);

          const thinking = body.thinking;
          if (thinking?.type === "enabled") {
            expect(thinking.budget_tokens).toBeGreaterThanOrEqual(1024);
            expect(thinking.budget_tokens).toBeLessThan(body.max_tokens);
            expect(Number.isInteger(thinking.budget_tokens)).toBe(true);
            expect(profile.thinking).not.toBe("adaptive-only");
          }
          if (thinking?.type === "adaptive")
            expect(["adaptive-only", "adaptive-or-budget"]).toContain(profile.thinking);
          if (profile.thinking === "none") expect(thinking).toBeUndefined();
          if (thinking?.type === "enabled" || thinking?.type === "adaptive") {
            expect(body.temperature === undefined || body.temperature === 1).toBe(true);
            expect(body.top_p === undefined || body.top_p >= 0.95).toBe(true);
            expect(body.tool_choice?.type === "any" || body.tool_choice?.type === "tool").toBe(false);
          }
          if (body.tool_choice !== undefined) expect(body.tools?.length).toBeGreaterThan(0);

          expect(countCacheMarks(body)).toBeLessThanOrEqual(4);
          for (const block of allBlocks(body.messages)) {
            if (block.type === "thinking" || block.type === "redacted_thinking")
              expect(block).not.toHaveProperty("cache_control");
          }
          // Building a request never changes the caller's history (replayed blocks included). Compared as
          // JSON: fast-check may generate null-prototype objects, which a structured clone does not keep.
          if (JSON.stringify(history) !== JSON.stringify(snapshot))
            expect.fail("buildAnthropicRequest mutated its input history");
          expect(() => JSON.stringify(body)).not.toThrow();
        },
      ),
      { numRuns: 600 },
    );
  });
});

describe("convertToAnthropicMessages: records JSON.parse can produce", () => {
  it("never throws on provenance fields that cannot be printed, or a BigInt role", () => {
    const target = { model: "claude-sonnet-4-5", origin: "anthropic" };
    const noProto = Object.create(null) as Record<string, unknown>;
    const history = [
      { role: "user", content: "hi" },
      {
        role: "assistant",
        content: "a",
        native: { protocol: { toString: 1 }, origin: noProto, model: noProto, blocks: [] },
      },
      { role: 10n },
    ];
    const converted = convertToAnthropicMessages(history as never, target);
    expect(converted.messages.map((message) => message.role)).toEqual(["user", "assistant"]);
    expect(converted.warnings.some((warning) => warning.includes("unknown role"))).toBe(true);
  });

  it("leaves user-only blocks out of a replayed assistant turn", () => {
    const target = { model: "claude-sonnet-4-5", origin: "anthropic" };
    const converted = convertToAnthropicMessages(
      [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: "ok",
          native: {
            protocol: "anthropic-messages",
            origin: "anthropic",
            model: "claude-sonnet-4-5",
            blocks: [
              { type: "tool_result", tool_use_id: "x", content: "stray" },
              { type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } },
              { type: "text", text: "ok" },
            ],
          },
        },
      ],
      target,
    );
    expect(converted.messages[1]!.content).toEqual([{ type: "text", text: "ok" }]);
    expect(converted.warnings.filter((warning) => warning.includes("in an assistant turn"))).toHaveLength(2);
  });
});
