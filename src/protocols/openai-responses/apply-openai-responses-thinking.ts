import type { Thinking } from "../../core/call-options.ts";
import type { OpenAIModelRules } from "../openai-model-rules.ts";
import type { OpenAIResponsesReasoningEffort, OpenAIResponsesRequestBody } from "./openai-responses-wire.ts";

/**
 * `thinking` → `reasoning: { effort, summary: "auto" }` (the summary is what streams as reasoning deltas).
 * `"adaptive"` keeps the model's default effort; `"max"` is `"high"`; budgets map to the nearest effort;
 * `"off"` is the model's `offEffort` ({@link OpenAIModelRules}), and has no equivalent on o-series, codex
 * and pro models (left to the server, with a warning). Everything corrected is in `warnings`.
 *
 * @see https://platform.openai.com/docs/guides/reasoning
 */
export function applyOpenAIResponsesThinking(
  thinking: Thinking | undefined,
  model: string,
  rules: OpenAIModelRules,
): { reasoning: OpenAIResponsesRequestBody["reasoning"]; warnings: string[] } {
  const warnings: string[] = [];
  if (thinking === undefined) return { reasoning: undefined, warnings };
  if (thinking === "adaptive") return { reasoning: { summary: "auto" }, warnings };
  if (thinking === "off") {
    if (rules.offEffort !== undefined) return { reasoning: { effort: rules.offEffort }, warnings };
    warnings.push(`thinking "off" has no reasoning effort for ${model}; the server's default applies`);
    return { reasoning: undefined, warnings };
  }
  let effort: OpenAIResponsesReasoningEffort;
  if ("effort" in thinking) {
    if (thinking.effort === "max") {
      warnings.push('reasoning effort has no "max"; using "high"');
      effort = "high";
    } else effort = thinking.effort;
  } else {
    const budget = thinking.budgetTokens;
    effort = budget <= 2048 ? "low" : budget <= 8192 ? "medium" : "high";
    warnings.push(`budgetTokens ${budget} mapped to reasoning effort "${effort}"`);
  }
  return { reasoning: { effort, summary: "auto" }, warnings };
}
