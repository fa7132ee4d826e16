import type { ToolChoice } from "../../core/call-options.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import { resolveToolChoice } from "../resolve-tool-choice.ts";
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
  const resolved = resolveToolChoice(tools, toolChoice, warnings);
  if (tools.length === 0) return { warnings };
  const choice: OpenAIResponsesToolChoice | undefined =
    typeof resolved === "object"
      ? { type: "function", name: resolved.name }
      : resolved === "any"
        ? "required"
        : resolved;
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
