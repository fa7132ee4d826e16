import type { ToolCall } from "../../core/message.ts";
import type { AssistantMessage, Response } from "../../core/response.ts";
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

/** Whether a 2xx JSON body is a Messages API message (it has a `content` array), first-party or on Bedrock. */
export function isAnthropicMessage(json: object): json is AnthropicMessage {
  return Array.isArray((json as AnthropicMessage).content);
}

/**
 * A whole Messages API response → `Response`. `native.blocks` is the `content` array verbatim (signed
 * thinking, redacted thinking, server tool blocks included); text is the text blocks joined; client
 * `tool_use` blocks become tool calls; thinking text becomes the display-only `reasoning`.
 */
export function parseAnthropicResponse(json: AnthropicMessage, context: AnthropicResponseContext): Response {
  const blocks = Array.isArray(json.content) ? json.content : [];
  return anthropicResponseFromBlocks(blocks, {
    id: json.id,
    model: json.model,
    stopReason: json.stop_reason,
    usage: mapAnthropicUsage(json.usage),
    context,
  });
}

/** Shared by the JSON parser and the stream assembler, so both build the very same `Response`. */
export function anthropicResponseFromBlocks(
  blocks: AnthropicBlock[],
  parts: {
    id: string | undefined;
    model: string | undefined;
    stopReason: string | null | undefined;
    usage: Response["usage"];
    context: AnthropicResponseContext;
    /** Raw argument text of tool_use blocks whose streamed input was not valid JSON, by block. */
    malformedInput?: ReadonlyMap<AnthropicBlock, string>;
  },
): Response {
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
      case "tool_use": {
        const input = block.input;
        const call: ToolCall = {
          id: String(block.id),
          name: String(block.name),
          arguments:
            typeof input === "object" && input !== null && !Array.isArray(input)
              ? (input as ToolCall["arguments"])
              : {},
        };
        const raw = parts.malformedInput?.get(block);
        if (raw !== undefined) call.argumentsText = raw;
        toolCalls.push(call);
        break;
      }
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
      origin: parts.context.origin,
      model: parts.context.model,
      blocks,
    },
  };
  const response: Response = {
    message,
    usage: parts.usage,
    stopReason: mapAnthropicStopReason(parts.stopReason),
    model: parts.model ?? parts.context.model,
    provider: parts.context.provider,
  };
  if (parts.stopReason) response.rawStopReason = parts.stopReason;
  if (parts.id) response.id = parts.id;
  if (reasoning) response.reasoning = reasoning;
  if (parts.context.warnings?.length) response.warnings = [...parts.context.warnings];
  return response;
}
