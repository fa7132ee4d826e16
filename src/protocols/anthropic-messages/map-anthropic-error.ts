import { errorKindFromStatus, type ProviderErrorKind } from "../../core/provider-error.ts";
import { isContextOverflow } from "../context-overflow.ts";
import type { AnthropicErrorBody } from "./anthropic-wire.ts";

/** What an Anthropic error means, before transport details (status, headers) are added. */
export interface AnthropicErrorInfo {
  kind: ProviderErrorKind;
  message: string;
  code: string | undefined;
  requestId: string | undefined;
}

/**
 * An Anthropic error body (HTTP error response or mid-stream `error` event; anything that is not an object
 * counts as no body) → kind and message. The `error.type` decides where it is specific; otherwise the HTTP
 * status does.
 *
 * @see https://docs.anthropic.com/en/api/errors
 */
export function mapAnthropicError(status: number | undefined, json: unknown): AnthropicErrorInfo {
  const body = typeof json === "object" && json !== null ? (json as AnthropicErrorBody) : undefined;
  const code = body?.error?.type;
  const text = body?.error?.message;
  const message = typeof text === "string" ? text : status ? `HTTP ${status}` : "Anthropic stream error";
  let kind: ProviderErrorKind;
  switch (code) {
    case "overloaded_error":
      kind = "overloaded";
      break;
    case "rate_limit_error":
      kind = "rate_limit";
      break;
    case "api_error":
      kind = "server";
      break;
    case "timeout_error":
      kind = "timeout";
      break;
    case "authentication_error":
    case "permission_error":
    case "billing_error":
      kind = "auth";
      break;
    case "not_found_error":
      kind = "not_found";
      break;
    case "request_too_large":
    case "invalid_request_error":
      kind = "bad_request";
      break;
    default:
      kind = status === undefined ? "server" : errorKindFromStatus(status);
  }
  // request_too_large is about bytes, not tokens: it stays bad_request.
  if (kind === "bad_request" && code !== "request_too_large" && isContextOverflow(message)) {
    kind = "context_length";
  }
  return { kind, message, code, requestId: body?.request_id };
}
