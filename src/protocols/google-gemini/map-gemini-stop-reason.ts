import type { StopReason } from "../../core/response.ts";

/**
 * Gemini `finishReason` → neutral stop reason. Function calls end with `STOP` on this wire, so
 * `hasToolCalls` turns `STOP` into `tool-calls`. A blocked prompt has no candidate: its
 * `promptFeedback.blockReason` is passed as the reason and is `content-filter` like every filter:
 * `SAFETY`, `RECITATION`, `BLOCKLIST`, `PROHIBITED_CONTENT`, `SPII`, `LANGUAGE`, the `IMAGE_*` ones,
 * `MODEL_ARMOR`, `JAILBREAK`. A call the model botched (`MALFORMED_FUNCTION_CALL`, `UNEXPECTED_TOOL_CALL`,
 * `TOO_MANY_TOOL_CALLS`, `MALFORMED_RESPONSE`, `MISSING_THOUGHT_SIGNATURE`) is `error`; `MAX_TOKENS` is
 * `length`; a missing reason is `stop`; anything else (`OTHER`, `FINISH_REASON_UNSPECIFIED`,
 * `CONTINUATION`, reasons this version does not know) is `other`. The raw value is kept in `rawStopReason`.
 *
 * @see https://ai.google.dev/api/generate-content#FinishReason
 */
export function mapGeminiStopReason(raw: string | null | undefined, hasToolCalls = false): StopReason {
  switch (raw) {
    case "STOP":
      return hasToolCalls ? "tool-calls" : "stop";
    case null:
    case undefined:
      return hasToolCalls ? "tool-calls" : "stop";
    case "MAX_TOKENS":
      return "length";
    case "SAFETY":
    case "RECITATION":
    case "BLOCKLIST":
    case "PROHIBITED_CONTENT":
    case "SPII":
    case "LANGUAGE":
    case "IMAGE_SAFETY":
    case "IMAGE_PROHIBITED_CONTENT":
    case "IMAGE_RECITATION":
    case "IMAGE_OTHER":
    case "MODEL_ARMOR":
    case "JAILBREAK":
      return "content-filter";
    case "MALFORMED_FUNCTION_CALL":
    case "UNEXPECTED_TOOL_CALL":
    case "TOO_MANY_TOOL_CALLS":
    case "MALFORMED_RESPONSE":
    case "MISSING_THOUGHT_SIGNATURE":
      return "error";
    default:
      return "other";
  }
}
