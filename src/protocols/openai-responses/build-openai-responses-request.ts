import type { CallOptions, Thinking, ToolChoice } from "../../core/call-options.ts";
import type { MessageInput } from "../../core/message.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import { type OpenAIModelRules, openAIModelRules } from "../openai-model-rules.ts";
import { convertToOpenAIResponsesInput } from "./convert-to-openai-responses-input.ts";
import type {
  OpenAIResponsesFunctionTool,
  OpenAIResponsesReasoningEffort,
  OpenAIResponsesRequestBody,
  OpenAIResponsesToolChoice,
} from "./openai-responses-wire.ts";

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
}

/**
 * Builds the Responses API request body: `instructions` and `input` from the history (see
 * `convertToOpenAIResponsesInput`), function tools and `tool_choice`, `reasoning: { effort, summary }`,
 * `max_output_tokens`, `store` (default `false`, with `include: ["reasoning.encrypted_content"]` for
 * reasoning models so their reasoning replays statelessly) and `previous_response_id`. Pure; never throws on history. Everything it had to
 * correct or leave out is in `warnings`.
 */
export function buildOpenAIResponsesRequest(input: OpenAIResponsesRequestInput): {
  body: OpenAIResponsesRequestBody;
  warnings: string[];
} {
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
  const warnings = [...converted.warnings];
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

  if (input.tools.length > 0) {
    body.tools = input.tools.map(toolOf);
    const choice = toolChoiceOf(options.toolChoice, input.tools, warnings);
    if (choice !== undefined) body.tool_choice = choice;
    if (options.parallelToolCalls !== undefined) body.parallel_tool_calls = options.parallelToolCalls;
  } else if (
    options.toolChoice !== undefined &&
    options.toolChoice !== "auto" &&
    options.toolChoice !== "none"
  ) {
    warnings.push(`toolChoice ${JSON.stringify(options.toolChoice)} ignored: no tools were given`);
  }

  if (options.maxTokens !== undefined) body.max_output_tokens = options.maxTokens;
  if (options.temperature !== undefined) {
    if (reasoningModel) warnings.push(`temperature is not supported by ${input.model}; left out`);
    else body.temperature = options.temperature;
  }
  if (options.topP !== undefined) {
    if (reasoningModel) warnings.push(`top_p is not supported by ${input.model}; left out`);
    else body.top_p = options.topP;
  }
  if (options.stopSequences?.length)
    warnings.push("stopSequences ignored: the Responses API has no stop parameter");
  const reasoning = reasoningOf(options.thinking, input.model, rules, warnings);
  if (reasoning !== undefined) body.reasoning = reasoning;
  if (options.metadata && Object.keys(options.metadata).length > 0) body.metadata = { ...options.metadata };
  if (options.sessionId) body.prompt_cache_key = options.sessionId;
  if (input.stream) body.stream = true;
  return { body, warnings };
}

function toolOf(tool: ToolSpec): OpenAIResponsesFunctionTool {
  const result: OpenAIResponsesFunctionTool = {
    type: "function",
    name: tool.name,
    parameters: { type: "object", ...tool.parameters },
    // Sent explicitly: a schema written for non-strict use must not be held to strict-mode rules.
    strict: tool.strict ?? false,
  };
  if (tool.description) result.description = tool.description;
  return result;
}

function toolChoiceOf(
  choice: ToolChoice | undefined,
  tools: readonly ToolSpec[],
  warnings: string[],
): OpenAIResponsesToolChoice | undefined {
  if (choice === undefined) return undefined;
  if (choice === "auto" || choice === "none") return choice;
  if (choice === "any") return "required";
  if (tools.some((tool) => tool.name === choice.name)) return { type: "function", name: choice.name };
  warnings.push(`toolChoice names "${choice.name}", which is not among the tools; left to the model (auto)`);
  return "auto";
}

/**
 * `thinking` → `reasoning: { effort, summary: "auto" }` (the summary is what streams as reasoning deltas).
 * `adaptive` keeps the model's default effort; budgets map to the nearest effort; `"off"` is the model's
 * `offEffort` (`openAIModelRules`), and has no equivalent on o-series, codex and pro models.
 */
function reasoningOf(
  thinking: Thinking | undefined,
  model: string,
  rules: OpenAIModelRules,
  warnings: string[],
): OpenAIResponsesRequestBody["reasoning"] {
  if (thinking === undefined) return undefined;
  if (thinking === "adaptive") return { summary: "auto" };
  if (thinking === "off") {
    if (rules.offEffort !== undefined) return { effort: rules.offEffort };
    warnings.push(`thinking "off" has no reasoning effort for ${model}; the server's default applies`);
    return undefined;
  }
  let effort: OpenAIResponsesReasoningEffort;
  if ("effort" in thinking) {
    if (thinking.effort === "max") {
      warnings.push('reasoning effort has no "max"; using "high"');
      effort = "high";
    } else effort = thinking.effort;
  } else {
    const budget = thinking.budgetTokens;
    effort = budget <= 2048 ? "low" : budget <= 8192 ? "medium" : "high";
    warnings.push(`budgetTokens ${budget} mapped to reasoning effort "${effort}"`);
  }
  return { effort, summary: "auto" };
}
