import { errorKindFromStatus } from "../../core/provider-error.ts";
import { isContextOverflow } from "../context-overflow.ts";
import { bedrockExceptionKind } from "./bedrock-exception-kind.ts";
import type { BedrockExceptionInfo } from "./map-bedrock-exception.ts";

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
  const known = bedrockExceptionKind(
    headers?.get("x-amzn-errortype") ?? (typeof record.__type === "string" ? record.__type : undefined),
  );
  const code = known.code;
  const message =
    typeof record.message === "string" && record.message !== ""
      ? record.message
      : typeof record.Message === "string" && record.Message !== ""
        ? record.Message
        : code
          ? `Bedrock ${code}`
          : `HTTP ${status}`;
  let kind = known.kind ?? errorKindFromStatus(status);
  if (kind === "bad_request" && isContextOverflow(message)) kind = "context_length";
  return { kind, message, code, requestId: headers?.get("x-amzn-requestid") ?? undefined };
}
