/** convertToAnthropicMessages: native replay. */
import { describe, expect, it } from "vitest";
import {
  blocksOfType,
  convert,
  expectValid,
  native,
  SIGNATURE,
} from "./convert-to-anthropic-messages.helpers.ts";

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

describe("convertToAnthropicMessages: native gaps mutation testing found", () => {
  it("mutation gap 6: a signed thinking block with no text (a signature only) is replayed verbatim", () => {
    const signedOnly = { type: "thinking", thinking: "", signature: SIGNATURE };
    const blocks = [signedOnly, { type: "text", text: "Done." }];
    const { messages, warnings } = convert([
      { role: "user", content: "go" },
      { role: "assistant", content: "Done.", native: native(blocks) },
      { role: "user", content: "next" },
    ]);
    expect(messages[1]!.content).toEqual(blocks);
    expect(messages[1]!.content[0]).toBe(signedOnly);
    expect(warnings).toEqual([]);
  });
});
