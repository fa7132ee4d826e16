/** convertToAnthropicMessages: stored histories it cannot trust (bad tool calls, garbage, what JSON.parse produces) never throw. */
import { describe, expect, it } from "vitest";
import {
  type ConvertedAnthropicMessages,
  convertToAnthropicMessages,
} from "../../../src/protocols/anthropic-messages/index.ts";
import {
  blocksOfType,
  convert,
  expectValid,
  MODEL,
  TARGET,
} from "./convert-to-anthropic-messages.helpers.ts";

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
