import type { Thinking } from "../../core/call-options.ts";
import { type AnthropicModelProfile, MIN_THINKING_BUDGET } from "./anthropic-model-profile.ts";
import type { AnthropicRequestBody, AnthropicThinkingParam } from "./anthropic-wire.ts";

/** Budgets used when a budget-only model is asked for adaptive thinking or an effort level. */
const EFFORT_BUDGETS = { minimal: 1024, low: 2048, medium: 8192, high: 16_384, max: 32_000 } as const;

/** The thinking-related part of a request body, after every correction the model profile demands. */
export interface AnthropicThinkingSettings {
  thinking: AnthropicThinkingParam | undefined;
  outputConfig: AnthropicRequestBody["output_config"];
  maxTokens: number;
  temperature: number | undefined;
  topP: number | undefined;
  warnings: string[];
}

/**
 * Resolves the `thinking` option against the model profile, so no unsatisfiable request is ever sent:
 *
 * - adaptive-only models get `{ type: "adaptive" }` (a budget request is mapped, with a warning);
 * - budget models get `{ type: "enabled", budget_tokens }` with the API floor (1024) respected, and
 *   `max_tokens` raised to budget + 1 when it is not above the budget (seed 004: a budget above
 *   `max_tokens` 400s every call); adaptive and effort requests become budgets, with a warning;
 * - effort goes to `output_config.effort` where the model takes it;
 * - with thinking on, `temperature` must be 1 and `top_p` at least 0.95: other values are dropped or
 *   raised, with a warning, rather than left to a 400.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 */
export function applyAnthropicThinking(input: {
  thinking: Thinking | undefined;
  profile: AnthropicModelProfile;
  maxTokens: number;
  temperature: number | undefined;
  topP: number | undefined;
  /** A forced tool choice (`any` or a named tool) cannot be combined with thinking. */
  forcedToolChoice: boolean;
}): AnthropicThinkingSettings {
  const { profile } = input;
  const warnings: string[] = [];
  const settings: AnthropicThinkingSettings = {
    thinking: undefined,
    outputConfig: undefined,
    maxTokens: input.maxTokens,
    temperature: input.temperature,
    topP: input.topP,
    warnings,
  };
  const requested = input.thinking;
  if (requested === undefined) return settings;
  if (requested === "off") {
    if (profile.thinking !== "none") settings.thinking = { type: "disabled" };
    return settings;
  }
  if (profile.thinking === "none") {
    warnings.push(`${profile.family} has no extended thinking; thinking ignored`);
    return settings;
  }
  if (input.forcedToolChoice) {
    warnings.push("thinking cannot be combined with a forced tool choice; thinking turned off for this call");
    settings.thinking = { type: "disabled" };
    return settings;
  }

  const adaptive = profile.thinking === "adaptive-only" || profile.thinking === "adaptive-or-budget";
  if (requested === "adaptive") {
    if (adaptive) settings.thinking = { type: "adaptive" };
    else {
      warnings.push(
        `${profile.family} takes no adaptive thinking; using a ${EFFORT_BUDGETS.medium}-token budget`,
      );
      enableBudget(settings, EFFORT_BUDGETS.medium, profile);
    }
  } else if ("effort" in requested) {
    const effort = requested.effort === "minimal" ? "low" : requested.effort;
    if (requested.effort === "minimal") warnings.push('Anthropic has no "minimal" effort; using "low"');
    if (adaptive) settings.thinking = { type: "adaptive" };
    else enableBudget(settings, EFFORT_BUDGETS[requested.effort], profile);
    if (profile.effort) settings.outputConfig = { effort };
    else if (adaptive)
      warnings.push(`${profile.family} takes no effort setting; adaptive thinking without one`);
    else warnings.push(`${profile.family} takes no effort setting; mapped to a thinking budget`);
  } else if (profile.thinking === "adaptive-only") {
    warnings.push(
      `${profile.family} only thinks adaptively; budgetTokens ${requested.budgetTokens} mapped to adaptive`,
    );
    settings.thinking = { type: "adaptive" };
  } else {
    enableBudget(settings, requested.budgetTokens, profile);
  }

  if (settings.temperature !== undefined && settings.temperature !== 1) {
    warnings.push(`temperature ${settings.temperature} is not allowed with thinking (only 1); left out`);
    settings.temperature = undefined;
  }
  if (settings.topP !== undefined && settings.topP < 0.95) {
    warnings.push(`top_p ${settings.topP} is below the 0.95 allowed with thinking; raised to 0.95`);
    settings.topP = 0.95;
  }
  return settings;
}

function enableBudget(
  settings: AnthropicThinkingSettings,
  requested: number,
  profile: AnthropicModelProfile,
): void {
  let budget = Math.floor(requested);
  if (budget < MIN_THINKING_BUDGET) {
    settings.warnings.push(
      `thinking budget ${budget} is below the API minimum; raised to ${MIN_THINKING_BUDGET}`,
    );
    budget = MIN_THINKING_BUDGET;
  }
  if (budget >= profile.maxOutputTokens) {
    const capped = profile.maxOutputTokens - 1;
    settings.warnings.push(
      `thinking budget ${budget} exceeds ${profile.family}'s output limit; lowered to ${capped}`,
    );
    budget = capped;
  }
  if (settings.maxTokens <= budget) {
    const raised = Math.min(budget + 1, profile.maxOutputTokens);
    settings.warnings.push(
      `max_tokens ${settings.maxTokens} must exceed the thinking budget ${budget}; raised to ${raised}`,
    );
    settings.maxTokens = raised;
  }
  settings.thinking = { type: "enabled", budget_tokens: budget };
}
