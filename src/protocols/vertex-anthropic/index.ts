/**
 * Anthropic Messages as Vertex AI carries it, gathered in {@link vertexAnthropicProtocol}: the Messages
 * body in Vertex's envelope (`anthropic_version: "vertex-2023-10-16"`, no `model`), the Messages response
 * and SSE stream as they are, and Vertex's two error shapes (Anthropic's and Google's). Its `native`
 * blocks are `anthropic-messages` blocks with origin `"vertex"`: they replay to the same model on Vertex,
 * never to the first-party API or Bedrock (whose signatures Vertex's do not match).
 *
 * A folder of its own, not a file in `anthropic-messages/`: a protocol folder exports one protocol object,
 * and the envelope and errors are Vertex's. Transport (URLs, OAuth) lives in `src/providers/vertex.ts`.
 *
 * @module
 */
import { readSseBatches, type SseEvent } from "../../wire/sse.ts";
import {
  ANTHROPIC_MESSAGES,
  type AnthropicMessage,
  type AnthropicUsage,
} from "../anthropic-messages/anthropic-wire.ts";
import { assembleAnthropicStream } from "../anthropic-messages/assemble-anthropic-stream.ts";
import { mapAnthropicStopReason } from "../anthropic-messages/map-anthropic-stop-reason.ts";
import { mapAnthropicUsage } from "../anthropic-messages/map-anthropic-usage.ts";
import {
  type AnthropicResponseContext,
  isAnthropicMessage,
  parseAnthropicResponse,
} from "../anthropic-messages/parse-anthropic-response.ts";
import type { Protocol, ProtocolWire } from "../protocol.ts";
import { replaysNative } from "../replays-native.ts";
import {
  buildVertexAnthropicRequest,
  type VertexAnthropicRequestInput,
} from "./build-vertex-anthropic-request.ts";
import { mapVertexAnthropicError } from "./map-vertex-anthropic-error.ts";
import type { VertexAnthropicRequestBody } from "./vertex-anthropic-wire.ts";

export {
  buildVertexAnthropicRequest,
  type VertexAnthropicRequestInput,
} from "./build-vertex-anthropic-request.ts";
export { mapVertexAnthropicError } from "./map-vertex-anthropic-error.ts";
export {
  type GoogleRpcErrorBody,
  VERTEX_ANTHROPIC_VERSION,
  VERTEX_ORIGIN,
  type VertexAnthropicRequestBody,
} from "./vertex-anthropic-wire.ts";
export { VERTEX_ANTHROPIC_BETAS } from "./vertex-betas.ts";

/** The wire types of Anthropic Messages over Vertex AI's rawPredict. */
export interface VertexAnthropicWire extends ProtocolWire {
  request: VertexAnthropicRequestInput;
  body: VertexAnthropicRequestBody;
  response: AnthropicMessage;
  frame: SseEvent;
  context: AnthropicResponseContext;
  usage: AnthropicUsage;
  stopReason: [stopReason: string | null | undefined];
}

/**
 * Claude on Vertex AI as one object (see `Protocol` for what each member guarantees). `name` is
 * `anthropic-messages`: what it produces is Anthropic content, told apart from the first-party API's by
 * `native.origin` (`"vertex"`).
 *
 * @see https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude
 */
export const vertexAnthropicProtocol: Protocol<VertexAnthropicWire> = {
  name: ANTHROPIC_MESSAGES,
  buildRequest: buildVertexAnthropicRequest,
  isResponse: isAnthropicMessage,
  parseResponse: parseAnthropicResponse,
  readFrames: readSseBatches,
  assembleStream: assembleAnthropicStream,
  mapError: mapVertexAnthropicError,
  mapUsage: mapAnthropicUsage,
  mapStopReason: mapAnthropicStopReason,
  replaysNative: (native, target) => replaysNative(ANTHROPIC_MESSAGES, native, target),
};
