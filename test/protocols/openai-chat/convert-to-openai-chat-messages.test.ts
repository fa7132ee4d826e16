/**
 * Neutral history → Chat Completions `messages`: named cases for every rule of
 * `convertToOpenAIChatMessages`, then a fast-check property over arbitrary (and garbage) histories that
 * checks the request the API would receive is always well formed: every `tool` message answers a call of
 * the assistant message right before its run of tool messages, every call is answered before anything else,
 * no empty assistant message, call ids unique within a message.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MessageInput } from "../../../src/core/message.ts";
import {
  convertToOpenAIChatMessages,
  MISSING_TOOL_RESULT,
  type OpenAIChatEndpointProfile,
  type OpenAIChatMessageParam,
  type OpenAIChatReplayTarget,
} from "../../../src/protocols/openai-chat/index.ts";
import { openAIChatEndpointProfile } from "../../../src/providers/openai-chat.ts";

const MODEL = "deepseek-reasoner";
const DEEPSEEK: OpenAIChatEndpointProfile = {
  ...openAIChatEndpointProfile({ kind: "deepseek" }),
  echoReasoning: true,
};
const TARGET: OpenAIChatReplayTarget = { model: MODEL, profile: DEEPSEEK };
const VLLM: OpenAIChatReplayTarget = { model: "Qwen/Qwen3-8B", profile: openAIChatEndpointProfile("vllm") };

function convert(messages: readonly unknown[], target: OpenAIChatReplayTarget = TARGET) {
  return convertToOpenAIChatMessages(messages, target);
}

function native(blocks: unknown[], overrides: Record<string, unknown> = {}) {
  return { protocol: "openai-chat", origin: "deepseek", model: MODEL, blocks, ...overrides };
}

const USER = { role: "user", content: "weather?" } as const;

// ---------------------------------------------------------------------------------------------------

describe("convertToOpenAIChatMessages: roles and text", () => {
  it("system, user, assistant text pass through; blank system and user text are dropped", () => {
    const { messages, warnings } = convert([
      { role: "system", content: "be brief" },
      { role: "system", content: "   " },
      USER,
      { role: "user", content: "" },
      { role: "assistant", content: "sunny" },
    ]);
    expect(messages).toStrictEqual([
      { role: "system", content: "be brief" },
      { role: "user", content: "weather?" },
      { role: "assistant", content: "sunny" },
    ]);
    expect(warnings).toEqual([]);
  });

  it("an assistant turn with neither text nor calls is left out, with a warning", () => {
    const { messages, warnings } = convert([
      USER,
      { role: "assistant", content: "" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "", arguments: {} }] },
      { role: "assistant" },
    ]);
    expect(messages).toStrictEqual([{ role: "user", content: "weather?" }]);
    expect(warnings.filter((w) => w.includes("no text and no tool calls"))).toHaveLength(3);
  });

  it("unknown roles, non-objects and non-text content are left out with warnings, never thrown", () => {
    const { messages, warnings } = convert([
      null,
      3,
      "user",
      { role: "developer", content: "x" },
      { role: "user", content: { a: 1 } },
      { role: 5n },
      { role: "tool", toolResults: [{ callId: Object.create(null), content: "x" }] },
      { role: "assistant", toolCalls: [{ id: "c", name: "f", arguments: { n: 1n } }] },
    ]);
    expect(messages).toStrictEqual([
      { role: "user", content: "[tool result for call [object Object]]\nx" },
      // Arguments JSON cannot hold: the call still goes out, with `{}`.
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c", content: `Error: ${MISSING_TOOL_RESULT}` },
    ]);
    expect(warnings).toHaveLength(8);
  });
});

describe("convertToOpenAIChatMessages: tool calls", () => {
  it("tool_calls on the assistant message, arguments as a JSON string, content null without text", () => {
    const { messages } = convert([
      USER,
      {
        role: "assistant",
        toolCalls: [
          { id: "call_1", name: "weather", arguments: { city: "Paris", days: [1, 2] } },
          { id: "call_2", name: "time", arguments: {} },
        ],
      },
      {
        role: "tool",
        toolResults: [
          { callId: "call_1", content: "sunny" },
          { callId: "call_2", content: "noon" },
        ],
      },
    ]);
    expect(messages).toStrictEqual([
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_1",
            type: "function",
            function: { name: "weather", arguments: '{"city":"Paris","days":[1,2]}' },
          },
          { id: "call_2", type: "function", function: { name: "time", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
      { role: "tool", tool_call_id: "call_2", content: "noon" },
    ]);
  });

  it("text beside calls stays the assistant content", () => {
    const { messages } = convert([
      {
        role: "assistant",
        content: "Let me look.",
        toolCalls: [{ id: "c", name: "f", arguments: { a: 1 } }],
      },
      { role: "tool", toolResults: [{ callId: "c", content: "ok" }] },
    ]);
    expect(messages[0]).toMatchObject({ role: "assistant", content: "Let me look." });
  });

  it("argumentsText goes out verbatim when the turn came from openai-chat (a truncated call survives)", () => {
    const truncated = '{"city": "Par';
    const call = { id: "c1", name: "weather", arguments: {}, argumentsText: truncated };
    const fromChat = convert([
      // Another endpoint and model: the argument text is protocol-level, not bound to the model.
      { role: "assistant", toolCalls: [call], native: native([], { origin: "vllm", model: "other" }) },
      { role: "tool", toolResults: [{ callId: "c1", content: "?" }] },
    ]);
    expect(fromChat.messages[0]!.tool_calls![0]!.function.arguments).toBe(truncated);
    const spaced = '{ "city" : "Paris" }';
    const exact = convert([
      {
        role: "assistant",
        toolCalls: [{ id: "c1", name: "weather", arguments: { city: "Paris" }, argumentsText: spaced }],
        native: native([]),
      },
      { role: "tool", toolResults: [{ callId: "c1", content: "sunny" }] },
    ]);
    expect(exact.messages[0]!.tool_calls![0]!.function.arguments).toBe(spaced);
  });

  it("from another protocol, or without native, the arguments are JSON of the parsed object", () => {
    const call = { id: "c1", name: "weather", arguments: { city: "Paris" }, argumentsText: '{"city": "Par' };
    for (const nativeValue of [
      undefined,
      native([], { protocol: "anthropic-messages" }),
      native([], { protocol: "openai-responses" }),
    ]) {
      const message: Record<string, unknown> = { role: "assistant", toolCalls: [call] };
      if (nativeValue) message.native = nativeValue;
      const { messages } = convert([
        message,
        { role: "tool", toolResults: [{ callId: "c1", content: "x" }] },
      ]);
      expect(messages[0]!.tool_calls![0]!.function.arguments).toBe('{"city":"Paris"}');
    }
  });

  it("a call without an id gets a deterministic id, and its id-less result is bound to it", () => {
    const history = [
      USER,
      {
        role: "assistant",
        toolCalls: [
          { name: "weather", arguments: { city: "Paris" } },
          { id: "", name: "time", arguments: {} },
        ],
      },
      { role: "tool", toolResults: [{ content: "sunny" }] },
      { role: "tool", toolResults: [{ callId: "", content: "noon" }] },
    ];
    const first = convert(history);
    expect(first.messages).toStrictEqual([
      { role: "user", content: "weather?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_1_0", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
          { id: "call_1_1", type: "function", function: { name: "time", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_1_0", content: "sunny" },
      { role: "tool", tool_call_id: "call_1_1", content: "noon" },
    ]);
    // Same history, same ids: the request (and so a prompt cache) is stable across calls.
    expect(convert(history)).toStrictEqual(first);
    expect(first.warnings.some((w) => w.includes("without an id; sent as call_1_0"))).toBe(true);
  });

  it("results without a call id are bound in order to the calls still unanswered", () => {
    const { messages } = convert([
      {
        role: "assistant",
        toolCalls: [
          { id: "a", name: "f", arguments: {} },
          { id: "b", name: "f", arguments: {} },
          { id: "c", name: "f", arguments: {} },
        ],
      },
      {
        role: "tool",
        toolResults: [
          { callId: "b", content: "B" },
          { content: "first unanswered" },
          { content: "next unanswered" },
        ],
      },
    ]);
    expect(messages.slice(1)).toStrictEqual([
      { role: "tool", tool_call_id: "b", content: "B" },
      { role: "tool", tool_call_id: "a", content: "first unanswered" },
      { role: "tool", tool_call_id: "c", content: "next unanswered" },
    ]);
  });

  it("a result answering no call of the turn before it becomes user text", () => {
    const { messages, warnings } = convert([
      USER,
      { role: "tool", toolResults: [{ callId: "ghost", content: "boo", isError: true }] },
      { role: "user", toolResults: [{ callId: "ghost2", content: "" }] },
    ]);
    expect(messages).toStrictEqual([
      { role: "user", content: "weather?" },
      { role: "user", content: "[tool error result for call ghost]\nboo" },
      { role: "user", content: "[tool result for call ghost2]" },
    ]);
    expect(warnings.filter((w) => w.includes("answers no call"))).toHaveLength(2);
  });

  it("an orphan result among real ones does not cost the real ones their answers", () => {
    const { messages } = convert([
      {
        role: "assistant",
        toolCalls: [
          { id: "a", name: "f", arguments: {} },
          { id: "b", name: "f", arguments: {} },
        ],
      },
      { role: "tool", toolResults: [{ callId: "a", content: "A" }] },
      { role: "tool", toolResults: [{ callId: "stale", content: "old" }] },
      { role: "tool", toolResults: [{ callId: "b", content: "B" }] },
      { role: "tool", toolResults: [{ callId: "stale2", content: "older" }] },
    ]);
    expect(messages.slice(1)).toStrictEqual([
      { role: "tool", tool_call_id: "a", content: "A" },
      { role: "tool", tool_call_id: "b", content: "B" },
      { role: "user", content: "[tool result for call stale]\nold" },
      { role: "user", content: "[tool result for call stale2]\nolder" },
    ]);
  });

  it("a result for a call of an earlier turn is text, not an answer", () => {
    const { messages } = convert([
      { role: "assistant", toolCalls: [{ id: "a", name: "f", arguments: {} }] },
      { role: "tool", toolResults: [{ callId: "a", content: "A" }] },
      { role: "assistant", content: "done" },
      { role: "tool", toolResults: [{ callId: "a", content: "again" }] },
    ]);
    expect(messages.at(-1)).toStrictEqual({ role: "user", content: "[tool result for call a]\nagain" });
  });

  it("calls without results get an error tool message, before the next message", () => {
    const { messages, warnings } = convert([
      USER,
      {
        role: "assistant",
        toolCalls: [
          { id: "a", name: "f", arguments: {} },
          { id: "b", name: "f", arguments: {} },
        ],
      },
      { role: "tool", toolResults: [{ callId: "b", content: "B" }] },
      { role: "user", content: "never mind" },
      { role: "assistant", toolCalls: [{ id: "c", name: "f", arguments: {} }] },
    ]);
    expect(messages.slice(2)).toStrictEqual([
      { role: "tool", tool_call_id: "b", content: "B" },
      { role: "tool", tool_call_id: "a", content: `Error: ${MISSING_TOOL_RESULT}` },
      { role: "user", content: "never mind" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c", content: `Error: ${MISSING_TOOL_RESULT}` },
    ]);
    expect(warnings.filter((w) => w.includes("have no recorded result"))).toHaveLength(2);
  });

  it("results on a user message come before its text; error results say so", () => {
    const { messages } = convert([
      { role: "assistant", toolCalls: [{ id: "a", name: "f", arguments: {} }] },
      {
        role: "user",
        content: "and then?",
        toolResults: [{ callId: "a", content: "disk full", isError: true }],
      },
    ]);
    expect(messages.slice(1)).toStrictEqual([
      { role: "tool", tool_call_id: "a", content: "Error: disk full" },
      { role: "user", content: "and then?" },
    ]);
  });

  it("duplicate call ids within a message are made unique, also against a suffix already taken", () => {
    const { messages } = convert([
      {
        role: "assistant",
        toolCalls: [
          { id: "x", name: "f", arguments: {} },
          { id: "x_2", name: "f", arguments: {} },
          { id: "x", name: "f", arguments: {} },
        ],
      },
    ]);
    const ids = messages[0]!.tool_calls!.map((call) => call.id);
    expect(new Set(ids).size).toBe(3);
    expect(ids.slice(0, 2)).toEqual(["x", "x_2"]);
  });

  it("a call without a name is left out and its result becomes text", () => {
    const { messages } = convert([
      {
        role: "assistant",
        content: "hm",
        toolCalls: [
          { id: "a", name: "", arguments: {} },
          { id: "b", name: "f", arguments: {} },
        ],
      },
      { role: "tool", toolResults: [{ callId: "b", content: "B" }] },
      { role: "tool", toolResults: [{ callId: "a", content: "A" }] },
    ]);
    expect(messages).toStrictEqual([
      {
        role: "assistant",
        content: "hm",
        tool_calls: [{ id: "b", type: "function", function: { name: "f", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "b", content: "B" },
      { role: "user", content: "[tool result for call a]\nA" },
    ]);
  });
});

describe("convertToOpenAIChatMessages: reasoning_content", () => {
  const turn = (nativeValue: unknown): unknown => ({
    role: "assistant",
    content: "Hello",
    native: nativeValue,
  });
  const block = { role: "assistant", content: "Hello", reasoning_content: "The user greets me." };

  it("goes back only with echoReasoning and a turn from the same endpoint and model", () => {
    expect(convert([USER, turn(native([block]))]).messages[1]).toStrictEqual({
      role: "assistant",
      content: "Hello",
      reasoning_content: "The user greets me.",
    });
    // A block carrying `reasoning` (Groq / OpenRouter style) is echoed as reasoning_content too.
    expect(
      convert([USER, turn(native([{ role: "assistant", reasoning: "think" }]))]).messages[1]!
        .reasoning_content,
    ).toBe("think");
  });

  it("is never sent otherwise", () => {
    const cases: [unknown, OpenAIChatReplayTarget][] = [
      [native([block]), { model: MODEL, profile: { ...DEEPSEEK, echoReasoning: false } }],
      [native([block], { model: "deepseek-chat" }), TARGET],
      [native([block], { origin: "openrouter" }), TARGET],
      [native([block], { protocol: "openai-responses" }), TARGET],
      [native([block], { protocol: "anthropic-messages" }), TARGET],
      [native([{ ...block, reasoning_content: "" }]), TARGET],
      [native([{ ...block, reasoning_content: 5 }]), TARGET],
      [native([]), TARGET],
      [{ ...native([]), blocks: "x" }, TARGET],
      [undefined, TARGET],
      [native([block]), VLLM],
    ];
    for (const [nativeValue, target] of cases) {
      const { messages } = convert([USER, turn(nativeValue)], target);
      expect(messages[1], JSON.stringify(nativeValue)).toStrictEqual({ role: "assistant", content: "Hello" });
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Property: arbitrary (and garbage) histories.

/** A few ids, so calls and results often match and ids often repeat, including ids the converter invents. */
const idArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom("call_1", "call_2", "x", "x_1", "x_2") },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>("call_0_0", "call_1_1", "call_2_0", "", undefined, null, 7, 10n, {}),
  },
);
const textArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom("", " ", "\n", "hello", "Error: failed", "日本語 🎌"),
  fc.string({ maxLength: 10 }),
  fc.constantFrom<unknown>(null, undefined, 0, 1.5, true, 3n, { text: "obj" }, ["arr"], Object.create(null)),
);
const jsonObjectArb = fc.dictionary(
  fc.string({ maxLength: 4 }),
  fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.boolean(), fc.constant(null)),
  { maxKeys: 3 },
);
const argumentsArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: jsonObjectArb },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>('{"a":1}', "{bad", "[1,2]", "", null, undefined, 5, [1], { big: 1n }),
  },
);
const toolCallArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        id: idArb,
        name: fc.constantFrom<unknown>("search", "weather", "search", "", undefined, 3),
        arguments: argumentsArb,
        argumentsText: fc.constantFrom<unknown>('{"x":1}', '{"x":', "", 9, undefined),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, "call", 3, [], Object.create(null)) },
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
const nativeArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      protocol: fc.constantFrom<unknown>("openai-chat", "openai-chat", "anthropic-messages", undefined),
      origin: fc.constantFrom<unknown>("deepseek", "vllm", 1),
      model: fc.constantFrom<unknown>(MODEL, "other"),
      blocks: fc.oneof(
        fc.array(
          fc.oneof(
            fc.record({ reasoning_content: textArb }, { requiredKeys: [] }),
            fc.record({ reasoning: textArb }, { requiredKeys: [] }),
            fc.constantFrom<unknown>(null, "x", 3),
          ),
          { maxLength: 2 },
        ),
        fc.constantFrom<unknown>("x", null, {}),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, "native", 3, [], undefined) },
);
const messageArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record(
      {
        role: fc.constantFrom<unknown>(
          "user",
          "assistant",
          "assistant",
          "tool",
          "tool",
          "system",
          "developer",
          3,
          null,
        ),
        content: textArb,
        toolCalls: fc.oneof(
          fc.array(toolCallArb, { maxLength: 4 }),
          fc.constantFrom<unknown>("x", null, { id: "a" }),
        ),
        toolResults: fc.oneof(fc.array(toolResultArb, { maxLength: 4 }), fc.constantFrom<unknown>("x", null)),
        native: nativeArb,
      },
      { requiredKeys: ["role"] },
    ),
  },
  {
    // Parallel calls, well formed, ids from a small pool so they repeat.
    weight: 2,
    arbitrary: fc.record({
      role: fc.constant("assistant"),
      toolCalls: fc.array(
        fc.record({
          id: fc.constantFrom("x", "x_1", "x_2", "call_1"),
          name: fc.constant("search"),
          arguments: jsonObjectArb,
        }),
        { minLength: 2, maxLength: 4 },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.anything({ withBigInt: true, withNullPrototype: true, maxDepth: 2 }) },
);
const historyArb = fc.array(messageArb, { maxLength: 12 });

/** A user message whose content is a non-empty list of well-formed Chat parts. */
function isUserParts(message: OpenAIChatMessageParam): boolean {
  const content = message.content;
  if (message.role !== "user" || !Array.isArray(content) || content.length === 0) return false;
  return content.every(
    (part) =>
      (part.type === "text" && typeof part.text === "string" && part.text.trim() !== "") ||
      (part.type === "image_url" && /^(?:https?:|data:image\/)/.test(part.image_url.url)) ||
      (part.type === "file" && typeof part.file.file_data === "string") ||
      part.type === "input_audio",
  );
}

/** The rules the API enforces on `messages`; the first violation, or undefined. */
function violation(messages: readonly OpenAIChatMessageParam[]): string | undefined {
  let calls: string[] = [];
  let answered = new Set<string>();
  for (const [index, message] of messages.entries()) {
    const where = `messages[${index}]`;
    if (!["system", "user", "assistant", "tool"].includes(message.role))
      return `${where}: role ${message.role}`;
    // Only user messages take parts (tool and system messages take text only).
    if (message.content !== null && typeof message.content !== "string" && !isUserParts(message))
      return `${where}: content not text`;
    if (message.role === "tool") {
      if (typeof message.tool_call_id !== "string") return `${where}: tool message without tool_call_id`;
      if (!calls.includes(message.tool_call_id))
        return `${where}: answers ${message.tool_call_id}, not a call of the nearest assistant message`;
      if (answered.has(message.tool_call_id)) return `${where}: ${message.tool_call_id} answered twice`;
      answered.add(message.tool_call_id);
      continue;
    }
    // Any other message closes the run of tool messages: every call must be answered by now.
    const unanswered = calls.filter((id) => !answered.has(id));
    if (unanswered.length > 0) return `${where}: calls ${unanswered.join(", ")} unanswered before it`;
    calls = [];
    answered = new Set();
    if (message.role !== "assistant") {
      if (typeof message.content !== "string" && !isUserParts(message))
        return `${where}: ${message.role} content is not text`;
      if ("tool_calls" in message) return `${where}: tool_calls on a ${message.role} message`;
      continue;
    }
    const toolCalls = message.tool_calls ?? [];
    if (message.content === null && toolCalls.length === 0)
      return `${where}: assistant with null content and no calls`;
    if (message.content === "" && toolCalls.length === 0) return `${where}: empty assistant`;
    if ("tool_calls" in message && toolCalls.length === 0) return `${where}: empty tool_calls`;
    for (const call of toolCalls) {
      if (typeof call.id !== "string" || call.id === "") return `${where}: call without id`;
      if (call.type !== "function") return `${where}: call type ${call.type}`;
      if (typeof call.function.name !== "string" || call.function.name === "")
        return `${where}: call without name`;
      if (typeof call.function.arguments !== "string") return `${where}: arguments not a string`;
    }
    const ids = toolCalls.map((call) => call.id);
    if (new Set(ids).size !== ids.length) return `${where}: duplicate call ids ${ids.join(", ")}`;
    calls = ids;
  }
  const unanswered = calls.filter((id) => !answered.has(id));
  if (unanswered.length > 0) return `end: calls ${unanswered.join(", ")} unanswered`;
  return undefined;
}

describe("convertToOpenAIChatMessages: property over arbitrary histories", () => {
  it("never throws, and the messages always satisfy the API's tool-message rules", () => {
    fc.assert(
      fc.property(historyArb, fc.boolean(), (history, echo) => {
        const target: OpenAIChatReplayTarget = {
          model: MODEL,
          profile: { ...DEEPSEEK, echoReasoning: echo },
        };
        const converted = convertToOpenAIChatMessages(history, target);
        expect(violation(converted.messages)).toBeUndefined();
        // Plain data all the way down (it becomes a JSON body), and deterministic.
        expect(JSON.parse(JSON.stringify(converted.messages))).toStrictEqual(converted.messages);
        expect(convertToOpenAIChatMessages(history, target)).toStrictEqual(converted);
        for (const warning of converted.warnings) expect(typeof warning).toBe("string");
        // reasoning_content only where it may go.
        if (!echo)
          for (const message of converted.messages) expect(message.reasoning_content).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });

  it("a well-formed history round-trips: every call and result kept, in order", () => {
    const wellFormedArb = fc.array(
      fc.record({
        text: fc.string({ maxLength: 6 }),
        calls: fc.uniqueArray(fc.constantFrom("a", "b", "c", "d"), { maxLength: 3 }),
      }),
      { minLength: 1, maxLength: 5 },
    );
    fc.assert(
      fc.property(wellFormedArb, (turns) => {
        const history: MessageInput[] = [];
        const expected: OpenAIChatMessageParam[] = [];
        turns.forEach((turn, t) => {
          history.push({ role: "user", content: `q${t}` });
          expected.push({ role: "user", content: `q${t}` });
          if (turn.text === "" && turn.calls.length === 0) return;
          const ids = turn.calls.map((c) => `${c}${t}`);
          history.push({
            role: "assistant",
            content: turn.text,
            toolCalls: ids.map((id) => ({ id, name: "f", arguments: { id } })),
          });
          const assistant: OpenAIChatMessageParam = {
            role: "assistant",
            content: turn.text === "" ? null : turn.text,
          };
          if (ids.length > 0)
            assistant.tool_calls = ids.map((id) => ({
              id,
              type: "function",
              function: { name: "f", arguments: JSON.stringify({ id }) },
            }));
          expected.push(assistant);
          for (const id of ids) {
            history.push({ role: "tool", toolResults: [{ callId: id, content: `r-${id}` }] });
            expected.push({ role: "tool", tool_call_id: id, content: `r-${id}` });
          }
        });
        const converted = convertToOpenAIChatMessages(history, VLLM);
        expect(converted.messages).toStrictEqual(expected);
        expect(converted.warnings).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
