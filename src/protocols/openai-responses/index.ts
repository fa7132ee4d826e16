/**
 * The OpenAI Responses protocol, for OpenAI and the Responses-compatible servers (DeepSeek, OpenRouter,
 * proxies): neutral ↔ wire as pure functions plus a stream assembler, gathered in
 * {@link openAIResponsesProtocol}. Output items (reasoning with `encrypted_content`, messages, function
 * calls) are kept verbatim in `native.blocks` and replayed in emission order. Transport lives in
 * `src/providers/openai-responses.ts`.
 *
 * @module
 */
import { readSseBatches, type SseEvent } from "../../wire/sse.ts";
import { mapOpenAIChatError } from "../openai-chat/map-openai-chat-error.ts";
import type { Protocol, ProtocolWire } from "../protocol.ts";
import { replaysNative } from "../replays-native.ts";
import { assembleOpenAIResponsesStream } from "./assemble-openai-responses-stream.ts";
import {
  buildOpenAIResponsesRequest,
  type OpenAIResponsesRequestInput,
} from "./build-openai-responses-request.ts";
import { mapOpenAIResponsesError } from "./map-openai-responses-error.ts";
import { mapOpenAIResponsesStopReason } from "./map-openai-responses-stop-reason.ts";
import { mapOpenAIResponsesUsage } from "./map-openai-responses-usage.ts";
import {
  OPENAI_RESPONSES,
  type OpenAIResponsesRequestBody,
  type OpenAIResponsesResponse,
  type OpenAIResponsesUsage,
} from "./openai-responses-wire.ts";
import {
  type OpenAIResponsesResponseContext,
  parseOpenAIResponsesResponse,
} from "./parse-openai-responses-response.ts";

export { applyOpenAIResponsesThinking } from "./apply-openai-responses-thinking.ts";
export {
  assembleOpenAIResponsesStream,
  OpenAIResponsesStreamAssembler,
} from "./assemble-openai-responses-stream.ts";
export {
  buildOpenAIResponsesRequest,
  type OpenAIResponsesRequestInput,
  openAIResponsesTextFormat,
} from "./build-openai-responses-request.ts";
export {
  type ConvertedOpenAIResponsesInput,
  convertToOpenAIResponsesInput,
  MISSING_TOOL_RESULT,
  type OpenAIResponsesReplayTarget,
} from "./convert-to-openai-responses-input.ts";
export {
  OPENAI_RESPONSES_FILE_TYPES,
  type OpenAIResponsesContentSink,
  openAIResponsesContentOf,
  openAIResponsesPartOf,
} from "./map-openai-responses-content.ts";
export { mapOpenAIResponsesError } from "./map-openai-responses-error.ts";
export { mapOpenAIResponsesStopReason } from "./map-openai-responses-stop-reason.ts";
export { mapOpenAIResponsesUsage } from "./map-openai-responses-usage.ts";
export { type OpenAIResponsesErrorSource, openAIResponsesFailure } from "./openai-responses-failure.ts";
export * from "./openai-responses-wire.ts";
export {
  type OpenAIResponsesResponseContext,
  openAIResponsesResponse,
  openAIResponsesResponseFailure,
  parseOpenAIResponsesResponse,
} from "./parse-openai-responses-response.ts";
export { prepareOpenAIResponsesTools } from "./prepare-openai-responses-tools.ts";

/** The wire types of the Responses protocol. */
export interface OpenAIResponsesWire extends ProtocolWire {
  request: OpenAIResponsesRequestInput;
  body: OpenAIResponsesRequestBody;
  response: OpenAIResponsesResponse;
  frame: SseEvent;
  context: OpenAIResponsesResponseContext;
  usage: OpenAIResponsesUsage;
  stopReason: [
    status: string | null | undefined,
    incompleteReason: string | null | undefined,
    hasToolCalls: boolean,
  ];
}

/**
 * The Responses protocol as one object (see `Protocol` for what each member guarantees): SSE framing,
 * `native.blocks` the output items verbatim; a `failed` response, and a 200 body that is an `{ error }`,
 * are errors.
 *
 * @see https://platform.openai.com/docs/api-reference/responses
 */
export const openAIResponsesProtocol: Protocol<OpenAIResponsesWire> = {
  name: OPENAI_RESPONSES,
  buildRequest: buildOpenAIResponsesRequest,
  isResponse: (json): json is OpenAIResponsesResponse => {
    const answer = json as OpenAIResponsesResponse;
    return Array.isArray(answer.output) || answer.status === "failed";
  },
  errorInResponse: (json) =>
    "error" in json && json.error ? mapOpenAIChatError(undefined, json) : undefined,
  parseResponse: parseOpenAIResponsesResponse,
  readFrames: readSseBatches,
  assembleStream: assembleOpenAIResponsesStream,
  mapError: mapOpenAIResponsesError,
  mapUsage: mapOpenAIResponsesUsage,
  mapStopReason: (status, incompleteReason, hasToolCalls) =>
    mapOpenAIResponsesStopReason(status, incompleteReason, hasToolCalls).stopReason,
  replaysNative: (native, target) => replaysNative(OPENAI_RESPONSES, native, target),
};
