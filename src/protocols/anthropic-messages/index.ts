/**
 * The Anthropic Messages protocol: neutral ↔ wire, as pure functions plus a stream assembler. Transport
 * (URL, headers, auth, fetch) lives in `src/providers/anthropic.ts` and `src/providers/bedrock.ts`.
 *
 * @module
 */
export type { AnthropicModelProfile, AnthropicThinkingMode, ModelPrices } from "./anthropic-model-profile.ts";
export * from "./anthropic-wire.ts";
export { applyAnthropicThinking } from "./apply-anthropic-thinking.ts";
export { AnthropicStreamAssembler, assembleAnthropicStream } from "./assemble-anthropic-stream.ts";
export { type AnthropicRequestInput, buildAnthropicRequest } from "./build-anthropic-request.ts";
export {
  type AnthropicReplayTarget,
  type ConvertedAnthropicMessages,
  convertToAnthropicMessages,
  MISSING_TOOL_RESULT,
} from "./convert-to-anthropic-messages.ts";
export { mapAnthropicError } from "./map-anthropic-error.ts";
export { mapAnthropicStopReason } from "./map-anthropic-stop-reason.ts";
export { mapAnthropicUsage } from "./map-anthropic-usage.ts";
export { type AnthropicResponseContext, parseAnthropicResponse } from "./parse-anthropic-response.ts";
export {
  MAX_CACHE_BREAKPOINTS,
  placeAnthropicCacheBreakpoints,
} from "./place-anthropic-cache-breakpoints.ts";
export { prepareAnthropicTools } from "./prepare-anthropic-tools.ts";
