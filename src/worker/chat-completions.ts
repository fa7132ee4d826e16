/**
 * The OpenAI-compatible facade: Chat Completions requests in, neutral calls to any configured route, Chat
 * Completions responses and chunks out — so the official `openai` client and other OpenAI-speaking tools
 * can use every route, whatever protocol is behind it.
 *
 * @module
 */
import * as z from "zod/mini";
import {
  type CallOptions,
  MaxTokensSchema,
  SessionIdSchema,
  StopSequenceSchema,
  StopSequencesSchema,
  type Thinking,
  type ToolChoice,
} from "../core/call-options.ts";
import { parseToolArguments } from "../core/collect-stream.ts";
import type { MessageInput, ToolCallInput } from "../core/message.ts";
import type { Response as ModelResponse, StopReason } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import type { ToolSpecInput } from "../core/tool-spec.ts";
import { totalInputTokens, type Usage } from "../core/usage.ts";
import { validate } from "../core/validation-error.ts";

const ContentPartSchema = z.looseObject({ type: z.string(), text: z.optional(z.string()) });

const ChatMessageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z.optional(z.nullable(z.union([z.string(), z.array(ContentPartSchema)]))),
  tool_calls: z.optional(
    z.nullable(
      z.array(
        z.looseObject({
          id: z.string(),
          type: z.optional(z.string()),
          function: z.looseObject({ name: z.string(), arguments: z.optional(z.string()) }),
        }),
      ),
    ),
  ),
  tool_call_id: z.optional(z.string()),
});

/** The subset of a Chat Completions request the facade understands; unknown fields are ignored. */
export const ChatCompletionsRequestSchema = z.looseObject({
  model: z.string().check(z.minLength(1)),
  messages: z.array(ChatMessageSchema).check(z.minLength(1)),
  tools: z.optional(
    z.array(
      z.looseObject({
        type: z.optional(z.string()),
        function: z.looseObject({
          name: z.string(),
          description: z.optional(z.string()),
          parameters: z.optional(z.record(z.string(), z.unknown())),
          strict: z.optional(z.nullable(z.boolean())),
        }),
      }),
    ),
  ),
  tool_choice: z.optional(
    z.union([
      z.enum(["auto", "none", "required"]),
      z.looseObject({ type: z.optional(z.string()), function: z.looseObject({ name: z.string() }) }),
    ]),
  ),
  stream: z.optional(z.nullable(z.boolean())),
  stream_options: z.optional(z.nullable(z.looseObject({ include_usage: z.optional(z.boolean()) }))),
  max_tokens: z.optional(z.nullable(MaxTokensSchema)),
  max_completion_tokens: z.optional(z.nullable(MaxTokensSchema)),
  temperature: z.optional(z.nullable(z.number().check(z.minimum(0), z.maximum(2)))),
  top_p: z.optional(z.nullable(z.number().check(z.minimum(0), z.maximum(1)))),
  stop: z.optional(z.nullable(z.union([StopSequenceSchema, StopSequencesSchema]))),
  parallel_tool_calls: z.optional(z.nullable(z.boolean())),
  reasoning_effort: z.optional(z.nullable(z.enum(["minimal", "low", "medium", "high"]))),
  user: z.optional(z.string()),
  /** modelwire extension: the session for affinity (the `x-session-id` header does the same). */
  session_id: z.optional(SessionIdSchema),
});
export type ChatCompletionsRequest = z.output<typeof ChatCompletionsRequestSchema>;

/** A validated Chat Completions request as a neutral call. */
export interface NeutralChatCall {
  route: string;
  messages: MessageInput[];
  tools: ToolSpecInput[];
  options: CallOptions;
  stream: boolean;
  includeUsage: boolean;
  sessionId: string | undefined;
}

/** Validates a Chat Completions body and turns it into a neutral call. Throws `ValidationError` naming the field. */
export function chatRequestToNeutral(body: unknown): NeutralChatCall {
  const request = validate(ChatCompletionsRequestSchema, body);
  const messages: MessageInput[] = request.messages.map((message): MessageInput => {
    const content = textOf(message.content);
    switch (message.role) {
      case "system":
      case "developer":
        return { role: "system", content };
      case "tool":
        return { role: "tool", toolResults: [{ callId: message.tool_call_id ?? "", content }] };
      case "assistant": {
        const toolCalls: ToolCallInput[] = (message.tool_calls ?? []).map((call) => {
          const text = call.function.arguments ?? "";
          return {
            id: call.id,
            name: call.function.name,
            arguments: parseToolArguments(text),
            argumentsText: text,
          };
        });
        return { role: "assistant", content, toolCalls };
      }
      default:
        return { role: "user", content };
    }
  });
  const tools: ToolSpecInput[] = (request.tools ?? []).map((tool) => {
    const spec: ToolSpecInput = {
      name: tool.function.name,
      parameters: tool.function.parameters ?? { type: "object", properties: {} },
    };
    if (tool.function.description !== undefined) spec.description = tool.function.description;
    if (typeof tool.function.strict === "boolean") spec.strict = tool.function.strict;
    return spec;
  });
  const options: CallOptions = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens) options.maxTokens = maxTokens;
  if (typeof request.temperature === "number") options.temperature = request.temperature;
  if (typeof request.top_p === "number") options.topP = request.top_p;
  if (request.stop) options.stopSequences = typeof request.stop === "string" ? [request.stop] : request.stop;
  if (typeof request.parallel_tool_calls === "boolean")
    options.parallelToolCalls = request.parallel_tool_calls;
  if (request.reasoning_effort) options.thinking = { effort: request.reasoning_effort } satisfies Thinking;
  if (request.tool_choice !== undefined) options.toolChoice = toolChoiceOf(request.tool_choice);
  if (request.user) options.metadata = { user_id: request.user };
  return {
    route: request.model,
    messages,
    tools,
    options,
    stream: request.stream === true,
    includeUsage: request.stream_options?.include_usage === true,
    sessionId: request.session_id,
  };
}

function toolChoiceOf(choice: NonNullable<ChatCompletionsRequest["tool_choice"]>): ToolChoice {
  if (choice === "required") return "any";
  if (typeof choice === "string") return choice;
  return { name: choice.function.name };
}

function textOf(content: ChatCompletionsRequest["messages"][number]["content"]): string {
  if (typeof content === "string") return content;
  if (!content) return "";
  return content
    .flatMap((part) => (part.type === "text" && typeof part.text === "string" ? [part.text] : []))
    .join("");
}

/** Neutral stop reason → Chat Completions `finish_reason`. */
export function finishReasonOf(stopReason: StopReason): "stop" | "length" | "tool_calls" | "content_filter" {
  switch (stopReason) {
    case "length":
      return "length";
    case "tool-calls":
      return "tool_calls";
    case "content-filter":
      return "content_filter";
    default:
      return "stop";
  }
}

/** Neutral usage → Chat Completions usage (`prompt_tokens` includes cached input, as OpenAI counts it). */
export function chatUsageOf(usage: Usage): Record<string, unknown> {
  const prompt = totalInputTokens(usage) ?? 0;
  const completion = usage.outputTokens ?? 0;
  const result: Record<string, unknown> = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
  if (usage.cachedInputTokens !== undefined)
    result.prompt_tokens_details = { cached_tokens: usage.cachedInputTokens };
  if (usage.reasoningTokens !== undefined)
    result.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  return result;
}

/** A neutral `Response` as a `chat.completion` object. `route` is the model name the client asked for. */
export function chatCompletionOf(
  response: ModelResponse,
  route: string,
  id: string,
  created: number,
): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: response.message.content || null };
  if (response.message.toolCalls.length > 0) {
    message.tool_calls = response.message.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.argumentsText ?? JSON.stringify(call.arguments) },
    }));
  }
  if (response.reasoning) message.reasoning_content = response.reasoning;
  return {
    id,
    object: "chat.completion",
    created,
    model: route,
    choices: [{ index: 0, message, finish_reason: finishReasonOf(response.stopReason), logprobs: null }],
    usage: chatUsageOf(response.usage),
  };
}

/**
 * Neutral stream events → `chat.completion.chunk` frames (then `[DONE]`): text and reasoning deltas, tool
 * calls by index (id and name once, then argument pieces), the finish reason, and a usage chunk when the
 * client asked for `stream_options.include_usage`.
 *
 * `events` must end with `done` or throw, as the gateway's streams do (they are opened by `openStream`,
 * under `requireDone`): `[DONE]` is sent for `done`, and an error ends the frames by being thrown.
 */
export async function* chatChunksOf(
  events: AsyncIterable<StreamEvent>,
  route: string,
  id: string,
  created: number,
  includeUsage: boolean,
): AsyncGenerator<{ data: unknown }, void, undefined> {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    data: {
      id,
      object: "chat.completion.chunk",
      created,
      model: route,
      choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    },
  });
  yield chunk({ role: "assistant", content: "" });
  for await (const event of events) {
    switch (event.type) {
      case "text-delta":
        yield chunk({ content: event.text });
        break;
      case "reasoning-delta":
        yield chunk({ reasoning_content: event.text });
        break;
      case "tool-call-start":
        yield chunk({
          tool_calls: [
            {
              index: event.index,
              id: event.id,
              type: "function",
              function: { name: event.name, arguments: "" },
            },
          ],
        });
        break;
      case "tool-call-delta":
        yield chunk({ tool_calls: [{ index: event.index, function: { arguments: event.argumentsDelta } }] });
        break;
      case "done":
        yield chunk({}, finishReasonOf(event.response.stopReason));
        if (includeUsage) {
          yield {
            data: {
              id,
              object: "chat.completion.chunk",
              created,
              model: route,
              choices: [],
              usage: chatUsageOf(event.response.usage),
            },
          };
        }
        yield { data: "[DONE]" };
        return;
      default:
        break;
    }
  }
}
