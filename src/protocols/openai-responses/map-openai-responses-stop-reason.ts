import type { StopReason } from "../../core/response.ts";

/**
 * A response's `status` (and `incomplete_details.reason`) → neutral stop reason:
 * - `completed` (or no status at all) → `tool-calls` when the output has tool calls, else `stop`;
 * - `incomplete` because of `max_output_tokens` → `length`, because of `content_filter` → `content-filter`;
 * - `failed` → `error` (a call that failed is a `ProviderError`; this only labels what a caller rebuilds);
 * - anything else (`cancelled`, `in_progress`, a status this version does not know) → `other`.
 *
 * The raw value (`rawStopReason`) is the incomplete reason when there is one, else the status.
 */
export function mapOpenAIResponsesStopReason(
  status: string | null | undefined,
  incompleteReason: string | null | undefined,
  hasToolCalls: boolean,
): { stopReason: StopReason; rawStopReason: string | undefined } {
  const reason =
    typeof incompleteReason === "string" && incompleteReason !== "" ? incompleteReason : undefined;
  const raw = typeof status === "string" && status !== "" ? status : undefined;
  switch (raw) {
    case undefined:
    case "completed":
      return { stopReason: hasToolCalls ? "tool-calls" : "stop", rawStopReason: raw };
    case "incomplete":
      return {
        stopReason:
          reason === "max_output_tokens"
            ? "length"
            : reason === "content_filter"
              ? "content-filter"
              : "other",
        rawStopReason: reason ?? raw,
      };
    case "failed":
      return { stopReason: "error", rawStopReason: raw };
    default:
      return { stopReason: "other", rawStopReason: raw };
  }
}
