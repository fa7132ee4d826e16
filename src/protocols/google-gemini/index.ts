/**
 * The Google Gemini protocol (`generateContent` / `streamGenerateContent?alt=sse`), for the Gemini API
 * and for Gemini models on Vertex AI: neutral ↔ wire as pure functions plus a stream assembler, gathered
 * in {@link googleGeminiProtocol}. The model's parts are kept verbatim in `native.blocks` — thought
 * summaries, function calls and the `thoughtSignature`s on them — and replayed byte for byte to the same
 * origin and model. Transport lives in `src/providers/gemini.ts` (and the Vertex provider).
 *
 * @module
 */
import { readSseBatches, type SseEvent } from "../../wire/sse.ts";
import type { Protocol, ProtocolWire } from "../protocol.ts";
import { replaysNative } from "../replays-native.ts";
import { assembleGeminiStream } from "./assemble-gemini-stream.ts";
import { buildGeminiRequest, type GeminiRequestInput } from "./build-gemini-request.ts";
import {
  type GeminiRequestBody,
  type GeminiResponse,
  type GeminiUsage,
  GOOGLE_GEMINI,
} from "./google-gemini-wire.ts";
import { mapGeminiError } from "./map-gemini-error.ts";
import { mapGeminiStopReason } from "./map-gemini-stop-reason.ts";
import { mapGeminiUsage } from "./map-gemini-usage.ts";
import {
  type GeminiResponseContext,
  isGeminiResponse,
  parseGeminiResponse,
} from "./parse-gemini-response.ts";

export { applyGeminiThinking } from "./apply-gemini-thinking.ts";
export { assembleGeminiStream, GeminiStreamAssembler } from "./assemble-gemini-stream.ts";
export { buildGeminiRequest, type GeminiRequestInput } from "./build-gemini-request.ts";
export {
  type ConvertedGeminiContents,
  convertToGeminiContents,
  type GeminiReplayTarget,
} from "./convert-to-gemini-contents.ts";
export {
  type GeminiModelProfile,
  type GeminiPrices,
  type GeminiThinkingLevel,
  type GeminiThinkingMode,
  geminiModelProfile,
} from "./gemini-model-profile.ts";
export * from "./google-gemini-wire.ts";
export { mapGeminiError } from "./map-gemini-error.ts";
export { geminiPartOf } from "./map-gemini-part.ts";
export { mapGeminiStopReason } from "./map-gemini-stop-reason.ts";
export { mapGeminiUsage } from "./map-gemini-usage.ts";
export {
  type GeminiResponseContext,
  geminiCallId,
  geminiRefusal,
  isGeminiResponse,
  parseGeminiResponse,
} from "./parse-gemini-response.ts";
export { prepareGeminiTools } from "./prepare-gemini-tools.ts";

/** The wire types of the Gemini protocol. */
export interface GoogleGeminiWire extends ProtocolWire {
  request: GeminiRequestInput;
  body: GeminiRequestBody;
  response: GeminiResponse;
  frame: SseEvent;
  context: GeminiResponseContext;
  usage: GeminiUsage;
  stopReason: [finishReason: string | null | undefined, hasToolCalls?: boolean];
}

/**
 * The Gemini protocol as one object (see `Protocol` for what each member guarantees): SSE framing
 * (`alt=sse`), `native.blocks` the candidate's parts verbatim, provenance by `origin` (`"gemini"`,
 * `"vertex"`) and model; a 200 body that is an `{ error }` is that error.
 *
 * @see https://ai.google.dev/api/generate-content
 */
export const googleGeminiProtocol: Protocol<GoogleGeminiWire> = {
  name: GOOGLE_GEMINI,
  buildRequest: buildGeminiRequest,
  isResponse: isGeminiResponse,
  errorInResponse: (json) => ("error" in json && json.error ? mapGeminiError(undefined, json) : undefined),
  parseResponse: parseGeminiResponse,
  readFrames: readSseBatches,
  assembleStream: assembleGeminiStream,
  mapError: mapGeminiError,
  mapUsage: mapGeminiUsage,
  mapStopReason: mapGeminiStopReason,
  replaysNative: (native, target) => replaysNative(GOOGLE_GEMINI, native, target),
};
