/**
 * Property: whatever a stored history holds, the Converse converter and request builder never throw and
 * always produce a request Converse accepts structurally — roles alternate from a user turn, no blank
 * text, every client `toolUse` answered exactly once by the next user turn and every `toolResult` answering
 * one, valid unique tool ids, a `toolConfig` whenever tool blocks are present, at most four cache points —
 * and reasoning only ever comes from `native` blocks of the exact target, never demoted to text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anthropicModelProfile, type CallOptions } from "../../../src/index.ts";
import {
  buildBedrockConverseRequest,
  type ConverseBlock,
  type ConverseMessage,
  convertToBedrockConverseMessages,
} from "../../../src/protocols/bedrock-converse/index.ts";

const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const TARGET = { model: MODEL, origin: "bedrock" };
const THINK_MARK = "⟦think";

const idArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("tooluse_1", "tooluse_2") },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      "tooluse_3",
      "functions.search:0",
      "x".repeat(70),
      "",
      undefined,
      null,
      7,
    ),
  },
);
const nameArb = fc.constantFrom<unknown>("search", "get_weather", "", undefined, null, 3);
const textArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom("", " ", "\n\n", "\t \n", "hello", "ends with space  ", "日本語 🎌", "\u00a0"),
  fc.string({ maxLength: 12 }),
  fc.constantFrom<unknown>(null, undefined, 0, 1.5, true, { text: "obj" }, ["arr"]),
);
const jsonObjectArb = fc.dictionary(
  fc.string({ maxLength: 4 }),
  fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.boolean()),
  { maxKeys: 3 },
);
const argumentsArb: fc.Arbitrary<unknown> = fc.oneof(
  jsonObjectArb,
  fc.constantFrom('{"a":1}', "{bad", "[1,2]", '"str"', "", "null"),
  fc.constantFrom<unknown>(null, undefined, 5, [1]),
);
const toolCallArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        id: idArb,
        name: nameArb,
        arguments: argumentsArb,
        argumentsText: fc.constantFrom<unknown>('{"x":1}', '{"x":', "", 9),
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
const reasoningTextArb = fc.string({ maxLength: 6 }).map((text) => `${THINK_MARK}:${text}⟧`);
const nativeBlockArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({
    reasoningContent: fc.record({
      reasoningText: fc.record(
        {
          text: reasoningTextArb,
          signature: fc.oneof(fc.constantFrom<unknown>("sigA", "", null), fc.base64String({ maxLength: 12 })),
        },
        { requiredKeys: ["text"] },
      ),
    }),
  }),
  fc.record({ reasoningContent: fc.record({ redactedContent: fc.base64String({ maxLength: 16 }) }) }),
  fc.constantFrom<unknown>(
    { reasoningContent: {} },
    { reasoningContent: null },
    { reasoningContent: { reasoningText: 3 } },
  ),
  fc.record({ text: textArb }),
  fc.record(
    {
      toolUse: fc.record(
        {
          toolUseId: idArb,
          name: nameArb,
          input: fc.oneof(jsonObjectArb, fc.constantFrom<unknown>(null, "str", [1], undefined)),
        },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: ["toolUse"] },
  ),
  fc.constantFrom<unknown>(
    { toolUse: { toolUseId: "srv_1", name: "nova_code_interpreter", input: {}, type: "server_tool_use" } },
    {
      toolResult: {
        toolUseId: "srv_1",
        content: [{ json: { out: 1 } }],
        type: "nova_code_interpreter_result",
      },
    },
    { cachePoint: { type: "default" } },
    { citationsContent: { content: [] } },
    { mystery: 1 },
    null,
    5,
    "text",
    [],
  ),
);
const matchingNativeArb = fc.record({
  protocol: fc.constant("bedrock-converse"),
  origin: fc.constant("bedrock"),
  model: fc.constant(MODEL),
  blocks: fc.array(nativeBlockArb, { maxLength: 6 }),
});
const nativeArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: matchingNativeArb },
  {
    weight: 3,
    arbitrary: fc.record({
      protocol: fc.constantFrom<unknown>("bedrock-converse", "anthropic-messages", undefined),
      origin: fc.constantFrom<unknown>("bedrock", "anthropic", 1),
      model: fc.constantFrom<unknown>(MODEL, "amazon.nova-pro-v1:0", undefined),
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
          "",
          null,
        ),
        content: textArb,
        toolCalls: fc.oneof(fc.array(toolCallArb, { maxLength: 4 }), fc.constantFrom<unknown>("x", null)),
        toolResults: fc.oneof(fc.array(toolResultArb, { maxLength: 4 }), fc.constantFrom<unknown>("x", null)),
        native: nativeArb,
      },
      { requiredKeys: ["role"] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      role: fc.constant("assistant"),
      toolCalls: fc.array(
        fc.record({
          id: fc.constantFrom("tooluse_1", "tooluse_2"),
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
const optionsArb: fc.Arbitrary<CallOptions> = fc.record(
  {
    toolChoice: fc.constantFrom<CallOptions["toolChoice"]>(
      "auto",
      "any",
      "none",
      { name: "search" },
      { name: "nope" },
    ),
    thinking: fc.constantFrom<CallOptions["thinking"]>(
      "off",
      "adaptive",
      { budgetTokens: 10 },
      { effort: "high" },
    ),
    cache: fc.constantFrom<CallOptions["cache"]>(
      "auto",
      "off",
      { ttl: "1h" },
      { breakpoints: ["tools", "system", { message: 0 }, { message: 3 }, { message: 1 }] },
    ),
    maxTokens: fc.integer({ min: 1, max: 5000 }),
  },
  { requiredKeys: [] },
);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function isClientToolUse(block: ConverseBlock): boolean {
  return isRecord(block.toolUse) && (block.toolUse.type === undefined || block.toolUse.type === "tool_use");
}

/** Reasoning blocks that may legitimately appear: those of natives whose provenance matches exactly. */
function replayable(history: readonly unknown[]): unknown[] {
  return history.flatMap((message) => {
    if (!isRecord(message) || message.role !== "assistant" || !isRecord(message.native)) return [];
    const native = message.native;
    return native.protocol === "bedrock-converse" &&
      native.origin === TARGET.origin &&
      native.model === TARGET.model &&
      Array.isArray(native.blocks)
      ? native.blocks
      : [];
  });
}

function expectValid(messages: ConverseMessage[], history: readonly unknown[]): void {
  const sources = replayable(history);
  const ids = new Set<string>();
  messages.forEach((turn, position) => {
    expect(turn.role).toBe(position % 2 === 0 ? "user" : "assistant");
    expect(turn.content.length).toBeGreaterThan(0);
    let resultsDone = false;
    for (const block of turn.content) {
      if (typeof block.text === "string") {
        expect(block.text.trim()).not.toBe("");
        expect(block.text).not.toContain(THINK_MARK);
      }
      if (block.reasoningContent !== undefined) {
        expect(turn.role).toBe("assistant");
        expect(sources).toContainEqual(block);
        const readable = block.reasoningContent.reasoningText;
        if (readable) expect(typeof readable.signature === "string" && readable.signature !== "").toBe(true);
      }
      if (isClientToolUse(block)) {
        expect(turn.role).toBe("assistant");
        const id = block.toolUse!.toolUseId;
        expect(id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
        expect(ids.has(id)).toBe(false);
        ids.add(id);
        expect(isRecord(block.toolUse!.input) && !Array.isArray(block.toolUse!.input)).toBe(true);
      }
      if (turn.role === "user") {
        if (isRecord(block.toolResult)) {
          expect(resultsDone).toBe(false);
          for (const item of block.toolResult.content) {
            if (typeof item.text === "string") expect(item.text.trim()).not.toBe("");
          }
        } else resultsDone = true;
      }
    }
    // Pairing with the turn before.
    if (turn.role === "user") {
      const previous = messages[position - 1];
      const expected = previous
        ? previous.content.filter(isClientToolUse).map((block) => block.toolUse!.toolUseId)
        : [];
      const answered = turn.content.flatMap((block) =>
        isRecord(block.toolResult) ? [block.toolResult.toolUseId] : [],
      );
      expect([...answered].sort()).toEqual([...expected].sort());
    }
  });
  const last = messages.at(-1);
  if (last?.role === "assistant") expect(last.content.some(isClientToolUse)).toBe(false);
}

describe("Converse conversion (property)", () => {
  it("never throws; always alternating, paired, without blank text or demoted reasoning", () => {
    fc.assert(
      fc.property(historyArb, (history) => {
        const converted = convertToBedrockConverseMessages(history, TARGET);
        expectValid(converted.messages, history);
        expect(() => JSON.stringify(converted)).not.toThrow();
        const hasBlocks = converted.messages.some((turn) =>
          turn.content.some((block) => isRecord(block.toolUse) || isRecord(block.toolResult)),
        );
        expect(converted.hasToolBlocks).toBe(hasBlocks);
      }),
      { numRuns: 500 },
    );
  });

  it("the whole request: valid for any options, toolConfig whenever tool blocks are present, ≤ 4 cache points", () => {
    fc.assert(
      fc.property(
        historyArb,
        optionsArb,
        fc.boolean(),
        fc.constantFrom(MODEL, "amazon.nova-lite-v1:0", "openai.gpt-oss-120b-1:0"),
        (history, options, withTools, model) => {
          const claude = model === MODEL;
          const { body } = buildBedrockConverseRequest({
            messages: history,
            tools: withTools ? [{ name: "search", parameters: { type: "object" } }] : [],
            options,
            model,
            anthropicProfile: claude ? anthropicModelProfile(MODEL) : undefined,
            defaultCache: "auto",
          });
          const messages = body.messages.map((turn) => ({
            ...turn,
            content: turn.content.filter((block) => !("cachePoint" in block)),
          }));
          if (claude) expectValid(messages, history);
          const hasBlocks = body.messages.some((turn) =>
            turn.content.some((block) => isRecord(block.toolUse) || isRecord(block.toolResult)),
          );
          if (hasBlocks) expect(body.toolConfig?.tools.length).toBeGreaterThan(0);
          const points = JSON.stringify(body).match(/"cachePoint"/g)?.length ?? 0;
          expect(points).toBeLessThanOrEqual(claude || model.includes("nova") ? 4 : 0);
          for (const turn of body.messages) {
            turn.content.forEach((block, index) => {
              if ("cachePoint" in block) {
                expect(index).toBeGreaterThan(0);
                expect(turn.content[index - 1]!.reasoningContent).toBeUndefined();
              }
            });
          }
          if (body.toolConfig?.toolChoice && "tool" in body.toolConfig.toolChoice) {
            expect(
              body.toolConfig.tools.some((tool) => "toolSpec" in tool && tool.toolSpec.name === "search"),
            ).toBe(true);
          }
          if (body.inferenceConfig?.maxTokens !== undefined) {
            const thinking = body.additionalModelRequestFields?.thinking as
              | { budget_tokens?: number }
              | undefined;
            if (thinking?.budget_tokens !== undefined) {
              expect(thinking.budget_tokens).toBeGreaterThanOrEqual(1024);
              expect(body.inferenceConfig.maxTokens).toBeGreaterThan(thinking.budget_tokens);
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
