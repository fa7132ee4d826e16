import type { ToolChoice } from "../../core/call-options.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import type { OpenAIResponsesFunctionTool, OpenAIResponsesToolChoice } from "./openai-responses-wire.ts";

/**
 * Tool specs, tool choice and `parallelToolCalls` → Responses `tools` (function tools, `strict` always
 * sent), `tool_choice` and `parallel_tool_calls`. With no tools nothing is sent (a forcing choice is
 * reported); `"any"` is `"required"`; a choice naming an unknown tool is left to the model (`"auto"`) and
 * reported.
 *
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-tools
 */
export function prepareOpenAIResponsesTools(
  tools: readonly ToolSpec[],
  toolChoice: ToolChoice | undefined,
  parallelToolCalls: boolean | undefined,
): {
  tools?: OpenAIResponsesFunctionTool[];
  toolChoice?: OpenAIResponsesToolChoice | undefined;
  parallelToolCalls?: boolean | undefined;
  warnings: string[];
} {
  const warnings: string[] = [];
  if (tools.length === 0) {
    if (toolChoice !== undefined && toolChoice !== "auto" && toolChoice !== "none") {
      warnings.push(`toolChoice ${JSON.stringify(toolChoice)} ignored: no tools were given`);
    }
    return { warnings };
  }
  let choice: OpenAIResponsesToolChoice | undefined;
  if (toolChoice === undefined || toolChoice === "auto" || toolChoice === "none") choice = toolChoice;
  else if (toolChoice === "any") choice = "required";
  else if (tools.some((tool) => tool.name === toolChoice.name))
    choice = { type: "function", name: toolChoice.name };
  else {
    warnings.push(
      `toolChoice names "${toolChoice.name}", which is not among the tools; left to the model (auto)`,
    );
    choice = "auto";
  }
  return { tools: tools.map(toolOf), toolChoice: choice, parallelToolCalls, warnings };
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
