/**
 * Tool calls written as TEXT inside `content`, as self-hosted OpenAI-compatible servers return them when no
 * tool parser runs on the server (vLLM without `--tool-call-parser`, Ollama raw mode, gateways):
 *
 * - `hermes` (Hermes 2 Pro / 3, Qwen2.5, Qwen3): `<tool_call>\n{"name": "f", "arguments": {...}}\n</tool_call>`,
 *   any number of them, with text before, between and after. `arguments` may be an object or a JSON string
 *   (`parameters` is accepted too). The JSON is scanned string-aware, so `</tool_call>` inside a JSON string
 *   does not end the call.
 * - `qwen3-coder`: `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n...</function>\n</tool_call>`,
 *   also without the `<tool_call>` wrapper, and a Hermes JSON body inside `<tool_call>`. Values are raw text:
 *   one leading and one trailing newline are trimmed; a value that parses as a JSON number, boolean, object,
 *   array or null becomes that value, anything else stays the string. As in vLLM's `qwen3_coder` parser, a
 *   `</parameter>` ends a value only when whitespace and then `<parameter=` or `</function>` follow it, so a
 *   value may contain `</parameter>` (or `</tool_call>`) as literal text.
 * - `mistral`: `[TOOL_CALLS]` followed by a JSON array `[{"name": ..., "arguments": {...}}]` (tokenizers before
 *   v11), or `[TOOL_CALLS]name[ARGS]{json}` (v11+, possibly repeated; `[CALL_ID]id` before `[ARGS]` and a
 *   missing `[ARGS]` — `name{json}` — are accepted), or a single call object.
 * - `llama3-json` (Llama 3.1+ JSON tool calling): the message itself is `{"name": ..., "parameters": {...}}`
 *   (or `"arguments"`), optionally after `<|python_tag|>`, possibly several objects separated by `;` and/or
 *   whitespace. Only a message that STARTS (after whitespace) with `{` or `<|python_tag|>` can be calls: if
 *   its first object is not a call the whole message is text (a bare JSON answer such as `{"name": "Alice"}`
 *   without a warning), and whatever follows the last call (other than `;`/whitespace) is text.
 *
 * Guarantees:
 * - Visible text streams through as soon as it is known not to be part of a tag: only a suffix that could
 *   still be the start of a tag (e.g. `<tool_` at the end of a delta) is held back. For `llama3-json` a
 *   message that could still be a call is held until it is decided; other text is released at once.
 * - A well-formed tag and its content never appear in text. Text around tags is kept verbatim (the newlines
 *   a model writes around `<tool_call>` blocks included).
 * - A malformed tag (bad JSON, missing name, unclosed at end of stream, unexpected content) is released as
 *   TEXT with a warning: never thrown, never dropped. The opening tag (or, where a JSON body or a whole
 *   function was read, everything up to its end) is released and what follows is scanned again as text, so
 *   a good call after a broken one is still found.
 * - `arguments` is always a plain object; anything else gives `{}` with the raw text in `argumentsText`
 *   (and a warning). `argumentsText` is the model's own text where it wrote the arguments as a separate
 *   text (a JSON string value, Mistral's `[ARGS]` segment), else `JSON.stringify(arguments)`.
 * - The result does not depend on how the text is cut into deltas: `parseTextToolCalls(text)` is exactly
 *   `push(text)` + `finish()`. Scanning keeps its position between deltas: no delta re-scans the text
 *   before it (the only look-back is the few characters of a possible partial tag), and a long call is not
 *   re-copied per delta either (see {@link RegionText}).
 *
 * @see https://docs.vllm.ai/en/latest/features/tool_calling.html (parsers `hermes`, `qwen3_coder`, `mistral`, `llama3_json`)
 * @see https://qwen.readthedocs.io/en/latest/framework/function_call.html
 * @see https://llama.meta.com/docs/model-cards-and-prompt-formats/llama3_1/#json-based-tool-calling
 */
import { TOOL_CALL_OPEN } from "./hermes.ts";
import { Llama3Engine } from "./llama3-json.ts";
import { MISTRAL_OPEN } from "./mistral.ts";
import { FUNCTION_OPEN } from "./qwen3-coder.ts";
import type { Engine, Output } from "./scan.ts";
import { TagEngine } from "./tag-engine.ts";
import { TEXT_TOOL_CALL_FORMATS, type TextToolCall, type TextToolCallFormat } from "./text-tool-call.ts";

/** Whole-message parse (non-streaming responses). Never throws. */
export function parseTextToolCalls(
  text: string,
  format: TextToolCallFormat,
): { text: string; toolCalls: TextToolCall[]; warnings: string[] } {
  if (typeof text !== "string") return { text: "", toolCalls: [], warnings: ["text tool calls: no text"] };
  if (!TEXT_TOOL_CALL_FORMATS.includes(format)) {
    return { text, toolCalls: [], warnings: [`text tool calls: unknown format ${JSON.stringify(format)}`] };
  }
  try {
    const scanner = new TextToolCallScanner(format);
    const first = scanner.push(text);
    const rest = scanner.finish();
    return {
      text: first.text + rest.text,
      toolCalls: [...first.toolCalls, ...rest.toolCalls],
      warnings: rest.warnings,
    };
  } catch (error) {
    // Not expected; the contract is that a parse never throws, so the content survives as text.
    return { text, toolCalls: [], warnings: [`${format}: text tool call parse failed (${String(error)})`] };
  }
}

/** Streaming scanner: feed content deltas as they arrive. */
export class TextToolCallScanner {
  readonly #engine: Engine;
  readonly #warnings: string[] = [];
  #finished = false;

  constructor(format: TextToolCallFormat) {
    switch (format) {
      case "hermes":
        this.#engine = new TagEngine(format, [TOOL_CALL_OPEN], this.#warnings);
        break;
      case "qwen3-coder":
        this.#engine = new TagEngine(format, [TOOL_CALL_OPEN, FUNCTION_OPEN], this.#warnings);
        break;
      case "mistral":
        this.#engine = new TagEngine(format, [MISTRAL_OPEN], this.#warnings);
        break;
      case "llama3-json":
        this.#engine = new Llama3Engine(this.#warnings);
        break;
      default:
        throw new TypeError(`Unknown text tool call format ${JSON.stringify(format)}`);
    }
  }

  /**
   * Returns the visible text that can be released now (never any part of a tool-call tag or its content)
   * and the tool calls completed by this delta.
   */
  push(delta: string): { text: string; toolCalls: TextToolCall[] } {
    if (this.#finished) throw new Error("TextToolCallScanner.push() after finish()");
    const out: Output = { text: [], toolCalls: [] };
    if (delta !== "") this.#engine.push(delta, out);
    return { text: out.text.join(""), toolCalls: out.toolCalls };
  }

  /**
   * End of stream: flushes held-back text; an unterminated or malformed call is released as TEXT (not
   * dropped, not a crash) with a warning. `warnings` holds every warning of the stream, including those
   * raised while pushing. A second call returns nothing new.
   */
  finish(): { text: string; toolCalls: TextToolCall[]; warnings: string[] } {
    const out: Output = { text: [], toolCalls: [] };
    if (!this.#finished) {
      this.#finished = true;
      this.#engine.finish(out);
    }
    return { text: out.text.join(""), toolCalls: out.toolCalls, warnings: [...this.#warnings] };
  }
}
