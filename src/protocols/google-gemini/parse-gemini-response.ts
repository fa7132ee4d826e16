import type { ToolCall } from "../../core/message.ts";
import type { AssistantMessage, Response } from "../../core/response.ts";
import { toolCallFrom } from "../tool-call-tracker.ts";
import { type GeminiPart, type GeminiResponse, GOOGLE_GEMINI } from "./google-gemini-wire.ts";
import { mapGeminiStopReason } from "./map-gemini-stop-reason.ts";
import { mapGeminiUsage } from "./map-gemini-usage.ts";

/** Where a response came from: stamped on `Response` and on `native` for replay matching. */
export interface GeminiResponseContext {
  /** `Response.provider` (`"gemini"`, `"vertex"`). */
  provider: string;
  /** The model the request named: `native.model`, so the next request to it replays these parts. */
  model: string;
  /** Endpoint kind: `"gemini"` (Gemini API) or `"vertex"` (Vertex AI). */
  origin: string;
  warnings?: readonly string[] | undefined;
}

/** Whether a 2xx JSON body is a `GenerateContentResponse` (it has candidates or a prompt verdict). */
export function isGeminiResponse(json: object): json is GeminiResponse {
  const answer = json as GeminiResponse;
  return (
    !("error" in json) && (Array.isArray(answer.candidates) || typeof answer.promptFeedback === "object")
  );
}

/**
 * The id of a function call: the one the API gave, else one made from the response id and the call's
 * position — the same for the whole answer and for the same answer streamed, so results bind to it.
 */
export function geminiCallId(id: unknown, responseId: unknown, position: number): string {
  if (typeof id === "string" && id !== "") return id;
  return `${typeof responseId === "string" && responseId !== "" ? responseId : "gemini"}_call_${position}`;
}

/** `Response.refusal` of a blocked prompt or answer that came with no words of its own. */
export function geminiRefusal(reason: string, message: unknown): string {
  return typeof message === "string" && message.trim() !== ""
    ? message
    : `The answer was blocked (${reason}).`;
}

/**
 * A whole `generateContent` answer → `Response`. `native.blocks` is the first candidate's `content.parts`
 * verbatim (text, thought summaries, function calls, server tool parts, each with its `thoughtSignature`
 * where it came); text is the non-thought text parts joined; thought text becomes the display-only
 * `reasoning`; `functionCall` parts become tool calls (`geminiCallId`). `finishReason` goes through
 * `mapGeminiStopReason` (`STOP` with calls is `tool-calls`); a blocked prompt (no candidate,
 * `promptFeedback.blockReason`) and a filtered answer are `content-filter`, with `refusal` saying why.
 * Missing `candidates`, `content` or `parts` are an empty answer, never an error.
 *
 * The stream assembler hands its rebuilt answer here too, so whole and streamed give the same `Response`.
 */
export function parseGeminiResponse(
  json: GeminiResponse,
  context: GeminiResponseContext,
  streamWarnings: readonly string[] = [],
): Response {
  const candidate = Array.isArray(json.candidates) ? json.candidates[0] : undefined;
  const content = candidate?.content;
  const blocks: GeminiPart[] = Array.isArray(content?.parts) ? content.parts : [];
  let text = "";
  let reasoning = "";
  const toolCalls: ToolCall[] = [];
  for (const part of blocks) {
    if (typeof part !== "object" || part === null) continue;
    if (typeof part.text === "string") {
      if (part.thought === true) reasoning += part.text;
      else text += part.text;
    }
    const call = part.functionCall;
    if (typeof call === "object" && call !== null) {
      toolCalls.push(
        toolCallFrom(geminiCallId(call.id, json.responseId, toolCalls.length), call.name, call.args),
      );
    }
  }
  const message: AssistantMessage = {
    role: "assistant",
    content: text,
    toolCalls,
    toolResults: [],
    synthetic: false,
    native: { protocol: GOOGLE_GEMINI, origin: context.origin, model: context.model, blocks },
  };
  const blocked = candidate === undefined ? json.promptFeedback?.blockReason : undefined;
  const raw = typeof blocked === "string" ? blocked : candidate?.finishReason;
  const response: Response = {
    message,
    usage: mapGeminiUsage(json.usageMetadata),
    stopReason: mapGeminiStopReason(raw, toolCalls.length > 0),
    model: typeof json.modelVersion === "string" ? json.modelVersion : context.model,
    provider: context.provider,
  };
  if (typeof raw === "string") response.rawStopReason = raw;
  if (response.stopReason === "content-filter" && typeof raw === "string") {
    response.refusal = geminiRefusal(
      raw,
      blocked !== undefined ? json.promptFeedback?.blockReasonMessage : candidate?.finishMessage,
    );
  }
  if (typeof json.responseId === "string") response.id = json.responseId;
  if (reasoning) response.reasoning = reasoning;
  const warnings = [...(context.warnings ?? []), ...streamWarnings];
  if (warnings.length > 0) response.warnings = warnings;
  return response;
}
