import type { CallOptions } from "../../core/call-options.ts";
import type { MessageInput } from "../../core/message.ts";
import type { PreparedResponseFormat } from "../../core/structured-output.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import type { ValidationIssue } from "../../core/validation-error.ts";
import { openAIModelRules } from "../openai-model-rules.ts";
import { openAISampling } from "../openai-sampling.ts";
import type { BuiltRequest } from "../protocol.ts";
import { applyOpenAIResponsesThinking } from "./apply-openai-responses-thinking.ts";
import { convertToOpenAIResponsesInput } from "./convert-to-openai-responses-input.ts";
import type { OpenAIResponsesRequestBody, OpenAIResponsesTextFormat } from "./openai-responses-wire.ts";
import { prepareOpenAIResponsesTools } from "./prepare-openai-responses-tools.ts";

/** Everything a Responses request is built from. */
export interface OpenAIResponsesRequestInput {
  messages: readonly MessageInput[] | readonly unknown[];
  tools: readonly ToolSpec[];
  options: CallOptions;
  model: string;
  /** `native.origin` of the endpoint: replay of reasoning items needs an exact match. */
  origin: string;
  stream: boolean;
  /** `store` (default `false`: stateless, reasoning replayed from `encrypted_content`). */
  store?: boolean;
  /** `previous_response_id`: continue a stored response; only the messages after the last assistant turn go out. */
  previousResponseId?: string | undefined;
  /** The call's `responseFormat`, prepared by the shell: sent as `text.format`. */
  format?: PreparedResponseFormat | undefined;
}

/**
 * Builds the Responses API request body: `instructions` and `input` from the history (see
 * `convertToOpenAIResponsesInput`), function tools and `tool_choice`, `reasoning: { effort, summary }`,
 * `max_output_tokens`, `store` (default `false`, with `include: ["reasoning.encrypted_content"]` for
 * reasoning models so their reasoning replays statelessly), `previous_response_id`, and the structured
 * output format as `text.format` (`json_schema` with name, schema, strictness and description;
 * `json_object` for plain JSON). Pure; never throws on history. Everything it had to correct or leave out
 * is in `warnings`; images and files the API cannot take are in `refused`, each naming its field.
 */
export function buildOpenAIResponsesRequest(
  input: OpenAIResponsesRequestInput,
): BuiltRequest<OpenAIResponsesRequestBody> & { refused: ValidationIssue[] } {
  const { options } = input;
  const store = input.store ?? false;
  const previousResponseId =
    typeof input.previousResponseId === "string" && input.previousResponseId !== ""
      ? input.previousResponseId
      : undefined;
  const converted = convertToOpenAIResponsesInput(input.messages, {
    model: input.model,
    origin: input.origin,
    store,
    previousResponseId,
  });
  const tools = prepareOpenAIResponsesTools(input.tools, options.toolChoice, options.parallelToolCalls);
  const warnings = [...converted.warnings, ...tools.warnings];
  const body: OpenAIResponsesRequestBody = { model: input.model, input: converted.input, store };
  if (converted.instructions !== undefined) body.instructions = converted.instructions;
  if (previousResponseId !== undefined) body.previous_response_id = previousResponseId;
  const rules = openAIModelRules(input.model);
  const reasoningModel = rules.reasoning;
  // Stateless by default: the encrypted reasoning comes back with each response, to be replayed. Only for
  // reasoning models (or a call that asks for thinking): others reject the include ("Encrypted content is
  // not supported with this model").
  const thinking = options.thinking !== undefined && options.thinking !== "off";
  if (!store && (reasoningModel || thinking)) body.include = ["reasoning.encrypted_content"];

  if (tools.tools) body.tools = tools.tools;
  if (tools.toolChoice !== undefined) body.tool_choice = tools.toolChoice;
  if (tools.parallelToolCalls !== undefined) body.parallel_tool_calls = tools.parallelToolCalls;

  if (options.maxTokens !== undefined) body.max_output_tokens = options.maxTokens;
  Object.assign(body, openAISampling(options, input.model, reasoningModel, warnings));
  if (options.stopSequences?.length)
    warnings.push("stopSequences ignored: the Responses API has no stop parameter");
  const reasoning = applyOpenAIResponsesThinking(options.thinking, input.model, rules);
  warnings.push(...reasoning.warnings);
  if (reasoning.reasoning !== undefined) body.reasoning = reasoning.reasoning;
  if (options.metadata && Object.keys(options.metadata).length > 0) body.metadata = { ...options.metadata };
  if (options.sessionId) body.prompt_cache_key = options.sessionId;
  if (input.format !== undefined)
    body.text = { ...body.text, format: openAIResponsesTextFormat(input.format) };
  if (input.stream) body.stream = true;
  return { body, warnings, refused: converted.refused };
}

/**
 * A prepared `responseFormat` as `text.format`: a JSON Schema as `json_schema` (`name`, `schema`, `strict`,
 * and `description` when given), plain JSON as `json_object` (the API then wants the word "JSON"
 * somewhere in the input, as with Chat's `json_object`).
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-text
 */
export function openAIResponsesTextFormat(format: PreparedResponseFormat): OpenAIResponsesTextFormat {
  if (format.type === "json") return { type: "json_object" };
  const mapped: OpenAIResponsesTextFormat = {
    type: "json_schema",
    name: format.name,
    schema: format.schema,
    strict: format.strict,
  };
  if (format.description !== undefined) mapped.description = format.description;
  return mapped;
}
