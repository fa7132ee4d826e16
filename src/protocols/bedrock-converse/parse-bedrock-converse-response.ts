import type { ToolCall } from "../../core/message.ts";
import type { AssistantMessage, Response } from "../../core/response.ts";
import { toolCallFrom } from "../tool-call-tracker.ts";
import { BEDROCK_CONVERSE, type ConverseBlock, type ConverseResponse } from "./bedrock-converse-wire.ts";
import { mapBedrockConverseStopReason } from "./map-bedrock-converse-stop-reason.ts";
import { mapBedrockConverseUsage } from "./map-bedrock-converse-usage.ts";

/** Where a response came from: stamped on `Response` and on `native` for replay matching. */
export interface BedrockConverseResponseContext {
  /** Provider name for `Response.provider` (`"bedrock"`). */
  provider: string;
  /** The model id the request named: `Response.model` and `native.model`. */
  model: string;
  /** Endpoint kind: `"bedrock"`. */
  origin: string;
  warnings?: readonly string[];
}

/**
 * A whole Converse response → `Response`. `native.blocks` is `output.message.content` verbatim (signed
 * `reasoningContent`, `redactedContent`, server tool blocks included); text is the text blocks joined; client
 * `toolUse` blocks become tool calls; readable reasoning becomes the display-only `reasoning`. A
 * `guardrail_intervened` or `content_filtered` stop is `content-filter`, its text (the guardrail's
 * message) also in `refusal`.
 */
export function parseBedrockConverseResponse(
  json: ConverseResponse,
  context: BedrockConverseResponseContext,
): Response {
  const content = json.output?.message?.content;
  return converseResponseFromBlocks(Array.isArray(content) ? content : [], {
    stopReason: json.stopReason,
    usage: mapBedrockConverseUsage(json.usage),
    context,
  });
}

/** Shared by the JSON parser and the stream assembler, so both build the very same `Response`. */
export function converseResponseFromBlocks(
  blocks: ConverseBlock[],
  parts: {
    stopReason: string | null | undefined;
    usage: Response["usage"];
    context: BedrockConverseResponseContext;
    /** Raw input text of `toolUse` blocks whose streamed input was not a JSON object, by block. */
    malformedInput?: ReadonlyMap<ConverseBlock, string>;
    /** What reading the answer could not keep as it came (after `context.warnings`). */
    warnings?: readonly string[];
  },
): Response {
  let text = "";
  let reasoning = "";
  const toolCalls: ToolCall[] = [];
  for (const block of blocks) {
    if (typeof block !== "object" || block === null) continue;
    if (typeof block.text === "string") {
      text += block.text;
      continue;
    }
    const readable = block.reasoningContent?.reasoningText;
    if (typeof readable?.text === "string") {
      reasoning += readable.text;
      continue;
    }
    const call = block.toolUse;
    if (typeof call === "object" && call !== null && (call.type === undefined || call.type === "tool_use")) {
      toolCalls.push(toolCallFrom(call.toolUseId, call.name, call.input, parts.malformedInput?.get(block)));
    }
  }
  const message: AssistantMessage = {
    role: "assistant",
    content: text,
    toolCalls,
    toolResults: [],
    synthetic: false,
    native: {
      protocol: BEDROCK_CONVERSE,
      origin: parts.context.origin,
      model: parts.context.model,
      blocks,
    },
  };
  const response: Response = {
    message,
    usage: parts.usage,
    stopReason: mapBedrockConverseStopReason(parts.stopReason),
    model: parts.context.model,
    provider: parts.context.provider,
  };
  if (parts.stopReason) response.rawStopReason = parts.stopReason;
  // A guardrail's or the content filter's stop: the text is what was sent instead of an answer.
  if (response.stopReason === "content-filter" && text.trim() !== "") response.refusal = text;
  if (reasoning) response.reasoning = reasoning;
  const warnings = [...(parts.context.warnings ?? []), ...(parts.warnings ?? [])];
  if (warnings.length > 0) response.warnings = warnings;
  return response;
}
