import type { CallOptions } from "../../core/call-options.ts";
import type { MessageInput } from "../../core/message.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import { openAIModelRules } from "../openai-model-rules.ts";
import { openAISampling } from "../openai-sampling.ts";
import { applyOpenAIChatThinking } from "./apply-openai-chat-thinking.ts";
import { convertToOpenAIChatMessages } from "./convert-to-openai-chat-messages.ts";
import type { OpenAIChatEndpointProfile, OpenAIChatRequestBody } from "./openai-chat-wire.ts";
import { prepareOpenAIChatTools } from "./prepare-openai-chat-tools.ts";

/** Everything a Chat Completions request is built from. */
export interface OpenAIChatRequestInput {
  messages: readonly MessageInput[] | readonly unknown[];
  tools: readonly ToolSpec[];
  options: CallOptions;
  model: string;
  profile: OpenAIChatEndpointProfile;
  stream: boolean;
}

/**
 * Builds the Chat Completions body for an endpoint profile: converted history, tools and tool choice,
 * the output limit in the field the server reads, `reasoning_effort`, `stream_options.include_usage`,
 * `parallel_tool_calls`. Pure; never throws on history; corrections are in `warnings`.
 */
export function buildOpenAIChatRequest(input: OpenAIChatRequestInput): {
  body: OpenAIChatRequestBody;
  warnings: string[];
} {
  const { options, profile } = input;
  const converted = convertToOpenAIChatMessages(input.messages, { model: input.model, profile });
  const tools = prepareOpenAIChatTools(input.tools, options.toolChoice, options.parallelToolCalls, profile);
  const warnings = [...converted.warnings, ...tools.warnings];
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
  if (input.stream) {
    body.stream = true;
    if (profile.streamUsage) body.stream_options = { include_usage: true };
  }
  return { body, warnings };
}
