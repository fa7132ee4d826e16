import type { ToolSpec } from "../../core/tool-spec.ts";
import { ValidationError, type ValidationIssue } from "../../core/validation-error.ts";
import { outputToolSpec } from "../output-tool.ts";
import type { BuiltRequest, ProtocolRequest } from "../protocol.ts";
import { applyGeminiThinking } from "./apply-gemini-thinking.ts";
import { convertToGeminiContents } from "./convert-to-gemini-contents.ts";
import { type GeminiModelProfile, geminiModelProfile } from "./gemini-model-profile.ts";
import type {
  GeminiFunctionCallingConfig,
  GeminiGenerationConfig,
  GeminiRequestBody,
} from "./google-gemini-wire.ts";
import { prepareGeminiTools } from "./prepare-gemini-tools.ts";

/** Everything a `generateContent` request is built from: the neutral call, and where it goes. */
export interface GeminiRequestInput extends ProtocolRequest {
  /** The model id, as the URL names it (`gemini-2.5-pro`): `native.model`, and the profile's key. */
  model: string;
  /**
   * The endpoint kind, `native.origin`: `"gemini"` for the Gemini API, `"vertex"` for Vertex AI. Parts
   * (and their signatures) replay only to the same origin and model.
   */
  origin: string;
  /** Model facts (thinking, signatures, prices); `geminiModelProfile(model)` when unset. */
  profile?: GeminiModelProfile | undefined;
}

/**
 * Builds the `generateContent` / `streamGenerateContent` body (the same for both; the URL says which):
 * converted history (`convertToGeminiContents`), tools and `toolConfig`, `generationConfig` with
 * `maxOutputTokens`, `temperature`, `topP`, `stopSequences`, `thinkingConfig` (`applyGeminiThinking`) and
 * structured output. Pure; never throws; every correction is in `warnings`.
 *
 * Structured output (`format`): `responseMimeType: "application/json"`, with the schema as
 * `responseJsonSchema` (plain JSON Schema) for `json_schema`. Gemini 2.x refuses a response schema
 * together with function calling, so there, when the call has tools, the format goes as the forced output
 * tool of `output-tool.ts` (`ANY`, named in `outputTool`) instead.
 *
 * Thoughts count against `maxOutputTokens`: with a fixed thinking budget, a `maxTokens` at or below it is
 * raised to the budget + 1 (warned), so the request can answer at all.
 *
 * The `cache` option is left out with a warning when set to anything but `"auto"`: Gemini caches prompts
 * implicitly (the reads come back as `cachedInputTokens`) and has no per-request cache marks.
 */
export function buildGeminiRequest(input: GeminiRequestInput): BuiltRequest<GeminiRequestBody> {
  const { options, format } = input;
  const profile = input.profile ?? geminiModelProfile(input.model);
  const converted = convertToGeminiContents(
    input.messages,
    { model: input.model, origin: input.origin },
    profile,
  );
  const refused: ValidationIssue[] = [...converted.refused];
  const warnings: string[] = [...converted.warnings];

  const asTool = format !== undefined && input.tools.length > 0 && !profile.schemaWithTools;
  let outputTool: ToolSpec | undefined;
  if (asTool) {
    try {
      outputTool = outputToolSpec(format, input.tools);
    } catch (error) {
      if (!ValidationError.is(error)) throw error;
      refused.push(...error.issues);
    }
  }
  const tools = prepareGeminiTools(
    outputTool ? [...input.tools, outputTool] : input.tools,
    options.toolChoice,
    options.parallelToolCalls,
  );
  warnings.push(...tools.warnings);

  const body: GeminiRequestBody = { contents: converted.contents };
  if (converted.systemInstruction) body.systemInstruction = converted.systemInstruction;
  if (tools.tools) body.tools = tools.tools;
  const config = outputTool ? outputToolConfig(tools.config, outputTool.name) : tools.config;
  if (config) body.toolConfig = { functionCallingConfig: config };

  const generation: GeminiGenerationConfig = {};
  if (options.maxTokens !== undefined) generation.maxOutputTokens = options.maxTokens;
  if (options.temperature !== undefined) generation.temperature = options.temperature;
  if (options.topP !== undefined) generation.topP = options.topP;
  if (options.stopSequences?.length) generation.stopSequences = [...options.stopSequences];
  if (format && !asTool) {
    generation.responseMimeType = "application/json";
    if (format.type === "json_schema") generation.responseJsonSchema = format.schema;
  }
  const thinking = applyGeminiThinking(options.thinking, profile);
  warnings.push(...thinking.warnings);
  if (thinking.config) generation.thinkingConfig = thinking.config;
  // Thoughts count against maxOutputTokens: a fixed budget that fills the cap leaves no room for the answer
  // (the API answers MAX_TOKENS with no parts). The cap is raised past the budget, as for Claude.
  const budget = thinking.config?.thinkingBudget;
  if (budget !== undefined && budget > 0 && generation.maxOutputTokens !== undefined) {
    if (generation.maxOutputTokens <= budget) {
      warnings.push(
        `maxTokens ${generation.maxOutputTokens} must exceed the thinking budget ${budget} (thoughts count against it); raised to ${budget + 1}`,
      );
      generation.maxOutputTokens = budget + 1;
    }
  }
  if (Object.keys(generation).length > 0) body.generationConfig = generation;

  if (options.cache !== undefined && options.cache !== "auto") {
    warnings.push("Gemini caches prompts implicitly and takes no cache marks; the cache option is left out");
  }
  const built: BuiltRequest<GeminiRequestBody> = { body, warnings };
  if (outputTool) built.outputTool = outputTool.name;
  if (refused.length > 0) built.refused = refused;
  return built;
}

/** The calling config that makes the model answer through the output tool `name`. */
function outputToolConfig(
  resolved: GeminiFunctionCallingConfig | undefined,
  name: string,
): GeminiFunctionCallingConfig {
  // A choice the call forced itself is kept.
  if (resolved?.mode === "ANY" && resolved.allowedFunctionNames) return resolved;
  if (resolved?.mode === "NONE") return { mode: "ANY", allowedFunctionNames: [name] };
  return { mode: "ANY" };
}
