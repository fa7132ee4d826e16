import type { Thinking } from "../../core/call-options.ts";
import type { GeminiModelProfile, GeminiThinkingLevel } from "./gemini-model-profile.ts";
import type { GeminiThinkingConfig } from "./google-gemini-wire.ts";

/** Budgets for an effort level on a budget model. */
const EFFORT_BUDGETS = { minimal: 512, low: 2048, medium: 8192, high: 16_384, max: 32_768 } as const;

/** Levels for an effort level on a level model (before checking what the model takes). */
const EFFORT_LEVELS: Readonly<Record<string, GeminiThinkingLevel>> = {
  minimal: "MINIMAL",
  low: "LOW",
  medium: "MEDIUM",
  high: "HIGH",
  max: "HIGH",
};

/** The order of levels, to find the nearest one a model takes. */
const LEVEL_ORDER: readonly GeminiThinkingLevel[] = ["MINIMAL", "LOW", "MEDIUM", "HIGH"];

/**
 * The `thinking` option → `generationConfig.thinkingConfig` for the model's profile, corrected so the
 * request is one the model takes (a budget and a level are never both sent: the API 400s):
 *
 * - budget models (2.5): `"adaptive"` → `thinkingBudget: -1` (dynamic); `{ budgetTokens }` clamped to the
 *   model's range; `{ effort }` → a budget; `"off"` → `0` where the model can turn thinking off, else its
 *   smallest budget (2.5 Pro), with a warning;
 * - level models (3.x): `{ effort }` → the level (`max` → `HIGH`; a level the model does not take → the
 *   nearest it does); `"adaptive"` → the model's default (no level); `{ budgetTokens }` → a level, with a
 *   warning; `"off"` → the lowest level (3.x cannot stop thinking), with a warning;
 * - models without thinking (2.0): a thinking option is left out with a warning (`"off"` silently);
 * - whenever thinking is on, `includeThoughts: true`, so thought summaries come back as reasoning.
 *
 * Unset leaves the model's default.
 *
 * @see https://ai.google.dev/gemini-api/docs/thinking
 */
export function applyGeminiThinking(
  thinking: Thinking | undefined,
  profile: GeminiModelProfile,
): { config: GeminiThinkingConfig | undefined; warnings: string[] } {
  const warnings: string[] = [];
  if (thinking === undefined) return { config: undefined, warnings };
  const name = profile.family === "unknown" ? "this model" : profile.family;
  if (profile.thinking === "none") {
    if (thinking !== "off") warnings.push(`${name} has no thinking; thinking left out`);
    return { config: undefined, warnings };
  }
  if (profile.thinking === "level") {
    if (thinking === "adaptive") return { config: { includeThoughts: true }, warnings };
    let wanted: GeminiThinkingLevel;
    if (thinking === "off") {
      wanted = profile.levels[0] ?? "LOW";
      warnings.push(`${name} cannot turn thinking off; thinkingLevel ${wanted}, its lowest`);
      return { config: { thinkingLevel: level(wanted, profile, name, warnings) }, warnings };
    }
    if ("effort" in thinking) {
      wanted = EFFORT_LEVELS[thinking.effort] ?? "HIGH";
      if (thinking.effort === "max") warnings.push(`${name} has no "max" thinking level; HIGH`);
    } else {
      const budget = thinking.budgetTokens;
      wanted = budget <= 1024 ? "LOW" : budget <= 8192 ? "MEDIUM" : "HIGH";
      warnings.push(`${name} takes a thinking level, not a budget; budgetTokens ${budget} → ${wanted}`);
    }
    return {
      config: { thinkingLevel: level(wanted, profile, name, warnings), includeThoughts: true },
      warnings,
    };
  }
  if (thinking === "off") {
    if (profile.canDisable) return { config: { thinkingBudget: 0 }, warnings };
    warnings.push(`${name} cannot turn thinking off; its smallest budget, ${profile.minBudget}`);
    return { config: { thinkingBudget: profile.minBudget }, warnings };
  }
  if (thinking === "adaptive") return { config: { thinkingBudget: -1, includeThoughts: true }, warnings };
  const requested =
    "effort" in thinking ? EFFORT_BUDGETS[thinking.effort] : Math.floor(thinking.budgetTokens);
  let budget = requested;
  if (budget < profile.minBudget) {
    budget = profile.minBudget;
    warnings.push(`thinking budget ${requested} is below ${name}'s minimum; raised to ${budget}`);
  } else if (budget > profile.maxBudget) {
    budget = profile.maxBudget;
    warnings.push(`thinking budget ${requested} is above ${name}'s maximum; lowered to ${budget}`);
  }
  return { config: { thinkingBudget: budget, includeThoughts: true }, warnings };
}

/** `wanted`, or the nearest level the model takes (upwards first), with a warning. */
function level(
  wanted: GeminiThinkingLevel,
  profile: GeminiModelProfile,
  name: string,
  warnings: string[],
): GeminiThinkingLevel {
  if (profile.levels.includes(wanted)) return wanted;
  const at = LEVEL_ORDER.indexOf(wanted);
  const nearest =
    LEVEL_ORDER.slice(at).find((candidate) => profile.levels.includes(candidate)) ??
    [...LEVEL_ORDER.slice(0, at)].reverse().find((candidate) => profile.levels.includes(candidate)) ??
    "HIGH";
  warnings.push(`${name} takes no thinkingLevel ${wanted}; ${nearest}`);
  return nearest;
}
