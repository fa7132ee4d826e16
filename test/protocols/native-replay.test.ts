/**
 * The provenance rule of `native`, written once (src/protocols/native-replay.ts): named cases for
 * `nativeProvenance` and `replayOrRebuild`, then the same rule seen through every converter — one warning
 * text everywhere, reasoning dropped and never demoted — and the seed-004 records (a BigInt role, provenance
 * fields without a prototype, values JSON cannot carry) that once made the Converse converter throw.
 */
import { describe, expect, it } from "vitest";
import { convertToAnthropicMessages } from "../../src/protocols/anthropic-messages/convert-to-anthropic-messages.ts";
import { convertToBedrockConverseMessages } from "../../src/protocols/bedrock-converse/convert-to-bedrock-converse-messages.ts";
import {
  isReasoningBlock,
  type NativeTarget,
  nativeProvenance,
  REASONING_SHAPES,
  replayOrRebuild,
} from "../../src/protocols/native-replay.ts";
import { convertToOpenAIChatMessages } from "../../src/protocols/openai-chat/convert-to-openai-chat-messages.ts";
import type { OpenAIChatEndpointProfile } from "../../src/protocols/openai-chat/openai-chat-wire.ts";
import { convertToOpenAIResponsesInput } from "../../src/protocols/openai-responses/convert-to-openai-responses-input.ts";

const TARGET: NativeTarget = {
  protocol: "anthropic-messages",
  origin: "anthropic",
  model: "claude-sonnet-4-5",
};
const THINKING = { type: "thinking", thinking: "hmm", signature: "sig==" };
const TEXT = { type: "text", text: "Answer." };

function assistant(native: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { role: "assistant", content: "Answer.", native, ...extra };
}

function nullProto<T extends object>(value: T): T {
  return Object.assign(Object.create(null) as T, value);
}

const CHAT_PROFILE = {
  kind: "deepseek",
  maxTokensField: "max_tokens",
  streamUsage: true,
  reasoningEffort: false,
  parallelToolCalls: false,
  echoReasoning: true,
  openaiModelRules: false,
} satisfies OpenAIChatEndpointProfile;

describe("nativeProvenance", () => {
  it("replays the very blocks, in order, only when protocol, origin and model all match", () => {
    const warnings: string[] = [];
    const native = { ...TARGET, blocks: [THINKING, TEXT] };
    const found = nativeProvenance(assistant(native), 1, TARGET, warnings);
    expect(found.sameProtocol).toBe(true);
    expect(found.replay?.map((entry) => entry.block)).toEqual([THINKING, TEXT]);
    expect(found.replay?.[0]?.block).toBe(THINKING);
    expect(found.replay?.map((entry) => entry.where)).toEqual([
      "messages[1].native.blocks[0]",
      "messages[1].native.blocks[1]",
    ]);
    expect(warnings).toEqual([]);
  });

  for (const [field, value, sameProtocol] of [
    ["protocol", "bedrock-converse", false],
    ["origin", "bedrock", true],
    ["model", "claude-opus-4-1", true],
  ] as const) {
    it(`a different ${field} rebuilds the turn and says how much reasoning is dropped`, () => {
      const warnings: string[] = [];
      const native = {
        ...TARGET,
        [field]: value,
        blocks: [THINKING, TEXT, { type: "redacted_thinking", data: "x" }],
      };
      const found = nativeProvenance(assistant(native), 3, TARGET, warnings);
      expect(found).toEqual({ replay: undefined, sameProtocol });
      const source = { ...TARGET, [field]: value };
      expect(warnings).toEqual([
        `messages[3]: produced by ${source.protocol}/${source.origin}/${source.model}, ` +
          "sent to anthropic-messages/anthropic/claude-sonnet-4-5: rebuilt from its text and tool calls; " +
          "2 reasoning block(s) dropped",
      ]);
    });
  }

  it("says nothing about reasoning when there was none", () => {
    const warnings: string[] = [];
    nativeProvenance(assistant({ ...TARGET, model: "other", blocks: [TEXT] }), 0, TARGET, warnings);
    expect(warnings).toEqual([
      "messages[0]: produced by anthropic-messages/anthropic/other, sent to " +
        "anthropic-messages/anthropic/claude-sonnet-4-5: rebuilt from its text and tool calls",
    ]);
  });

  it("no native (or null) is no warning; a native of the wrong shape is ignored, with one", () => {
    for (const native of [undefined, null]) {
      const warnings: string[] = [];
      expect(nativeProvenance(assistant(native), 0, TARGET, warnings).replay).toBeUndefined();
      expect(warnings).toEqual([]);
    }
    for (const native of ["native", 3, [], { ...TARGET, blocks: "x" }, { ...TARGET }]) {
      const warnings: string[] = [];
      expect(nativeProvenance(assistant(native), 2, TARGET, warnings).replay).toBeUndefined();
      expect(warnings).toEqual([
        "messages[2]: native is not { protocol, origin, model, blocks: [] }; ignored, rebuilt from its text and tool calls",
      ]);
    }
  });

  it("compares and quotes fields of any type without throwing: BigInt, no prototype, symbol, huge", () => {
    const huge = "m".repeat(1_000_000);
    const fields: [unknown, string][] = [
      [10n, "10n"],
      [Object.create(null), "{}"],
      [nullProto({ a: 1 }), '{"a":1}'],
      [{ toString: 1 }, '{"toString":1}'],
      [Symbol("s"), "Symbol(s)"],
      [Number.NaN, "null"],
      [undefined, "undefined"],
      [huge, `${"m".repeat(80)}…`],
    ];
    for (const [value, quoted] of fields) {
      for (const field of ["protocol", "origin", "model"] as const) {
        const warnings: string[] = [];
        const native = { ...TARGET, [field]: value, blocks: [THINKING] };
        const found = nativeProvenance(assistant(native), 0, TARGET, warnings);
        expect(found.replay).toBeUndefined();
        expect(warnings).toHaveLength(1);
        const source = { ...TARGET, [field]: quoted };
        expect(warnings[0]).toContain(`produced by ${source.protocol}/${source.origin}/${source.model}, `);
        expect(warnings[0]!.length).toBeLessThan(300);
      }
    }
    // A native object that itself has no prototype is read like any other.
    const warnings: string[] = [];
    const found = nativeProvenance(assistant(nullProto({ ...TARGET, blocks: [TEXT] })), 0, TARGET, warnings);
    expect(found.replay?.map((entry) => entry.block)).toEqual([TEXT]);
  });

  it("counts the reasoning of every protocol", () => {
    const reasoning = [
      THINKING,
      { type: "redacted_thinking", data: "x" },
      { type: "reasoning", id: "rs_1", encrypted_content: "e" },
      { reasoningContent: { reasoningText: { text: "t", signature: "s" } } },
      { role: "assistant", content: "a", reasoning_content: "why" },
      { role: "assistant", content: "a", reasoning: "why" },
    ];
    const other = [
      TEXT,
      { type: "function_call", call_id: "c" },
      { text: "t" },
      { reasoning_content: "" },
      null,
      5,
    ];
    expect(reasoning.every(isReasoningBlock)).toBe(true);
    expect(other.some(isReasoningBlock)).toBe(false);
    const warnings: string[] = [];
    nativeProvenance(
      assistant({ protocol: "x", origin: "y", model: "z", blocks: [...reasoning, ...other] }),
      0,
      TARGET,
      warnings,
    );
    expect(warnings[0]).toMatch(/; 6 reasoning block\(s\) dropped$/);
  });

  it("on a match, leaves out blocks that are not objects or hold what JSON cannot carry, keeping positions", () => {
    const cycle: Record<string, unknown> = { type: "text", text: "loop" };
    cycle.self = cycle;
    const warnings: string[] = [];
    const found = nativeProvenance(
      assistant({
        ...TARGET,
        blocks: [null, "text", [TEXT], { type: "text", text: "n", big: 1n }, cycle, TEXT],
      }),
      4,
      TARGET,
      warnings,
    );
    expect(found.replay).toEqual([{ block: TEXT, where: "messages[4].native.blocks[5]" }]);
    expect(warnings).toEqual([
      "messages[4].native.blocks[0]: not a content block; left out",
      "messages[4].native.blocks[1]: not a content block; left out",
      "messages[4].native.blocks[2]: not a content block; left out",
      "messages[4].native.blocks[3]: holds a value JSON cannot carry (a BigInt, a cycle); left out",
      "messages[4].native.blocks[4]: holds a value JSON cannot carry (a BigInt, a cycle); left out",
    ]);
  });
});

describe("replayOrRebuild", () => {
  const writer = {
    replay: (blocks: readonly { block: Record<string, unknown> }[]) =>
      blocks.map((entry) => entry.block.type),
    rebuild: (sameProtocol: boolean) => [sameProtocol ? "rebuilt, same protocol" : "rebuilt"],
    isEmpty: (turn: unknown[]) => turn.length === 0,
  };

  it("replays on a match, rebuilds otherwise (telling the writer whether the protocol was its own)", () => {
    const warnings: string[] = [];
    expect(
      replayOrRebuild(assistant({ ...TARGET, blocks: [THINKING] }), 0, TARGET, warnings, writer),
    ).toEqual(["thinking"]);
    expect(
      replayOrRebuild(assistant({ ...TARGET, model: "m", blocks: [] }), 0, TARGET, warnings, writer),
    ).toEqual(["rebuilt, same protocol"]);
    expect(
      replayOrRebuild(assistant({ ...TARGET, protocol: "p", blocks: [] }), 0, TARGET, warnings, writer),
    ).toEqual(["rebuilt"]);
    expect(replayOrRebuild(assistant(undefined), 0, TARGET, [], writer)).toEqual(["rebuilt"]);
    expect(warnings).toHaveLength(2);
  });

  it("a match with nothing left to replay is rebuilt from the neutral fields, with a warning", () => {
    const warnings: string[] = [];
    expect(replayOrRebuild(assistant({ ...TARGET, blocks: [null] }), 1, TARGET, warnings, writer)).toEqual([
      "rebuilt, same protocol",
    ]);
    expect(warnings).toEqual([
      "messages[1].native.blocks[0]: not a content block; left out",
      "messages[1]: nothing in native.blocks could be replayed; rebuilt from its text and tool calls",
    ]);
  });
});

describe("the rule through every converter", () => {
  /** A turn from a provider none of the targets is: thinking, a Responses reasoning item, text, a call. */
  const foreign = {
    protocol: "some-protocol",
    origin: "elsewhere",
    model: "m-1",
    blocks: [
      { type: "thinking", thinking: "SECRET-REASONING", signature: "sig" },
      { type: "reasoning", id: "rs_1", encrypted_content: "SECRET-REASONING" },
      TEXT,
    ],
  };
  const history = [
    { role: "user", content: "hi" },
    assistant(foreign, { toolCalls: [{ id: "c1", name: "f", arguments: { a: 1 } }] }),
    { role: "tool", toolResults: [{ callId: "c1", content: "ok" }] },
  ];
  const expected = (target: string) =>
    `messages[1]: produced by some-protocol/elsewhere/m-1, sent to ${target}: ` +
    "rebuilt from its text and tool calls; 2 reasoning block(s) dropped";

  it("one warning text, and the reasoning neither sent nor demoted to text, in all four converters", () => {
    const results: [string, { warnings: string[] }][] = [
      [
        "anthropic-messages/anthropic/claude-sonnet-4-5",
        convertToAnthropicMessages(history as never, { model: "claude-sonnet-4-5", origin: "anthropic" }),
      ],
      [
        "anthropic-messages/bedrock/claude-b",
        convertToAnthropicMessages(history as never, { model: "claude-b", origin: "bedrock" }),
      ],
      [
        "bedrock-converse/bedrock/claude-b",
        convertToBedrockConverseMessages(history as never, { model: "claude-b", origin: "bedrock" }),
      ],
      [
        "openai-responses/openai/gpt-5",
        convertToOpenAIResponsesInput(history as never, { model: "gpt-5", origin: "openai", store: false }),
      ],
      [
        "openai-chat/deepseek/deepseek-reasoner",
        convertToOpenAIChatMessages(history as never, { model: "deepseek-reasoner", profile: CHAT_PROFILE }),
      ],
    ];
    for (const [target, converted] of results) {
      expect(converted.warnings, target).toEqual([expected(target)]);
      const json = JSON.stringify(converted);
      expect(json).not.toContain("SECRET-REASONING");
      expect(json).toContain("Answer.");
    }
  });

  it("an exact match whose blocks were all left out is rebuilt from text and calls (Anthropic, Converse)", () => {
    /** A user turn, then an assistant turn whose exactly matching native holds only `block`. */
    const onlyBlock = (protocol: string, origin: string, block: object) =>
      [
        { role: "user", content: "hi" },
        assistant({ protocol, origin, model: "c", blocks: [block] }),
      ] as never;
    const rebuilt =
      "messages[1]: nothing in native.blocks could be replayed; rebuilt from its text and tool calls";
    const anthropic = convertToAnthropicMessages(
      onlyBlock("anthropic-messages", "anthropic", { type: "thinking" }),
      {
        model: "c",
        origin: "anthropic",
      },
    );
    expect(anthropic.messages[1]).toEqual({ role: "assistant", content: [TEXT] });
    expect(anthropic.warnings).toEqual([
      "messages[1].native.blocks[0]: thinking block without its signature; left out",
      rebuilt,
    ]);
    const converse = convertToBedrockConverseMessages(
      onlyBlock("bedrock-converse", "bedrock", { reasoningContent: {} }),
      { model: "c", origin: "bedrock" },
    );
    expect(converse.messages[1]).toEqual({ role: "assistant", content: [{ text: "Answer." }] });
    expect(converse.warnings).toEqual([
      "messages[1].native.blocks[0]: reasoning block with neither text nor redactedContent; left out",
      rebuilt,
    ]);
  });
});

describe("seed 004: stored records that once threw", () => {
  /** What JSON.parse with a BigInt reviver, or a structured clone, can hand back. */
  const hostile = () => [
    { role: "user", content: "hi" },
    assistant({
      protocol: Object.create(null),
      origin: 10n,
      model: nullProto({ id: "m" }),
      blocks: [THINKING],
    }),
    { role: 10n, content: "lost" },
    { role: "assistant", toolCalls: [{ id: "c1", name: "f", arguments: { n: 1n } }] },
    { role: "tool", toolResults: [{ callId: "c1", content: 12345678901234567890n }] },
  ];

  it("Bedrock Converse: a BigInt role and provenance fields without a prototype degrade, with warnings", () => {
    const converted = convertToBedrockConverseMessages(hostile() as never, { model: "c", origin: "bedrock" });
    expect(converted.messages).toEqual([
      { role: "user", content: [{ text: "hi" }] },
      {
        role: "assistant",
        content: [{ text: "Answer." }, { toolUse: { toolUseId: "c1", name: "f", input: {} } }],
      },
      {
        role: "user",
        content: [{ toolResult: { toolUseId: "c1", content: [{ text: "12345678901234567890" }] } }],
      },
    ]);
    expect(converted.warnings).toEqual([
      'messages[1]: produced by {}/10n/{"id":"m"}, sent to bedrock-converse/bedrock/c: rebuilt from its text and tool calls; 1 reasoning block(s) dropped',
      "messages[2]: unknown role 10n; left out",
      "messages[3].toolCalls[0]: arguments hold a value JSON cannot carry (a BigInt, a cycle); sent as {}",
    ]);
    expect(() => JSON.stringify(converted)).not.toThrow();
  });

  it("Anthropic Messages, both targets: the same records, the same degradation", () => {
    for (const origin of ["anthropic", "bedrock"]) {
      const converted = convertToAnthropicMessages(hostile() as never, { model: "c", origin });
      expect(converted.messages.map((turn) => turn.role)).toEqual(["user", "assistant", "user"]);
      expect(converted.messages[1]!.content).toEqual([
        TEXT,
        { type: "tool_use", id: "c1", name: "f", input: {} },
      ]);
      expect(converted.warnings).toContain("messages[2]: unknown role 10n; left out");
      expect(converted.warnings).toContain(
        "messages[3].toolCalls[0]: arguments hold a value JSON cannot carry (a BigInt, a cycle); sent as {}",
      );
      expect(() => JSON.stringify(converted)).not.toThrow();
    }
  });

  it("OpenAI Chat and Responses: the same records convert, serialise and say what they dropped", () => {
    const chat = convertToOpenAIChatMessages(hostile() as never, { model: "m", profile: CHAT_PROFILE });
    const responses = convertToOpenAIResponsesInput(hostile() as never, {
      model: "m",
      origin: "o",
      store: true,
    });
    for (const converted of [chat, responses]) {
      expect(converted.warnings).toContain("messages[2]: unknown role 10n; left out");
      expect(converted.warnings[0]).toMatch(/^messages\[1\]: produced by \{\}\/10n\/\{"id":"m"\}, sent to /);
      expect(() => JSON.stringify(converted)).not.toThrow();
    }
    expect(chat.messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: "12345678901234567890",
    });
    expect(responses.input.at(-1)).toEqual({
      type: "function_call_output",
      call_id: "c1",
      output: "12345678901234567890",
    });
  });

  it("an exactly matching native block holding a BigInt is left out, not sent to throw in JSON.stringify", () => {
    const block = { type: "reasoning", id: "rs_1", encrypted_content: "e", tokens: 5n };
    const converted = convertToOpenAIResponsesInput(
      [
        { role: "user", content: "hi" },
        assistant({ protocol: "openai-responses", origin: "o", model: "m", blocks: [block, TEXT] }),
      ] as never,
      { model: "m", origin: "o", store: false },
    );
    expect(converted.warnings[0]).toBe(
      "messages[1].native.blocks[0]: holds a value JSON cannot carry (a BigInt, a cycle); left out",
    );
    expect(JSON.stringify(converted.input)).not.toContain("rs_1");
  });
});

describe("reasoning shapes: one per protocol", () => {
  it("every built-in protocol has its reasoning shape listed", async () => {
    const protocols = await import("../../src/protocols/index.ts");
    const names = new Set(
      (Object.values(protocols) as unknown[])
        .filter(
          (value): value is { name: string; buildRequest: unknown } =>
            typeof value === "object" &&
            value !== null &&
            typeof (value as { name?: unknown }).name === "string" &&
            typeof (value as { buildRequest?: unknown }).buildRequest === "function",
        )
        .map((protocol) => protocol.name),
    );
    expect([...names].sort()).toEqual([
      "anthropic-messages",
      "bedrock-converse",
      "google-gemini",
      "openai-chat",
      "openai-responses",
    ]);
    for (const name of names) expect(Object.keys(REASONING_SHAPES)).toContain(name);
  });

  it("Gemini: thought parts and signed parts are reasoning, a plain text or call part is not", () => {
    expect(isReasoningBlock({ text: "hmm", thought: true })).toBe(true);
    expect(isReasoningBlock({ text: "hmm", thought: true, thoughtSignature: "c2ln" })).toBe(true);
    expect(isReasoningBlock({ functionCall: { name: "f", args: {} }, thoughtSignature: "c2ln" })).toBe(true);
    expect(isReasoningBlock({ text: "", thoughtSignature: "c2ln" })).toBe(true);
    expect(isReasoningBlock({ text: "Answer." })).toBe(false);
    expect(isReasoningBlock({ functionCall: { name: "f", args: {} } })).toBe(false);
    expect(isReasoningBlock({ text: "x", thought: false, thoughtSignature: 5 })).toBe(false);
  });

  it("a Gemini turn sent elsewhere says how many reasoning parts it drops", () => {
    const warnings: string[] = [];
    nativeProvenance(
      assistant({
        protocol: "google-gemini",
        origin: "gemini",
        model: "gemini-2.5-flash",
        blocks: [
          { text: "hmm", thought: true, thoughtSignature: "c2ln" },
          { functionCall: { name: "f", args: {} }, thoughtSignature: "c2lnMg" },
          { text: "Answer." },
        ],
      }),
      1,
      TARGET,
      warnings,
    );
    expect(warnings).toEqual([
      "messages[1]: produced by google-gemini/gemini/gemini-2.5-flash, sent to anthropic-messages/anthropic/claude-sonnet-4-5: rebuilt from its text and tool calls; 2 reasoning block(s) dropped",
    ]);
  });
});
