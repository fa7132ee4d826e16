/**
 * Amazon Bedrock on the wire: the Converse protocol (neutral ↔ Converse JSON, as pure functions plus a
 * ConverseStream assembler, gathered in {@link bedrockConverseProtocol}) and Bedrock Runtime's exceptions,
 * shared with InvokeModel (`../bedrock-invoke/`). Transport (URL, SigV4 / bearer auth, fetch) lives in
 * `src/providers/bedrock.ts`.
 *
 * @module
 */

import type { AwsEventFrame } from "../../wire/aws-event-stream.ts";
import { readAwsEventStream } from "../../wire/aws-event-stream.ts";
import type { Protocol, ProtocolWire } from "../protocol.ts";
import { replaysNative } from "../replays-native.ts";
import { assembleBedrockConverseStream } from "./assemble-bedrock-converse-stream.ts";
import {
  BEDROCK_CONVERSE,
  type ConverseRequestBody,
  type ConverseResponse,
  type ConverseUsage,
} from "./bedrock-converse-wire.ts";
import {
  type BedrockConverseRequestInput,
  buildBedrockConverseRequest,
} from "./build-bedrock-converse-request.ts";
import { mapBedrockConverseStopReason } from "./map-bedrock-converse-stop-reason.ts";
import { mapBedrockConverseUsage } from "./map-bedrock-converse-usage.ts";
import { mapBedrockHttpError } from "./map-bedrock-http-error.ts";
import {
  type BedrockConverseResponseContext,
  parseBedrockConverseResponse,
} from "./parse-bedrock-converse-response.ts";

export {
  assembleBedrockConverseStream,
  BedrockConverseStreamAssembler,
} from "./assemble-bedrock-converse-stream.ts";
export {
  CONVERSE_DOCUMENT_FORMATS,
  CONVERSE_IMAGE_FORMATS,
  type ConverseMediaContext,
  converseMediaBlock,
  converseMediaContext,
  documentName,
  MAX_DOCUMENT_NAME_LENGTH,
} from "./bedrock-converse-media.ts";
export * from "./bedrock-converse-wire.ts";
export { bedrockExceptionKind } from "./bedrock-exception-kind.ts";
export {
  type BedrockModelTraits,
  bedrockModelTraits,
  isAnthropicBedrockModel,
} from "./bedrock-model-traits.ts";
export { bedrockStreamError } from "./bedrock-stream-error.ts";
export {
  type BedrockConverseRequestInput,
  buildBedrockConverseRequest,
} from "./build-bedrock-converse-request.ts";
export {
  type BedrockConverseConvertOptions,
  type BedrockConverseReplayTarget,
  CONVERSATION_START,
  type ConvertedBedrockConverseMessages,
  convertToBedrockConverseMessages,
  DOCUMENT_TEXT,
  EMPTY_TOOL_RESULT,
  MISSING_TOOL_RESULT,
  RESULTS_SEPARATOR,
} from "./convert-to-bedrock-converse-messages.ts";
export { mapBedrockConverseStopReason } from "./map-bedrock-converse-stop-reason.ts";
export { mapBedrockConverseUsage } from "./map-bedrock-converse-usage.ts";
export {
  type BedrockExceptionInfo,
  type BedrockExceptionSource,
  mapBedrockException,
} from "./map-bedrock-exception.ts";
export { type BedrockHttpErrorInfo, mapBedrockHttpError } from "./map-bedrock-http-error.ts";
export {
  type BedrockConverseResponseContext,
  converseResponseFromBlocks,
  parseBedrockConverseResponse,
} from "./parse-bedrock-converse-response.ts";
export { MAX_CACHE_POINTS, placeBedrockCachePoints } from "./place-bedrock-cache-points.ts";
export { PLACEHOLDER_TOOL, prepareBedrockConverseTools } from "./prepare-bedrock-converse-tools.ts";

/** The wire types of the Converse protocol. */
export interface BedrockConverseWire extends ProtocolWire {
  request: BedrockConverseRequestInput;
  body: ConverseRequestBody;
  response: ConverseResponse;
  frame: AwsEventFrame;
  context: BedrockConverseResponseContext;
  usage: ConverseUsage;
  stopReason: [stopReason: string | null | undefined];
}

/**
 * The Converse protocol as one object (see `Protocol` for what each member guarantees): AWS event-stream
 * framing, Bedrock Runtime's exceptions, `native.blocks` the output message's `content` verbatim. The body
 * has no `stream` field: the URL (`/converse` or `/converse-stream`) says it.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html
 */
export const bedrockConverseProtocol: Protocol<BedrockConverseWire> = {
  name: BEDROCK_CONVERSE,
  buildRequest: buildBedrockConverseRequest,
  isResponse: (json): json is ConverseResponse =>
    Array.isArray((json as ConverseResponse).output?.message?.content),
  parseResponse: parseBedrockConverseResponse,
  readFrames: readAwsEventStream,
  assembleStream: assembleBedrockConverseStream,
  mapError: mapBedrockHttpError,
  mapUsage: mapBedrockConverseUsage,
  mapStopReason: mapBedrockConverseStopReason,
  replaysNative: (native, target) => replaysNative(BEDROCK_CONVERSE, native, target),
};
