/**
 * Tool calls written as text inside a message's content (hermes, qwen3-coder, mistral, llama3-json), as
 * self-hosted OpenAI-compatible servers return them when no tool parser runs on the server. Not specific
 * to one protocol: any assembler that receives text can run it. See `text-tool-call-scanner.ts` for the
 * guarantees; one file per grammar.
 *
 * @module
 */

export { TEXT_TOOL_CALL_FORMATS, type TextToolCall, type TextToolCallFormat } from "./text-tool-call.ts";
export { parseTextToolCalls, TextToolCallScanner } from "./text-tool-call-scanner.ts";
