import type { CallOptions, Thinking, ToolChoice } from "../../core/call-options.ts";
import type { MessageInput } from "../../core/message.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import { type OpenAIModelRules, openAIModelRules } from "../openai-model-rules.ts";
import { convertToOpenAIChatMessages } from "./convert-to-openai-chat-messages.ts";
import type {
  OpenAIChatEndpointProfile,
  OpenAIChatRequestBody,
  OpenAIChatTool,
  OpenAIChatToolChoice,
} from "./openai-chat-wire.ts";

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
  const warnings = [...converted.warnings];
  const body: OpenAIChatRequestBody = { model: input.model, messages: converted.messages };

  if (input.tools.length > 0) {
    body.tools = input.tools.map(toolOf);
    const choice = toolChoiceOf(options.toolChoice, input.tools, warnings);
    if (choice !== undefined) body.tool_choice = choice;
    if (options.parallelToolCalls !== undefined) {
      if (profile.parallelToolCalls) body.parallel_tool_calls = options.parallelToolCalls;
      else warnings.push(`parallelToolCalls ignored: the ${profile.kind} endpoint does not take it`);
    }
  } else if (
    options.toolChoice !== undefined &&
    options.toolChoice !== "auto" &&
    options.toolChoice !== "none"
  ) {
    warnings.push(`toolChoice ${JSON.stringify(options.toolChoice)} ignored: no tools were given`);
  }

  if (options.maxTokens !== undefined) body[profile.maxTokensField] = options.maxTokens;
  const rules = openAIModelRules(input.model);
  // Hosted OpenAI rejects sampling parameters on reasoning models; other servers get what the call asks for.
  const reasoningModel = profile.openaiModelRules && rules.reasoning;
  if (options.temperature !== undefined) {
    if (reasoningModel) warnings.push(`temperature is not supported by ${input.model}; left out`);
    else body.temperature = options.temperature;
  }
  if (options.topP !== undefined) {
    if (reasoningModel) warnings.push(`top_p is not supported by ${input.model}; left out`);
    else body.top_p = options.topP;
  }
  if (options.stopSequences?.length) body.stop = [...options.stopSequences];
  const effort = effortOf(options.thinking, input.model, rules, warnings);
  if (effort !== undefined) {
    if (!profile.reasoningEffort)
      warnings.push(`thinking ignored: the ${profile.kind} endpoint takes no reasoning_effort`);
    // Hosted OpenAI rejects reasoning_effort on models that do not reason (gpt-4.1, gpt-4o, gpt-5-chat).
    else if (profile.openaiModelRules && !reasoningModel)
      warnings.push(`thinking ignored: ${input.model} is not a reasoning model`);
    else body.reasoning_effort = effort;
  }
  const user = options.metadata?.user_id;
  if (user) body.user = user;
  if (input.stream) {
    body.stream = true;
    if (profile.streamUsage) body.stream_options = { include_usage: true };
  }
  return { body, warnings };
}

function toolOf(tool: ToolSpec): OpenAIChatTool {
  const fn: OpenAIChatTool["function"] = {
    name: tool.name,
    parameters: { type: "object", ...tool.parameters },
  };
  if (tool.description) fn.description = tool.description;
  if (tool.strict !== undefined) fn.strict = tool.strict;
  return { type: "function", function: fn };
}

function toolChoiceOf(
  choice: ToolChoice | undefined,
  tools: readonly ToolSpec[],
  warnings: string[],
): OpenAIChatToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (choice === "auto" || choice === "none") return choice;
  if (choice === "any") return "required";
  if (tools.some((tool) => tool.name === choice.name))
    return { type: "function", function: { name: choice.name } };
  warnings.push(`toolChoice names "${choice.name}", which is not among the tools; left to the model (auto)`);
  return "auto";
}

/** `thinking` → `reasoning_effort`. Budgets map to the nearest effort; `adaptive` leaves the model's default. */
function effortOf(
  thinking: Thinking | undefined,
  model: string,
  rules: OpenAIModelRules,
  warnings: string[],
): OpenAIChatRequestBody["reasoning_effort"] {
  if (thinking === undefined || thinking === "adaptive") return undefined;
  if (thinking === "off") {
    // "none" on gpt-5.1 and later, "minimal" on gpt-5; o-series and codex models cannot stop reasoning.
    if (rules.offEffort !== undefined) return rules.offEffort;
    warnings.push(`thinking "off" has no reasoning_effort for ${model}; the server's default applies`);
    return undefined;
  }
  if ("effort" in thinking) {
    if (thinking.effort === "max") {
      warnings.push('reasoning_effort has no "max"; using "high"');
      return "high";
    }
    return thinking.effort;
  }
  const budget = thinking.budgetTokens;
  const effort = budget <= 2048 ? "low" : budget <= 8192 ? "medium" : "high";
  warnings.push(`budgetTokens ${budget} mapped to reasoning_effort "${effort}"`);
  return effort;
}
