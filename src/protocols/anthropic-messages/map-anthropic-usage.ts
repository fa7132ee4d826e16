import type { Usage } from "../../core/usage.ts";
import type { AnthropicUsage } from "./anthropic-wire.ts";

/**
 * Anthropic usage → neutral usage. Anthropic's `input_tokens` already excludes cache reads and writes, so
 * it maps straight to `inputTokens`; cache reads → `cachedInputTokens`, cache creation → `cacheWriteTokens`
 * (with the 5-minute / 1-hour split from `cache_creation`); `output_tokens_details.thinking_tokens` →
 * `reasoningTokens`. A field the API did not send stays undefined; a reported 0 stays 0. With
 * `iterations`, a server-side compaction step's counts are added (the top level counts the `message`
 * iterations only; the compaction step is billed too).
 *
 * @see https://docs.anthropic.com/en/api/messages#response-usage
 */
export function mapAnthropicUsage(wire: AnthropicUsage | null | undefined): Usage {
  const result: Usage = {};
  if (!wire) return result;
  const usage = Array.isArray(wire.iterations) ? summed(wire) : wire;
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

/**
 * A usage with its compaction iterations added: the top level counts the `message` iterations only, and a
 * server-side compaction step (same model) is billed too. Other iterations (an advisor's, on another
 * model) are not this model's tokens and stay out.
 */
function summed(usage: AnthropicUsage): AnthropicUsage {
  const steps = usage.iterations!.filter(
    (item) => typeof item === "object" && item !== null && item.type === "compaction",
  );
  if (steps.length === 0) return usage;
  const plus = (
    top: number | null | undefined,
    pick: (item: AnthropicUsage) => number | null | undefined,
  ) => {
    let total = typeof top === "number" ? top : undefined;
    for (const item of steps) {
      const value = pick(item);
      if (typeof value === "number") total = (total ?? 0) + value;
    }
    return total;
  };
  return {
    ...usage,
    input_tokens: plus(usage.input_tokens, (item) => item.input_tokens),
    output_tokens: plus(usage.output_tokens, (item) => item.output_tokens),
    cache_read_input_tokens: plus(usage.cache_read_input_tokens, (item) => item.cache_read_input_tokens),
    cache_creation_input_tokens: plus(
      usage.cache_creation_input_tokens,
      (item) => item.cache_creation_input_tokens,
    ),
    cache_creation: {
      ephemeral_5m_input_tokens: plus(
        usage.cache_creation?.ephemeral_5m_input_tokens,
        (item) => item.cache_creation?.ephemeral_5m_input_tokens,
      ),
      ephemeral_1h_input_tokens: plus(
        usage.cache_creation?.ephemeral_1h_input_tokens,
        (item) => item.cache_creation?.ephemeral_1h_input_tokens,
      ),
    },
  };
}
