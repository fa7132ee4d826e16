import { parseToolArguments } from "../../core/collect-stream.ts";
import type { ToolCall } from "../../core/message.ts";
import type { AssistantMessage, Response } from "../../core/response.ts";
import { parseTextToolCalls } from "../text-tool-calls/index.ts";
import { mapOpenAIChatStopReason } from "./map-openai-chat-stop-reason.ts";
import { mapOpenAIChatUsage } from "./map-openai-chat-usage.ts";
import {
  OPENAI_CHAT,
  type OpenAIChatCompletion,
  type OpenAIChatEndpointProfile,
  type OpenAIChatToolCall,
  type OpenAIChatUsage,
} from "./openai-chat-wire.ts";

/** Where a response came from. */
export interface OpenAIChatResponseContext {
  provider: string;
  /** The model the request named (becomes `native.model`). */
  model: string;
  profile: OpenAIChatEndpointProfile;
  warnings?: readonly string[];
}

/** One assistant message as read from a completion or assembled from a stream, before mapping. */
export interface AssembledOpenAIChatMessage {
  id: string | undefined;
  model: string | undefined;
  content: string;
  reasoning: string;
  refusal: string;
  /** In order of first appearance; `arguments` as the exact text the server sent. */
  toolCalls: Array<{ id: string | undefined; name: string; arguments: string }>;
  finishReason: string | null | undefined;
  usage: OpenAIChatUsage | null | undefined;
  /** Warnings from reading the answer (e.g. a malformed text tool call). */
  warnings: string[];
}

/**
 * A whole completion → `Response`. Reads `choices[0]`; text tool calls are parsed out of the content when
 * the endpoint profile names a format (the streaming path does the same, so both give one `Response`).
 */
export function parseOpenAIChatResponse(
  json: OpenAIChatCompletion,
  context: OpenAIChatResponseContext,
): Response {
  const choice = json.choices?.[0];
  const message = choice?.message ?? {};
  let content = typeof message.content === "string" ? message.content : "";
  const toolCalls: AssembledOpenAIChatMessage["toolCalls"] = [];
  const warnings: string[] = [];
  (message.tool_calls ?? []).forEach((call, position) => {
    const name = call?.function?.name;
    if (typeof name !== "string" || name === "") {
      // The same words the stream assembler uses, so stream() and complete() agree.
      warnings.push(`tool call at position ${position} never got a name; left out`);
      return;
    }
    toolCalls.push({ id: call.id ?? undefined, name, arguments: call.function?.arguments ?? "" });
  });
  // Text tool calls are parsed whenever the profile names a format, as the stream assembler does.
  if (context.profile.textToolCalls && content !== "") {
    const parsed = parseTextToolCalls(content, context.profile.textToolCalls);
    content = parsed.text;
    for (const call of parsed.toolCalls)
      toolCalls.push({ id: undefined, name: call.name, arguments: call.argumentsText });
    warnings.push(...parsed.warnings);
  }
  const reasoning = message.reasoning_content ?? message.reasoning;
  return openAIChatResponse(
    {
      id: json.id,
      model: json.model,
      content,
      reasoning: typeof reasoning === "string" ? reasoning : "",
      refusal: typeof message.refusal === "string" ? message.refusal : "",
      toolCalls,
      finishReason: choice?.finish_reason,
      usage: json.usage,
      warnings,
    },
    context,
  );
}

/**
 * The one place an assembled message becomes a `Response`, shared by the JSON and stream paths.
 * `native.blocks` holds a canonical assistant message (`content`, `tool_calls` with the exact argument
 * strings, `refusal`, `reasoning_content`), which is what replay needs, not the server's extra fields.
 */
export function openAIChatResponse(
  assembled: AssembledOpenAIChatMessage,
  context: OpenAIChatResponseContext,
): Response {
  const idBase = assembled.id && assembled.id !== "" ? assembled.id : "text";
  const wireCalls: OpenAIChatToolCall[] = assembled.toolCalls.map((call, index) => ({
    id: call.id && call.id !== "" ? call.id : `call_${idBase}_${index}`,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  }));
  const toolCalls: ToolCall[] = wireCalls.map((call) => {
    const parsed: ToolCall = {
      id: call.id,
      name: call.function.name,
      arguments: parseToolArguments(call.function.arguments),
    };
    parsed.argumentsText = call.function.arguments;
    return parsed;
  });
  const block: Record<string, unknown> = {
    role: "assistant",
    content: assembled.content === "" ? null : assembled.content,
  };
  if (wireCalls.length > 0) block.tool_calls = wireCalls;
  if (assembled.refusal !== "") block.refusal = assembled.refusal;
  if (assembled.reasoning !== "") block.reasoning_content = assembled.reasoning;

  const message: AssistantMessage = {
    role: "assistant",
    // A refusal is what the model said: shown as the content when there is no other text.
    content: assembled.content === "" ? assembled.refusal : assembled.content,
    toolCalls,
    toolResults: [],
    synthetic: false,
    native: { protocol: OPENAI_CHAT, origin: context.profile.kind, model: context.model, blocks: [block] },
  };
  let stopReason = mapOpenAIChatStopReason(assembled.finishReason);
  if (assembled.refusal !== "") stopReason = "content-filter";
  else if (toolCalls.length > 0 && stopReason === "stop") stopReason = "tool-calls";
  const response: Response = {
    message,
    usage: mapOpenAIChatUsage(assembled.usage),
    stopReason,
    model: assembled.model || context.model,
    provider: context.provider,
  };
  if (assembled.finishReason) response.rawStopReason = assembled.finishReason;
  if (assembled.id) response.id = assembled.id;
  if (assembled.reasoning !== "") response.reasoning = assembled.reasoning;
  if (assembled.refusal !== "") response.refusal = assembled.refusal;
  const warnings = [...(context.warnings ?? []), ...assembled.warnings];
  if (warnings.length > 0) response.warnings = warnings;
  return response;
}
