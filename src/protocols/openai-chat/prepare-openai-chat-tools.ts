import type { ToolChoice } from "../../core/call-options.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import { resolveToolChoice } from "../resolve-tool-choice.ts";
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
  const resolved = resolveToolChoice(tools, toolChoice, warnings);
  if (tools.length === 0) return { warnings };
  const choice: OpenAIChatToolChoice | undefined =
    typeof resolved === "object"
      ? { type: "function", function: { name: resolved.name } }
      : resolved === "any"
        ? "required"
        : resolved;
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
