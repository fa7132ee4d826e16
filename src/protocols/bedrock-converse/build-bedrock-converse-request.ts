import type { CacheOption, CallOptions } from "../../core/call-options.ts";
import type { MessageInput } from "../../core/message.ts";
import type { PreparedResponseFormat } from "../../core/structured-output.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import type { ValidationIssue } from "../../core/validation-error.ts";
import type { AnthropicModelProfile } from "../anthropic-messages/anthropic-model-profile.ts";
import { applyAnthropicThinking } from "../anthropic-messages/apply-anthropic-thinking.ts";
import { outputToolSpec } from "../output-tool.ts";
import type { BuiltRequest } from "../protocol.ts";
import {
  BEDROCK_ORIGIN,
  type ConverseInferenceConfig,
  type ConverseRequestBody,
} from "./bedrock-converse-wire.ts";
import { type BedrockModelTraits, bedrockModelTraits } from "./bedrock-model-traits.ts";
import { convertToBedrockConverseMessages } from "./convert-to-bedrock-converse-messages.ts";
import { placeBedrockCachePoints } from "./place-bedrock-cache-points.ts";
import { prepareBedrockConverseTools } from "./prepare-bedrock-converse-tools.ts";

/** Everything a Converse request is built from. */
export interface BedrockConverseRequestInput {
  messages: readonly MessageInput[] | readonly unknown[];
  tools: readonly ToolSpec[];
  options: CallOptions;
  /** The model id as it goes in the URL; `native` blocks replay only to this exact id. */
  model: string;
  /**
   * The Claude profile when the model is Claude (thinking rules, default `maxTokens`): thinking then goes
   * to `additionalModelRequestFields.thinking`. Unset for other models.
   */
  anthropicProfile?: AnthropicModelProfile | undefined;
  /** The provider's default when the call sets no `cache` option. */
  defaultCache?: CacheOption | undefined;
  /** Passed to the model as they are, over anything this builder sets there. */
  additionalModelRequestFields?: Record<string, unknown> | undefined;
  /** Claude beta features, sent as `additionalModelRequestFields.anthropic_beta`. */
  betas?: readonly string[] | undefined;
  /** The call's `responseFormat`, prepared by the shell (see {@link buildBedrockConverseRequest}). */
  format?: PreparedResponseFormat | undefined;
}

/** Tags Bedrock accepts in `requestMetadata`. */
const MAX_METADATA_ENTRIES = 16;

/**
 * Builds the Converse / ConverseStream request body: converted history, `toolConfig`, `inferenceConfig`,
 * Claude thinking (through `additionalModelRequestFields`, with the Anthropic profile's rules: budget floor
 * 1024, `maxTokens` above the budget, temperature / top-p corrected) and cache checkpoints. Pure; never
 * throws on history. Everything it had to correct or leave out is in `warnings`.
 *
 * Converse has no `toolChoice: none`: the tools are withheld instead. But Converse rejects a history with
 * `toolUse` / `toolResult` blocks and no `toolConfig`, so when the history has them a `toolConfig` is sent
 * anyway — the given tools with the choice left to the model, or, when no tools were given, the inert
 * `PLACEHOLDER_TOOL` — with a warning (see `prepareBedrockConverseTools`).
 *
 * Images and documents become `image` / `document` blocks (`bedrock-converse-media.ts`); what Bedrock
 * cannot take is in `refused`. Structured output (`format`): a JSON Schema goes as
 * `outputConfig.textFormat` on the models that take it (`nativeStructuredOutput`); otherwise — and for
 * plain `{ type: "json" }`, which Converse has no mode for — as the forced output tool of
 * `output-tool.ts` (`toolChoice: { any: {} }`, named in `outputTool`). On a model that takes no forced
 * choice the tool is offered with the choice left to the model, with a warning: an answer written as text
 * instead is still read as the JSON, and a non-JSON answer is a `StructuredOutputError`.
 */
export function buildBedrockConverseRequest(
  input: BedrockConverseRequestInput,
): BuiltRequest<ConverseRequestBody> {
  const { options, anthropicProfile } = input;
  const traits = bedrockModelTraits(input.model, anthropicProfile !== undefined);
  const converted = convertToBedrockConverseMessages(
    input.messages,
    { model: input.model, origin: BEDROCK_ORIGIN },
    {
      toolResultStatus: traits.toolResultStatus,
      requireSignedReasoning: traits.anthropic,
      toolResultMedia: traits.toolResultMedia,
      toolResultNeighbours: traits.toolResultNeighbours,
    },
  );
  const warnings = [...converted.warnings];
  const refused: ValidationIssue[] = [...converted.refused];
  const body: ConverseRequestBody = { messages: converted.messages };
  if (converted.system.length > 0) body.system = [...converted.system];

  const output = structuredOutput(input, traits, refused);
  if (output.outputConfig) body.outputConfig = output.outputConfig;
  if (output.outputTool !== undefined && !traits.forcedToolChoice) {
    warnings.push(
      `this model has no native structured output and cannot be forced to call a tool on Converse: the output tool ${output.outputTool} is offered with the choice left to the model (an answer written as text is read as the JSON)`,
    );
  }
  const prepared = prepareBedrockConverseTools(
    output.tools,
    output.toolChoice,
    converted.hasToolBlocks,
    traits.forcedToolChoice,
  );
  warnings.push(...prepared.warnings);
  const tools = prepared.toolConfig;
  if (tools) body.toolConfig = tools;
  const forcedToolChoice = tools?.toolChoice !== undefined && !("auto" in tools.toolChoice);

  const inference: ConverseInferenceConfig = {};
  const additional: Record<string, unknown> = {};
  if (anthropicProfile) {
    const thinking = applyAnthropicThinking({
      thinking: options.thinking,
      profile: anthropicProfile,
      maxTokens: options.maxTokens ?? anthropicProfile.defaultMaxTokens,
      temperature: options.temperature,
      topP: options.topP,
      forcedToolChoice,
    });
    warnings.push(...thinking.warnings);
    inference.maxTokens = thinking.maxTokens;
    if (thinking.temperature !== undefined) inference.temperature = thinking.temperature;
    if (thinking.topP !== undefined) inference.topP = thinking.topP;
    if (thinking.thinking) additional.thinking = thinking.thinking;
    if (thinking.outputConfig) additional.output_config = thinking.outputConfig;
    if (input.betas?.length) additional.anthropic_beta = [...input.betas];
  } else {
    if (options.maxTokens !== undefined) inference.maxTokens = options.maxTokens;
    if (options.temperature !== undefined) inference.temperature = options.temperature;
    if (options.topP !== undefined) inference.topP = options.topP;
    if (options.thinking !== undefined && options.thinking !== "off") {
      warnings.push(
        "thinking is only mapped for Claude models on Converse; ignored (set additionalModelRequestFields for this model)",
      );
    }
    if (input.betas?.length) warnings.push("betas are Claude features; ignored for this model");
  }
  if (options.stopSequences?.length) inference.stopSequences = [...options.stopSequences];
  if (Object.keys(inference).length > 0) body.inferenceConfig = inference;
  Object.assign(additional, input.additionalModelRequestFields);
  if (Object.keys(additional).length > 0) body.additionalModelRequestFields = additional;

  if (options.parallelToolCalls === false && body.toolConfig) {
    warnings.push("Converse cannot forbid parallel tool calls; parallelToolCalls: false ignored");
  }
  const metadata = options.metadata ? Object.entries(options.metadata) : [];
  if (metadata.length > 0) {
    if (metadata.length > MAX_METADATA_ENTRIES) {
      warnings.push(`Converse takes at most ${MAX_METADATA_ENTRIES} metadata entries; the rest left out`);
    }
    body.requestMetadata = Object.fromEntries(metadata.slice(0, MAX_METADATA_ENTRIES));
  }

  const cache = options.cache ?? input.defaultCache;
  warnings.push(...placeBedrockCachePoints(body, cache, traits, options.cache !== undefined));
  const built: BuiltRequest<ConverseRequestBody> = { body, warnings };
  if (output.outputTool !== undefined) built.outputTool = output.outputTool;
  if (refused.length > 0) built.refused = refused;
  return built;
}

/**
 * How `format` goes: `outputConfig` (native), or the tools and choice with the output tool added. A
 * caller's named tool choice is kept (that call is a turn of the agent loop); `"none"` withholds the
 * caller's tools but still offers the output tool; anything else becomes `"any"`.
 */
function structuredOutput(
  input: BedrockConverseRequestInput,
  traits: BedrockModelTraits,
  refused: ValidationIssue[],
): {
  tools: readonly ToolSpec[];
  toolChoice: CallOptions["toolChoice"];
  outputConfig?: Record<string, unknown>;
  outputTool?: string;
} {
  const { format, tools, options } = input;
  if (format === undefined) return { tools, toolChoice: options.toolChoice };
  if (format.type === "json_schema" && traits.nativeStructuredOutput) {
    const jsonSchema: Record<string, unknown> = { name: format.name, schema: JSON.stringify(format.schema) };
    if (format.description !== undefined) jsonSchema.description = format.description;
    return {
      tools,
      toolChoice: options.toolChoice,
      outputConfig: { textFormat: { type: "json_schema", structure: { jsonSchema } } },
    };
  }
  let spec: ToolSpec;
  try {
    spec = outputToolSpec(format, tools);
  } catch (error) {
    const issues = (error as { issues?: ValidationIssue[] }).issues;
    refused.push(...(issues ?? [{ path: "responseFormat", message: String(error) }]));
    return { tools, toolChoice: options.toolChoice };
  }
  const choice = options.toolChoice;
  if (choice === "none") return { tools: [spec], toolChoice: "any", outputTool: spec.name };
  return {
    tools: [...tools, spec],
    toolChoice: typeof choice === "object" ? choice : "any",
    outputTool: spec.name,
  };
}
