import type { ToolChoice } from "../../core/call-options.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
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
  if (tools.length === 0) {
    if (toolChoice !== undefined && toolChoice !== "none" && toolChoice !== "auto") {
      warnings.push(`toolChoice ${JSON.stringify(toolChoice)} ignored: no tools were given`);
    }
    return { tools: undefined, toolChoice: undefined, warnings };
  }
  const prepared = tools.map((tool) => {
    const entry: AnthropicTool = { name: tool.name, input_schema: { type: "object", ...tool.parameters } };
    if (tool.description) entry.description = tool.description;
    return entry;
  });
  let choice: AnthropicToolChoice | undefined;
  if (toolChoice === undefined) choice = undefined;
  else if (toolChoice === "auto") choice = { type: "auto" };
  else if (toolChoice === "any") choice = { type: "any" };
  else if (toolChoice === "none") choice = { type: "none" };
  else if (tools.some((tool) => tool.name === toolChoice.name))
    choice = { type: "tool", name: toolChoice.name };
  else {
    warnings.push(
      `toolChoice names "${toolChoice.name}", which is not among the tools; left to the model (auto)`,
    );
    choice = { type: "auto" };
  }
  if (parallelToolCalls === false && choice?.type !== "none") {
    // Anthropic says it the other way round, on the tool choice.
    choice = { ...(choice ?? { type: "auto" }), disable_parallel_tool_use: true } as AnthropicToolChoice;
  }
  return { tools: prepared, toolChoice: choice, warnings };
}
