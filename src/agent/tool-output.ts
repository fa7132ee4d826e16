/**
 * A tool's result with more than text: content parts (an image, a file) and an explicit error flag, for a
 * tool that reports a failure without throwing (an MCP server's `isError: true` result, say).
 *
 * @module
 */
import type { Content } from "../core/content.ts";

/** Marks a {@link ToolOutput}; `Symbol.for`, so two copies of the library recognise each other's. */
const TOOL_OUTPUT: unique symbol = Symbol.for("modelwire.toolOutput") as never;

/**
 * What an `AgentTool.execute` may return to set the result's content parts and `isError` itself: `runAgent`
 * passes both on as the `ToolResult`, where any other value goes back as text (or JSON).
 */
export interface ToolOutput {
  readonly [TOOL_OUTPUT]: true;
  content: Content;
  isError: boolean;
}

/**
 * A {@link ToolOutput}: `content` (a string or parts) given to the model as the tool's result, as an error
 * result when `isError` is set.
 *
 * @example
 * ```ts
 * execute: async () => toolOutput([{ type: "image", mediaType: "image/png", data: png }])
 * execute: async () => toolOutput("the ticket is closed", { isError: true })
 * ```
 */
export function toolOutput(content: Content, options: { isError?: boolean } = {}): ToolOutput {
  return { [TOOL_OUTPUT]: true, content, isError: options.isError === true };
}

/** Whether `value` is a {@link ToolOutput} (made by {@link toolOutput}, in this copy of the library or another). */
export function isToolOutput(value: unknown): value is ToolOutput {
  // `?.` reads nothing from null or undefined; a primitive has no such symbol property.
  return (value as Record<symbol, unknown> | null | undefined)?.[TOOL_OUTPUT] === true;
}
