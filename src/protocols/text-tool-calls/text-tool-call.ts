/**
 * A tool call written as text, and the grammars that write them.
 *
 * @module
 */

export type TextToolCallFormat = "hermes" | "qwen3-coder" | "mistral" | "llama3-json";

export interface TextToolCall {
  name: string;
  /** Always a plain object (`{}` when the model's arguments were not a JSON object). */
  arguments: Record<string, unknown>;
  /** The arguments as text: the model's own text where it wrote one, else `JSON.stringify(arguments)`. */
  argumentsText: string;
}

/** Every grammar, in a stable order. */
export const TEXT_TOOL_CALL_FORMATS: readonly TextToolCallFormat[] = [
  "hermes",
  "qwen3-coder",
  "mistral",
  "llama3-json",
];

/** Longest function / parameter name, Mistral tool name or call id read before the tag is given up on. */
export const MAX_NAME = 256;
