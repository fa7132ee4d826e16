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
  if (frameInfo(frame).eventType !== "chunk") return undefined;
  const text = utf8.decode(frame.payload);
  try {
    const chunk = JSON.parse(text) as { bytes?: unknown };
    if (typeof chunk?.bytes !== "string") throw new TypeError("no bytes");
    const event = JSON.parse(utf8.decode(base64ToBytes(chunk.bytes))) as AnthropicStreamEvent;
    if (typeof event !== "object" || event === null) throw new TypeError("not an event object");
    return event;
  } catch (cause) {
    throw new ProviderError({
      kind: "invalid_response",
      message: "Bedrock InvokeModelWithResponseStream sent a chunk that does not hold an Anthropic event",
      provider: source.provider,
      model: source.model,
      upstreamBody: text,
      cause,
    });
  }
}
