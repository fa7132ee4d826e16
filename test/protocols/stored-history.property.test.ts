/**
 * Seed 004's hard rule, as one property over every history converter: a stored history never wedges a
 * session. 10,000 hostile histories (fixed seed, so a failure is repeatable) go through each converter —
 * Anthropic Messages (first-party and Bedrock InvokeModel targets), OpenAI Chat, OpenAI Responses (without
 * and with `previous_response_id`), Bedrock Converse, and ndjson-chat (the protocol written from outside the
 * package, test/fixtures-code/) — and each must return, without throwing:
 *
 * - its documented shape: an array of wire messages (turns, or Responses input items) a request body can
 *   carry as JSON, and `warnings`, an array of strings of bounded length;
 * - the provenance rule: a reasoning block reaches the wire only verbatim from a `native` whose protocol,
 *   origin and model all equal the target's; reasoning text never appears anywhere else (never demoted);
 * - the stored history untouched: every history is deep-frozen (as an immer or Redux host keeps its state),
 *   so a converter writing to it would throw.
 *
 * Hostile means what a JSON reader, a structured clone or a buggy host can leave in a record: wrong types
 * everywhere, BigInt, symbols, NaN and ±Infinity, null-prototype and boxed values, Dates and Maps, sparse
 * arrays, huge and blank strings, lone surrogates, arrays where objects belong, missing, repeated and
 * invalid ids and names, results answering no call and calls with no result, malformed `argumentsText`,
 * `native` of every other protocol or with non-string fields, a cycle, and values nested 400 deep. Getters
 * that throw and Proxies are left out: no deserialiser makes them, and a record that throws on being read
 * cannot be read safely by any code.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { convertToAnthropicMessages } from "../../src/protocols/anthropic-messages/convert-to-anthropic-messages.ts";
import { convertToBedrockConverseMessages } from "../../src/protocols/bedrock-converse/convert-to-bedrock-converse-messages.ts";
import { convertToGeminiContents } from "../../src/protocols/google-gemini/convert-to-gemini-contents.ts";
import { geminiModelProfile } from "../../src/protocols/google-gemini/gemini-model-profile.ts";
import { convertToOpenAIChatMessages } from "../../src/protocols/openai-chat/convert-to-openai-chat-messages.ts";
import type { OpenAIChatEndpointProfile } from "../../src/protocols/openai-chat/openai-chat-wire.ts";
import { convertToOpenAIResponsesInput } from "../../src/protocols/openai-responses/convert-to-openai-responses-input.ts";
import { ndjsonChatProtocol } from "../fixtures-code/ndjson-chat/protocol.ts";

const SEED = 4004;
const RUNS = 10_000;
/** Marks every reasoning payload the arbitraries make, so a leak into text is visible in the output JSON. */
const THINK = "⟦think⟧";
/** No warning quotes more of a stored value than this (a stored string may be megabytes long). */
const MAX_WARNING = 600;

const CLAUDE = "claude-sonnet-4-5";
const BEDROCK_CLAUDE = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
const VERTEX_CLAUDE = "claude-sonnet-4-5@20250929";
const DEEPSEEK = "deepseek-reasoner";
const GPT = "gpt-5";
const GEMINI = "gemini-3-flash-preview";

/** Every target below, as `native` would name it. */
const TRIPLES = [
  ["anthropic-messages", "anthropic", CLAUDE],
  ["anthropic-messages", "bedrock", BEDROCK_CLAUDE],
  ["anthropic-messages", "vertex", VERTEX_CLAUDE],
  ["openai-chat", "deepseek", DEEPSEEK],
  ["openai-chat", "vllm", "Qwen/Qwen3-8B"],
  ["openai-responses", "openai", GPT],
  ["bedrock-converse", "bedrock", BEDROCK_CLAUDE],
  ["google-gemini", "gemini", GEMINI],
] as const;

function chatProfile(kind: string, echoReasoning: boolean): OpenAIChatEndpointProfile {
  return {
    kind,
    maxTokensField: "max_tokens",
    streamUsage: true,
    reasoningEffort: false,
    parallelToolCalls: false,
    echoReasoning,
    openaiModelRules: false,
  };
}

// ---------------------------------------------------------------------------------------------------
// Hostile values.

const HUGE = `${"lorem ipsum ".repeat(8_000)}end`;
const HUGE_BLANK = `${" ".repeat(50_000)}\n\t`;

function nested(depth: number): unknown {
  let value: unknown = { bottom: true };
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? { down: value } : [value];
  return value;
}
const DEEP = nested(400);

const CYCLE: Record<string, unknown> = { type: "text", text: "a loop" };
CYCLE.self = CYCLE;

function nullProto<T extends object>(value: T): T {
  return Object.assign(Object.create(null) as T, value);
}

function sparse(): unknown[] {
  const holes: unknown[] = [];
  holes[3] = { role: "user", content: "after holes" };
  return holes;
}

const scalarJunk = fc.constantFrom<unknown>(
  undefined,
  null,
  0,
  -0,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  1e308,
  10n,
  -(2n ** 70n),
  true,
  false,
  "",
  " ",
  "\n\t",
  "\uD800",
  "日本語 🎌",
  HUGE,
  HUGE_BLANK,
  Symbol("stored"),
);
const objectJunk = fc.constantFrom<unknown>(
  {},
  [],
  [[]],
  Object.create(null),
  nullProto({ type: "text", text: 5 }),
  DEEP,
  CYCLE,
  new Date(0),
  new Map([["a", 1]]),
  sparse(),
  new String("boxed"),
);
const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: scalarJunk },
  { weight: 2, arbitrary: objectJunk },
  {
    weight: 1,
    arbitrary: fc.anything({
      maxDepth: 2,
      maxKeys: 3,
      withBigInt: true,
      withNullPrototype: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withSparseArray: true,
      withTypedArray: true,
    }),
  },
);

/** Mostly the given values, sometimes anything hostile. */
function mostly<T>(arbitrary: fc.Arbitrary<T>, weight = 4): fc.Arbitrary<unknown> {
  return fc.oneof({ weight, arbitrary }, { weight: 1, arbitrary: junk });
}

/** A record, sometimes without a prototype, sometimes frozen, sometimes an array instead. */
function objectLike<T extends object>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 6, arbitrary },
    { weight: 1, arbitrary: arbitrary.map((value) => nullProto(value)) },
    { weight: 1, arbitrary: arbitrary.map((value) => Object.values(value)) },
  );
}

const textArb = mostly(
  fc.oneof(
    fc.constantFrom("", " ", "\n\n", "hello", "ends with space  ", "\u00a0"),
    fc.string({ maxLength: 8 }),
  ),
);
/** Few ids, so they repeat, match, collide with invented ones (`call_1_0`) and break Converse's charset. */
const idArb = mostly(
  fc.constantFrom("c1", "c2", "call_1_0", "c1_2", "functions.search:0", "x".repeat(70), ""),
);
const nameArb = mostly(fc.constantFrom("search", "get_weather", ""));
const jsonObject = fc.dictionary(
  fc.string({ maxLength: 3 }),
  fc.oneof(fc.integer(), fc.string({ maxLength: 3 }), fc.boolean()),
  {
    maxKeys: 3,
  },
);
const argumentsArb = mostly(
  fc.oneof(
    jsonObject,
    jsonObject.map((value) => ({ ...value, big: 1n })),
    jsonObject.map((value) => nullProto(value)),
    fc.constantFrom('{"a":1}', "{bad", '{"a":', "[1,2]", '"str"', "", "null", "{}"),
  ),
);
const reasoningText = fc.string({ maxLength: 6 }).map((text) => `${THINK}${text}`);
const signatureArb = mostly(fc.constantFrom("sig", "", "EqQBCkYIBxgC"));

const anthropicBlock = fc.oneof(
  fc.record({ type: fc.constant("thinking"), thinking: reasoningText, signature: signatureArb }),
  fc.record({ type: fc.constant("redacted_thinking"), data: mostly(reasoningText) }),
  fc.record({ type: fc.constant("text"), text: textArb }),
  fc.record(
    { type: fc.constant("tool_use"), id: idArb, name: nameArb, input: argumentsArb },
    { requiredKeys: ["type"] },
  ),
  fc.constantFrom<object>(
    { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
    { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
    { type: "tool_result", tool_use_id: "c1", content: "stray" },
    { type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } },
    { type: 7 },
  ),
);
const responsesItem = fc.oneof(
  fc.record(
    {
      type: fc.constant("reasoning"),
      id: mostly(fc.constantFrom("rs_1", "rs_2")),
      encrypted_content: mostly(reasoningText),
      summary: fc.constant([{ type: "summary_text", text: `${THINK}summary` }]),
      content: mostly(fc.constant([{ type: "reasoning_text", text: `${THINK}text` }])),
    },
    { requiredKeys: ["type"] },
  ),
  fc.record({
    type: fc.constant("message"),
    id: mostly(fc.constantFrom("msg_1", "msg_2")),
    role: fc.constant("assistant"),
    content: fc.array(fc.record({ type: fc.constant("output_text"), text: textArb }), { maxLength: 2 }),
  }),
  fc.record(
    {
      type: fc.constantFrom("function_call", "custom_tool_call"),
      id: mostly(fc.constantFrom("fc_1", "fc_2")),
      call_id: idArb,
      name: nameArb,
      arguments: argumentsArb,
      input: argumentsArb,
    },
    { requiredKeys: ["type"] },
  ),
  fc.record({ type: fc.constant("function_call_output"), call_id: idArb, output: textArb }),
  fc.constant({ type: "web_search_call", id: "ws_1", status: "completed" }),
);
const converseBlock = fc.oneof(
  fc.record({
    reasoningContent: mostly(
      fc.oneof(
        fc.record(
          {
            reasoningText: fc.record({ text: reasoningText, signature: signatureArb }, { requiredKeys: [] }),
          },
          { requiredKeys: [] },
        ),
        fc.record({ redactedContent: reasoningText }),
      ),
    ),
  }),
  fc.record({ text: textArb }),
  fc.record({
    toolUse: mostly(
      fc.record({ toolUseId: idArb, name: nameArb, input: argumentsArb }, { requiredKeys: [] }),
    ),
  }),
  fc.constantFrom<object>(
    { cachePoint: { type: "default" } },
    { toolUse: { toolUseId: "srv_1", name: "nova_code_interpreter", input: {}, type: "server_tool_use" } },
    {
      toolResult: {
        toolUseId: "srv_1",
        content: [{ json: { out: 1 } }],
        type: "nova_code_interpreter_result",
      },
    },
  ),
);
const chatBlock = fc.record(
  {
    role: fc.constant("assistant"),
    content: textArb,
    reasoning_content: mostly(reasoningText),
    reasoning: mostly(reasoningText),
  },
  { requiredKeys: ["role"] },
);
const geminiPart = fc.oneof(
  fc.record(
    { text: reasoningText, thought: fc.constant(true), thoughtSignature: signatureArb },
    { requiredKeys: ["text", "thought"] },
  ),
  fc.record({ text: textArb, thoughtSignature: signatureArb }, { requiredKeys: ["text"] }),
  fc.record(
    {
      functionCall: mostly(fc.record({ name: nameArb, args: argumentsArb, id: idArb }, { requiredKeys: [] })),
      thoughtSignature: signatureArb,
    },
    { requiredKeys: ["functionCall"] },
  ),
  fc.constantFrom<object>(
    { functionResponse: { name: "search", response: { output: "stray" } } },
    { inlineData: { mimeType: "image/png", data: "AA==" } },
    { executableCode: { language: "PYTHON", code: "print(1)" } },
    { text: "", thoughtSignature: "c2ln" },
    {},
  ),
);
const blockArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: objectLike(anthropicBlock) },
  { weight: 3, arbitrary: objectLike(responsesItem) },
  { weight: 3, arbitrary: objectLike(converseBlock) },
  { weight: 1, arbitrary: objectLike(chatBlock) },
  { weight: 2, arbitrary: objectLike(geminiPart) },
  { weight: 1, arbitrary: junk },
);
const blocksArb = fc.array(blockArb, { maxLength: 5 });

const nativeArb: fc.Arbitrary<unknown> = fc.oneof(
  // Exactly one of the targets: replayed when it is the one converting.
  {
    weight: 6,
    arbitrary: fc
      .tuple(fc.constantFrom(...TRIPLES), blocksArb)
      .map(([[protocol, origin, model], blocks]) => ({ protocol, origin, model, blocks })),
  },
  {
    weight: 3,
    arbitrary: objectLike(
      fc.record(
        {
          protocol: mostly(fc.constantFrom(...TRIPLES.map((triple) => triple[0]))),
          origin: mostly(fc.constantFrom(...TRIPLES.map((triple) => triple[1]))),
          model: mostly(fc.constantFrom(...TRIPLES.map((triple) => triple[2]))),
          blocks: mostly(blocksArb),
        },
        { requiredKeys: [] },
      ),
    ),
  },
  { weight: 1, arbitrary: junk },
);

const toolCallArb = objectLike(
  fc.record(
    {
      id: idArb,
      name: nameArb,
      arguments: argumentsArb,
      argumentsText: mostly(fc.constantFrom('{"x":1}', '{"x":', "", "not json", "[]")),
    },
    { requiredKeys: [] },
  ),
);
const toolResultArb = objectLike(
  fc.record(
    { callId: idArb, content: textArb, isError: mostly(fc.boolean()), name: nameArb },
    { requiredKeys: [] },
  ),
);
const listOf = (arbitrary: fc.Arbitrary<unknown>) => mostly(fc.array(arbitrary, { maxLength: 3 }), 5);

const messageArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 12,
    arbitrary: objectLike(
      fc.record(
        {
          role: mostly(
            fc.constantFrom("user", "user", "assistant", "assistant", "assistant", "tool", "system"),
            8,
          ),
          content: textArb,
          toolCalls: listOf(toolCallArb),
          toolResults: listOf(toolResultArb),
          synthetic: mostly(fc.boolean()),
          native: nativeArb,
        },
        { requiredKeys: ["role"] },
      ),
    ),
  },
  { weight: 1, arbitrary: junk },
);

/** Freezes `value` and all it holds (typed arrays with elements cannot be frozen; they are left as they are). */
function deepFreeze(value: unknown, seen = new Set<unknown>()): void {
  if (typeof value !== "object" || value === null || seen.has(value) || ArrayBuffer.isView(value)) return;
  if (Object.isFrozen(value)) return; // frozen here before, with all it holds
  seen.add(value);
  for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
  Object.freeze(value);
}

/** A stored history, deep-frozen: usually an array of messages, now and then not an array at all. */
const historyArb: fc.Arbitrary<unknown> = fc
  .oneof({ weight: 20, arbitrary: fc.array(messageArb, { maxLength: 8 }) }, { weight: 1, arbitrary: junk })
  .map((history) => {
    deepFreeze(history);
    return history;
  });

// ---------------------------------------------------------------------------------------------------
// What every converter must return.

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** The blocks a converter may send verbatim: those of assistant `native`s matching the target exactly. */
function replayable(history: unknown, target: Triple): Set<unknown> {
  const blocks = new Set<unknown>();
  if (!Array.isArray(history)) return blocks;
  for (const message of history) {
    if (!isRecord(message) || message.role !== "assistant" || !isRecord(message.native)) continue;
    const native = message.native;
    if (
      native.protocol === target[0] &&
      native.origin === target[1] &&
      native.model === target[2] &&
      Array.isArray(native.blocks)
    ) {
      for (const block of native.blocks) blocks.add(block);
    }
  }
  return blocks;
}

type Triple = readonly [protocol: string, origin: string, model: string];

/** The first way `converted` breaks what every converter promises, or undefined. */
function soundness(
  converted: { warnings: unknown },
  wire: unknown,
  history: unknown,
  target: Triple,
): string | undefined {
  if (!Array.isArray(converted.warnings)) return "warnings is not an array";
  for (const warning of converted.warnings as unknown[]) {
    if (typeof warning !== "string") return `a warning is a ${typeof warning}`;
    if (warning.length > MAX_WARNING)
      return `a warning of ${warning.length} characters: ${warning.slice(0, 200)}`;
  }
  if (!Array.isArray(wire)) return "the wire messages are not an array";
  for (const [position, message] of wire.entries()) {
    if (!isRecord(message) || Array.isArray(message)) return `wire[${position}] is not an object`;
  }
  // A request body is JSON: the whole result must serialise (a throw here fails the property too).
  const json = JSON.stringify(converted);
  if (typeof json !== "string") return "the result does not serialise";
  if (!json.includes(THINK)) return undefined;
  // Reasoning only ever verbatim from an exactly matching native: with those blocks (the very objects)
  // taken out, no reasoning text is left anywhere — not in text, not in a tool result, not in a message.
  const verbatim = replayable(history, target);
  const rest = JSON.stringify(converted, (key, value) =>
    verbatim.has(value) || key === "reasoning_content" ? undefined : value,
  );
  return rest.includes(THINK)
    ? `reasoning outside a verbatim replayed block: ${rest.slice(0, 400)}`
    : undefined;
}

/** Anthropic Messages and Converse turns: roles alternate, nothing empty, every call answered next, once. */
function turnsViolation(
  turns: readonly { role: unknown; content: unknown }[],
  callId: (block: Record<string, unknown>) => string | undefined,
  resultId: (block: Record<string, unknown>) => string | undefined,
): string | undefined {
  for (const [position, turn] of turns.entries()) {
    const where = `messages[${position}]`;
    if (turn.role !== "user" && turn.role !== "assistant") return `${where}: role ${String(turn.role)}`;
    if (!Array.isArray(turn.content) || turn.content.length === 0) return `${where}: no content`;
    if (position > 0 && turn.role === turns[position - 1]!.role)
      return `${where}: same role as the turn before`;
    const blocks = turn.content as unknown[];
    if (!blocks.every((block) => isRecord(block) && !Array.isArray(block)))
      return `${where}: a block is not an object`;
    if (turn.role !== "assistant") continue;
    const calls = (blocks as Record<string, unknown>[]).flatMap((block) => callId(block) ?? []);
    if (calls.length === 0) continue;
    if (new Set(calls).size !== calls.length) return `${where}: repeated tool call id`;
    const next = (turns[position + 1]?.content ?? []) as Record<string, unknown>[];
    const answered = next.flatMap((block) => resultId(block) ?? []);
    if ([...answered].sort().join("\n") !== [...calls].sort().join("\n")) {
      return `${where}: calls ${calls.join(",")} answered by ${answered.join(",")}`;
    }
  }
  return undefined;
}

function anthropicViolation(converted: ReturnType<typeof convertToAnthropicMessages>): string | undefined {
  for (const block of converted.system) {
    if (block.type !== "text" || typeof block.text !== "string" || block.text.trim() === "")
      return "bad system block";
  }
  for (const block of converted.messages.flatMap((turn) => turn.content)) {
    if (typeof block.type !== "string") return "a block without a type";
    if (block.type === "text" && (typeof block.text !== "string" || block.text.trim() === ""))
      return "blank text";
  }
  return turnsViolation(
    converted.messages,
    (block) => (block.type === "tool_use" ? (block.id as string) : undefined),
    (block) => (block.type === "tool_result" ? (block.tool_use_id as string) : undefined),
  );
}

function chatViolation(
  converted: ReturnType<typeof convertToOpenAIChatMessages>,
  history: unknown,
  target: { model: string; profile: OpenAIChatEndpointProfile },
): string | undefined {
  /** Calls of the last assistant message not yet answered. */
  let open = new Set<string>();
  for (const [position, message] of converted.messages.entries()) {
    const where = `messages[${position}]`;
    if (message.role === "tool") {
      if (!open.delete(message.tool_call_id as string)) return `${where}: answers no open call`;
      if (typeof message.content !== "string") return `${where}: tool content is not text`;
      continue;
    }
    if (open.size > 0) return `${where}: calls ${[...open].join(",")} left unanswered`;
    if (!["system", "user", "assistant"].includes(message.role)) return `${where}: role ${message.role}`;
    if (message.role !== "assistant") {
      // User messages may hold parts (a non-empty list); system messages take text only.
      const parts = message.role === "user" && Array.isArray(message.content) && message.content.length > 0;
      if (typeof message.content !== "string" && !parts) return `${where}: content is not text`;
      continue;
    }
    if (message.content !== null && typeof message.content !== "string") return `${where}: content`;
    const calls = message.tool_calls ?? [];
    open = new Set(calls.map((call) => call.id));
    if (open.size !== calls.length) return `${where}: repeated tool call id`;
    if (!calls.every((call) => typeof call.function.arguments === "string")) return `${where}: arguments`;
    if (message.reasoning_content !== undefined) {
      // Only back to the endpoint and model that produced it, from the native's own block.
      if (!target.profile.echoReasoning) return `${where}: reasoning_content to an endpoint that takes none`;
      const blocks = [...replayable(history, ["openai-chat", target.profile.kind, target.model])];
      const own = blocks.some(
        (block) =>
          isRecord(block) &&
          (block.reasoning_content === message.reasoning_content ||
            block.reasoning === message.reasoning_content),
      );
      if (!own) return `${where}: reasoning_content from elsewhere`;
    }
  }
  return open.size > 0 ? "calls left unanswered at the end" : undefined;
}

function responsesViolation(
  converted: ReturnType<typeof convertToOpenAIResponsesInput>,
  heldByServer: boolean,
): string | undefined {
  if (converted.instructions !== undefined && typeof converted.instructions !== "string")
    return "instructions";
  const callIds = new Set<string>();
  for (const [position, item] of (converted.input as Record<string, unknown>[]).entries()) {
    const where = `input[${position}]`;
    if (item.type === undefined) {
      if (item.role !== "user" && item.role !== "assistant") return `${where}: role ${String(item.role)}`;
      if (typeof item.content !== "string") return `${where}: content is not text`;
      continue;
    }
    if (typeof item.type !== "string") return `${where}: type is not a string`;
    if (item.type === "function_call" || item.type === "custom_tool_call") {
      if (typeof item.call_id !== "string" || item.call_id === "") return `${where}: call_id`;
      if (callIds.has(item.call_id)) return `${where}: repeated call_id`;
      callIds.add(item.call_id);
      if (typeof item[item.type === "function_call" ? "arguments" : "input"] !== "string")
        return `${where}: arguments`;
    }
    if (item.type === "function_call_output" || item.type === "custom_tool_call_output") {
      if (typeof item.call_id !== "string") return `${where}: call_id`;
      // Without previous_response_id every output answers a call sent in this request.
      if (!heldByServer && !callIds.has(item.call_id)) return `${where}: answers no call of this request`;
    }
  }
  return undefined;
}

function converseViolation(
  converted: ReturnType<typeof convertToBedrockConverseMessages>,
): string | undefined {
  if (!converted.system.every((block) => typeof block.text === "string" && block.text.trim() !== ""))
    return "system";
  if (converted.messages.length > 0 && converted.messages[0]!.role !== "user")
    return "opens with the assistant";
  const client = (block: Record<string, unknown>) =>
    isRecord(block.toolUse) && (block.toolUse.type === undefined || block.toolUse.type === "tool_use")
      ? (block.toolUse.toolUseId as string)
      : undefined;
  for (const block of converted.messages.flatMap((turn) => turn.content)) {
    if (typeof block.text === "string" && block.text.trim() === "") return "blank text";
    const id = client(block);
    if (id !== undefined && !/^[a-zA-Z0-9_-]{1,64}$/.test(id)) return `tool id ${id}`;
  }
  if (!converted.toolNames.every((name) => typeof name === "string")) return "toolNames";
  if (typeof converted.hasToolBlocks !== "boolean") return "hasToolBlocks";
  return turnsViolation(converted.messages, client, (block) =>
    isRecord(block.toolResult) && block.toolResult.type === undefined
      ? (block.toolResult.toolUseId as string)
      : undefined,
  );
}

/** Gemini contents: roles alternate, no empty part, every call answered next by a response of its name. */
function geminiViolation(converted: ReturnType<typeof convertToGeminiContents>): string | undefined {
  for (const part of converted.systemInstruction?.parts ?? []) {
    if (typeof part.text !== "string" || part.text.trim() === "") return "bad system part";
  }
  const turns = converted.contents;
  for (const [position, turn] of turns.entries()) {
    const where = `contents[${position}]`;
    if (turn.role !== "user" && turn.role !== "model") return `${where}: role ${String(turn.role)}`;
    if (!Array.isArray(turn.parts) || turn.parts.length === 0) return `${where}: no parts`;
    if (position > 0 && turn.role === turns[position - 1]!.role) return `${where}: same role as before`;
    for (const part of turn.parts) {
      if (!isRecord(part) || Array.isArray(part) || Object.keys(part).length === 0)
        return `${where}: empty part`;
      if (part.text === "" && typeof part.thoughtSignature !== "string") return `${where}: empty text part`;
      if (part.functionResponse && turn.role !== "user") return `${where}: a response in a model turn`;
    }
    if (turn.role !== "model") continue;
    const calls = turn.parts.flatMap((part) => (part.functionCall ? [String(part.functionCall.name)] : []));
    if (calls.length === 0) continue;
    const next = turns[position + 1]?.parts ?? [];
    const answered = next.flatMap((part) =>
      part.functionResponse ? [String(part.functionResponse.name)] : [],
    );
    if ([...answered].sort().join("\n") !== [...calls].sort().join("\n")) {
      return `${where}: calls ${calls.join(",")} answered by ${answered.join(",")}`;
    }
  }
  return undefined;
}

function run(property: (history: unknown) => string | undefined): void {
  fc.assert(
    fc.property(historyArb, (history) => {
      expect(property(history)).toBeUndefined();
    }),
    { seed: SEED, numRuns: RUNS },
  );
}

/** Generous: a run takes a few seconds; this only stops a hung converter. */
const LIMIT = { timeout: 120_000 };

describe("every converter on 10,000 hostile stored histories (fixed seed)", () => {
  for (const [label, origin, model] of [
    ["Anthropic Messages, first-party target", "anthropic", CLAUDE],
    ["Anthropic Messages, Bedrock InvokeModel target", "bedrock", BEDROCK_CLAUDE],
    ["Anthropic Messages, Vertex AI rawPredict target", "vertex", VERTEX_CLAUDE],
  ] as const) {
    it(`${label}: never throws; valid turns, JSON, bounded warnings, reasoning only verbatim`, LIMIT, () => {
      run((history) => {
        const converted = convertToAnthropicMessages(history as never, { model, origin });
        return (
          soundness(converted, converted.messages, history, ["anthropic-messages", origin, model]) ??
          anthropicViolation(converted)
        );
      });
    });
  }

  it(
    "OpenAI Chat: never throws; valid messages, JSON, bounded warnings, reasoning only from its source",
    LIMIT,
    () => {
      const targets = [
        { model: DEEPSEEK, profile: chatProfile("deepseek", true) },
        { model: "Qwen/Qwen3-8B", profile: chatProfile("vllm", false) },
      ];
      let runs = 0;
      run((history) => {
        const target = targets[runs++ % targets.length]!;
        const converted = convertToOpenAIChatMessages(history as never, target);
        return (
          soundness(converted, converted.messages, history, [
            "openai-chat",
            target.profile.kind,
            target.model,
          ]) ?? chatViolation(converted, history, target)
        );
      });
    },
  );

  for (const previousResponseId of [undefined, "resp_1"]) {
    it(
      `OpenAI Responses ${previousResponseId ? "with" : "without"} previous_response_id: never throws; valid items, JSON, bounded warnings, reasoning only verbatim`,
      LIMIT,
      () => {
        let runs = 0;
        run((history) => {
          const target = { model: GPT, origin: "openai", store: runs++ % 2 === 0, previousResponseId };
          const converted = convertToOpenAIResponsesInput(history as never, target);
          return (
            soundness(converted, converted.input, history, ["openai-responses", "openai", GPT]) ??
            responsesViolation(converted, previousResponseId !== undefined)
          );
        });
      },
    );
  }

  it(
    "Bedrock Converse: never throws; valid turns from a user turn, JSON, bounded warnings, reasoning only verbatim",
    LIMIT,
    () => {
      let runs = 0;
      run((history) => {
        const options = { toolResultStatus: runs % 2 === 0, requireSignedReasoning: runs % 3 !== 0 };
        runs++;
        const converted = convertToBedrockConverseMessages(
          history as never,
          { model: BEDROCK_CLAUDE, origin: "bedrock" },
          options,
        );
        return (
          soundness(converted, converted.messages, history, [
            "bedrock-converse",
            "bedrock",
            BEDROCK_CLAUDE,
          ]) ?? converseViolation(converted)
        );
      });
    },
  );

  it(
    "Google Gemini (a Gemini 3 target): never throws; valid contents, no empty part, JSON, bounded warnings, thoughts only verbatim",
    LIMIT,
    () => {
      const profile = geminiModelProfile(GEMINI);
      run((history) => {
        const converted = convertToGeminiContents(
          history as never,
          { model: GEMINI, origin: "gemini" },
          profile,
        );
        return (
          soundness(converted, converted.contents, history, ["google-gemini", "gemini", GEMINI]) ??
          geminiViolation(converted)
        );
      });
    },
  );

  it(
    "ndjson-chat, a protocol from outside the package (test/fixtures-code/): never throws; JSON, bounded warnings, no reasoning leaked",
    LIMIT,
    () => {
      run((history) => {
        const converted = ndjsonChatProtocol.buildRequest({
          messages: history as never,
          tools: [],
          options: {},
          model: "nd-1",
          origin: "ndjson-chat.example",
          stream: false,
        });
        if (!converted.body.messages.every((message) => message.parts.length > 0))
          return "a message without parts";
        return soundness(converted, converted.body.messages, history, [
          "ndjson-chat",
          "ndjson-chat.example",
          "nd-1",
        ]);
      });
    },
  );
});
