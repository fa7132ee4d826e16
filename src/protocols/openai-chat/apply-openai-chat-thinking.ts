import type { Thinking } from "../../core/call-options.ts";
import type { OpenAIModelRules } from "../openai-model-rules.ts";
import type { OpenAIChatEndpointProfile, OpenAIChatRequestBody } from "./openai-chat-wire.ts";

/**
 * `thinking` → `reasoning_effort`, where the endpoint and model take one. Efforts pass through (`"max"` is
 * `"high"`); budgets map to the nearest effort; `"adaptive"` leaves the model's default; `"off"` is the
 * model's `offEffort` ({@link OpenAIModelRules}), or nothing where it has none. An endpoint whose profile
 * takes no `reasoning_effort`, and a hosted OpenAI model that does not reason (it rejects the field), get
 * none. Everything corrected or left out is in `warnings`.
 *
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort
 */
export function applyOpenAIChatThinking(
  thinking: Thinking | undefined,
  model: string,
  rules: OpenAIModelRules,
  profile: OpenAIChatEndpointProfile,
): { reasoningEffort: OpenAIChatRequestBody["reasoning_effort"]; warnings: string[] } {
  const warnings: string[] = [];
  const effort = effortOf(thinking, model, rules, warnings);
  if (effort === undefined) return { reasoningEffort: undefined, warnings };
  if (!profile.reasoningEffort) {
    warnings.push(`thinking ignored: the ${profile.kind} endpoint takes no reasoning_effort`);
    return { reasoningEffort: undefined, warnings };
  }
  // Hosted OpenAI rejects reasoning_effort on models that do not reason (gpt-4.1, gpt-4o, gpt-5-chat).
  if (profile.openaiModelRules && !rules.reasoning) {
    warnings.push(`thinking ignored: ${model} is not a reasoning model`);
    return { reasoningEffort: undefined, warnings };
  }
  return { reasoningEffort: effort, warnings };
}

function effortOf(
  thinking: Thinking | undefined,
  model: string,
  rules: OpenAIModelRules,
  warnings: string[],
): OpenAIChatRequestBody["reasoning_effort"] {
  if (thinking === undefined || thinking === "adaptive") return undefined;
  if (thinking === "off") {
    // "none" on gpt-5.1 and later, "minimal" on gpt-5; o-series and codex models cannot stop reasoning.
    if (rules.offEffort !== undefined) return rules.offEffort;
    warnings.push(`thinking "off" has no reasoning_effort for ${model}; the server's default applies`);
    return undefined;
  }
  if ("effort" in thinking) {
    if (thinking.effort === "max") {
      warnings.push('reasoning_effort has no "max"; using "high"');
      return "high";
    }
    return thinking.effort;
  }
  const budget = thinking.budgetTokens;
  const effort = budget <= 2048 ? "low" : budget <= 8192 ? "medium" : "high";
  warnings.push(`budgetTokens ${budget} mapped to reasoning_effort "${effort}"`);
  return effort;
}
