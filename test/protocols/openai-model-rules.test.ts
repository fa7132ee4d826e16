/**
 * The OpenAI model rules, once for both OpenAI protocols: which ids are reasoning models, and which effort
 * `thinking: "off"` becomes. Chat Completions and Responses used to hold two regexes that disagreed on
 * codex (Chat sent `temperature` to `codex-mini-latest`) and on gpt-5.x (Chat sent `"minimal"`, which
 * gpt-5.1 rejects). The builders are checked to agree with the table, model by model.
 */
import { describe, expect, it } from "vitest";
import type { CallOptions } from "../../src/core/call-options.ts";
import { buildOpenAIChatRequest } from "../../src/protocols/openai-chat/index.ts";
import { openAIModelRules } from "../../src/protocols/openai-model-rules.ts";
import { buildOpenAIResponsesRequest } from "../../src/protocols/openai-responses/index.ts";
import { openAIChatEndpointProfile } from "../../src/providers/openai-chat.ts";

const HI = [{ role: "user" as const, content: "hi" }];

function chat(model: string, options: CallOptions) {
  return buildOpenAIChatRequest({
    messages: HI,
    tools: [],
    options,
    model,
    profile: openAIChatEndpointProfile("openai"),
    stream: false,
  });
}

function responses(model: string, options: CallOptions) {
  return buildOpenAIResponsesRequest({
    messages: HI,
    tools: [],
    options,
    model,
    origin: "openai",
    stream: false,
  });
}

describe("openAIModelRules", () => {
  const table: [string, boolean, "none" | "minimal" | undefined][] = [
    ["o1", true, undefined],
    ["o3", true, undefined],
    ["o4-mini", true, undefined],
    ["gpt-5", true, "minimal"],
    ["gpt-5-mini", true, "minimal"],
    ["gpt-5-nano-2025-08-07", true, "minimal"],
    ["gpt-5.1", true, "none"],
    ["gpt-5.2", true, "none"],
    ["gpt-5.5", true, "none"],
    // Codex models reason, and take low, medium and high only: no effort means "off".
    ["codex-mini-latest", true, undefined],
    ["gpt-5-codex", true, undefined],
    ["gpt-5.1-codex", true, undefined],
    ["gpt-5.1-codex-max", true, undefined],
    ["gpt-5.2-codex", true, undefined],
    // gpt-5-pro takes high only.
    ["gpt-5-pro", true, undefined],
    ["gpt-5-chat-latest", false, undefined],
    ["gpt-4.1", false, undefined],
    ["gpt-4o-mini", false, undefined],
    ["openai/gpt-5", true, "minimal"],
    ["openai/gpt-5.1", true, "none"],
    ["deepseek-v4-flash", false, undefined],
  ];

  it.each(table)("%s: reasoning %s, off → %s", (model, reasoning, offEffort) => {
    expect(openAIModelRules(model)).toEqual({ reasoning, offEffort });
  });

  it("both OpenAI builders drop sampling parameters exactly for the reasoning models", () => {
    for (const [model, reasoning] of table) {
      const options = { temperature: 0.3, topP: 0.9 };
      expect(chat(model, options).body.temperature, `chat ${model}`).toBe(reasoning ? undefined : 0.3);
      expect(responses(model, options).body.temperature, `responses ${model}`).toBe(
        reasoning ? undefined : 0.3,
      );
      expect(chat(model, options).body.top_p, `chat ${model}`).toBe(reasoning ? undefined : 0.9);
      expect(responses(model, options).body.top_p, `responses ${model}`).toBe(reasoning ? undefined : 0.9);
    }
  });

  it('both OpenAI builders send the same effort for thinking "off", and warn where there is none', () => {
    for (const [model, reasoning, offEffort] of table) {
      const fromChat = chat(model, { thinking: "off" });
      const fromResponses = responses(model, { thinking: "off" });
      expect(fromResponses.body.reasoning?.effort, `responses ${model}`).toBe(offEffort);
      if (offEffort === undefined) {
        expect(fromResponses.warnings.some((warning) => warning.includes('thinking "off"'))).toBe(true);
      }
      // Chat sends no reasoning_effort to a model that does not reason (it rejects one).
      expect(fromChat.body.reasoning_effort, `chat ${model}`).toBe(reasoning ? offEffort : undefined);
      if (offEffort === undefined || !reasoning) expect(fromChat.warnings, `chat ${model}`).not.toEqual([]);
    }
  });

  it("codex-mini-latest is a reasoning model on Chat Completions too: effort sent, temperature left out", () => {
    const { body, warnings } = chat("codex-mini-latest", { thinking: { effort: "low" }, temperature: 0.5 });
    expect(body.reasoning_effort).toBe("low");
    expect(body.temperature).toBeUndefined();
    expect(warnings).toEqual(["temperature is not supported by codex-mini-latest; left out"]);
  });

  it('gpt-5.1 "off" is "none" on both protocols (it rejects "minimal"); gpt-5 keeps "minimal"', () => {
    expect(chat("gpt-5.1", { thinking: "off" }).body.reasoning_effort).toBe("none");
    expect(responses("gpt-5.1", { thinking: "off" }).body.reasoning).toEqual({ effort: "none" });
    expect(chat("gpt-5", { thinking: "off" }).body.reasoning_effort).toBe("minimal");
    expect(responses("gpt-5", { thinking: "off" }).body.reasoning).toEqual({ effort: "minimal" });
  });
});
