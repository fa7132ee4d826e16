/**
 * Shared by the convertToAnthropicMessages tests: conversion, validity checks and the arbitraries of the property tests.
 */
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { expect } from "vitest";
import type { CacheOption, CallOptions, Thinking, ToolChoice } from "../../../src/core/call-options.ts";
import type { ToolSpec } from "../../../src/core/tool-spec.ts";
import {
  type AnthropicBlock,
  type AnthropicMessageParam,
  type AnthropicReplayTarget,
  type ConvertedAnthropicMessages,
  convertToAnthropicMessages,
} from "../../../src/protocols/anthropic-messages/index.ts";

/**
 * Neutral history → Anthropic `system` + `messages`: named cases for every rule of
 * `convertToAnthropicMessages`, then a fast-check property over arbitrary (and garbage) histories that
 * checks the request the API would receive is always valid — and that `buildAnthropicRequest` over the
 * same histories, with arbitrary options, never sends an unsatisfiable thinking budget or too many cache
 * marks.
 */

export const MODEL = "claude-sonnet-4-5";
export const TARGET: AnthropicReplayTarget = { model: MODEL, origin: "anthropic" };
export const SIGNATURE = "EqQBCkYIBxgCKkBsig+/nature==";

export function convert(messages: readonly unknown[]): ConvertedAnthropicMessages {
  return convertToAnthropicMessages(messages, TARGET);
}

export function native(blocks: unknown[], overrides: Record<string, unknown> = {}) {
  return { protocol: "anthropic-messages", origin: "anthropic", model: MODEL, blocks, ...overrides };
}

export function allBlocks(messages: readonly AnthropicMessageParam[]): AnthropicBlock[] {
  return messages.flatMap((message) => message.content);
}

export function blocksOfType(messages: readonly AnthropicMessageParam[], type: string): AnthropicBlock[] {
  return allBlocks(messages).filter((block) => block.type === type);
}

/**
 * The structural rules the Messages API enforces on `messages` (and that the converter promises).
 * Returns the first violation, or undefined.
 */
export function violation(converted: ConvertedAnthropicMessages): string | undefined {
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

export function expectValid(converted: ConvertedAnthropicMessages): void {
  expect(violation(converted)).toBeUndefined();
}

// ---------------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------------
// Property: arbitrary histories.

export const THINK_MARK = "⟦think";

/** Mostly two ids, so calls and results often match and ids often repeat; sometimes junk. */
export const idArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("toolu_1", "toolu_2") },
  { weight: 2, arbitrary: fc.constantFrom<unknown>("toolu_3", "call_x", "", undefined, null, 7) },
);
export const nameArb = fc.constantFrom<unknown>("search", "get_weather", "", undefined, null, 3);
export const textArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom("", " ", "  ", "\n\n", "\t \n", "hello", "ends with space  ", "日本語 🎌", "\u00a0"),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 8 }),
  fc.constantFrom<unknown>(null, undefined, 0, 1.5, true, { text: "obj" }, ["arr"]),
);
export const jsonObjectArb = fc.dictionary(
  fc.string({ maxLength: 4 }),
  fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.boolean()),
  { maxKeys: 3 },
);
export const argumentsArb: fc.Arbitrary<unknown> = fc.oneof(
  jsonObjectArb,
  fc.constantFrom('{"a":1}', "{bad", "[1,2]", '"str"', "", "  ", "null", "42"),
  fc.string({ maxLength: 8 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.constantFrom<unknown>(null, undefined, 5, true),
);
export const toolCallArb: fc.Arbitrary<unknown> = fc.oneof(
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
export const toolResultArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      { callId: idArb, content: textArb, isError: fc.constantFrom<unknown>(true, false, "yes", undefined) },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, "result", 0) },
);
export const nativeBlockArb: fc.Arbitrary<unknown> = fc.oneof(
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
export const matchingNativeArb = fc.record({
  protocol: fc.constant("anthropic-messages"),
  origin: fc.constant("anthropic"),
  model: fc.constant(MODEL),
  blocks: fc.array(nativeBlockArb, { maxLength: 6 }),
});
export const nativeArb: fc.Arbitrary<unknown> = fc.oneof(
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
export const messageArb: fc.Arbitrary<unknown> = fc.oneof(
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
export const historyArb = fc.array(messageArb, { maxLength: 12 });

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export function isMatchingNative(value: unknown): value is { blocks: unknown[] } {
  return (
    isRecord(value) &&
    value.protocol === "anthropic-messages" &&
    value.origin === TARGET.origin &&
    value.model === TARGET.model &&
    Array.isArray(value.blocks)
  );
}

/** Every block of every native whose provenance matches the target: the only source of reasoning blocks. */
export function replayableBlocks(history: readonly unknown[]): unknown[] {
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
export function withUniqueCallIds(history: unknown[]): unknown[] {
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

export function checkConversion(history: unknown[]): void {
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

// ---------------------------------------------------------------------------------------------------
// Property: the whole request builder over the same histories, with arbitrary options.

export const TOOLS: ToolSpec[] = [
  {
    name: "search",
    description: "Search",
    parameters: { type: "object", properties: { q: { type: "string" } } },
  },
  { name: "get_weather", parameters: { type: "object", properties: {} } },
];
export const PROFILE_MODELS = [
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
export const thinkingArb: fc.Arbitrary<Thinking | undefined> = fc.oneof(
  fc.constantFrom<Thinking | undefined>(undefined, "off", "adaptive"),
  fc
    .oneof(
      fc.constantFrom(1, 512, 1023, 1024, 1025, 8192, 31_999, 32_000, 64_000),
      fc.integer({ min: 1, max: 300_000 }),
    )
    .map((budgetTokens) => ({ budgetTokens })),
  fc.constantFrom("minimal", "low", "medium", "high", "max").map((effort) => ({ effort }) as Thinking),
);
export const cacheArb: fc.Arbitrary<CacheOption | undefined> = fc.oneof(
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
export const optionsArb: fc.Arbitrary<CallOptions> = fc.record(
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

export function countCacheMarks(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countCacheMarks(item), 0);
  if (!isRecord(value)) return 0;
  let count = "cache_control" in value ? 1 : 0;
  for (const [key, child] of Object.entries(value))
    if (key !== "cache_control") count += countCacheMarks(child);
  return count;
}
