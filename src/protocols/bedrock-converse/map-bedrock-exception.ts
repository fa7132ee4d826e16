import type { ProviderErrorKind } from "../../core/provider-error.ts";
import { type AwsEventFrame, frameInfo } from "../../wire/aws-event-stream.ts";
import { isContextOverflow } from "../context-overflow.ts";
import { bedrockExceptionKind } from "./bedrock-exception-kind.ts";

/** What a Bedrock exception means, before transport details (status, request id) are added. */
export interface BedrockExceptionInfo {
  kind: ProviderErrorKind;
  message: string;
  /** The exception name as AWS sent it (`throttlingException`, `ValidationException`), if any. */
  code: string | undefined;
}

/** An exception known only by name and message (an HTTP error response, or a frame already read). */
export interface BedrockExceptionSource {
  /**
   * `:exception-type` of a stream frame (`throttlingException`) or the `x-amzn-errortype` response header
   * (`ThrottlingException:http://internal.amazon.com/coral/...`): case of the first letter, a trailing
   * `:<url>` and a leading `<namespace>#` do not matter.
   */
  exceptionType: string | undefined;
  message?: string | undefined;
}

const utf8 = new TextDecoder();

/**
 * A Bedrock exception → kind, message and code: an exception frame of the event stream
 * (`:message-type: exception` with `:exception-type`, or `:message-type: error` with `:error-code`), or
 * a name and message from an HTTP error response. Unknown names are `server` errors.
 *
 * @example
 * ```ts
 * if (frameInfo(frame).messageType !== "event") {
 *   const { kind, message, code } = mapBedrockException(frame);
 *   throw new ProviderError({ kind, message, code, provider: "bedrock", model });
 * }
 * ```
 */
export function mapBedrockException(source: AwsEventFrame | BedrockExceptionSource): BedrockExceptionInfo {
  let exceptionType: string | undefined;
  let message: string | undefined;
  if ("payload" in source) {
    const info = frameInfo(source);
    exceptionType = info.exceptionType ?? info.errorCode;
    message = payloadMessage(source.payload) ?? info.errorMessage;
  } else {
    exceptionType = source.exceptionType;
    message = source.message;
  }
  const known = bedrockExceptionKind(exceptionType);
  const code = known.code;
  let kind: ProviderErrorKind = known.kind ?? "server";
  message ||= code ? `Bedrock ${code}` : "Bedrock stream error";
  if (kind === "bad_request" && isContextOverflow(message)) kind = "context_length";
  return { kind, message, code };
}

/**
 * The message of an exception payload: JSON `{ message }` (or `Message`), with a model's
 * `originalMessage` (modelStreamErrorException) added; a short non-JSON payload as text.
 */
function payloadMessage(payload: Uint8Array): string | undefined {
  const text = utf8.decode(payload).trim();
  if (text === "") return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text.length <= 1000 ? text : `${text.slice(0, 1000)}…`;
  }
  if (typeof body !== "object" || body === null) return undefined;
  const fields = body as { message?: unknown; Message?: unknown; originalMessage?: unknown };
  const main = typeof fields.message === "string" ? fields.message : fields.Message;
  const original = fields.originalMessage;
  if (typeof main !== "string" || main === "") return typeof original === "string" ? original : undefined;
  return typeof original === "string" && original !== "" && original !== main
    ? `${main} (${original})`
    : main;
}
