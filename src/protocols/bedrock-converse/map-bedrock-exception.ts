import { errorKindFromStatus, ProviderError, type ProviderErrorKind } from "../../core/provider-error.ts";
import { type AwsEventFrame, frameInfo } from "../../wire/aws-event-stream.ts";
import { isContextOverflow } from "../context-overflow.ts";

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

/**
 * Exception names (lower-cased) → kind. Stream exceptions come camelCase (`throttlingException`), HTTP
 * errors PascalCase (`ThrottlingException`).
 *
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ResponseStream.html
 * @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html#API_runtime_ConverseStream_Errors
 */
const KINDS = new Map<string, ProviderErrorKind>([
  ["throttlingexception", "rate_limit"],
  ["servicequotaexceededexception", "rate_limit"],
  ["serviceunavailableexception", "overloaded"],
  ["modelnotreadyexception", "overloaded"],
  ["modelstreamerrorexception", "server"],
  ["modelerrorexception", "server"],
  ["internalserverexception", "server"],
  ["validationexception", "bad_request"],
  ["accessdeniedexception", "auth"],
  // AWS-wide authentication failures (403), seen before any Bedrock code runs.
  ["unrecognizedclientexception", "auth"],
  ["invalidsignatureexception", "auth"],
  ["expiredtokenexception", "auth"],
  ["missingauthenticationtokenexception", "auth"],
  ["resourcenotfoundexception", "not_found"],
  ["modeltimeoutexception", "timeout"],
]);

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
  const code = exceptionName(exceptionType);
  let kind: ProviderErrorKind = knownKind(code) ?? "server";
  message ||= code ? `Bedrock ${code}` : "Bedrock stream error";
  if (kind === "bad_request" && isContextOverflow(message)) kind = "context_length";
  return { kind, message, code };
}

/** The kind of a known exception name (any case), else undefined. */
function knownKind(code: string | undefined): ProviderErrorKind | undefined {
  return code ? KINDS.get(code.toLowerCase()) : undefined;
}

/** What an HTTP error response of Bedrock means: kind, message, code and request id. */
export interface BedrockHttpErrorInfo extends BedrockExceptionInfo {
  requestId: string | undefined;
}

/**
 * A Bedrock HTTP error response → kind, message and code. Bedrock answers errors with a JSON body
 * `{ "message": "…" }` (sometimes `Message`, sometimes with `__type`) and names the exception in the
 * `x-amzn-errortype` header (`ValidationException:http://internal.amazon.com/coral/…`). A known exception
 * name decides the kind; otherwise the HTTP status does. A too-long prompt is `context_length`.
 *
 * @param headers the response headers (`x-amzn-errortype`, `x-amzn-requestid`)
 */
export function mapBedrockHttpError(status: number, body: unknown, headers?: Headers): BedrockHttpErrorInfo {
  const record = (typeof body === "object" && body !== null ? body : {}) as {
    message?: unknown;
    Message?: unknown;
    __type?: unknown;
  };
  const code = exceptionName(
    headers?.get("x-amzn-errortype") ?? (typeof record.__type === "string" ? record.__type : undefined),
  );
  const message =
    typeof record.message === "string" && record.message !== ""
      ? record.message
      : typeof record.Message === "string" && record.Message !== ""
        ? record.Message
        : code
          ? `Bedrock ${code}`
          : `HTTP ${status}`;
  let kind = knownKind(code) ?? errorKindFromStatus(status);
  if (kind === "bad_request" && isContextOverflow(message)) kind = "context_length";
  return { kind, message, code, requestId: headers?.get("x-amzn-requestid") ?? undefined };
}

/**
 * The `ProviderError` for an exception frame of a Bedrock event stream (`:message-type: exception` or
 * `error`), or for an `…Exception` event: the mid-stream failure of ConverseStream or
 * InvokeModelWithResponseStream.
 */
export function bedrockStreamError(
  frame: AwsEventFrame,
  source: { provider: string; model: string; partialOutput: boolean },
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
    partialOutput: source.partialOutput,
  });
}

/** `ns#ThrottlingException:http://…` → `ThrottlingException`; blank → undefined. */
function exceptionName(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let name = raw.trim();
  const colon = name.indexOf(":");
  if (colon !== -1) name = name.slice(0, colon);
  name = name.slice(name.lastIndexOf("#") + 1);
  return name || undefined;
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
