/**
 * The Anthropic Messages protocol: neutral ↔ wire, as pure functions plus a stream assembler, gathered in
 * {@link anthropicMessagesProtocol}. Transport (URL, headers, auth, fetch) lives in
 * `src/providers/anthropic.ts`; the same body inside Bedrock's InvokeModel is `../bedrock-invoke/`.
 *
 * @module
 */
import { readSseBatches, type SseEvent } from "../../wire/sse.ts";
import type { Protocol, ProtocolWire } from "../protocol.ts";
import { replaysNative } from "../replays-native.ts";
import {
  ANTHROPIC_MESSAGES,
  type AnthropicMessage,
  type AnthropicRequestBody,
  type AnthropicUsage,
} from "./anthropic-wire.ts";
import { assembleAnthropicStream } from "./assemble-anthropic-stream.ts";
import { type AnthropicRequestInput, buildAnthropicRequest } from "./build-anthropic-request.ts";
import { mapAnthropicError } from "./map-anthropic-error.ts";
import { mapAnthropicStopReason } from "./map-anthropic-stop-reason.ts";
import { mapAnthropicUsage } from "./map-anthropic-usage.ts";
import {
  type AnthropicResponseContext,
  isAnthropicMessage,
  parseAnthropicResponse,
} from "./parse-anthropic-response.ts";

export type { AnthropicModelProfile, AnthropicThinkingMode, ModelPrices } from "./anthropic-model-profile.ts";
export * from "./anthropic-wire.ts";
export { applyAnthropicThinking } from "./apply-anthropic-thinking.ts";
export { AnthropicStreamAssembler, assembleAnthropicStream } from "./assemble-anthropic-stream.ts";
export { type AnthropicRequestInput, buildAnthropicRequest } from "./build-anthropic-request.ts";
export {
  type AnthropicConvertOptions,
  type AnthropicReplayTarget,
  type ConvertedAnthropicMessages,
  convertToAnthropicMessages,
  MISSING_TOOL_RESULT,
} from "./convert-to-anthropic-messages.ts";
export { mapAnthropicError } from "./map-anthropic-error.ts";
export { type AnthropicPartContext, anthropicPartBlock } from "./map-anthropic-part.ts";
export { mapAnthropicStopReason } from "./map-anthropic-stop-reason.ts";
export { mapAnthropicUsage } from "./map-anthropic-usage.ts";
export {
  type AnthropicResponseContext,
  DEFAULT_REFUSAL,
  isAnthropicMessage,
  parseAnthropicResponse,
} from "./parse-anthropic-response.ts";
export {
  MAX_CACHE_BREAKPOINTS,
  placeAnthropicCacheBreakpoints,
} from "./place-anthropic-cache-breakpoints.ts";
export { prepareAnthropicTools } from "./prepare-anthropic-tools.ts";

/** The wire types of the Anthropic Messages protocol. */
export interface AnthropicMessagesWire extends ProtocolWire {
  request: AnthropicRequestInput;
  body: AnthropicRequestBody;
  response: AnthropicMessage;
  frame: SseEvent;
  context: AnthropicResponseContext;
  usage: AnthropicUsage;
  stopReason: [stopReason: string | null | undefined];
}

/**
 * The Anthropic Messages protocol as one object (see `Protocol` for what each member guarantees): SSE
 * framing, `native.blocks` the message's `content` array verbatim.
 *
 * @see https://docs.anthropic.com/en/api/messages
 */
export const anthropicMessagesProtocol: Protocol<AnthropicMessagesWire> = {
  name: ANTHROPIC_MESSAGES,
  buildRequest: buildAnthropicRequest,
  isResponse: isAnthropicMessage,
  parseResponse: parseAnthropicResponse,
  readFrames: readSseBatches,
  assembleStream: assembleAnthropicStream,
  mapError: mapAnthropicError,
  mapUsage: mapAnthropicUsage,
  mapStopReason: mapAnthropicStopReason,
  replaysNative: (native, target) => replaysNative(ANTHROPIC_MESSAGES, native, target),
};
