import type { ToolChoice } from "../../core/call-options.ts";
import type { ToolSpec } from "../../core/tool-spec.ts";
import { resolveToolChoice } from "../resolve-tool-choice.ts";
import type { GeminiFunctionCallingConfig, GeminiTool } from "./google-gemini-wire.ts";

/**
 * Tool specs and tool choice → Gemini `tools` (one entry of `functionDeclarations`, each with its JSON
 * Schema as `parametersJsonSchema`) and `toolConfig.functionCallingConfig`, after `resolveToolChoice`:
 * `auto` → `AUTO`, `any` → `ANY`, `none` → `NONE`, a named tool → `ANY` with `allowedFunctionNames: [name]`.
 * With no tools nothing is sent. Gemini has no switch for parallel calls: `parallelToolCalls: false` is
 * left out with a warning.
 *
 * @see https://ai.google.dev/gemini-api/docs/function-calling
 */
export function prepareGeminiTools(
  tools: readonly ToolSpec[],
  toolChoice: ToolChoice | undefined,
  parallelToolCalls?: boolean,
): { tools: GeminiTool[] | undefined; config: GeminiFunctionCallingConfig | undefined; warnings: string[] } {
  const warnings: string[] = [];
  const resolved = resolveToolChoice(tools, toolChoice, warnings);
  if (tools.length === 0) return { tools: undefined, config: undefined, warnings };
  if (parallelToolCalls === false) {
    warnings.push("parallelToolCalls: false has no Gemini equivalent; left out (the model may call several)");
  }
  const functionDeclarations = tools.map((tool) => ({
    name: tool.name,
    ...(tool.description ? { description: tool.description } : {}),
    parametersJsonSchema: { type: "object", ...tool.parameters },
  }));
  let config: GeminiFunctionCallingConfig | undefined;
  if (typeof resolved === "object") config = { mode: "ANY", allowedFunctionNames: [resolved.name] };
  else if (resolved === "any") config = { mode: "ANY" };
  else if (resolved === "none") config = { mode: "NONE" };
  else if (resolved === "auto") config = { mode: "AUTO" };
  return { tools: [{ functionDeclarations }], config, warnings };
}
