import type { ToolChoice } from "../../core/call-options.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import type { OpenAIChatEndpointProfile, OpenAIChatTool, OpenAIChatToolChoice } from "./openai-chat-wire.ts";

/**
 * Tool specs, tool choice and `parallelToolCalls` → Chat Completions `tools`, `tool_choice` and
 * `parallel_tool_calls`. With no tools nothing is sent (a forcing choice is reported); `"any"` is
 * `"required"`; a choice naming an unknown tool is left to the model (`"auto"`) and reported;
 * `parallel_tool_calls` only where the endpoint profile takes it.
 *
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools
 */
export function prepareOpenAIChatTools(
  tools: readonly ToolSpec[],
  toolChoice: ToolChoice | undefined,
  parallelToolCalls: boolean | undefined,
  profile: OpenAIChatEndpointProfile,
): {
  tools?: OpenAIChatTool[];
  toolChoice?: OpenAIChatToolChoice | undefined;
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
  let choice: OpenAIChatToolChoice | undefined;
  if (toolChoice === undefined || toolChoice === "auto" || toolChoice === "none") choice = toolChoice;
  else if (toolChoice === "any") choice = "required";
  else if (tools.some((tool) => tool.name === toolChoice.name))
    choice = { type: "function", function: { name: toolChoice.name } };
  else {
    warnings.push(
      `toolChoice names "${toolChoice.name}", which is not among the tools; left to the model (auto)`,
    );
    choice = "auto";
  }
  let parallel: boolean | undefined;
  if (parallelToolCalls !== undefined) {
    if (profile.parallelToolCalls) parallel = parallelToolCalls;
    else warnings.push(`parallelToolCalls ignored: the ${profile.kind} endpoint does not take it`);
  }
  return { tools: tools.map(toolOf), toolChoice: choice, parallelToolCalls: parallel, warnings };
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
