/**
 * The OpenAI Responses protocol, for OpenAI and the Responses-compatible servers (DeepSeek, OpenRouter,
 * proxies): neutral ↔ wire as pure functions plus a stream assembler. Output items (reasoning with
 * `encrypted_content`, messages, function calls) are kept verbatim in `native.blocks` and replayed in
 * emission order. Transport lives in `src/providers/openai-responses.ts`.
 *
 * @module
 */
export {
  assembleOpenAIResponsesStream,
  OpenAIResponsesStreamAssembler,
} from "./assemble-openai-responses-stream.ts";
export {
  buildOpenAIResponsesRequest,
  type OpenAIResponsesRequestInput,
} from "./build-openai-responses-request.ts";
export {
  type ConvertedOpenAIResponsesInput,
  convertToOpenAIResponsesInput,
  MISSING_TOOL_RESULT,
  type OpenAIResponsesReplayTarget,
} from "./convert-to-openai-responses-input.ts";
export { type OpenAIResponsesErrorSource, openAIResponsesFailure } from "./map-openai-responses-error.ts";
export { mapOpenAIResponsesStopReason } from "./map-openai-responses-stop-reason.ts";
export { mapOpenAIResponsesUsage } from "./map-openai-responses-usage.ts";
export * from "./openai-responses-wire.ts";
export {
  type OpenAIResponsesResponseContext,
  openAIResponsesResponse,
  openAIResponsesResponseFailure,
  parseOpenAIResponsesResponse,
} from "./parse-openai-responses-response.ts";
