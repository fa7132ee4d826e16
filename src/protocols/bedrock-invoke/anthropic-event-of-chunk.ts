import { ProviderError } from "../../core/provider-error.ts";
import { type AwsEventFrame, frameInfo } from "../../wire/aws-event-stream.ts";
import type { AnthropicStreamEvent } from "../anthropic-messages/anthropic-wire.ts";
import { base64ToBytes } from "../bedrock-converse/base64.ts";

const utf8 = new TextDecoder();

/**
 * The Anthropic event inside one InvokeModelWithResponseStream frame: the frame's payload is
 * `{ "bytes": "<base64>", "p": "<padding>" }` and `bytes` decodes to exactly the JSON of an Anthropic
 * Messages stream event. Undefined for frames that are not `chunk` events; throws `invalid_response` for a
 * chunk that does not hold one (`partialOutput` is set by the stream loop, `deliverBatches`).
 */
export function anthropicEventOfChunk(
  frame: AwsEventFrame,
  source: { provider: string; model: string },
): AnthropicStreamEvent | undefined {
  const text = anthropicChunkText(frame, source);
  if (text === undefined) return undefined;
  try {
    const event = JSON.parse(text) as AnthropicStreamEvent;
    if (typeof event !== "object" || event === null) throw new TypeError("not an event object");
    return event;
  } catch (cause) {
    throw notAnEvent(utf8.decode(frame.payload), source, cause);
  }
}

/**
 * The text of the Anthropic event inside a `chunk` frame, exactly as Bedrock sent it (the decoded
 * `bytes`): what a gateway passing the stream through sends on. Undefined for frames that are not `chunk`
 * events; `invalid_response` for a chunk without base64 `bytes`.
 */
export function anthropicChunkText(
  frame: AwsEventFrame,
  source: { provider: string; model: string },
): string | undefined {
  if (frameInfo(frame).eventType !== "chunk") return undefined;
  const text = utf8.decode(frame.payload);
  try {
    const chunk = JSON.parse(text) as { bytes?: unknown };
    if (typeof chunk?.bytes !== "string") throw new TypeError("no bytes");
    return utf8.decode(base64ToBytes(chunk.bytes));
  } catch (cause) {
    throw notAnEvent(text, source, cause);
  }
}

function notAnEvent(
  text: string,
  source: { provider: string; model: string },
  cause: unknown,
): ProviderError {
  return new ProviderError({
    kind: "invalid_response",
    message: "Bedrock InvokeModelWithResponseStream sent a chunk that does not hold an Anthropic event",
    provider: source.provider,
    model: source.model,
    upstreamBody: text,
    cause,
  });
}
