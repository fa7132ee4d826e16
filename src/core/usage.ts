/**
 * Token usage. One convention for every provider:
 *
 * - `inputTokens` counts **uncached** input only. Cache reads (`cachedInputTokens`) and cache writes
 *   (`cacheWriteTokens`) are their own counts, so total input is the sum of the three. OpenAI's
 *   `prompt_tokens` includes its cached tokens and Anthropic's `input_tokens` does not: each adapter
 *   normalises to this convention, and none folds one count into another.
 * - Every count is optional: `undefined` means "not reported", `0` means "reported zero".
 *
 * @module
 */
import * as z from "zod/mini";

const count = () => z.optional(z.number().check(z.int(), z.nonnegative()));

/** Token counts of one call, or of several added together. `undefined` = not reported; `0` = reported zero. */
export interface Usage {
  /** Uncached input tokens. */
  inputTokens?: number;
  outputTokens?: number;
  /** Input tokens read from the prompt cache. */
  cachedInputTokens?: number;
  /** Input tokens written to the prompt cache (all TTLs). */
  cacheWriteTokens?: number;
  /** Of `cacheWriteTokens`, those written with a 5-minute TTL, where the provider says. */
  cacheWrite5mTokens?: number;
  /** Of `cacheWriteTokens`, those written with a 1-hour TTL, where the provider says. */
  cacheWrite1hTokens?: number;
  /** Of `outputTokens`, those spent on reasoning, where the provider says. */
  reasoningTokens?: number;
}

/** Validates a {@link Usage}: every count optional, a non-negative integer when present. */
export const UsageSchema: z.ZodMiniType<Usage, Usage> = z.object({
  inputTokens: count(),
  outputTokens: count(),
  cachedInputTokens: count(),
  cacheWriteTokens: count(),
  cacheWrite5mTokens: count(),
  cacheWrite1hTokens: count(),
  reasoningTokens: count(),
});

const FIELDS = [
  "inputTokens",
  "outputTokens",
  "cachedInputTokens",
  "cacheWriteTokens",
  "cacheWrite5mTokens",
  "cacheWrite1hTokens",
  "reasoningTokens",
] as const satisfies readonly (keyof Usage)[];

/**
 * Adds usages field by field. A field reported by neither side stays `undefined` ("not reported"); a field
 * reported by at least one side is the sum of what was reported, so `0` stays distinct from absent.
 */
export function addUsage(...usages: readonly (Usage | undefined)[]): Usage {
  const total: Usage = {};
  for (const usage of usages) {
    if (!usage) continue;
    for (const field of FIELDS) {
      const value = usage[field];
      if (value !== undefined) total[field] = (total[field] ?? 0) + value;
    }
  }
  return total;
}

/**
 * Total input tokens: uncached + cache reads + cache writes. `undefined` when none of the three was
 * reported.
 */
export function totalInputTokens(usage: Usage): number | undefined {
  const { inputTokens, cachedInputTokens, cacheWriteTokens } = usage;
  if (inputTokens === undefined && cachedInputTokens === undefined && cacheWriteTokens === undefined) {
    return undefined;
  }
  return (inputTokens ?? 0) + (cachedInputTokens ?? 0) + (cacheWriteTokens ?? 0);
}
