/**
 * Anthropic Messages as Bedrock's InvokeModel carries it, gathered in {@link bedrockInvokeProtocol}: the
 * Messages body in Bedrock's envelope (`anthropic_version`, `anthropic_beta`, no `model`, `stream` or
 * `metadata`), the Messages response as it is, the stream as AWS event-stream `chunk` frames whose base64
 * `bytes` are Messages events, and Bedrock Runtime's exceptions for errors. Its `native` blocks are
 * `anthropic-messages` blocks with origin `"bedrock"`: they replay to the same model through InvokeModel,
 * never to the first-party API (whose signatures Bedrock's do not match).
 *
 * A folder of its own, not a file in `anthropic-messages/`: a protocol folder exports one protocol object,
 * and InvokeModel's framing, envelope and errors are Bedrock's, so the first-party Anthropic folder stays
 * free of anything Bedrock. Transport lives in `src/providers/bedrock.ts`.
 *
 * @module
 */
import { type AwsEventFrame, readAwsEventStream } from "../../wire/aws-event-stream.ts";
import {
  ANTHROPIC_MESSAGES,
  type AnthropicMessage,
  type AnthropicUsage,
} from "../anthropic-messages/anthropic-wire.ts";
import { mapAnthropicStopReason } from "../anthropic-messages/map-anthropic-stop-reason.ts";
import { mapAnthropicUsage } from "../anthropic-messages/map-anthropic-usage.ts";
import {
  type AnthropicResponseContext,
  isAnthropicMessage,
  parseAnthropicResponse,
} from "../anthropic-messages/parse-anthropic-response.ts";
import { mapBedrockHttpError } from "../bedrock-converse/map-bedrock-http-error.ts";
import type { Protocol, ProtocolWire } from "../protocol.ts";
import { replaysNative } from "../replays-native.ts";
import { assembleBedrockInvokeStream } from "./assemble-bedrock-invoke-stream.ts";
import type { BedrockInvokeRequestBody } from "./bedrock-invoke-wire.ts";
import { type BedrockInvokeRequestInput, buildBedrockInvokeRequest } from "./build-bedrock-invoke-request.ts";

export { anthropicChunkText, anthropicEventOfChunk } from "./anthropic-event-of-chunk.ts";
export { assembleBedrockInvokeStream } from "./assemble-bedrock-invoke-stream.ts";
export { BEDROCK_INVOKE_BETAS, bedrockInvokeBetas } from "./bedrock-betas.ts";
export { BEDROCK_ANTHROPIC_VERSION, type BedrockInvokeRequestBody } from "./bedrock-invoke-wire.ts";
export { type BedrockInvokeRequestInput, buildBedrockInvokeRequest } from "./build-bedrock-invoke-request.ts";

/** The wire types of Anthropic Messages over Bedrock InvokeModel. */
export interface BedrockInvokeWire extends ProtocolWire {
  request: BedrockInvokeRequestInput;
  body: BedrockInvokeRequestBody;
  response: AnthropicMessage;
  frame: AwsEventFrame;
  context: AnthropicResponseContext;
  usage: AnthropicUsage;
  stopReason: [stopReason: string | null | undefined];
}

/**
 * Anthropic Messages over Bedrock InvokeModel as one object (see `Protocol` for what each member
 * guarantees). `name` is `anthropic-messages`: what it produces is Anthropic content, told apart from the
 * first-party API's by `native.origin`.
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
 */
export const bedrockInvokeProtocol: Protocol<BedrockInvokeWire> = {
  name: ANTHROPIC_MESSAGES,
  buildRequest: buildBedrockInvokeRequest,
  isResponse: isAnthropicMessage,
  parseResponse: parseAnthropicResponse,
  readFrames: readAwsEventStream,
  assembleStream: assembleBedrockInvokeStream,
  mapError: mapBedrockHttpError,
  mapUsage: mapAnthropicUsage,
  mapStopReason: mapAnthropicStopReason,
  replaysNative: (native, target) => replaysNative(ANTHROPIC_MESSAGES, native, target),
};
