import type { Usage } from "../../core/usage.ts";
import type { AnthropicUsage } from "./anthropic-wire.ts";

/**
 * Anthropic usage → neutral usage. Anthropic's `input_tokens` already excludes cache reads and writes, so
 * it maps straight to `inputTokens`; cache reads → `cachedInputTokens`, cache creation → `cacheWriteTokens`
 * (with the 5-minute / 1-hour split from `cache_creation`); `output_tokens_details.thinking_tokens` →
 * `reasoningTokens`. A field the API did not send stays undefined; a reported 0 stays 0.
 *
 * @see https://docs.anthropic.com/en/api/messages#response-usage
 */
export function mapAnthropicUsage(usage: AnthropicUsage | null | undefined): Usage {
  const result: Usage = {};
  if (!usage) return result;
  set(result, "inputTokens", usage.input_tokens);
  set(result, "outputTokens", usage.output_tokens);
  set(result, "cachedInputTokens", usage.cache_read_input_tokens);
  set(result, "cacheWriteTokens", usage.cache_creation_input_tokens);
  const fiveMinutes = usage.cache_creation?.ephemeral_5m_input_tokens;
  const oneHour = usage.cache_creation?.ephemeral_1h_input_tokens;
  // A message_delta can raise the cache-write total without a new split: a split that no longer adds up
  // to the total would price the writes wrongly, so it is left out ("not reported") instead.
  const total = result.cacheWriteTokens;
  if (total === undefined || (fiveMinutes ?? 0) + (oneHour ?? 0) === total) {
    set(result, "cacheWrite5mTokens", fiveMinutes);
    set(result, "cacheWrite1hTokens", oneHour);
  }
  set(result, "reasoningTokens", usage.output_tokens_details?.thinking_tokens);
  return result;
}

/**
 * Applies a `message_delta` usage on top of the `message_start` usage: every field the delta reports
 * replaces the earlier value (the delta's counts are cumulative), fields it omits keep theirs.
 */
export function mergeAnthropicUsage(
  base: AnthropicUsage,
  update: AnthropicUsage | null | undefined,
): AnthropicUsage {
  if (!update) return base;
  const merged: AnthropicUsage = { ...base };
  for (const key of Object.keys(update)) {
    const value = update[key];
    if (value !== null && value !== undefined) merged[key] = value;
  }
  return merged;
}

function set(target: Usage, field: keyof Usage, value: number | null | undefined): void {
  if (typeof value === "number" && Number.isFinite(value)) target[field] = value;
}
