/**
 * A neutral `Response` in the Messages dialect: the `Message` object (`messages.create`), and the pieces
 * the stream shares with it — the stop reason, the usage, the reasoning envelope block.
 *
 * - Content blocks, in order: the readable reasoning as a `thinking` block (its `signature` is `""`: it
 *   is a display copy), the text, the tool calls as `tool_use` blocks, and — when the route's own turn
 *   holds reasoning (`message.native`: Responses reasoning items, Chat `reasoning_content`, Converse
 *   `reasoningContent`) — a last `thinking` block with empty text whose `signature` is the reasoning
 *   envelope (`reasoning-envelope.ts`), which clients replay untouched on the next turn.
 * - Usage: `input_tokens` is uncached input, as the neutral `inputTokens` is; cache reads and writes are
 *   `cache_read_input_tokens` and `cache_creation_input_tokens`, `null` when the route did not report
 *   them. `input_tokens` and `output_tokens` are required numbers in the API's schema: one the route did
 *   not report is `0` there, and a warning says so.
 *
 * @module
 */
import type { Response as ModelResponse } from "../../core/response.ts";
import type { Usage } from "../../core/usage.ts";
import { isReasoningBlock } from "../../protocols/native-replay.ts";
import { wrapReasoning } from "../reasoning-envelope.ts";

/** An Anthropic `stop_reason`. */
export type AnthropicStopReason =
  | "end_turn"
  | "max_tokens"
  | "stop_sequence"
  | "tool_use"
  | "pause_turn"
  | "refusal"
  | "model_context_window_exceeded";

/** The neutral stop reason (and the route's own value) as a `stop_reason`; `warnings` hears of an `error`. */
export function anthropicStopReasonOf(response: ModelResponse, warnings: string[]): AnthropicStopReason {
  const raw = response.rawStopReason;
  switch (response.stopReason) {
    case "stop":
      return raw === "stop_sequence" ? "stop_sequence" : "end_turn";
    case "length":
      return raw === "model_context_window_exceeded" ? raw : "max_tokens";
    case "tool-calls":
      return "tool_use";
    case "content-filter":
      return "refusal";
    case "pause":
      return "pause_turn";
    case "error":
      warnings.push(`the route reported an error as its stop reason (${raw ?? "error"}); sent as end_turn`);
      return "end_turn";
    default:
      return "end_turn";
  }
}

/** The usage object of a `Message` (and of `message_delta`, with `input_tokens` nullable there). */
export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number | null;
  cache_read_input_tokens: number | null;
  cache_creation?: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

/** Neutral usage as Anthropic's; a warning for each required count the route did not report. */
export function anthropicUsageOf(usage: Usage, warnings?: string[]): AnthropicUsage {
  const unreported = (["inputTokens", "outputTokens"] as const).filter((field) => usage[field] === undefined);
  if (warnings && unreported.length > 0) {
    const names = unreported.map((field) => (field === "inputTokens" ? "input_tokens" : "output_tokens"));
    warnings.push(`usage: the route did not report ${names.join(" or ")}; 0 is sent in its place`);
  }
  const result: AnthropicUsage = {
    input_tokens: usage.inputTokens ?? 0,
    output_tokens: usage.outputTokens ?? 0,
    cache_creation_input_tokens: usage.cacheWriteTokens ?? null,
    cache_read_input_tokens: usage.cachedInputTokens ?? null,
  };
  if (usage.cacheWrite5mTokens !== undefined || usage.cacheWrite1hTokens !== undefined) {
    result.cache_creation = {
      ephemeral_5m_input_tokens: usage.cacheWrite5mTokens ?? 0,
      ephemeral_1h_input_tokens: usage.cacheWrite1hTokens ?? 0,
    };
  }
  return result;
}

/**
 * The reasoning envelope of a converted answer: the route's native turn, when it holds reasoning, wrapped
 * for `route` (the canonical route name); undefined otherwise.
 */
export function envelopeOf(response: ModelResponse, route: string): string | undefined {
  const native = response.message.native;
  if (native === undefined || !native.blocks.some(isReasoningBlock)) return undefined;
  return wrapReasoning({ route, native });
}

/** A fresh `msg_…` id. */
export function messageId(): string {
  return `msg_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** The text a converted answer shows: its content, or its refusal when it said nothing else. */
export function answerText(response: ModelResponse): string {
  const text = response.message.content;
  return text === "" && response.refusal !== undefined ? response.refusal : text;
}

/**
 * A neutral `Response` as an Anthropic `Message`. `model` is the name the client asked for, `route` the
 * canonical route (for the envelope); `warnings` receives what the answer could not carry.
 */
export function anthropicMessageOf(
  response: ModelResponse,
  model: string,
  route: string,
  warnings: string[],
): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  if (response.reasoning) content.push({ type: "thinking", thinking: response.reasoning, signature: "" });
  const text = answerText(response);
  if (text !== "") content.push({ type: "text", text, citations: null });
  for (const call of response.message.toolCalls) {
    content.push({ type: "tool_use", id: call.id, name: call.name, input: call.arguments });
  }
  const envelope = envelopeOf(response, route);
  if (envelope !== undefined) content.push({ type: "thinking", thinking: "", signature: envelope });
  return {
    id: messageId(),
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: anthropicStopReasonOf(response, warnings),
    stop_sequence: null,
    usage: anthropicUsageOf(response.usage, warnings),
  };
}
