import type { ToolChoice } from "../../core/call-options.ts";
import type { PreparedResponseFormat } from "../../core/structured-output.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import { ValidationError, type ValidationIssue } from "../../core/validation-error.ts";
import { outputToolSpec } from "../output-tool.ts";
import type { OpenAIChatEndpointProfile, OpenAIChatResponseFormat } from "./openai-chat-wire.ts";

/** What {@link prepareOpenAIChatResponseFormat} decided. */
export interface OpenAIChatResponseFormatPlan {
  /** The native `response_format`, when the format goes natively. */
  responseFormat?: OpenAIChatResponseFormat | undefined;
  /** The forced output tool (`output-tool.ts`), when it goes as one: added to the tools, the choice forced. */
  outputTool?: ToolSpec | undefined;
  /** The tool choice to send with the output tool. */
  toolChoice?: ToolChoice | undefined;
  refused: ValidationIssue[];
  warnings: string[];
}

/**
 * `format` (the prepared `responseFormat`) → Chat Completions:
 *
 * - natively where the endpoint and model take it: `{ type: "json_schema", json_schema: { name, schema,
 *   strict, description? } }`, and `{ type: "json_object" }` (JSON mode) for `{ type: "json" }`. Hosted
 *   OpenAI, vLLM and Ollama take both (the profile's `responseFormat`, default `"json_schema"`); DeepSeek
 *   takes JSON mode only (`responseFormat: "json_object"`); hosted models older than Structured Outputs
 *   (gpt-3.5-turbo, gpt-4, gpt-4-turbo, gpt-4o-2024-05-13) take JSON mode only;
 * - else as the forced output tool of `output-tool.ts`: the tool added, the choice forced (that tool when
 *   the call has no tools of its own, any tool when it has — the model may still call the caller's tools,
 *   a turn of the agent loop); a `toolChoice` of the call's that this replaces is reported;
 * - refused, naming `responseFormat`, where neither can work: a server whose tool calls are parsed out of
 *   its text (`textToolCalls`) cannot be forced to call a tool; an output tool whose name is one of the
 *   call's tools (`responseFormat.name`).
 *
 * @see https://platform.openai.com/docs/guides/structured-outputs
 */
export function prepareOpenAIChatResponseFormat(
  format: PreparedResponseFormat | undefined,
  tools: readonly ToolSpec[],
  toolChoice: ToolChoice | undefined,
  model: string,
  profile: OpenAIChatEndpointProfile,
): OpenAIChatResponseFormatPlan {
  const plan: OpenAIChatResponseFormatPlan = { refused: [], warnings: [] };
  if (format === undefined) return plan;
  const takes = responseFormatsOf(model, profile);
  if (format.type === "json" && takes !== "none") {
    plan.responseFormat = { type: "json_object" };
    return plan;
  }
  if (format.type === "json_schema" && takes === "json_schema") {
    const jsonSchema: Extract<OpenAIChatResponseFormat, { type: "json_schema" }>["json_schema"] = {
      name: format.name,
      schema: format.schema,
      strict: format.strict,
    };
    if (format.description !== undefined) jsonSchema.description = format.description;
    plan.responseFormat = { type: "json_schema", json_schema: jsonSchema };
    return plan;
  }
  const why =
    takes === "none"
      ? `the ${profile.kind} endpoint takes no response_format`
      : `${profile.openaiModelRules ? model : `the ${profile.kind} endpoint`} takes JSON mode only, no json_schema`;
  if (profile.textToolCalls) {
    plan.refused.push({
      path: "responseFormat",
      message: `${why}, and its tool calls are read from its text, so no output tool can be forced; structured output cannot be enforced here`,
    });
    return plan;
  }
  try {
    plan.outputTool = outputToolSpec(format, tools);
  } catch (error) {
    if (error instanceof ValidationError) plan.refused.push(...error.issues);
    else throw error;
    return plan;
  }
  // The same policy as the Messages and Converse builders: "none" forbids the caller's tools, so only the
  // output tool may be called; a tool the caller named is still called first (the answer comes after it);
  // otherwise any tool, the output tool among them.
  if (toolChoice === "none" || tools.length === 0) plan.toolChoice = { name: plan.outputTool.name };
  else if (typeof toolChoice === "object" && toolChoice !== null) plan.toolChoice = toolChoice;
  else plan.toolChoice = "any";
  plan.warnings.push(`responseFormat sent as the forced output tool ${plan.outputTool.name}: ${why}`);
  return plan;
}

/** What a model on an endpoint takes as `response_format`. */
function responseFormatsOf(
  model: string,
  profile: OpenAIChatEndpointProfile,
): "json_schema" | "json_object" | "none" {
  const takes = profile.responseFormat ?? "json_schema";
  if (takes !== "json_schema" || !profile.openaiModelRules) return takes;
  // Structured Outputs came with gpt-4o-2024-08-06; the models before it take JSON mode only.
  const id = model.replace(/^[^/]*\//, "");
  if (/^(?:gpt-3\.5|gpt-4(?![o.\d])|gpt-4-turbo|gpt-4o-2024-05-13)/.test(id)) return "json_object";
  return takes;
}
