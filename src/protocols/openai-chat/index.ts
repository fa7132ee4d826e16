/**
 * The OpenAI Chat Completions protocol, for the hosted API and the OpenAI-compatible spectrum (vLLM,
 * Ollama, DeepSeek, OpenRouter, Groq, gateways): neutral ↔ wire as pure functions plus a stream
 * assembler, gathered in {@link openAIChatProtocol}. Transport lives in `src/providers/openai-chat.ts`.
 *
 * @module
 */
import { readSseBatches, type SseEvent } from "../../wire/sse.ts";
import type { Protocol, ProtocolWire } from "../protocol.ts";
import { replaysNative } from "../replays-native.ts";
import { assembleOpenAIChatStream } from "./assemble-openai-chat-stream.ts";
import { buildOpenAIChatRequest, type OpenAIChatRequestInput } from "./build-openai-chat-request.ts";
import { mapOpenAIChatError } from "./map-openai-chat-error.ts";
import { mapOpenAIChatStopReason } from "./map-openai-chat-stop-reason.ts";
import { mapOpenAIChatUsage } from "./map-openai-chat-usage.ts";
import {
  OPENAI_CHAT,
  type OpenAIChatCompletion,
  type OpenAIChatRequestBody,
  type OpenAIChatUsage,
} from "./openai-chat-wire.ts";
import { type OpenAIChatResponseContext, parseOpenAIChatResponse } from "./parse-openai-chat-response.ts";

export {
  parseTextToolCalls,
  type TextToolCall,
  type TextToolCallFormat,
  TextToolCallScanner,
} from "../text-tool-calls/index.ts";
export { applyOpenAIChatThinking } from "./apply-openai-chat-thinking.ts";
export { assembleOpenAIChatStream } from "./assemble-openai-chat-stream.ts";
export { buildOpenAIChatRequest, type OpenAIChatRequestInput } from "./build-openai-chat-request.ts";
export {
  type OpenAIChatContentContext,
  openAIChatPartOf,
  openAIChatUserContentOf,
} from "./convert-to-openai-chat-content.ts";
export {
  convertToOpenAIChatMessages,
  MISSING_TOOL_RESULT,
  type OpenAIChatReplayTarget,
} from "./convert-to-openai-chat-messages.ts";
export { mapOpenAIChatError, type OpenAIErrorInfo } from "./map-openai-chat-error.ts";
export { mapOpenAIChatStopReason } from "./map-openai-chat-stop-reason.ts";
export { mapOpenAIChatUsage } from "./map-openai-chat-usage.ts";
export * from "./openai-chat-wire.ts";
export {
  type AssembledOpenAIChatMessage,
  type OpenAIChatResponseContext,
  openAIChatResponse,
  parseOpenAIChatResponse,
} from "./parse-openai-chat-response.ts";
export {
  type OpenAIChatResponseFormatPlan,
  prepareOpenAIChatResponseFormat,
} from "./prepare-openai-chat-response-format.ts";
export { prepareOpenAIChatTools } from "./prepare-openai-chat-tools.ts";
export { rateLimitResetMs } from "./rate-limit-reset-ms.ts";

/** The wire types of the Chat Completions protocol. */
export interface OpenAIChatWire extends ProtocolWire {
  request: OpenAIChatRequestInput;
  body: OpenAIChatRequestBody;
  response: OpenAIChatCompletion;
  frame: SseEvent;
  context: OpenAIChatResponseContext;
  usage: OpenAIChatUsage;
  stopReason: [finishReason: string | null | undefined];
}

/**
 * The Chat Completions protocol as one object (see `Protocol` for what each member guarantees): SSE
 * framing ending at `[DONE]`, `native.origin` the endpoint profile's `kind`, failures a server reports in a
 * 200 body (`{ error }`) read as errors.
 *
 * @see https://platform.openai.com/docs/api-reference/chat
 */
export const openAIChatProtocol: Protocol<OpenAIChatWire> = {
  name: OPENAI_CHAT,
  buildRequest: buildOpenAIChatRequest,
  isResponse: (json): json is OpenAIChatCompletion => {
    const choices = (json as OpenAIChatCompletion).choices;
    return Array.isArray(choices) && choices.length > 0;
  },
  errorInResponse: (json) => ("error" in json ? mapOpenAIChatError(undefined, json) : undefined),
  parseResponse: parseOpenAIChatResponse,
  readFrames: readSseBatches,
  assembleStream: assembleOpenAIChatStream,
  mapError: mapOpenAIChatError,
  mapUsage: mapOpenAIChatUsage,
  mapStopReason: mapOpenAIChatStopReason,
  replaysNative: (native, target) => replaysNative(OPENAI_CHAT, native, target),
};
