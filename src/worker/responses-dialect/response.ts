/**
 * A neutral answer as a Responses API `Response` object, for a route that does not speak the Responses
 * protocol: ids (`resp_…`, `msg_…`, `rs_…`, `fc_…`), the status, the output items, usage, and the route's
 * reasoning carried in a reasoning item's `encrypted_content` when the client asked for it.
 *
 * Usage is honest about what the route reported: `input_tokens_details.cached_tokens` and
 * `output_tokens_details.reasoning_tokens` are there only when the route reported them (absent is "not
 * reported", never a made-up zero), and `usage` is `null` when the route reported no token count at all.
 * `input_tokens` counts all input, cached included, as OpenAI counts it.
 *
 * @module
 */
import type { Native, ToolCall } from "../../core/message.ts";
import type { Response as ModelResponse } from "../../core/response.ts";
import { totalInputTokens, type Usage } from "../../core/usage.ts";
import { isReasoningBlock } from "../../protocols/native-replay.ts";
import { wrapReasoning } from "../reasoning-envelope.ts";
import type { ResponsesRequest } from "./request.ts";

/** An id of the dialect's kind: `resp`, `msg`, `rs`, `fc`, `ctc`, then 32 hex digits. */
export function responsesId(prefix: "resp" | "msg" | "rs" | "fc" | "ctc"): string {
  return `${prefix}_${crypto.randomUUID().replaceAll("-", "")}`;
}

/** What every `Response` object of one request shares: its id, time, model and the request's echoes. */
export interface ResponseBase {
  id: string;
  createdAt: number;
  /** The model the client asked for (the route name). */
  model: string;
  request: ResponsesRequest | undefined;
}

/** A JSON object of the wire. */
export type WireObject = Record<string, unknown>;

/** Neutral usage as Responses usage; `null` when the route reported no token count (see the module). */
export function responsesUsageOf(usage: Usage): WireObject | null {
  const input = totalInputTokens(usage);
  const output = usage.outputTokens;
  if (input === undefined && output === undefined) return null;
  const result: WireObject = {
    input_tokens: input ?? 0,
    output_tokens: output ?? 0,
    total_tokens: (input ?? 0) + (output ?? 0),
  };
  const inputDetails: WireObject = {};
  if (usage.cachedInputTokens !== undefined) inputDetails.cached_tokens = usage.cachedInputTokens;
  if (usage.cacheWriteTokens !== undefined) inputDetails.cache_write_tokens = usage.cacheWriteTokens;
  if (Object.keys(inputDetails).length > 0) result.input_tokens_details = inputDetails;
  if (usage.reasoningTokens !== undefined)
    result.output_tokens_details = { reasoning_tokens: usage.reasoningTokens };
  return result;
}

/** A response's status and `incomplete_details`, from the neutral stop reason. */
export function responsesStatusOf(response: ModelResponse): {
  status: "completed" | "incomplete";
  incomplete: { reason: string } | null;
} {
  if (response.stopReason === "length")
    return { status: "incomplete", incomplete: { reason: "max_output_tokens" } };
  if (response.stopReason === "content-filter" && response.refusal === undefined)
    return { status: "incomplete", incomplete: { reason: "content_filter" } };
  return { status: "completed", incomplete: null };
}

/**
 * The envelope that carries the route's native turn back to the client, when the client asked for
 * `reasoning.encrypted_content` and the turn holds reasoning (signed thinking, redacted thinking): the
 * text of a reasoning item's `encrypted_content`. Undefined otherwise.
 */
export function carriedReasoning(
  native: Native | undefined,
  route: string,
  carry: boolean,
): string | undefined {
  if (!carry || native === undefined || !native.blocks.some(isReasoningBlock)) return undefined;
  return wrapReasoning({ route, native });
}

/**
 * The `Response` object: every field the SDKs read (`id`, `object`, `created_at`, `status`, `error`,
 * `incomplete_details`, `model`, `output`, `usage`, and the request's settings echoed), plus `warnings`
 * (modelwire's extension, as on the chat route) when the call lost or changed something.
 */
export function responseObject(
  base: ResponseBase,
  fields: {
    status: "in_progress" | "completed" | "incomplete" | "failed";
    output: readonly WireObject[];
    usage?: WireObject | null;
    incomplete?: { reason: string } | null;
    error?: { code: string; message: string } | null;
    warnings?: readonly string[];
  },
): WireObject {
  const request = base.request;
  const object: WireObject = {
    id: base.id,
    object: "response",
    created_at: base.createdAt,
    status: fields.status,
    background: false,
    error: fields.error ?? null,
    incomplete_details: fields.incomplete ?? null,
    instructions: request?.instructions ?? null,
    max_output_tokens: request?.max_output_tokens ?? null,
    model: base.model,
    output: fields.output,
    parallel_tool_calls: request?.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: {
      effort: request?.reasoning?.effort ?? null,
      summary: request?.reasoning?.summary ?? null,
    },
    store: false,
    temperature: request?.temperature ?? null,
    text: { format: request?.text?.format ?? { type: "text" } },
    tool_choice: request?.tool_choice ?? "auto",
    tools: request?.tools ?? [],
    top_p: request?.top_p ?? null,
    truncation: request?.truncation ?? "disabled",
    usage: fields.usage ?? null,
    user: request?.user ?? null,
    metadata: request?.metadata ?? {},
  };
  if (fields.warnings && fields.warnings.length > 0) object.warnings = [...fields.warnings];
  return object;
}

/** A reasoning item: the readable reasoning as its summary, the carried envelope when there is one. */
export function reasoningItem(id: string, text: string, envelope: string | undefined): WireObject {
  return {
    id,
    type: "reasoning",
    summary: text === "" ? [] : [{ type: "summary_text", text }],
    ...(envelope === undefined ? {} : { encrypted_content: envelope }),
  };
}

/** An output_text part. */
export function textPart(text: string): WireObject {
  return { type: "output_text", text, annotations: [], logprobs: [] };
}

/** A finished assistant message item of `parts`. */
export function messageItem(id: string, parts: readonly WireObject[], status = "completed"): WireObject {
  return { id, type: "message", role: "assistant", status, content: parts };
}

/** A function call item. */
export function functionCallItem(
  id: string,
  callId: string,
  name: string,
  args: string,
  status = "completed",
): WireObject {
  return { id, type: "function_call", call_id: callId, name, arguments: args, status };
}

/** A custom tool call item: the string the tool takes. */
export function customToolCallItem(id: string, callId: string, name: string, input: string): WireObject {
  return { id, type: "custom_tool_call", call_id: callId, name, input };
}

/**
 * A custom tool's input from the call the route made of it (a function of `{ input: string }`): that
 * string, or the call's text as it came when the model wrote something else.
 */
export function customToolInput(call: ToolCall): string {
  const input = call.arguments.input;
  return typeof input === "string" ? input : (call.argumentsText ?? JSON.stringify(call.arguments));
}

/** What a neutral answer is written with: the route, whether to carry reasoning, the custom tools. */
export interface ResponsesWriting {
  route: string;
  carryReasoning: boolean;
  /** Tools the client declared as custom: their calls are `custom_tool_call` items. */
  customTools: ReadonlySet<string>;
  warnings: readonly string[];
}

/**
 * A complete neutral answer as a `Response` object: a reasoning item first (the readable reasoning, the
 * carried envelope), then the message (its text, a refusal part when the model refused), then one
 * function call (or custom tool call) item per tool call.
 */
export function responseOfNeutral(
  response: ModelResponse,
  base: ResponseBase,
  options: ResponsesWriting,
): WireObject {
  const output: WireObject[] = [];
  const envelope = carriedReasoning(response.message.native, options.route, options.carryReasoning);
  if ((response.reasoning ?? "") !== "" || envelope !== undefined)
    output.push(reasoningItem(responsesId("rs"), response.reasoning ?? "", envelope));
  const text = response.message.content;
  const refusal = response.refusal;
  const parts: WireObject[] = [];
  if (text !== "" && text !== refusal) parts.push(textPart(text));
  if (refusal !== undefined) parts.push({ type: "refusal", refusal });
  if (parts.length > 0) output.push(messageItem(responsesId("msg"), parts));
  for (const call of response.message.toolCalls) {
    if (options.customTools.has(call.name)) {
      output.push(customToolCallItem(responsesId("ctc"), call.id, call.name, customToolInput(call)));
      continue;
    }
    output.push(
      functionCallItem(
        responsesId("fc"),
        call.id,
        call.name,
        call.argumentsText ?? JSON.stringify(call.arguments),
      ),
    );
  }
  const { status, incomplete } = responsesStatusOf(response);
  return responseObject(base, {
    status,
    incomplete,
    output,
    usage: responsesUsageOf(response.usage),
    warnings: [...options.warnings, ...(response.warnings ?? [])],
  });
}
