import type { Usage } from "../../core/usage.ts";
import type { OpenAIChatUsage } from "./openai-chat-wire.ts";

/**
 * Chat Completions usage → neutral usage. `prompt_tokens` includes cached tokens on OpenAI, so
 * `inputTokens` is `prompt_tokens − cached`; `cachedInputTokens` comes from
 * `prompt_tokens_details.cached_tokens` (or DeepSeek's `prompt_cache_hit_tokens`); no Chat server reports
 * cache writes, so `cacheWriteTokens` stays undefined. `completion_tokens_details.reasoning_tokens` →
 * `reasoningTokens`, with 0 kept as 0 and absent kept undefined.
 *
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage
 */
export function mapOpenAIChatUsage(usage: OpenAIChatUsage | null | undefined): Usage {
  const result: Usage = {};
  if (!usage) return result;
  const prompt = count(usage.prompt_tokens);
  const cached = count(usage.prompt_tokens_details?.cached_tokens) ?? count(usage.prompt_cache_hit_tokens);
  if (prompt !== undefined) result.inputTokens = Math.max(0, prompt - (cached ?? 0));
  if (cached !== undefined) result.cachedInputTokens = cached;
  const completion = count(usage.completion_tokens);
  if (completion !== undefined) result.outputTokens = completion;
  const reasoning = count(usage.completion_tokens_details?.reasoning_tokens);
  if (reasoning !== undefined) result.reasoningTokens = reasoning;
  return result;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}
