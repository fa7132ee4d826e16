import type { CacheOption, CallOptions } from "../../core/call-options.ts";
import type { MessageInput } from "../../core/message.ts";
import type { PreparedResponseFormat } from "../../core/structured-output.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import { ValidationError, type ValidationIssue } from "../../core/validation-error.ts";
import { outputToolSpec } from "../output-tool.ts";
import type { BuiltRequest } from "../protocol.ts";
import type { AnthropicModelProfile } from "./anthropic-model-profile.ts";
import type {
  AnthropicContextManagement,
  AnthropicMessageParam,
  AnthropicRequestBody,
  AnthropicToolChoice,
} from "./anthropic-wire.ts";
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
  /** Whether the endpoint takes `url` image and document sources (default true; Bedrock: false). */
  urlSources?: boolean;
  /** `responseFormat`, prepared by the shell. */
  format?: PreparedResponseFormat | undefined;
  /** Server-side context management, sent as `context_management` (the provider's setting). */
  contextManagement?: AnthropicContextManagement | undefined;
}

/**
 * Builds the Messages API request body: converted history (image and document parts as their blocks;
 * parts the endpoint cannot take in `refused`), tools, thinking settings corrected for the model,
 * structured output, sampling, stop sequences and cache marks. Pure; never throws. Everything it had to
 * correct or leave out is in `warnings`.
 *
 * Structured output (`format`):
 * - a JSON Schema on a model whose profile has `structuredOutput` goes natively, as
 *   `output_config.format: { type: "json_schema", schema }` (beside `effort`);
 * - otherwise — older models, and plain JSON (`{ type: "json" }`) on every model, which the native form
 *   cannot say (it wants every object closed with `additionalProperties: false`) — as the forced output
 *   tool of `output-tool.ts` (named in `outputTool`): the tool is added and `tool_choice` is `any` (a
 *   named `tool` choice when the call said `toolChoice: "none"`, so none of the caller's tools is
 *   called; a choice the call forced itself is kept);
 * - the API refuses a forced tool choice together with thinking. When thinking is on (and the call did
 *   not force a choice itself, which turns thinking off), the output tool goes with `tool_choice: auto`
 *   and a warning: the model keeps thinking, and is asked but not forced to answer through the tool (an
 *   answer in text is read as the JSON). Thinking is what the call asked for explicitly; the format is
 *   still offered and checked.
 */
export function buildAnthropicRequest(input: AnthropicRequestInput): BuiltRequest<AnthropicRequestBody> {
  const { options, profile, format } = input;
  const converted = convertToAnthropicMessages(input.messages, input.target, {
    urlSources: input.urlSources ?? true,
  });
  const refused: ValidationIssue[] = [...converted.refused];
  const native = format?.type === "json_schema" && profile.structuredOutput;
  let outputTool: ToolSpec | undefined;
  if (format && !native) {
    try {
      outputTool = outputToolSpec(format, input.tools);
    } catch (error) {
      if (!ValidationError.is(error)) throw error;
      refused.push(...error.issues);
    }
  }
  const tools = prepareAnthropicTools(
    outputTool ? [...input.tools, outputTool] : input.tools,
    options.toolChoice,
    options.parallelToolCalls,
  );
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
  const formatWarnings: string[] = [];
  const toolChoice = outputTool
    ? outputToolChoice(tools.toolChoice, outputTool.name, thinking.thinking, formatWarnings)
    : tools.toolChoice;
  if (toolChoice) body.tool_choice = toolChoice;
  if (thinking.thinking) body.thinking = thinking.thinking;
  if (thinking.outputConfig) body.output_config = thinking.outputConfig;
  if (native) {
    body.output_config = { ...body.output_config, format: { type: "json_schema", schema: format.schema } };
  }
  if (thinking.temperature !== undefined) body.temperature = thinking.temperature;
  if (thinking.topP !== undefined) body.top_p = thinking.topP;
  if (options.stopSequences?.length) body.stop_sequences = [...options.stopSequences];
  const userId = options.metadata?.user_id;
  if (userId) body.metadata = { user_id: userId };
  if (input.stream) body.stream = true;
  if (input.contextManagement) body.context_management = input.contextManagement;

  const cacheWarnings = placeAnthropicCacheBreakpoints(body, options.cache ?? input.defaultCache);
  const loopWarning = thinkingOff
    ? [
        "thinking turned off for this call: the tool loop's assistant turn has no thinking block to continue from",
      ]
    : [];
  const built: BuiltRequest<AnthropicRequestBody> = {
    body,
    warnings: [
      ...converted.warnings,
      ...tools.warnings,
      ...loopWarning,
      ...thinking.warnings,
      ...formatWarnings,
      ...cacheWarnings,
    ],
  };
  if (outputTool) built.outputTool = outputTool.name;
  if (refused.length > 0) built.refused = refused;
  return built;
}

/**
 * The tool choice that makes the model answer through the output tool `name`, from the choice the call
 * resolved to (see {@link buildAnthropicRequest}).
 */
function outputToolChoice(
  resolved: AnthropicToolChoice | undefined,
  name: string,
  thinking: AnthropicRequestBody["thinking"],
  warnings: string[],
): AnthropicToolChoice {
  // The call forced a choice itself: kept (thinking was turned off for it).
  if (resolved?.type === "any" || resolved?.type === "tool") return resolved;
  const parallel =
    resolved && "disable_parallel_tool_use" in resolved && resolved.disable_parallel_tool_use
      ? { disable_parallel_tool_use: true }
      : {};
  if (thinking !== undefined && thinking.type !== "disabled") {
    warnings.push(
      `responseFormat goes as the output tool ${name}: with thinking on, the API takes no forced tool choice, so the tool is offered with tool_choice auto and the model may answer in text instead (read as the JSON answer)`,
    );
    return { type: "auto", ...parallel };
  }
  if (resolved?.type === "none") return { type: "tool", name };
  return { type: "any", ...parallel };
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
