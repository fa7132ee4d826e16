import type { CallOptions } from "../../core/call-options.ts";
import type { MessageInput } from "../../core/message.ts";
import type { PreparedResponseFormat } from "../../core/structured-output.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import { openAIModelRules } from "../openai-model-rules.ts";
import { openAISampling } from "../openai-sampling.ts";
import type { BuiltRequest } from "../protocol.ts";
import { applyOpenAIChatThinking } from "./apply-openai-chat-thinking.ts";
import { convertToOpenAIChatMessages } from "./convert-to-openai-chat-messages.ts";
import type { OpenAIChatEndpointProfile, OpenAIChatRequestBody } from "./openai-chat-wire.ts";
import { prepareOpenAIChatResponseFormat } from "./prepare-openai-chat-response-format.ts";
import { prepareOpenAIChatTools } from "./prepare-openai-chat-tools.ts";

/** Everything a Chat Completions request is built from. */
export interface OpenAIChatRequestInput {
  messages: readonly MessageInput[] | readonly unknown[];
  tools: readonly ToolSpec[];
  options: CallOptions;
  model: string;
  profile: OpenAIChatEndpointProfile;
  stream: boolean;
  /** The prepared `responseFormat` (`prepareResponseFormat`). */
  format?: PreparedResponseFormat | undefined;
}

/**
 * Builds the Chat Completions body for an endpoint profile: converted history, tools and tool choice,
 * the output limit in the field the server reads, `reasoning_effort`, `stream_options.include_usage`,
 * `parallel_tool_calls`, and `format` as `response_format` or the forced output tool
 * (`prepareOpenAIChatResponseFormat`). Pure; never throws on history; corrections are in `warnings`, what
 * the API cannot take (a part, a format) in `refused`.
 */
export function buildOpenAIChatRequest(input: OpenAIChatRequestInput): BuiltRequest<OpenAIChatRequestBody> {
  const { options, profile } = input;
  const converted = convertToOpenAIChatMessages(input.messages, { model: input.model, profile });
  const format = prepareOpenAIChatResponseFormat(
    input.format,
    input.tools,
    options.toolChoice,
    input.model,
    profile,
  );
  const tools = format.outputTool
    ? prepareOpenAIChatTools(
        [...input.tools, format.outputTool],
        format.toolChoice,
        options.parallelToolCalls,
        profile,
      )
    : prepareOpenAIChatTools(input.tools, options.toolChoice, options.parallelToolCalls, profile);
  const warnings = [...converted.warnings, ...tools.warnings, ...format.warnings];
  const refused = [...converted.refused, ...format.refused];
  const body: OpenAIChatRequestBody = { model: input.model, messages: converted.messages };
  if (tools.tools) body.tools = tools.tools;
  if (tools.toolChoice !== undefined) body.tool_choice = tools.toolChoice;
  if (tools.parallelToolCalls !== undefined) body.parallel_tool_calls = tools.parallelToolCalls;

  if (options.maxTokens !== undefined) body[profile.maxTokensField] = options.maxTokens;
  const rules = openAIModelRules(input.model);
  // Hosted OpenAI's reasoning models reject sampling parameters; other servers get what the call asks for.
  const reasoningModel = profile.openaiModelRules && rules.reasoning;
  Object.assign(body, openAISampling(options, input.model, reasoningModel, warnings));
  if (options.stopSequences?.length) body.stop = [...options.stopSequences];
  const thinking = applyOpenAIChatThinking(options.thinking, input.model, rules, profile);
  warnings.push(...thinking.warnings);
  if (thinking.reasoningEffort !== undefined) body.reasoning_effort = thinking.reasoningEffort;
  const user = options.metadata?.user_id;
  if (user) body.user = user;
  if (format.responseFormat) body.response_format = format.responseFormat;
  if (input.stream) {
    body.stream = true;
    if (profile.streamUsage) body.stream_options = { include_usage: true };
  }
  const built: BuiltRequest<OpenAIChatRequestBody> = { body, warnings };
  if (format.outputTool) built.outputTool = format.outputTool.name;
  if (refused.length > 0) built.refused = refused;
  return built;
}
