/**
 * The OpenAI Chat Completions protocol, for the hosted API and the OpenAI-compatible spectrum (vLLM,
 * Ollama, DeepSeek, OpenRouter, Groq, gateways): neutral ↔ wire as pure functions plus a stream
 * assembler. Transport lives in `src/providers/openai-chat.ts`.
 *
 * @module
 */

export {
  parseTextToolCalls,
  type TextToolCall,
  type TextToolCallFormat,
  TextToolCallScanner,
} from "../text-tool-calls/index.ts";
export { assembleOpenAIChatStream } from "./assemble-openai-chat-stream.ts";
export { buildOpenAIChatRequest, type OpenAIChatRequestInput } from "./build-openai-chat-request.ts";
export {
  convertToOpenAIChatMessages,
  MISSING_TOOL_RESULT,
  type OpenAIChatReplayTarget,
} from "./convert-to-openai-chat-messages.ts";
export { mapOpenAIChatFinishReason } from "./map-openai-chat-finish-reason.ts";
export { mapOpenAIChatUsage } from "./map-openai-chat-usage.ts";
export { mapOpenAIError, type OpenAIErrorInfo } from "./map-openai-error.ts";
export * from "./openai-chat-wire.ts";
export {
  type AssembledOpenAIChatMessage,
  type OpenAIChatResponseContext,
  openAIChatResponse,
  parseOpenAIChatResponse,
} from "./parse-openai-chat-response.ts";
