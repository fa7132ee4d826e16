/** convertToAnthropicMessages: system, turns, tool calls. */
import { describe, expect, it } from "vitest";
import { MISSING_TOOL_RESULT } from "../../../src/protocols/anthropic-messages/index.ts";
import { allBlocks, blocksOfType, convert, expectValid } from "./convert-to-anthropic-messages.helpers.ts";

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

describe("convertToAnthropicMessages: gaps mutation testing found", () => {
  it('mutation gap 6: an empty tool result is sent without `content` (the API rejects content: "")', () => {
    for (const content of ["", "   ", "\n"]) {
      const { messages } = convert([
        { role: "user", content: "go" },
        { role: "assistant", toolCalls: [{ id: "toolu_1", name: "noop", arguments: {} }] },
        { role: "tool", toolResults: [{ callId: "toolu_1", content }] },
      ]);
      const result = allBlocks(messages).find((block) => block.type === "tool_result");
      expect(result, JSON.stringify(content)).toEqual({ type: "tool_result", tool_use_id: "toolu_1" });
    }
  });
});
