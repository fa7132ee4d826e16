import type { Usage } from "../../core/usage.ts";
import type { ConverseUsage } from "./bedrock-converse-wire.ts";

/**
 * Converse usage → neutral usage. Converse's `inputTokens` already excludes cache reads and writes (its
 * `totalTokens` is the sum of all four counts), so it maps straight to `inputTokens`; `cacheReadInputTokens`
 * → `cachedInputTokens`, `cacheWriteInputTokens` → `cacheWriteTokens` (the older `…TokenCount` duplicates
 * when only they are present). A field Bedrock did not send stays undefined; a reported 0 stays 0.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html
 */
export function mapBedrockConverseUsage(usage: ConverseUsage | null | undefined): Usage {
  const result: Usage = {};
  if (!usage) return result;
  set(result, "inputTokens", usage.inputTokens);
  set(result, "outputTokens", usage.outputTokens);
  set(result, "cachedInputTokens", usage.cacheReadInputTokens ?? usage.cacheReadInputTokenCount);
  set(result, "cacheWriteTokens", usage.cacheWriteInputTokens ?? usage.cacheWriteInputTokenCount);
  return result;
}

function set(target: Usage, field: keyof Usage, value: number | null | undefined): void {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) target[field] = value;
}
