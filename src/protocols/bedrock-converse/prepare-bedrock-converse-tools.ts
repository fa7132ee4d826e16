import type { ToolChoice } from "../../core/call-options.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import { resolveToolChoice } from "../resolve-tool-choice.ts";
import type { ConverseTool, ConverseToolChoice, ConverseToolConfig } from "./bedrock-converse-wire.ts";

/** The tool declared when the history holds tool blocks but the call offers no tools. */
export const PLACEHOLDER_TOOL = "no_tools_available";

/**
 * Converse `toolConfig` from the tool specs, the tool choice and whether the history holds `toolUse` /
 * `toolResult` blocks. `"any"` is `{ any: {} }`; a choice naming an unknown tool is left to the model
 * (`{ auto: {} }`) and reported.
 *
 * Converse has no `toolChoice: none`: the tools are withheld instead. But Converse rejects a history with
 * tool blocks and no `toolConfig`, so when the history has them a `toolConfig` is sent anyway — the given
 * tools with the choice left to the model, or, when no tools were given, the inert {@link PLACEHOLDER_TOOL}
 * — with a warning. On a model that takes no forced choice (`forcedToolChoice` false: Llama, most
 * open-weight models) `any` and a named tool are not sent — the choice is the model's — with a warning.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolConfiguration.html
 */
export function prepareBedrockConverseTools(
  tools: readonly ToolSpec[],
  choice: ToolChoice | undefined,
  hasToolBlocks: boolean,
  forcedToolChoice = true,
): { toolConfig: ConverseToolConfig | undefined; warnings: string[] } {
  const warnings: string[] = [];
  const config = toolConfig(tools, choice, hasToolBlocks, warnings);
  const sent = config?.toolChoice;
  if (config && sent && !forcedToolChoice && !("auto" in sent)) {
    // Llama and most open-weight models reject a forced toolChoice on Converse.
    delete config.toolChoice;
    warnings.push(
      `this model cannot be forced to call a tool on Converse; toolChoice ${"any" in sent ? '"any"' : JSON.stringify(sent.tool.name)} left to the model`,
    );
  }
  return { toolConfig: config, warnings };
}

function toolConfig(
  tools: readonly ToolSpec[],
  requested: ToolChoice | undefined,
  hasToolBlocks: boolean,
  warnings: string[],
): ConverseToolConfig | undefined {
  const choice = resolveToolChoice(tools, requested, warnings);
  if (tools.length === 0 || choice === "none") {
    if (!hasToolBlocks) return undefined;
    // Converse rejects a history with tool blocks and no toolConfig ("The toolConfig field must be defined
    // when using toolUse and toolResult content blocks").
    if (tools.length > 0) {
      warnings.push(
        "Converse has no toolChoice none and requires the tools declared when the history holds tool calls; tools sent, the choice left to the model",
      );
      return { tools: tools.map(toolEntry) };
    }
    warnings.push(
      `the history holds tool calls but no tools were given; Converse requires a toolConfig: declared the placeholder tool ${PLACEHOLDER_TOOL}`,
    );
    return {
      tools: [
        {
          toolSpec: {
            name: PLACEHOLDER_TOOL,
            description: "No tools are available in this turn. Do not call this tool.",
            inputSchema: { json: { type: "object", properties: {} } },
          },
        },
      ],
    };
  }
  const config: ConverseToolConfig = { tools: tools.map(toolEntry) };
  let toolChoice: ConverseToolChoice | undefined;
  if (choice === "auto") toolChoice = { auto: {} };
  else if (choice === "any") toolChoice = { any: {} };
  else if (typeof choice === "object") toolChoice = { tool: { name: choice.name } };
  if (toolChoice) config.toolChoice = toolChoice;
  return config;
}

function toolEntry(tool: ToolSpec): ConverseTool {
  const spec: ConverseTool = {
    toolSpec: { name: tool.name, inputSchema: { json: { type: "object", ...tool.parameters } } },
  };
  if (tool.description) spec.toolSpec.description = tool.description;
  return spec;
}
