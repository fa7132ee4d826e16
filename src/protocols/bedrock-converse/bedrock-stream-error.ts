import { ProviderError } from "../../core/provider-error.ts";
import { type AwsEventFrame, frameInfo } from "../../wire/aws-event-stream.ts";
import { mapBedrockException } from "./map-bedrock-exception.ts";

const utf8 = new TextDecoder();

/**
 * The `ProviderError` for an exception frame of a Bedrock event stream (`:message-type: exception` or
 * `error`), or for an `…Exception` event: the mid-stream failure of ConverseStream or
 * InvokeModelWithResponseStream. `partialOutput` is set by the stream loop (`deliverBatches`), which knows
 * whether content went out before it.
 */
export function bedrockStreamError(
  frame: AwsEventFrame,
  source: { provider: string; model: string },
): ProviderError {
  const info = frameInfo(frame);
  const named =
    info.exceptionType === undefined && info.errorCode === undefined && info.eventType !== undefined
      ? { headers: { ...frame.headers, ":exception-type": info.eventType }, payload: frame.payload }
      : frame;
  const { kind, message, code } = mapBedrockException(named);
  return new ProviderError({
    kind,
    message: `${source.provider}: ${message}`,
    code,
    provider: source.provider,
    model: source.model,
    upstreamBody: utf8.decode(frame.payload) || undefined,
  });
}
