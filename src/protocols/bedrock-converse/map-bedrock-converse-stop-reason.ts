import type { StopReason } from "../../core/response.ts";

/**
 * Converse `stopReason` → neutral stop reason. Unknown values map to `other`; the raw value is kept by the
 * caller in `rawStopReason`.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax
 */
export function mapBedrockConverseStopReason(raw: string | null | undefined): StopReason {
  switch (raw) {
    case "end_turn":
    case "stop_sequence":
    case null:
    case undefined:
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool-calls";
    case "guardrail_intervened":
    case "content_filtered":
      return "content-filter";
    default:
      return "other";
  }
}
