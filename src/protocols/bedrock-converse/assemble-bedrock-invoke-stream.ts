import { ProviderError } from "../../core/provider-error.ts";
import type { StreamEvent } from "../../core/stream-event.ts";
import { type AwsEventFrame, frameInfo } from "../../wire/aws-event-stream.ts";
import type { AnthropicStreamEvent } from "../anthropic-messages/anthropic-wire.ts";
import { AnthropicStreamAssembler } from "../anthropic-messages/assemble-anthropic-stream.ts";
import type { AnthropicResponseContext } from "../anthropic-messages/parse-anthropic-response.ts";
import { deliverBatches } from "../deliver-batches.ts";
import { base64ToBytes } from "./base64.ts";
import { bedrockStreamError } from "./map-bedrock-exception.ts";

const utf8 = new TextDecoder();

/**
 * The Anthropic event inside one InvokeModelWithResponseStream frame: the frame's payload is
 * `{ "bytes": "<base64>", "p": "<padding>" }` and `bytes` decodes to exactly the JSON of an Anthropic
 * Messages stream event. Undefined for frames that are not `chunk` events; throws `invalid_response` for a
 * chunk that does not hold one.
 */
export function anthropicEventOfChunk(
  frame: AwsEventFrame,
  source: { provider: string; model: string; partialOutput: boolean },
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
      partialOutput: source.partialOutput,
      cause,
    });
  }
}

/**
 * Assembles an InvokeModelWithResponseStream body of an Anthropic model, given as the frame batches of
 * `readAwsEventStream` (or single frames). Each `chunk` frame's base64 `bytes` is an Anthropic Messages
 * event, fed to the same {@link AnthropicStreamAssembler} as the first-party SSE stream — so signed
 * thinking, `redacted_thinking` and `tool_use` come out exactly as from the first-party API, with
 * `native.origin` from `context` (`"bedrock"`).
 *
 * An exception frame (`throttlingException`, `modelStreamErrorException`, …) throws its `ProviderError`
 * after the output of the frames before it; a stream that ends before `message_stop` throws `truncated`.
 */
export function assembleBedrockInvokeStream(
  frames: AsyncIterable<AwsEventFrame | readonly AwsEventFrame[]>,
  context: AnthropicResponseContext,
): AsyncGenerator<StreamEvent, void, undefined> {
  const assembler = new AnthropicStreamAssembler(context);
  return deliverBatches(frames, assembler, (frame, out) => {
    const source = {
      provider: context.provider,
      model: context.model,
      partialOutput: assembler.producedOutput,
    };
    const { messageType, eventType } = frameInfo(frame);
    if ((messageType !== undefined && messageType !== "event") || eventType?.endsWith("Exception")) {
      throw bedrockStreamError(frame, source);
    }
    const event = anthropicEventOfChunk(frame, source);
    if (event !== undefined) assembler.apply(event, out);
  });
}
