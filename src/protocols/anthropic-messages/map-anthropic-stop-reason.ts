import type { StopReason } from "../../core/response.ts";

/**
 * Anthropic `stop_reason` → neutral stop reason. Unknown values map to `other`; the raw value is kept by
 * the caller in `rawStopReason`.
 *
 * @see https://docs.anthropic.com/en/api/messages#response-stop-reason
 */
export function mapAnthropicStopReason(raw: string | null | undefined): StopReason {
  switch (raw) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool-calls";
    case "refusal":
      return "content-filter";
    case "pause_turn":
    // Server-side compaction with `pause_after_compaction`: the turn resumes when sent again.
    case "compaction":
      return "pause";
    case null:
    case undefined:
      return "stop";
    default:
      return "other";
  }
}
