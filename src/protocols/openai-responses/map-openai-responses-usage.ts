import type { Usage } from "../../core/usage.ts";
import type { OpenAIResponsesUsage } from "./openai-responses-wire.ts";

/**
 * Responses usage → neutral usage. `input_tokens` counts every input token, cache reads
 * (`input_tokens_details.cached_tokens`) and cache writes (`input_tokens_details.cache_write_tokens`)
 * included, so `inputTokens` is `input_tokens − cached − written`, with the other two in their own fields.
 * `output_tokens_details.reasoning_tokens` → `reasoningTokens`. Every count keeps 0 as 0 and absent as
 * `undefined` (seed 004: "reasoning_tokens zero handling").
 *
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
 */
export function mapOpenAIResponsesUsage(usage: OpenAIResponsesUsage | null | undefined): Usage {
  const result: Usage = {};
  if (typeof usage !== "object" || usage === null) return result;
  const input = count(usage.input_tokens);
  const details = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : undefined;
  const cached = count(details?.cached_tokens);
  const written = count(details?.cache_write_tokens);
  if (input !== undefined) result.inputTokens = Math.max(0, input - (cached ?? 0) - (written ?? 0));
  const output = count(usage.output_tokens);
  if (output !== undefined) result.outputTokens = output;
  if (cached !== undefined) result.cachedInputTokens = cached;
  if (written !== undefined) result.cacheWriteTokens = written;
  const outputDetails = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : undefined;
  const reasoning = count(outputDetails?.reasoning_tokens);
  if (reasoning !== undefined) result.reasoningTokens = reasoning;
  return result;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
