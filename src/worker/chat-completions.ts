/**
 * The OpenAI-compatible facade: Chat Completions requests in, neutral calls to any configured route, Chat
 * Completions responses and chunks out — so the official `openai` client and other OpenAI-speaking tools
 * can use every route, whatever protocol is behind it.
 *
 * Every request field Chat Completions defines is in {@link CHAT_REQUEST_FIELDS}: mapped to the neutral
 * call, accepted and ignored because it cannot change the answer, or refused (a 400 naming it) when it
 * would change the answer and no route can honour it. A field the table does not know is refused, as
 * OpenAI refuses one. Inside a message, fields that only describe a past answer (`annotations`,
 * `reasoning_content`, `refusal: null`…, which clients send back when they append a response's message)
 * and the participant `name` are ignored; those that would carry something the gateway cannot pass on
 * (`audio`, `function_call`, `input_audio` or `video_url` parts, `file_id`) are refused.
 *
 * The gateway never downloads a URL: an `image_url` that is an https URL reaches the route as a URL part,
 * and the route's protocol passes it on or refuses it.
 *
 * @module
 */
import * as z from "zod/mini";
import {
  type CallOptions,
  MaxTokensSchema,
  type ResponseFormat,
  SessionIdSchema,
  StopSequenceSchema,
  StopSequencesSchema,
  type ToolChoice,
} from "../core/call-options.ts";
import { parseToolArguments } from "../core/collect-stream.ts";
import { type Content, type ContentPart, contentText } from "../core/content.ts";
import type { MessageInput, ToolCallInput } from "../core/message.ts";
import type { Response as ModelResponse, StopReason } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import { prepareResponseFormat, StructuredOutputError } from "../core/structured-output.ts";
import type { ToolSpecInput } from "../core/tool-spec.ts";
import { totalInputTokens, type Usage } from "../core/usage.ts";
import { ValidationError, type ValidationIssue, validate } from "../core/validation-error.ts";
import { dialectErrorJSON, dialectFailure } from "./dialect-errors.ts";
import {
  checkedPart,
  type FieldRefusals,
  refusalIssues,
  refusedFieldSchemas,
  thinkingOfEffort,
} from "./dialect-fields.ts";
import type { ErrorFrames } from "./write-sse.ts";

/** How the facade treats one Chat Completions request field. */
export type ChatFieldHandling = "mapped" | "ignored" | "refused";

/**
 * Every Chat Completions request field and what the facade does with it. `ignored` fields cannot change
 * the answer (billing, storage, cache and routing hints of OpenAI's own service); `refused` ones would, and
 * are a 400 naming the field unless they hold their default (`n: 1`, `logprobs: false`, a zero penalty,
 * `modalities: ["text"]`, null).
 */
export const CHAT_REQUEST_FIELDS = {
  model: { handling: "mapped", note: "the route" },
  messages: { handling: "mapped", note: "text, image_url and file parts; tool results with parts" },
  tools: { handling: "mapped", note: "function tools (custom tools are refused)" },
  tool_choice: { handling: "mapped", note: "auto, none, required (any), a named function" },
  parallel_tool_calls: { handling: "mapped", note: "parallelToolCalls" },
  stream: { handling: "mapped", note: "SSE of chat.completion.chunk" },
  stream_options: { handling: "mapped", note: "include_usage; include_obfuscation is ignored" },
  max_tokens: { handling: "mapped", note: "maxTokens" },
  max_completion_tokens: { handling: "mapped", note: "maxTokens (wins over max_tokens)" },
  temperature: { handling: "mapped", note: "temperature" },
  top_p: { handling: "mapped", note: "topP" },
  stop: { handling: "mapped", note: "stopSequences" },
  reasoning_effort: { handling: "mapped", note: "thinking: none → off, xhigh and max → max" },
  response_format: { handling: "mapped", note: "json_object → json, json_schema → json_schema, text → none" },
  user: { handling: "mapped", note: "metadata.user_id" },
  safety_identifier: { handling: "mapped", note: "metadata.user_id (when user is absent)" },
  session_id: { handling: "mapped", note: "modelwire extension: session affinity, as x-session-id" },
  metadata: { handling: "ignored", note: "tags of OpenAI's stored completions" },
  store: { handling: "ignored", note: "the gateway stores nothing" },
  service_tier: { handling: "ignored", note: "OpenAI's latency and price tier" },
  seed: { handling: "ignored", note: "best-effort determinism, not part of the answer's content" },
  prompt_cache_key: { handling: "ignored", note: "OpenAI's cache routing (use session_id for affinity)" },
  prompt_cache_retention: { handling: "ignored", note: "OpenAI's cache lifetime" },
  prompt_cache_options: { handling: "ignored", note: "OpenAI's cache settings" },
  n: { handling: "refused", note: "one choice per call: n > 1 is refused" },
  logprobs: { handling: "refused", note: "no route returns log probabilities: true is refused" },
  top_logprobs: { handling: "refused", note: "no route returns log probabilities" },
  logit_bias: { handling: "refused", note: "no neutral form: a non-empty bias is refused" },
  frequency_penalty: { handling: "refused", note: "no neutral form: a non-zero penalty is refused" },
  presence_penalty: { handling: "refused", note: "no neutral form: a non-zero penalty is refused" },
  audio: { handling: "refused", note: "audio output is not supported" },
  modalities: { handling: "refused", note: 'anything but ["text"] is refused' },
  prediction: { handling: "refused", note: "predicted outputs are not supported" },
  web_search_options: { handling: "refused", note: "hosted web search is not supported" },
  verbosity: { handling: "refused", note: "no neutral form" },
  moderation: { handling: "refused", note: "OpenAI's moderation is not supported" },
  functions: { handling: "refused", note: "the deprecated functions API: send tools" },
  function_call: { handling: "refused", note: "the deprecated functions API: send tool_choice" },
} as const satisfies Readonly<Record<string, { handling: ChatFieldHandling; note: string }>>;

/** Why a refused field's value is refused, or undefined when it holds its default. */
const REFUSALS: FieldRefusals = {
  n: (value) => (value === 1 ? undefined : "only one choice per call is supported (n: 1)"),
  logprobs: (value) => (value === false ? undefined : "log probabilities are not supported"),
  top_logprobs: (value) => (value === 0 ? undefined : "log probabilities are not supported"),
  logit_bias: (value) =>
    typeof value === "object" && value !== null && Object.keys(value).length === 0
      ? undefined
      : "logit_bias is not supported by the gateway",
  frequency_penalty: (value) => (value === 0 ? undefined : "penalties are not supported by the gateway"),
  presence_penalty: (value) => (value === 0 ? undefined : "penalties are not supported by the gateway"),
  audio: () => "audio output is not supported",
  modalities: (value) =>
    Array.isArray(value) && value.length === 1 && value[0] === "text"
      ? undefined
      : 'only text output is supported (modalities: ["text"])',
  prediction: () => "predicted outputs are not supported",
  web_search_options: () => "hosted web search is not supported",
  verbosity: () => "verbosity is not supported by the gateway",
  moderation: () => "moderation is not supported by the gateway",
  functions: () => "the deprecated functions API is not supported: send tools",
  function_call: () => "the deprecated functions API is not supported: send tool_choice",
};

const PartSchema = z.looseObject({ type: z.string() });

const ChatMessageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool"]),
  content: z.optional(z.nullable(z.union([z.string(), z.array(PartSchema)]))),
  tool_calls: z.optional(
    z.nullable(
      z.array(
        z.looseObject({
          id: z.string(),
          type: z.optional(z.string()),
          function: z.optional(z.looseObject({ name: z.string(), arguments: z.optional(z.string()) })),
        }),
      ),
    ),
  ),
  tool_call_id: z.optional(z.string()),
  refusal: z.optional(z.nullable(z.string())),
  name: z.optional(z.string()),
  audio: z.optional(z.unknown()),
  function_call: z.optional(z.unknown()),
});

const JsonSchemaFormatSchema = z.strictObject({
  name: z.string(),
  schema: z.optional(z.record(z.string(), z.unknown())),
  strict: z.optional(z.nullable(z.boolean())),
  description: z.optional(z.string()),
});

const ResponseFormatFieldSchema = z.union([
  z.strictObject({ type: z.literal("text") }),
  z.strictObject({ type: z.literal("json_object") }),
  z.strictObject({ type: z.literal("json_schema"), json_schema: JsonSchemaFormatSchema }),
]);

const refusedFields = refusedFieldSchemas(REFUSALS);

/** A Chat Completions request: every field of {@link CHAT_REQUEST_FIELDS}, and no other. */
export const ChatCompletionsRequestSchema = z.strictObject({
  model: z.string().check(z.minLength(1)),
  messages: z.array(ChatMessageSchema).check(z.minLength(1)),
  tools: z.optional(
    z.array(
      z.looseObject({
        type: z.optional(z.string()),
        function: z.optional(
          z.looseObject({
            name: z.string(),
            description: z.optional(z.string()),
            parameters: z.optional(z.record(z.string(), z.unknown())),
            strict: z.optional(z.nullable(z.boolean())),
          }),
        ),
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
  stream_options: z.optional(
    z.nullable(
      z.strictObject({
        include_usage: z.optional(z.boolean()),
        include_obfuscation: z.optional(z.boolean()),
      }),
    ),
  ),
  max_tokens: z.optional(z.nullable(MaxTokensSchema)),
  max_completion_tokens: z.optional(z.nullable(MaxTokensSchema)),
  temperature: z.optional(z.nullable(z.number().check(z.minimum(0), z.maximum(2)))),
  top_p: z.optional(z.nullable(z.number().check(z.minimum(0), z.maximum(1)))),
  stop: z.optional(z.nullable(z.union([StopSequenceSchema, StopSequencesSchema]))),
  parallel_tool_calls: z.optional(z.nullable(z.boolean())),
  reasoning_effort: z.optional(
    z.nullable(z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"])),
  ),
  response_format: z.optional(z.nullable(ResponseFormatFieldSchema)),
  user: z.optional(z.string()),
  safety_identifier: z.optional(z.nullable(z.string())),
  /** modelwire extension: the session for affinity (the `x-session-id` header does the same). */
  session_id: z.optional(SessionIdSchema),
  metadata: z.optional(z.unknown()),
  store: z.optional(z.unknown()),
  service_tier: z.optional(z.unknown()),
  seed: z.optional(z.unknown()),
  prompt_cache_key: z.optional(z.unknown()),
  prompt_cache_retention: z.optional(z.unknown()),
  prompt_cache_options: z.optional(z.unknown()),
  ...refusedFields,
});
export type ChatCompletionsRequest = z.output<typeof ChatCompletionsRequestSchema>;
type ChatMessage = ChatCompletionsRequest["messages"][number];
type ChatPart = z.output<typeof PartSchema>;

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

/**
 * Validates a Chat Completions body and turns it into a neutral call. Throws one `ValidationError` naming
 * every bad or refused field (`n`, `messages[1].content[0].input_audio`, `response_format.json_schema.name`).
 */
export function chatRequestToNeutral(body: unknown): NeutralChatCall {
  const request = validate(ChatCompletionsRequestSchema, body);
  const issues = refusalIssues(request, REFUSALS);
  const messages = request.messages.map((message, index) => messageOf(message, `messages[${index}]`, issues));
  const tools: ToolSpecInput[] = [];
  for (const [index, tool] of (request.tools ?? []).entries()) {
    if ((tool.type !== undefined && tool.type !== "function") || tool.function === undefined) {
      issues.push({
        path: `tools[${index}].type`,
        message: `only function tools are supported, got ${JSON.stringify(tool.type ?? null)}`,
      });
      continue;
    }
    const spec: ToolSpecInput = {
      name: tool.function.name,
      parameters: tool.function.parameters ?? { type: "object", properties: {} },
    };
    if (tool.function.description !== undefined) spec.description = tool.function.description;
    if (typeof tool.function.strict === "boolean") spec.strict = tool.function.strict;
    tools.push(spec);
  }
  const options: CallOptions = {};
  const maxTokens = request.max_completion_tokens ?? request.max_tokens;
  if (maxTokens) options.maxTokens = maxTokens;
  if (typeof request.temperature === "number") options.temperature = request.temperature;
  if (typeof request.top_p === "number") options.topP = request.top_p;
  if (request.stop) options.stopSequences = typeof request.stop === "string" ? [request.stop] : request.stop;
  if (typeof request.parallel_tool_calls === "boolean")
    options.parallelToolCalls = request.parallel_tool_calls;
  if (request.reasoning_effort) options.thinking = thinkingOfEffort(request.reasoning_effort);
  if (request.tool_choice !== undefined) options.toolChoice = toolChoiceOf(request.tool_choice);
  const user = request.user || request.safety_identifier;
  if (user) options.metadata = { user_id: user };
  const format = responseFormatOf(request.response_format, issues);
  if (format) options.responseFormat = format;
  if (issues.length > 0) throw new ValidationError(issues);
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

function messageOf(message: ChatMessage, where: string, issues: ValidationIssue[]): MessageInput {
  switch (message.role) {
    case "system":
    case "developer":
      return { role: "system", content: textOf(message.content, `${where}.content`, issues) };
    case "tool":
      return {
        role: "tool",
        toolResults: [
          {
            callId: message.tool_call_id ?? "",
            content: contentOf(message.content, `${where}.content`, issues),
          },
        ],
      };
    case "assistant": {
      if (message.audio !== undefined && message.audio !== null) {
        issues.push({
          path: `${where}.audio`,
          message: "audio output is not supported: send its transcript as content",
        });
      }
      if (message.function_call !== undefined && message.function_call !== null) {
        issues.push({
          path: `${where}.function_call`,
          message: "the deprecated functions API is not supported: send tool_calls",
        });
      }
      // A past refusal is what the model said: it is the turn's text when there is no other.
      const text = textOf(message.content, `${where}.content`, issues, true);
      const content = text === "" && message.refusal ? message.refusal : text;
      const toolCalls: ToolCallInput[] = [];
      for (const [index, call] of (message.tool_calls ?? []).entries()) {
        if ((call.type !== undefined && call.type !== "function") || call.function === undefined) {
          issues.push({
            path: `${where}.tool_calls[${index}].type`,
            message: `only function tool calls are supported, got ${JSON.stringify(call.type ?? null)}`,
          });
          continue;
        }
        const argumentsText = call.function.arguments ?? "";
        toolCalls.push({
          id: call.id,
          name: call.function.name,
          arguments: parseToolArguments(argumentsText),
          argumentsText,
        });
      }
      return { role: "assistant", content, toolCalls };
    }
    default:
      return { role: "user", content: contentOf(message.content, `${where}.content`, issues) };
  }
}

/** Text-only content (system, developer and assistant messages): text parts, and refusal parts for the assistant. */
function textOf(
  content: ChatMessage["content"],
  where: string,
  issues: ValidationIssue[],
  assistant = false,
): string {
  if (typeof content === "string") return content;
  if (!content) return "";
  let text = "";
  for (const [index, part] of content.entries()) {
    if (part.type === "text" && typeof part.text === "string") text += part.text;
    else if (assistant && part.type === "refusal" && typeof part.refusal === "string") text += part.refusal;
    else {
      issues.push({
        path: `${where}[${index}]${part.type === "text" ? ".text" : ".type"}`,
        message:
          part.type === "text"
            ? "expected string"
            : `this message takes text parts only, got ${JSON.stringify(part.type)}`,
      });
    }
  }
  return text;
}

/** User and tool content: a string, or parts (text, image_url, file). */
function contentOf(content: ChatMessage["content"], where: string, issues: ValidationIssue[]): Content {
  if (typeof content === "string") return content;
  if (!content) return "";
  const parts: ContentPart[] = [];
  for (const [index, part] of content.entries()) {
    const converted = partOf(part, `${where}[${index}]`, issues);
    if (converted) parts.push(converted);
  }
  return parts;
}

const IMAGE_DETAILS = ["auto", "low", "high"];

/**
 * One Chat part as a neutral part, checked by the neutral schema (a bad base64 or media type is named at
 * the Chat field: `…image_url.url`, `…file.file_data`). `image_url.detail` is accepted and not passed on:
 * the neutral image has no resolution hint, and each upstream uses its default.
 */
function partOf(part: ChatPart, where: string, issues: ValidationIssue[]): ContentPart | undefined {
  switch (part.type) {
    case "text": {
      if (typeof part.text !== "string") {
        issues.push({ path: `${where}.text`, message: "expected string" });
        return undefined;
      }
      return { type: "text", text: part.text };
    }
    case "image_url": {
      const image = part.image_url as { url?: unknown; detail?: unknown } | undefined;
      if (typeof image !== "object" || image === null || typeof image.url !== "string") {
        issues.push({ path: `${where}.image_url.url`, message: "expected string" });
        return undefined;
      }
      if (image.detail !== undefined && !IMAGE_DETAILS.includes(image.detail as string)) {
        issues.push({ path: `${where}.image_url.detail`, message: 'expected "auto" or "low" or "high"' });
      }
      return checkedPart({ type: "image", url: image.url }, `${where}.image_url.url`, issues);
    }
    case "file": {
      const file = part.file as { file_data?: unknown; file_id?: unknown; filename?: unknown } | undefined;
      if (typeof file !== "object" || file === null) {
        issues.push({ path: `${where}.file`, message: "expected object" });
        return undefined;
      }
      if (file.file_id !== undefined) {
        issues.push({
          path: `${where}.file.file_id`,
          message: "the gateway has no file store: send the file inline as file_data (a base64 data: URL)",
        });
        return undefined;
      }
      if (typeof file.file_data !== "string" || !file.file_data.startsWith("data:")) {
        issues.push({
          path: `${where}.file.file_data`,
          message: "expected a base64 data: URL (data:application/pdf;base64,…)",
        });
        return undefined;
      }
      const filename = file.filename;
      if (filename !== undefined && typeof filename !== "string") {
        issues.push({ path: `${where}.file.filename`, message: "expected string" });
        return undefined;
      }
      return checkedPart(
        { type: "file", url: file.file_data, ...(filename === undefined ? {} : { filename }) },
        `${where}.file.file_data`,
        issues,
        `${where}.file.filename`,
      );
    }
    case "input_audio":
      issues.push({ path: `${where}.input_audio`, message: "audio input is not supported by the gateway" });
      return undefined;
    default:
      issues.push({
        path: `${where}.type`,
        message: `${JSON.stringify(part.type)} parts are not supported (text, image_url and file are)`,
      });
      return undefined;
  }
}

/**
 * `response_format` as `responseFormat`, checked as the library checks it (a name of `[a-zA-Z0-9_-]`, an
 * object schema), the issues named at `response_format.json_schema.*`. Chat Completions' `strict` defaults
 * to false, and stays so here.
 */
function responseFormatOf(
  format: ChatCompletionsRequest["response_format"],
  issues: ValidationIssue[],
): ResponseFormat | undefined {
  if (!format || format.type === "text") return undefined;
  if (format.type === "json_object") return { type: "json" };
  const spec = format.json_schema;
  if (spec.schema === undefined) {
    issues.push({
      path: "response_format.json_schema.schema",
      message: 'required: the schema the answer must match (or send {"type":"json_object"} for any JSON)',
    });
    return undefined;
  }
  const neutral: ResponseFormat = {
    type: "json_schema",
    name: spec.name,
    schema: spec.schema,
    strict: spec.strict ?? false,
    ...(spec.description === undefined ? {} : { description: spec.description }),
  };
  try {
    prepareResponseFormat(neutral);
  } catch (error) {
    if (!ValidationError.is(error)) throw error;
    for (const issue of error.issues) {
      issues.push({
        path: issue.path.replace(/^responseFormat/, "response_format.json_schema"),
        message: issue.message,
      });
    }
    return undefined;
  }
  return neutral;
}

function toolChoiceOf(choice: NonNullable<ChatCompletionsRequest["tool_choice"]>): ToolChoice {
  if (choice === "required") return "any";
  if (typeof choice === "string") return choice;
  return { name: choice.function.name };
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

/**
 * The `finish_reason` of a response. A refusal is `stop` with `message.refusal` set, as OpenAI answers one
 * (and as the `openai` client's `parse()` expects: it throws on `content_filter` without reading the
 * refusal); a content filter that stopped the answer without a refusal text is `content_filter`.
 */
export function chatFinishReasonOf(response: ModelResponse): ReturnType<typeof finishReasonOf> {
  if (response.refusal !== undefined && response.stopReason === "content-filter") return "stop";
  return finishReasonOf(response.stopReason);
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
  const text = contentText(response.message.content);
  const refusal = response.refusal;
  // A refusal is `message.refusal`; the text is the content only when it is more than the refusal itself.
  const content = text === "" || (refusal !== undefined && text === refusal) ? null : text;
  const message: Record<string, unknown> = { role: "assistant", content, refusal: refusal ?? null };
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
    choices: [{ index: 0, message, finish_reason: chatFinishReasonOf(response), logprobs: null }],
    usage: chatUsageOf(response.usage),
    ...warningsOf(response),
  };
}

/**
 * What the call corrected, degraded or left out (`Response.warnings`: a text file sent as text, tool-result
 * images moved to a user message, …), as a `warnings` extension field OpenAI clients pass through — on the
 * `chat.completion` and on the stream's finish chunk — so no degradation reaches a client unsaid.
 */
function warningsOf(response: ModelResponse): { warnings?: string[] } {
  return response.warnings && response.warnings.length > 0 ? { warnings: [...response.warnings] } : {};
}

/**
 * Neutral stream events → `chat.completion.chunk` frames (then `[DONE]`): text and reasoning deltas, tool
 * calls by index (id and name once, then argument pieces), a `refusal` delta when the model refused, the
 * finish reason, and a usage chunk when the client asked for `stream_options.include_usage`.
 *
 * An answer that is not the JSON a `response_format` asked for is sent as it is (the text was streamed
 * already), as the complete route answers it: checking it is the client's, as with OpenAI.
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
  let done: ModelResponse | undefined;
  try {
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
          yield chunk({
            tool_calls: [{ index: event.index, function: { arguments: event.argumentsDelta } }],
          });
          break;
        case "done":
          done = event.response;
          break;
        default:
          break;
      }
      if (done) break;
    }
  } catch (error) {
    if (!StructuredOutputError.is(error)) throw error;
    done = error.response;
  }
  if (!done) return;
  if (done.refusal !== undefined) yield chunk({ refusal: done.refusal });
  const finish = chunk({}, chatFinishReasonOf(done));
  yield { data: { ...finish.data, ...warningsOf(done) } };
  if (includeUsage) {
    yield {
      data: {
        id,
        object: "chat.completion.chunk",
        created,
        model: route,
        choices: [],
        usage: chatUsageOf(done.usage),
      },
    };
  }
  yield { data: "[DONE]" };
}

/**
 * The frame that ends a chat stream that failed after it started, as OpenAI sends one: `data:` an error
 * object in OpenAI's shape (`{"error": {"message", "type", "param", "code"}}`, see `dialect-errors.ts`),
 * with no event name, and then the end of the body — no `[DONE]`.
 *
 * No event name, because OpenAI clients read only the data: `@ai-sdk/openai-compatible` validates every
 * payload as a chunk or an `{error: {message}}` object and fails with "Type validation failed" on anything
 * else, and the `openai` client raises an `APIError` of any payload with an `error`. No `[DONE]`, because
 * it is the sentinel of a complete answer: the `openai` client stops reading at it and treats a failure
 * after it as none, and a plain SSE reader would take the stream for a success.
 */
export const chatErrorFrames: ErrorFrames = (failure, expose) => [
  {
    data: StructuredOutputError.is(failure)
      ? dialectFailure(failure, "openai").body
      : dialectErrorJSON(failure, "openai", expose),
  },
];

/** A completed call, or the response a `StructuredOutputError` kept (see {@link chatChunksOf}). */
export async function completedOrRaw(call: Promise<ModelResponse>): Promise<ModelResponse> {
  try {
    return await call;
  } catch (error) {
    if (StructuredOutputError.is(error)) return error.response;
    throw error;
  }
}
