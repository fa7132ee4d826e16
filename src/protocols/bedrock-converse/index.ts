/**
 * Amazon Bedrock on the wire: the Converse protocol (neutral ↔ Converse JSON, as pure functions plus a
 * ConverseStream assembler), the InvokeModelWithResponseStream reader for Anthropic models (its chunks
 * carry Anthropic Messages events, handed to the anthropic-messages assembler) and Bedrock's exceptions.
 * Transport (URL, SigV4 / bearer auth, fetch) lives in `src/providers/bedrock.ts`.
 *
 * @module
 */
export {
  assembleBedrockConverseStream,
  BedrockConverseStreamAssembler,
} from "./assemble-bedrock-converse-stream.ts";
export { anthropicEventOfChunk, assembleBedrockInvokeStream } from "./assemble-bedrock-invoke-stream.ts";
export { base64ToBytes, bytesToBase64 } from "./base64.ts";
export * from "./bedrock-converse-wire.ts";
export {
  type BedrockModelTraits,
  bedrockModelTraits,
  isAnthropicBedrockModel,
} from "./bedrock-model-traits.ts";
export {
  type BedrockConverseRequestInput,
  buildBedrockConverseRequest,
  PLACEHOLDER_TOOL,
} from "./build-bedrock-converse-request.ts";
export {
  type BedrockConverseConvertOptions,
  type BedrockConverseReplayTarget,
  CONVERSATION_START,
  type ConvertedBedrockConverseMessages,
  convertToBedrockConverseMessages,
  EMPTY_TOOL_RESULT,
  MISSING_TOOL_RESULT,
} from "./convert-to-bedrock-converse-messages.ts";
export { mapBedrockConverseStopReason } from "./map-bedrock-converse-stop-reason.ts";
export { mapBedrockConverseUsage } from "./map-bedrock-converse-usage.ts";
export {
  type BedrockExceptionInfo,
  type BedrockExceptionSource,
  type BedrockHttpErrorInfo,
  bedrockStreamError,
  mapBedrockException,
  mapBedrockHttpError,
} from "./map-bedrock-exception.ts";
export {
  type BedrockConverseResponseContext,
  converseResponseFromBlocks,
  parseBedrockConverseResponse,
} from "./parse-bedrock-converse-response.ts";
export { MAX_CACHE_POINTS, placeBedrockCachePoints } from "./place-bedrock-cache-points.ts";
