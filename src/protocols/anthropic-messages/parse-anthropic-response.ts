import type { ToolCall } from "../../core/message.ts";
import type { AssistantMessage, Response } from "../../core/response.ts";
import { toolCallFrom } from "../tool-call-tracker.ts";
import { ANTHROPIC_MESSAGES, type AnthropicBlock, type AnthropicMessage } from "./anthropic-wire.ts";
import { mapAnthropicStopReason } from "./map-anthropic-stop-reason.ts";
import { mapAnthropicUsage } from "./map-anthropic-usage.ts";

/** Where a response came from: stamped on `Response` and on `native` for replay matching. */
export interface AnthropicResponseContext {
  /** Provider name for `Response.provider` (`"anthropic"`, `"bedrock"`). */
  provider: string;
  /** The model the request named: `native.model`, so the next request to it replays these blocks. */
  model: string;
  /** Endpoint kind: `"anthropic"` or `"bedrock"`. */
  origin: string;
  warnings?: readonly string[];
}

/** `Response.refusal` of a refusal that came with neither text nor an explanation. */
export const DEFAULT_REFUSAL = "The model declined to answer (stop_reason: refusal).";

/** The refusal's words: the model's text, else the API's explanation, else {@link DEFAULT_REFUSAL}. */
function refusalText(text: string, details: unknown): string {
  if (text.trim() !== "") return text;
  const explanation = (details as { explanation?: unknown } | null | undefined)?.explanation;
  return typeof explanation === "string" && explanation.trim() !== "" ? explanation : DEFAULT_REFUSAL;
}

/** Whether a 2xx JSON body is a Messages API message (it has a `content` array), first-party or on Bedrock. */
export function isAnthropicMessage(json: object): json is AnthropicMessage {
  return Array.isArray((json as AnthropicMessage).content);
}

/** What the stream assembler read beyond the message it rebuilt (see {@link parseAnthropicResponse}). */
export interface AnthropicStreamReading {
  /** Raw argument text of tool_use blocks whose streamed input was not valid JSON, by block. */
  malformedInput?: ReadonlyMap<AnthropicBlock, string>;
  /** What reading the stream could not keep as it came (after `context.warnings`). */
  warnings?: readonly string[];
}

/**
 * A whole Messages API response → `Response`. `native.blocks` is the `content` array verbatim (signed
 * thinking, redacted thinking, server tool blocks included); text is the text blocks joined; client
 * `tool_use` blocks become tool calls; thinking text becomes the display-only `reasoning`. A
 * `stop_reason: "refusal"` is a refusal: `refusal` holds the text the model wrote, else the
 * `stop_details.explanation`, else {@link DEFAULT_REFUSAL}; `stopReason` is `content-filter`.
 *
 * The stream assembler hands its rebuilt message here too (with what only a stream has: `reading`), so a
 * whole answer and the same answer streamed give the very same `Response`.
 */
export function parseAnthropicResponse(
  json: AnthropicMessage,
  context: AnthropicResponseContext,
  reading: AnthropicStreamReading = {},
): Response {
  const blocks = Array.isArray(json.content) ? json.content : [];
  let text = "";
  let reasoning = "";
  const toolCalls: ToolCall[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        if (typeof block.text === "string") text += block.text;
        break;
      case "thinking":
        if (typeof block.thinking === "string") reasoning += block.thinking;
        break;
      case "tool_use":
        toolCalls.push(toolCallFrom(block.id, block.name, block.input, reading.malformedInput?.get(block)));
        break;
    }
  }
  const message: AssistantMessage = {
    role: "assistant",
    content: text,
    toolCalls,
    toolResults: [],
    synthetic: false,
    native: {
      protocol: ANTHROPIC_MESSAGES,
      origin: context.origin,
      model: context.model,
      blocks,
    },
  };
  const response: Response = {
    message,
    usage: mapAnthropicUsage(json.usage),
    stopReason: mapAnthropicStopReason(json.stop_reason),
    model: json.model ?? context.model,
    provider: context.provider,
  };
  if (json.stop_reason) response.rawStopReason = json.stop_reason;
  if (json.stop_reason === "refusal") response.refusal = refusalText(text, json.stop_details);
  if (json.id) response.id = json.id;
  if (reasoning) response.reasoning = reasoning;
  const warnings = [...(context.warnings ?? []), ...(reading.warnings ?? [])];
  if (warnings.length > 0) response.warnings = warnings;
  return response;
}
