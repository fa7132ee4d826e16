/**
 * What each Claude model supports. Behaviour diverges per model, not per vendor: thinking modes, whether
 * prior turns' thinking stays in context, output limits and prices all move between versions of one family.
 *
 * Sources: Anthropic's models overview, extended/adaptive thinking, structured outputs and pricing pages
 * (facts, as of late 2026). Prices are US dollars per million tokens. Native structured output
 * (`output_config.format`) is generally available on Opus 4.5 and later, Sonnet 4.5 and later and Haiku
 * 4.5; older models get structured output as a forced tool call.
 *
 * @module
 */

import type {
  AnthropicModelProfile,
  AnthropicThinkingMode,
  ModelPrices,
} from "../protocols/anthropic-messages/anthropic-model-profile.ts";

export type { AnthropicModelProfile, AnthropicThinkingMode, ModelPrices };

/**
 * The prices of a model from its input and output prices (dollars per million tokens): cache reads cost
 * 0.1× input, 5-minute cache writes 1.25×, 1-hour writes 2×.
 */
export function anthropicPrices(input: number, output: number): ModelPrices {
  return { input, output, cacheRead: input * 0.1, cacheWrite5m: input * 1.25, cacheWrite1h: input * 2 };
}

type Row = readonly [
  family: string,
  thinking: AnthropicThinkingMode,
  effort: boolean,
  structuredOutput: boolean,
  keepsPriorThinking: boolean,
  maxOutputTokens: number,
  contextWindow: number,
  inputPrice: number,
  outputPrice: number,
];

/**
 * Model families (a dated or Bedrock id contains one), most specific first. Kept as rows rather than
 * objects: this table ships in every Worker that uses the adapter.
 */
const ROWS: readonly Row[] = [
  ["claude-opus-4-8", "adaptive-only", true, true, true, 128_000, 1_000_000, 5, 25],
  ["claude-opus-4-7", "adaptive-only", true, true, true, 128_000, 1_000_000, 5, 25],
  ["claude-opus-4-6", "adaptive-or-budget", true, true, true, 128_000, 1_000_000, 5, 25],
  ["claude-opus-4-5", "budget", true, true, true, 64_000, 200_000, 5, 25],
  ["claude-opus-4-1", "budget", false, false, false, 32_000, 200_000, 15, 75],
  ["claude-opus-4", "budget", false, false, false, 32_000, 200_000, 15, 75],
  ["claude-sonnet-4-6", "adaptive-or-budget", true, true, true, 64_000, 1_000_000, 3, 15],
  ["claude-sonnet-4-5", "budget", false, true, false, 64_000, 200_000, 3, 15],
  ["claude-sonnet-4", "budget", false, false, false, 64_000, 200_000, 3, 15],
  ["claude-haiku-4-5", "budget", false, true, false, 64_000, 200_000, 1, 5],
  ["claude-3-7-sonnet", "budget", false, false, false, 64_000, 200_000, 3, 15],
  ["claude-3-5-haiku", "none", false, false, false, 8_192, 200_000, 0.8, 4],
  ["claude-3-5-sonnet", "none", false, false, false, 8_192, 200_000, 3, 15],
  ["claude-3-opus", "none", false, false, false, 4_096, 200_000, 15, 75],
  ["claude-3-sonnet", "none", false, false, false, 4_096, 200_000, 3, 15],
  ["claude-3-haiku", "none", false, false, false, 4_096, 200_000, 0.25, 1.25],
];

/**
 * The profile for a model id. Accepts dated ids (`claude-sonnet-4-5-20250929`), Bedrock ids and inference
 * profiles (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`) and dotted versions (`claude-opus-4.6`).
 * Unknown ids get a profile from their version when one can be read (`claude-*-5*` and later: adaptive
 * only), else a conservative default that passes thinking settings through as asked.
 */
export function anthropicModelProfile(model: string): AnthropicModelProfile {
  const id = normalizeModelId(model);
  for (const [family, thinking, effort, structured, keeps, maxOutput, context, input, output] of ROWS) {
    if (matchesFamily(id, family)) {
      const prices = anthropicPrices(input, output);
      return profile(family, thinking, effort, structured, keeps, maxOutput, context, prices);
    }
  }
  const version = /claude-(?:[a-z]+-)?(\d+)(?:-(\d{1,2})(?!\d))?/.exec(id);
  const major = Number(version?.[1] ?? 0);
  const minor = Number(version?.[2] ?? 0);
  if (major >= 5 || (major === 4 && minor >= 7)) {
    return profile("claude-newer", "adaptive-only", true, true, true, 128_000, 1_000_000, undefined);
  }
  // An unknown id may be an old model: structured output as a forced tool, which every Claude takes.
  return profile("unknown", "adaptive-or-budget", true, false, true, 64_000, 200_000, undefined);
}

/**
 * `claude-opus-4` matches `claude-opus-4-20250514` (dated) and `claude-opus-4-0` (alias), but not
 * `claude-opus-4-1`; `claude-opus-4-1` does not match `claude-opus-4-10`.
 */
function matchesFamily(id: string, prefix: string): boolean {
  const at = id.indexOf(prefix);
  if (at < 0) return false;
  const rest = id.slice(at + prefix.length);
  if (/^\d/.test(rest)) return false;
  return !/^-\d/.test(rest) || /^-\d{8}(?!\d)/.test(rest) || /^-0(?!\d)/.test(rest);
}

function normalizeModelId(model: string): string {
  // "claude-opus-4.6" → "claude-opus-4-6"; Bedrock's "anthropic.claude-…" and region prefixes are kept: the
  // lookup matches a substring.
  return model.toLowerCase().replace(/(\d)\.(\d)/g, "$1-$2");
}

function profile(
  family: string,
  thinking: AnthropicThinkingMode,
  effort: boolean,
  structuredOutput: boolean,
  keepsPriorThinking: boolean,
  maxOutputTokens: number,
  contextWindow: number,
  modelPrices: ModelPrices | undefined,
): AnthropicModelProfile {
  return {
    family,
    thinking,
    effort,
    structuredOutput,
    keepsPriorThinking,
    maxOutputTokens,
    contextWindow,
    defaultMaxTokens: Math.min(maxOutputTokens, 16_384),
    prices: modelPrices,
  };
}
