import type { CacheOption, CallOptions } from "../../core/call-options.ts";
import type { MessageInput } from "../../core/message.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import type { AnthropicModelProfile } from "./anthropic-model-profile.ts";
import type { AnthropicMessageParam, AnthropicRequestBody } from "./anthropic-wire.ts";
import { applyAnthropicThinking } from "./apply-anthropic-thinking.ts";
import { type AnthropicReplayTarget, convertToAnthropicMessages } from "./convert-to-anthropic-messages.ts";
import { placeAnthropicCacheBreakpoints } from "./place-anthropic-cache-breakpoints.ts";
import { prepareAnthropicTools } from "./prepare-anthropic-tools.ts";

/** Everything a Messages request is built from. */
export interface AnthropicRequestInput {
  messages: readonly MessageInput[] | readonly unknown[];
  tools: readonly ToolSpec[];
  options: CallOptions;
  target: AnthropicReplayTarget;
  profile: AnthropicModelProfile;
  stream: boolean;
  /** The provider's default when the call sets no `cache` option. */
  defaultCache?: CacheOption;
  /** Leave `model` out of the body (Bedrock puts it in the URL). */
  omitModel?: boolean;
}

/**
 * Builds the Messages API request body: converted history, tools, thinking settings corrected for the
 * model, sampling, stop sequences and cache marks. Pure; never throws on history. Everything it had to
 * correct or leave out is in `warnings`.
 */
export function buildAnthropicRequest(input: AnthropicRequestInput): {
  body: AnthropicRequestBody;
  warnings: string[];
} {
  const { options, profile } = input;
  const converted = convertToAnthropicMessages(input.messages, input.target);
  const tools = prepareAnthropicTools(input.tools, options.toolChoice, options.parallelToolCalls);
  const forcedToolChoice = tools.toolChoice?.type === "any" || tools.toolChoice?.type === "tool";
  // Mid tool loop, the API wants the loop's assistant turn to start with a thinking block when thinking is
  // on. A turn that has none (another model's, or one from before thinking was on) cannot get one back, so
  // this call goes without thinking rather than failing with a 400 on every retry.
  const thinkingOff =
    options.thinking !== undefined &&
    options.thinking !== "off" &&
    toolLoopWithoutThinking(converted.messages);
  const thinking = applyAnthropicThinking({
    thinking: thinkingOff ? "off" : options.thinking,
    profile,
    maxTokens: options.maxTokens ?? profile.defaultMaxTokens,
    temperature: options.temperature,
    topP: options.topP,
    forcedToolChoice,
  });

  const body: AnthropicRequestBody = { max_tokens: thinking.maxTokens, messages: converted.messages };
  if (!input.omitModel) body.model = input.target.model;
  if (converted.system.length > 0) body.system = converted.system;
  if (tools.tools) body.tools = tools.tools;
  if (tools.toolChoice) body.tool_choice = tools.toolChoice;
  if (thinking.thinking) body.thinking = thinking.thinking;
  if (thinking.outputConfig) body.output_config = thinking.outputConfig;
  if (thinking.temperature !== undefined) body.temperature = thinking.temperature;
  if (thinking.topP !== undefined) body.top_p = thinking.topP;
  if (options.stopSequences?.length) body.stop_sequences = [...options.stopSequences];
  const userId = options.metadata?.user_id;
  if (userId) body.metadata = { user_id: userId };
  if (input.stream) body.stream = true;

  const cacheWarnings = placeAnthropicCacheBreakpoints(body, options.cache ?? input.defaultCache);
  const loopWarning = thinkingOff
    ? [
        "thinking turned off for this call: the tool loop's assistant turn has no thinking block to continue from",
      ]
    : [];
  return {
    body,
    warnings: [
      ...converted.warnings,
      ...tools.warnings,
      ...loopWarning,
      ...thinking.warnings,
      ...cacheWarnings,
    ],
  };
}

/**
 * True when the request continues a tool loop (it ends with a user turn of tool results) whose assistant
 * turn does not start with a thinking or redacted_thinking block.
 */
function toolLoopWithoutThinking(messages: readonly AnthropicMessageParam[]): boolean {
  const last = messages.at(-1);
  const assistant = messages.at(-2);
  if (last?.role !== "user" || assistant?.role !== "assistant") return false;
  if (!last.content.some((block) => block.type === "tool_result")) return false;
  const first = assistant.content[0]?.type;
  return first !== "thinking" && first !== "redacted_thinking";
}
