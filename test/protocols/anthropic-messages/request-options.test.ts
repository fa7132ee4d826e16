/**
 * Call options → Messages request body, per model profile: thinking (adaptive vs budget, the 1024 floor,
 * max_tokens raised but never past the model's limit), effort, sampling with thinking, tool choice,
 * prompt-cache marks, and model-id → profile resolution.
 */
import { describe, expect, it } from "vitest";
import type { CacheOption, CallOptions } from "../../../src/core/call-options.ts";
import type { MessageInput } from "../../../src/core/message.ts";
import type { ToolSpec } from "../../../src/core/tool-spec.ts";
import {
  type AnthropicBlock,
  type AnthropicRequestBody,
  buildAnthropicRequest,
  MAX_CACHE_BREAKPOINTS,
} from "../../../src/protocols/anthropic-messages/index.ts";
import { anthropicModelProfile } from "../../../src/providers/anthropic-model-profiles.ts";

const USER: MessageInput[] = [{ role: "user", content: "Hello" }];
const TOOLS: ToolSpec[] = [
  {
    name: "search",
    description: "Search the web",
    parameters: { type: "object", properties: { q: { type: "string" } } },
  },
  { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
];

function build(
  model: string,
  options: CallOptions,
  messages: readonly MessageInput[] = USER,
  tools: readonly ToolSpec[] = [],
  extra: { defaultCache?: CacheOption; origin?: string } = {},
): { body: AnthropicRequestBody; warnings: string[] } {
  return buildAnthropicRequest({
    messages,
    tools,
    options,
    target: { model, origin: extra.origin ?? "anthropic" },
    profile: anthropicModelProfile(model),
    stream: false,
    defaultCache: extra.defaultCache,
  });
}

function warned(warnings: readonly string[], pattern: RegExp): boolean {
  return warnings.some((warning) => pattern.test(warning));
}

/** Every object in the body that carries a cache_control mark, with where it is. */
function cacheMarks(body: AnthropicRequestBody): { where: string; value: Record<string, unknown> }[] {
  const marks: { where: string; value: Record<string, unknown> }[] = [];
  const visit = (value: unknown, where: string): void => {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) visit(item, `${where}[${i}]`);
    } else if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      if ("cache_control" in record) marks.push({ where, value: record });
      for (const [key, child] of Object.entries(record))
        if (key !== "cache_control") visit(child, `${where}.${key}`);
    }
  };
  visit(body, "body");
  return marks;
}

// ---------------------------------------------------------------------------------------------------

describe("thinking per model profile", () => {
  describe.each(["claude-opus-4-7", "claude-sonnet-5", "claude-sonnet-5-20270101"])(
    "adaptive-only model %s",
    (model) => {
      it("gets { type: 'adaptive' } for a budget request, with a warning, and max_tokens untouched", () => {
        expect(anthropicModelProfile(model).thinking).toBe("adaptive-only");
        const { body, warnings } = build(model, { thinking: { budgetTokens: 8000 }, maxTokens: 2000 });
        expect(body.thinking).toEqual({ type: "adaptive" });
        expect(JSON.stringify(body)).not.toContain("budget_tokens");
        expect(body.max_tokens).toBe(2000);
        expect(warned(warnings, /adaptive/)).toBe(true);
      });

      it("gets adaptive for 'adaptive', and adaptive plus output_config.effort for an effort", () => {
        expect(build(model, { thinking: "adaptive" }).body.thinking).toEqual({ type: "adaptive" });
        const { body } = build(model, { thinking: { effort: "high" } });
        expect(body.thinking).toEqual({ type: "adaptive" });
        expect(body.output_config).toEqual({ effort: "high" });
      });
    },
  );

  describe.each([
    ["claude-sonnet-4-5", 64_000],
    ["claude-haiku-4-5", 64_000],
    ["claude-opus-4-5", 64_000],
    ["claude-sonnet-4-5-20250929", 64_000],
    ["claude-opus-4-20250514", 32_000],
  ])("budget model %s (output limit %i)", (model, limit) => {
    it("gets { type: 'enabled', budget_tokens } as asked when max_tokens is above it, without warnings", () => {
      expect(anthropicModelProfile(model).thinking).toBe("budget");
      const { body, warnings } = build(model, { thinking: { budgetTokens: 4000 }, maxTokens: 10_000 });
      expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 4000 });
      expect(body.max_tokens).toBe(10_000);
      expect(warnings).toEqual([]);
    });

    it("raises a budget below the API floor to 1024, with a warning", () => {
      const { body, warnings } = build(model, { thinking: { budgetTokens: 100 }, maxTokens: 10_000 });
      expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
      expect(warned(warnings, /1024/)).toBe(true);
    });

    it("raises max_tokens to budget + 1 when it is not above the budget, with a warning", () => {
      for (const maxTokens of [512, 4000]) {
        const { body, warnings } = build(model, { thinking: { budgetTokens: 4000 }, maxTokens });
        expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 4000 });
        expect(body.max_tokens).toBe(4001);
        expect(warned(warnings, new RegExp(`max_tokens ${maxTokens}`))).toBe(true);
      }
      const floor = build(model, { thinking: { budgetTokens: 1 }, maxTokens: 1 });
      expect(floor.body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
      expect(floor.body.max_tokens).toBe(1025);
    });

    it("never goes above the model's output limit: the budget is lowered instead", () => {
      const { body, warnings } = build(model, { thinking: { budgetTokens: 1_000_000 }, maxTokens: 1000 });
      expect(body.thinking).toEqual({ type: "enabled", budget_tokens: limit - 1 });
      expect(body.max_tokens).toBe(limit);
      expect(warned(warnings, /output limit/)).toBe(true);
      const atLimit = build(model, { thinking: { budgetTokens: limit }, maxTokens: limit });
      expect(atLimit.body.max_tokens).toBeLessThanOrEqual(limit);
      expect((atLimit.body.thinking as { budget_tokens: number }).budget_tokens).toBeLessThan(
        atLimit.body.max_tokens,
      );
    });

    it("maps 'adaptive' to a budget, with a warning", () => {
      const { body, warnings } = build(model, { thinking: "adaptive", maxTokens: 20_000 });
      expect(body.thinking?.type).toBe("enabled");
      expect((body.thinking as { budget_tokens: number }).budget_tokens).toBeGreaterThanOrEqual(1024);
      expect(warned(warnings, /adaptive/)).toBe(true);
    });

    it("uses the profile's default max_tokens when the call sets none, still above the budget", () => {
      const profile = anthropicModelProfile(model);
      const { body } = build(model, { thinking: { budgetTokens: 2000 } });
      expect(body.max_tokens).toBe(profile.defaultMaxTokens);
      const { body: big } = build(model, { thinking: { budgetTokens: profile.defaultMaxTokens } });
      expect(big.max_tokens).toBe(profile.defaultMaxTokens + 1);
    });
  });

  it("sends effort as output_config.effort only where the profile takes it", () => {
    // Opus 4.5: budget thinking, and takes effort.
    const opus = build("claude-opus-4-5", { thinking: { effort: "high" }, maxTokens: 40_000 });
    expect(anthropicModelProfile("claude-opus-4-5").effort).toBe(true);
    expect(opus.body.output_config).toEqual({ effort: "high" });
    expect(opus.body.thinking?.type).toBe("enabled");
    // Sonnet 4.5: no effort setting: a budget instead, with a warning.
    const sonnet = build("claude-sonnet-4-5", { thinking: { effort: "high" }, maxTokens: 40_000 });
    expect(anthropicModelProfile("claude-sonnet-4-5").effort).toBe(false);
    expect(sonnet.body.output_config).toBeUndefined();
    expect(sonnet.body.thinking?.type).toBe("enabled");
    expect(warned(sonnet.warnings, /effort/)).toBe(true);
    // Higher effort, bigger budget.
    const low = build("claude-sonnet-4-5", { thinking: { effort: "low" }, maxTokens: 40_000 });
    expect((low.body.thinking as { budget_tokens: number }).budget_tokens).toBeLessThan(
      (sonnet.body.thinking as { budget_tokens: number }).budget_tokens,
    );
    // "minimal" does not exist on Anthropic: low, with a warning.
    const minimal = build("claude-opus-4-7", { thinking: { effort: "minimal" } });
    expect(minimal.body.output_config).toEqual({ effort: "low" });
    expect(warned(minimal.warnings, /minimal/)).toBe(true);
  });

  it('"off" → { type: "disabled" }; nothing at all for a model without thinking', () => {
    for (const model of ["claude-opus-4-7", "claude-sonnet-4-5", "claude-sonnet-4-6"]) {
      const { body } = build(model, { thinking: "off" });
      expect(body.thinking).toEqual({ type: "disabled" });
      expect(body.output_config).toBeUndefined();
    }
    const old = build("claude-3-5-sonnet-20241022", { thinking: "off" });
    expect(old.body).not.toHaveProperty("thinking");
    const asked = build("claude-3-5-sonnet-20241022", { thinking: { budgetTokens: 4000 }, maxTokens: 1000 });
    expect(asked.body).not.toHaveProperty("thinking");
    expect(asked.body.max_tokens).toBe(1000);
    expect(warned(asked.warnings, /no extended thinking/)).toBe(true);
  });

  it("sends no thinking field when the call does not ask", () => {
    const { body, warnings } = build("claude-sonnet-4-5", { maxTokens: 100, temperature: 0.2, topP: 0.5 });
    expect(body).not.toHaveProperty("thinking");
    expect(body.temperature).toBe(0.2);
    expect(body.top_p).toBe(0.5);
    expect(warnings).toEqual([]);
  });
});

describe("sampling with thinking", () => {
  it("drops a temperature other than 1 with a warning, keeps 1", () => {
    const dropped = build("claude-sonnet-4-5", {
      thinking: { budgetTokens: 2000 },
      maxTokens: 8000,
      temperature: 0.3,
    });
    expect(dropped.body).not.toHaveProperty("temperature");
    expect(warned(dropped.warnings, /temperature 0.3/)).toBe(true);
    const kept = build("claude-sonnet-4-5", {
      thinking: { budgetTokens: 2000 },
      maxTokens: 8000,
      temperature: 1,
    });
    expect(kept.body.temperature).toBe(1);
    const adaptive = build("claude-opus-4-7", { thinking: "adaptive", temperature: 0 });
    expect(adaptive.body).not.toHaveProperty("temperature");
  });

  it("raises top_p below 0.95 to 0.95 with a warning, keeps higher values", () => {
    const raised = build("claude-sonnet-4-5", {
      thinking: { budgetTokens: 2000 },
      maxTokens: 8000,
      topP: 0.5,
    });
    expect(raised.body.top_p).toBe(0.95);
    expect(warned(raised.warnings, /top_p 0.5/)).toBe(true);
    const kept = build("claude-sonnet-4-5", {
      thinking: { budgetTokens: 2000 },
      maxTokens: 8000,
      topP: 0.97,
    });
    expect(kept.body.top_p).toBe(0.97);
    expect(kept.warnings).toEqual([]);
  });

  it("leaves sampling alone when thinking is off", () => {
    const { body } = build("claude-sonnet-4-5", { thinking: "off", temperature: 0.3, topP: 0.5 });
    expect(body.temperature).toBe(0.3);
    expect(body.top_p).toBe(0.5);
  });
});

describe("tool choice", () => {
  it.each([
    ["auto", { type: "auto" }],
    ["any", { type: "any" }],
    ["none", { type: "none" }],
  ] as const)("%s → %o", (choice, expected) => {
    const { body, warnings } = build("claude-sonnet-4-5", { toolChoice: choice }, USER, TOOLS);
    expect(body.tool_choice).toEqual(expected);
    expect(warnings).toEqual([]);
  });

  it("{ name } → { type: 'tool', name }", () => {
    const { body } = build("claude-sonnet-4-5", { toolChoice: { name: "get_weather" } }, USER, TOOLS);
    expect(body.tool_choice).toEqual({ type: "tool", name: "get_weather" });
  });

  it("a name that is not among the tools → auto, with a warning", () => {
    const { body, warnings } = build(
      "claude-sonnet-4-5",
      { toolChoice: { name: "delete_everything" } },
      USER,
      TOOLS,
    );
    expect(body.tool_choice).toEqual({ type: "auto" });
    expect(warned(warnings, /delete_everything/)).toBe(true);
  });

  it("no tools → no tools and no tool_choice (with a warning when a tool was required)", () => {
    for (const choice of ["auto", "any", "none", { name: "search" }] as const) {
      const { body } = build("claude-sonnet-4-5", { toolChoice: choice });
      expect(body).not.toHaveProperty("tool_choice");
      expect(body).not.toHaveProperty("tools");
    }
    expect(warned(build("claude-sonnet-4-5", { toolChoice: "any" }).warnings, /no tools/)).toBe(true);
  });

  it("no toolChoice → tools without tool_choice; tools keep name, description and an object schema", () => {
    const { body } = build("claude-sonnet-4-5", {}, USER, TOOLS);
    expect(body).not.toHaveProperty("tool_choice");
    expect(body.tools).toEqual([
      {
        name: "search",
        description: "Search the web",
        input_schema: { type: "object", properties: { q: { type: "string" } } },
      },
      { name: "get_weather", input_schema: { type: "object", properties: { city: { type: "string" } } } },
    ]);
  });

  it.each([
    ["any", { type: "any" }],
    [{ name: "search" }, { type: "tool", name: "search" }],
  ] as const)("a forced choice (%o) with thinking turns thinking off, with a warning", (choice, expected) => {
    const { body, warnings } = build(
      "claude-sonnet-4-5",
      { toolChoice: choice, thinking: { budgetTokens: 4000 }, maxTokens: 2000 },
      USER,
      TOOLS,
    );
    expect(body.tool_choice).toEqual(expected);
    expect(body.thinking).toEqual({ type: "disabled" });
    expect(body.max_tokens).toBe(2000);
    expect(warned(warnings, /forced tool choice/)).toBe(true);
    const adaptive = build("claude-opus-4-7", { toolChoice: choice, thinking: "adaptive" }, USER, TOOLS);
    expect(adaptive.body.thinking).toEqual({ type: "disabled" });
  });

  it("auto or none with thinking keeps thinking", () => {
    for (const choice of ["auto", "none"] as const) {
      const { body } = build(
        "claude-sonnet-4-5",
        { toolChoice: choice, thinking: { budgetTokens: 2000 }, maxTokens: 8000 },
        USER,
        TOOLS,
      );
      expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2000 });
    }
  });
});

// ---------------------------------------------------------------------------------------------------

const THINKING = { type: "thinking", thinking: "I should search.", signature: "EqQBCkYIBxgCKkBsig==" };
const REDACTED = { type: "redacted_thinking", data: "EmwKAhgBEgy3va3pzix==" };
const TOOL_USE = { type: "tool_use", id: "toolu_1", name: "search", input: { q: "cats" } };
const MODEL = "claude-sonnet-4-5";

/** A history whose assistant turn is replayed from native blocks (target model and origin match). */
function conversation(): MessageInput[] {
  return [
    { role: "system", content: "You are helpful." },
    { role: "system", content: "Be brief." },
    { role: "user", content: "Find cats" },
    {
      role: "assistant",
      content: "Searching.",
      toolCalls: [{ id: "toolu_1", name: "search", arguments: { q: "cats" } }],
      native: {
        protocol: "anthropic-messages",
        origin: "anthropic",
        model: MODEL,
        blocks: [
          structuredClone(THINKING),
          structuredClone(REDACTED),
          { type: "text", text: "Searching." },
          structuredClone(TOOL_USE),
        ],
      },
    },
    { role: "tool", toolResults: [{ callId: "toolu_1", content: "many cats" }] },
    { role: "user", content: "Summarise" },
  ];
}

describe("prompt-cache marks", () => {
  it('"auto": last tool, last system block, the last message\'s last block, and the previous user turn — four at most', () => {
    const { body } = build(MODEL, { cache: "auto" }, conversation(), TOOLS);
    const marks = cacheMarks(body).map((mark) => mark.where);
    expect(marks).toEqual([
      "body.messages[0].content[0]",
      "body.messages[2].content[1]",
      "body.system[1]",
      "body.tools[1]",
    ]);
    expect(marks.length).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
    expect(body.tools![1]!.cache_control).toEqual({ type: "ephemeral" });
    expect(body.system![1]!.cache_control).toEqual({ type: "ephemeral" });
    expect(body.system![0]).not.toHaveProperty("cache_control");
    // The marked blocks are the right ones.
    expect(body.messages[2]!.content[1]).toMatchObject({ type: "text", text: "Summarise" });
    expect(body.messages[0]!.content[0]).toMatchObject({ type: "text", text: "Find cats" });
  });

  it('"auto" with no tools and no system marks only the conversation tail', () => {
    const { body } = build(MODEL, { cache: "auto" }, [
      { role: "user", content: "one" },
      { role: "assistant", content: "two" },
      { role: "user", content: "three" },
    ]);
    expect(cacheMarks(body).map((mark) => mark.where)).toEqual([
      "body.messages[0].content[0]",
      "body.messages[2].content[0]",
    ]);
  });

  it("never marks a thinking or redacted_thinking block: the mark goes to the last markable block instead", () => {
    // A final assistant turn (prefill) replayed from native blocks that end in reasoning.
    const history: MessageInput[] = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        content: "",
        native: {
          protocol: "anthropic-messages",
          origin: "anthropic",
          model: MODEL,
          blocks: [
            { type: "text", text: "Partial answer" },
            structuredClone(THINKING),
            structuredClone(REDACTED),
          ],
        },
      },
    ];
    const { body } = build(MODEL, { cache: "auto" }, history);
    const assistant = body.messages[1]!.content;
    expect(assistant.map((block) => block.type)).toEqual(["text", "thinking", "redacted_thinking"]);
    expect(assistant[0]!.cache_control).toEqual({ type: "ephemeral" });
    expect(assistant[1]).toStrictEqual(THINKING);
    expect(assistant[2]).toStrictEqual(REDACTED);

    // Explicitly asked for on a turn that holds only reasoning: nothing is marked, with a warning.
    const onlyReasoning: MessageInput[] = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        native: {
          protocol: "anthropic-messages",
          origin: "anthropic",
          model: MODEL,
          blocks: [structuredClone(THINKING)],
        },
      },
    ];
    const explicit = build(MODEL, { cache: { breakpoints: [{ message: 1 }] } }, onlyReasoning);
    expect(cacheMarks(explicit.body)).toEqual([]);
    expect(warned(explicit.warnings, /nothing there to mark/)).toBe(true);
  });

  it('{ ttl: "1h" } marks like auto, each with ttl 1h', () => {
    const { body } = build(MODEL, { cache: { ttl: "1h" } }, conversation(), TOOLS);
    const marks = cacheMarks(body);
    expect(marks).toHaveLength(4);
    for (const mark of marks) expect(mark.value.cache_control).toEqual({ type: "ephemeral", ttl: "1h" });
  });

  it('"off" marks nothing, and overrides the provider default', () => {
    expect(cacheMarks(build(MODEL, { cache: "off" }, conversation(), TOOLS).body)).toEqual([]);
    expect(
      cacheMarks(build(MODEL, { cache: "off" }, conversation(), TOOLS, { defaultCache: "auto" }).body),
    ).toEqual([]);
    // The provider default applies when the call says nothing.
    expect(cacheMarks(build(MODEL, {}, conversation(), TOOLS, { defaultCache: "auto" }).body)).toHaveLength(
      4,
    );
    expect(cacheMarks(build(MODEL, {}, conversation(), TOOLS).body)).toEqual([]);
  });

  it("explicit breakpoints mark exactly where asked", () => {
    const { body } = build(
      MODEL,
      { cache: { breakpoints: ["system", { message: 1 }] } },
      conversation(),
      TOOLS,
    );
    expect(cacheMarks(body).map((mark) => mark.where)).toEqual([
      "body.messages[1].content[3]",
      "body.system[1]",
    ]);
    // messages[1] is the replayed assistant turn: its last markable block is the tool_use, not the thinking.
    expect(body.messages[1]!.content[3]).toMatchObject({ type: "tool_use", id: "toolu_1" });
    expect(body.tools![1]).not.toHaveProperty("cache_control");

    const tools = build(MODEL, { cache: { breakpoints: ["tools"] } }, conversation(), TOOLS);
    expect(cacheMarks(tools.body).map((mark) => mark.where)).toEqual(["body.tools[1]"]);
  });

  it("caps explicit breakpoints at four, with a warning", () => {
    const { body, warnings } = build(
      MODEL,
      { cache: { breakpoints: ["tools", "system", { message: 0 }, { message: 1 }, { message: 2 }] } },
      conversation(),
      TOOLS,
    );
    expect(cacheMarks(body)).toHaveLength(MAX_CACHE_BREAKPOINTS);
    expect(warned(warnings, /allows 4/)).toBe(true);
    expect(body.messages[2]!.content.at(-1)).not.toHaveProperty("cache_control");
  });

  it("does not mutate replayed native blocks: the caller's history is unchanged", () => {
    for (const cache of [
      "auto",
      { ttl: "1h" },
      { breakpoints: [{ message: 1 }, { message: 1 }, "system", "tools"] },
    ] satisfies CacheOption[]) {
      const history = conversation();
      const before = structuredClone(history);
      const { body } = build(MODEL, { cache }, history, TOOLS);
      expect(history).toStrictEqual(before);
      const nativeBlocks = (history[3]!.native!.blocks as AnthropicBlock[]).slice();
      for (const block of nativeBlocks) expect(block).not.toHaveProperty("cache_control");
      // Replayed content still equals the original blocks (apart from any mark on a copy).
      const sent = body.messages[1]!.content.map(({ cache_control: _mark, ...block }) => block);
      expect(sent).toEqual(before[3]!.native!.blocks);
    }
    // A mark on the final-turn prefill replayed from native blocks too (its text block is the caller's object
    // as replayed, not a trimmed copy).
    const prefill: MessageInput[] = [
      { role: "user", content: "q" },
      {
        role: "assistant",
        native: {
          protocol: "anthropic-messages",
          origin: "anthropic",
          model: MODEL,
          blocks: [structuredClone(THINKING), { type: "text", text: "So far" }],
        },
      },
    ];
    const before = structuredClone(prefill);
    const { body } = build(MODEL, { cache: "auto" }, prefill);
    expect(prefill).toStrictEqual(before);
    expect(body.messages[1]!.content[1]).toEqual({
      type: "text",
      text: "So far",
      cache_control: { type: "ephemeral" },
    });
  });
});

// ---------------------------------------------------------------------------------------------------

describe("model id → profile", () => {
  it.each([
    ["us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", "budget"],
    ["anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4-5", "budget"],
    ["global.anthropic.claude-opus-4-5-20251101-v1:0", "claude-opus-4-5", "budget"],
    ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5", "budget"],
    ["claude-opus-4-20250514", "claude-opus-4", "budget"],
    ["claude-opus-4-1-20250805", "claude-opus-4-1", "budget"],
    ["claude-sonnet-4-20250514", "claude-sonnet-4", "budget"],
    ["claude-sonnet-4-6", "claude-sonnet-4-6", "adaptive-or-budget"],
    ["claude-opus-4.6", "claude-opus-4-6", "adaptive-or-budget"],
    ["claude-opus-4-7", "claude-opus-4-7", "adaptive-only"],
    ["CLAUDE-OPUS-4-7", "claude-opus-4-7", "adaptive-only"],
    ["claude-3-7-sonnet-20250219", "claude-3-7-sonnet", "budget"],
    ["claude-3-5-haiku-20241022", "claude-3-5-haiku", "none"],
  ])("%s → %s (%s)", (id, family, thinking) => {
    const profile = anthropicModelProfile(id);
    expect(profile.family).toBe(family);
    expect(profile.thinking).toBe(thinking);
  });

  it("Anthropic's -0 aliases resolve to their family (claude-sonnet-4-0 → claude-sonnet-4, claude-opus-4-0 → claude-opus-4)", () => {
    // Both are documented aliases (the recorded pydantic-ai cassettes call claude-sonnet-4-0). Resolved as
    // "unknown", Sonnet 4 would be sent adaptive thinking it rejects, and Opus 4 a budget past its 32k limit.
    expect(anthropicModelProfile("claude-sonnet-4-0").family).toBe("claude-sonnet-4");
    expect(anthropicModelProfile("claude-opus-4-0").family).toBe("claude-opus-4");
    expect(build("claude-sonnet-4-0", { thinking: "adaptive" }).body.thinking?.type).toBe("enabled");
    const opus = build("claude-opus-4-0", { thinking: { budgetTokens: 100_000 } });
    expect(opus.body.max_tokens).toBeLessThanOrEqual(32_000);
  });

  it("an unknown future id reads its version: Claude 5 and later think adaptively only", () => {
    for (const id of ["claude-sonnet-5", "claude-haiku-5-1-20270101", "us.anthropic.claude-opus-6-v1:0"]) {
      expect(anthropicModelProfile(id).thinking).toBe("adaptive-only");
    }
  });

  it("the resolved profile drives the request: a Bedrock id and a dated id get their family's limits", () => {
    // Bedrock-style Sonnet 4.5: budget thinking, 64k limit.
    const bedrock = build(
      "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
      { thinking: { budgetTokens: 100_000 } },
      USER,
      [],
      {
        origin: "bedrock",
      },
    );
    expect(bedrock.body.thinking).toEqual({ type: "enabled", budget_tokens: 63_999 });
    expect(bedrock.body.max_tokens).toBe(64_000);
    // Dated Opus 4 (not 4.1): 32k limit.
    const opus4 = build("claude-opus-4-20250514", { thinking: { budgetTokens: 100_000 } });
    expect(opus4.body.thinking).toEqual({ type: "enabled", budget_tokens: 31_999 });
    expect(opus4.body.max_tokens).toBe(32_000);
  });
});

describe("parallelToolCalls", () => {
  it("false becomes disable_parallel_tool_use on the tool choice; unset sends nothing", () => {
    const tools = [{ name: "f", parameters: { type: "object" } }];
    const build = (options: CallOptions) =>
      buildAnthropicRequest({
        messages: [{ role: "user", content: "hi" }],
        tools,
        options,
        target: { model: "claude-sonnet-4-5", origin: "anthropic" },
        profile: anthropicModelProfile("claude-sonnet-4-5"),
        stream: false,
      }).body.tool_choice;
    expect(build({ parallelToolCalls: false })).toEqual({ type: "auto", disable_parallel_tool_use: true });
    expect(build({ parallelToolCalls: false, toolChoice: "any" })).toEqual({
      type: "any",
      disable_parallel_tool_use: true,
    });
    expect(build({ parallelToolCalls: false, toolChoice: "none" })).toEqual({ type: "none" });
    expect(build({})).toBeUndefined();
  });
});

describe("thinking mid tool loop", () => {
  it("is turned off (with a warning) when the loop's assistant turn has no thinking block to continue from", () => {
    const history = [
      { role: "user" as const, content: "weather?" },
      // An earlier turn from another model: rebuilt without thinking.
      {
        role: "assistant" as const,
        toolCalls: [{ id: "toolu_1", name: "weather", arguments: {} }],
        native: { protocol: "anthropic-messages", origin: "anthropic", model: "claude-opus-4-5", blocks: [] },
      },
      { role: "tool" as const, toolResults: [{ callId: "toolu_1", content: "sunny" }] },
    ];
    const built = buildAnthropicRequest({
      messages: history,
      tools: [{ name: "weather", parameters: { type: "object" } }],
      options: { thinking: { budgetTokens: 2048 } },
      target: { model: "claude-sonnet-4-5", origin: "anthropic" },
      profile: anthropicModelProfile("claude-sonnet-4-5"),
      stream: false,
    });
    expect(built.body.thinking).toEqual({ type: "disabled" });
    expect(built.warnings.some((warning) => warning.includes("tool loop"))).toBe(true);
    // A fresh question after the loop may think again.
    const next = buildAnthropicRequest({
      messages: [
        ...history,
        { role: "assistant" as const, content: "Sunny." },
        { role: "user" as const, content: "and tomorrow?" },
      ],
      tools: [],
      options: { thinking: { budgetTokens: 2048 } },
      target: { model: "claude-sonnet-4-5", origin: "anthropic" },
      profile: anthropicModelProfile("claude-sonnet-4-5"),
      stream: false,
    });
    expect(next.body.thinking).toEqual({ type: "enabled", budget_tokens: 2048 });
  });
});
