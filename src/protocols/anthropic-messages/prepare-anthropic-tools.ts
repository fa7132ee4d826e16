import type { ToolChoice } from "../../core/call-options.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import { resolveToolChoice } from "../resolve-tool-choice.ts";
import type { AnthropicTool, AnthropicToolChoice } from "./anthropic-wire.ts";

/**
 * Tool specs and tool choice → Anthropic `tools` and `tool_choice`. With no tools, no `tool_choice` is sent
 * (the API rejects one), and a choice naming an unknown tool is reported rather than sent.
 *
 * @see https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
 */
export function prepareAnthropicTools(
  tools: readonly ToolSpec[],
  toolChoice: ToolChoice | undefined,
  parallelToolCalls?: boolean,
): { tools: AnthropicTool[] | undefined; toolChoice: AnthropicToolChoice | undefined; warnings: string[] } {
  const warnings: string[] = [];
  const resolved = resolveToolChoice(tools, toolChoice, warnings);
  if (tools.length === 0) return { tools: undefined, toolChoice: undefined, warnings };
  const prepared = tools.map((tool) => {
    const entry: AnthropicTool = { name: tool.name, input_schema: { type: "object", ...tool.parameters } };
    if (tool.description) entry.description = tool.description;
    return entry;
  });
  let choice: AnthropicToolChoice | undefined =
    typeof resolved === "object" ? { type: "tool", name: resolved.name } : resolved && { type: resolved };
  if (parallelToolCalls === false && choice?.type !== "none") {
    // Anthropic says it the other way round, on the tool choice.
    choice = { ...(choice ?? { type: "auto" }), disable_parallel_tool_use: true } as AnthropicToolChoice;
  }
  return { tools: prepared, toolChoice: choice, warnings };
}
