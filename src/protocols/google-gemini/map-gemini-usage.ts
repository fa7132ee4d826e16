import type { Usage } from "../../core/usage.ts";
import type { GeminiUsage } from "./google-gemini-wire.ts";

/**
 * Gemini `usageMetadata` → neutral usage:
 * - `inputTokens` = `promptTokenCount` (which includes cached content) + `toolUsePromptTokenCount` (server
 *   tools' prompt, billed as input) − `cachedContentTokenCount`: uncached input only;
 * - `cachedInputTokens` = `cachedContentTokenCount` (Gemini reports no cache writes);
 * - `outputTokens` = `candidatesTokenCount` + `thoughtsTokenCount` (thoughts are billed as output; the
 *   answer's count excludes them), `reasoningTokens` = `thoughtsTokenCount`.
 *
 * A count the API did not send stays undefined, a reported 0 stays 0. The API leaves zero counts out of a
 * usage it does send; where the output count can be read from the others (`totalTokenCount` − prompt −
 * tool prompt) it is, so an answer cut to nothing reports 0 output, not "unknown". A usage with no count
 * at all (a blocked prompt: `{ trafficType }` only) is all undefined.
 *
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function mapGeminiUsage(usage: GeminiUsage | null | undefined): Usage {
  const result: Usage = {};
  if (!usage || typeof usage !== "object") return result;
  const prompt = count(usage.promptTokenCount);
  const cached = count(usage.cachedContentTokenCount);
  const toolPrompt = count(usage.toolUsePromptTokenCount);
  const candidates = count(usage.candidatesTokenCount);
  const thoughts = count(usage.thoughtsTokenCount);
  const total = count(usage.totalTokenCount);
  if (prompt !== undefined || toolPrompt !== undefined) {
    result.inputTokens = Math.max(0, (prompt ?? 0) + (toolPrompt ?? 0) - (cached ?? 0));
  }
  if (cached !== undefined) result.cachedInputTokens = cached;
  if (candidates !== undefined || thoughts !== undefined) {
    result.outputTokens = (candidates ?? 0) + (thoughts ?? 0);
  } else if (total !== undefined && prompt !== undefined) {
    result.outputTokens = Math.max(0, total - prompt - (toolPrompt ?? 0));
  }
  if (thoughts !== undefined) result.reasoningTokens = thoughts;
  return result;
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : undefined;
}
