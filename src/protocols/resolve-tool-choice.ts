import type { ToolChoice } from "../core/call-options.ts";
import type { ToolSpec } from "../core/tool-spec.ts";

/**
 * The tool choice a request can honour, checked against its tools — the one rule every `prepare-*-tools`
 * applies before writing its wire's shape:
 * - with no tools there is nothing to choose: `undefined` (a choice that forces a call, `"any"` or a named
 *   tool, is reported as ignored);
 * - a named tool that is not among the tools is left to the model, `"auto"`, and reported;
 * - anything else is the choice as given (`undefined` when the call set none).
 */
export function resolveToolChoice(
  tools: readonly ToolSpec[],
  choice: ToolChoice | undefined,
  warnings: string[],
): ToolChoice | undefined {
  if (tools.length === 0) {
    if (choice !== undefined && choice !== "auto" && choice !== "none") {
      warnings.push(`toolChoice ${JSON.stringify(choice)} ignored: no tools were given`);
    }
    return undefined;
  }
  if (typeof choice === "object" && !tools.some((tool) => tool.name === choice.name)) {
    warnings.push(
      `toolChoice names "${choice.name}", which is not among the tools; left to the model (auto)`,
    );
    return "auto";
  }
  return choice;
}
