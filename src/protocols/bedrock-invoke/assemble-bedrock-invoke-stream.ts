import type { StreamEvent } from "../../core/stream-event.ts";
import { type AwsEventFrame, frameInfo } from "../../wire/aws-event-stream.ts";
import { AnthropicStreamAssembler } from "../anthropic-messages/assemble-anthropic-stream.ts";
import type { AnthropicResponseContext } from "../anthropic-messages/parse-anthropic-response.ts";
import { bedrockStreamError } from "../bedrock-converse/bedrock-stream-error.ts";
import { deliverBatches } from "../deliver-batches.ts";
import { anthropicEventOfChunk } from "./anthropic-event-of-chunk.ts";

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
    const { messageType, eventType } = frameInfo(frame);
    if ((messageType !== undefined && messageType !== "event") || eventType?.endsWith("Exception")) {
      throw bedrockStreamError(frame, context);
    }
    const event = anthropicEventOfChunk(frame, context);
    if (event !== undefined) assembler.apply(event, out);
  });
}
