/**
 * `modelwire/wire`: byte-level framing with no provider knowledge (DESIGN.md layer 2) — server-sent events
 * from a response body, one at a time or one batch per network read; the AWS event-stream decoder (prelude
 * and message CRC32 checked) Bedrock streams in; and the `WireError` bad framing raises. For code that
 * reads a provider's stream itself, or a protocol that frames its stream this way.
 *
 * @example
 * ```ts
 * import { readSse } from "modelwire/wire";
 * for await (const event of readSse(response.body!)) if (event.data !== "[DONE]") handle(JSON.parse(event.data));
 * ```
 *
 * @module
 */
export {
  type AwsEventFrame,
  AwsEventStreamDecoder,
  type AwsEventStreamOptions,
  type AwsFrameInfo,
  type AwsHeaderValue,
  DEFAULT_AWS_MAX_FRAME_BYTES,
  decodeAwsEventFrame,
  frameInfo,
  readAwsEventStream,
} from "./aws-event-stream.ts";
export { crc32 } from "./crc32.ts";
export {
  DEFAULT_SSE_MAX_BUFFER,
  type ReadSseOptions,
  readSse,
  readSseBatches,
  type SseEvent,
} from "./sse.ts";
export { WireError, type WireErrorCode } from "./wire-error.ts";
