import type { StopReason } from "../../core/response.ts";

/**
 * Chat Completions `finish_reason` → neutral stop reason. Unknown values map to `other` (the raw value is
 * kept in `rawStopReason`); a missing one (some servers never send it) is a plain stop.
 *
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-choices
 */
export function mapOpenAIChatStopReason(raw: string | null | undefined): StopReason {
  switch (raw) {
    case "stop":
    case "eos":
    case "end_turn":
      return "stop";
    case "length":
    case "max_tokens":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool-calls";
    case "content_filter":
      return "content-filter";
    case "error":
      return "error";
    case null:
    case undefined:
      return "stop";
    default:
      return "other";
  }
}
