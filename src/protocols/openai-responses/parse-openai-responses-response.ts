import { parseToolArguments } from "../../core/collect-stream.ts";
import type { ToolCall } from "../../core/message.ts";
import type { ProviderError } from "../../core/provider-error.ts";
import type { AssistantMessage, Response } from "../../core/response.ts";
import { mapOpenAIResponsesStopReason } from "./map-openai-responses-stop-reason.ts";
import { mapOpenAIResponsesUsage } from "./map-openai-responses-usage.ts";
import { openAIResponsesFailure } from "./openai-responses-failure.ts";
import { OPENAI_RESPONSES, type OpenAIResponsesResponse } from "./openai-responses-wire.ts";

/** Where a response came from: stamped on `Response` and on `native` for replay matching. */
export interface OpenAIResponsesResponseContext {
  /** Provider name for `Response.provider`. */
  provider: string;
  /** The model the request named: `native.model`, so the next request to it replays these items. */
  model: string;
  /** Endpoint kind (`"openai"`, or the host of a Responses-compatible server): `native.origin`. */
  origin: string;
  warnings?: readonly string[];
}

/**
 * A whole Responses API response (the body of a non-streaming call) → `Response`. A `failed` response is
 * a `ProviderError`, as it is when it arrives as `response.failed` in a stream.
 */
export function parseOpenAIResponsesResponse(
  json: OpenAIResponsesResponse,
  context: OpenAIResponsesResponseContext,
): Response {
  if (json.status === "failed") throw openAIResponsesResponseFailure(json, context, false);
  return openAIResponsesResponse(json, Array.isArray(json.output) ? json.output : [], context);
}

/** The `ProviderError` for a `failed` response (its `error` names the code). */
export function openAIResponsesResponseFailure(
  json: OpenAIResponsesResponse,
  context: OpenAIResponsesResponseContext,
  partialOutput: boolean,
): ProviderError {
  return openAIResponsesFailure(json.error ?? {}, context, "response failed", partialOutput, json);
}

/**
 * The one place output items become a `Response`, shared by the JSON parser and the stream assembler so
 * both give the very same value.
 *
 * - `native.blocks` is `items` verbatim, in output order: reasoning items (ids, `encrypted_content`,
 *   summaries), message items (`phase` and annotations included), function calls, hosted-tool items.
 * - `content` is the `output_text` parts of the message items, joined. A `refusal` part (the model
 *   declined, e.g. under a strict `text.format`) is `refusal`, with stop reason `content-filter`; it is
 *   the content too when there is no other text. The message item stays in `native.blocks` as it came.
 * - `toolCalls` are the `function_call` items (`call_id`, name, arguments parsed, the exact text in
 *   `argumentsText`) and `custom_tool_call` items (`{ input }`, the input text in `argumentsText`), in order.
 * - `reasoning` (display only) is every summary and reasoning-text part, joined by a blank line.
 */
export function openAIResponsesResponse(
  json: OpenAIResponsesResponse,
  items: readonly unknown[],
  context: OpenAIResponsesResponseContext,
): Response {
  let text = "";
  let refusal = "";
  const reasoningParts: string[] = [];
  const toolCalls: ToolCall[] = [];
  const warnings: string[] = [];
  const idBase = typeof json.id === "string" && json.id !== "" ? json.id : "response";
  items.forEach((item, position) => {
    if (!isRecord(item)) return;
    switch (item.type) {
      case "message":
        if (!Array.isArray(item.content)) return;
        for (const part of item.content) {
          if (!isRecord(part)) continue;
          if (part.type === "output_text" && typeof part.text === "string") text += part.text;
          else if (part.type === "refusal" && typeof part.refusal === "string") refusal += part.refusal;
        }
        return;
      case "reasoning":
        reasoningParts.push(...reasoningTexts(item));
        return;
      case "function_call":
      case "custom_tool_call": {
        if (typeof item.name !== "string" || item.name === "") {
          warnings.push(`output[${position}]: ${item.type} without a name; left out of toolCalls`);
          return;
        }
        const id =
          typeof item.call_id === "string" && item.call_id !== ""
            ? item.call_id
            : fallbackCallId(idBase, toolCalls.length);
        if (item.type === "function_call") {
          const raw = typeof item.arguments === "string" ? item.arguments : "";
          toolCalls.push({ id, name: item.name, arguments: parseToolArguments(raw), argumentsText: raw });
        } else {
          const input = typeof item.input === "string" ? item.input : "";
          toolCalls.push({ id, name: item.name, arguments: { input }, argumentsText: input });
        }
        return;
      }
      default:
        // Hosted tools (web search, file search, code interpreter, …) run server-side: native only.
        return;
    }
  });

  const message: AssistantMessage = {
    role: "assistant",
    content: text === "" ? refusal : text,
    toolCalls,
    toolResults: [],
    synthetic: false,
    native: { protocol: OPENAI_RESPONSES, origin: context.origin, model: context.model, blocks: [...items] },
  };
  const mapped = mapOpenAIResponsesStopReason(
    json.status,
    json.incomplete_details?.reason,
    toolCalls.length > 0,
  );
  const response: Response = {
    message,
    usage: mapOpenAIResponsesUsage(json.usage),
    stopReason: refusal !== "" && mapped.stopReason === "stop" ? "content-filter" : mapped.stopReason,
    model: typeof json.model === "string" && json.model !== "" ? json.model : context.model,
    provider: context.provider,
  };
  if (mapped.rawStopReason !== undefined) response.rawStopReason = mapped.rawStopReason;
  if (typeof json.id === "string" && json.id !== "") response.id = json.id;
  if (refusal !== "") response.refusal = refusal;
  const reasoning = reasoningParts.join("\n\n");
  if (reasoning !== "") response.reasoning = reasoning;
  const allWarnings = [...(context.warnings ?? []), ...warnings];
  if (allWarnings.length > 0) response.warnings = allWarnings;
  return response;
}

/** The readable parts of a reasoning item: summary texts, then reasoning-text parts; empty ones left out. */
export function reasoningTexts(item: Record<string, unknown>): string[] {
  const parts: string[] = [];
  for (const field of ["summary", "content"] as const) {
    const list = item[field];
    if (!Array.isArray(list)) continue;
    for (const part of list) {
      if (isRecord(part) && typeof part.text === "string" && part.text !== "") parts.push(part.text);
    }
  }
  return parts;
}

/** The id given to a tool call whose item has no `call_id` (the stream assembler uses the same). */
export function fallbackCallId(responseId: string, position: number): string {
  return `call_${responseId}_${position}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
