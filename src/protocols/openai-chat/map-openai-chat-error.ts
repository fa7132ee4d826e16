import { errorKindFromStatus, type ProviderErrorKind } from "../../core/provider-error.ts";
import { isContextOverflow } from "../context-overflow.ts";
import { rateLimitResetMs } from "./rate-limit-reset-ms.ts";

/** What an OpenAI(-compatible) error body means. */
export interface OpenAIErrorInfo {
  kind: ProviderErrorKind;
  message: string;
  code: string | undefined;
  retryable: boolean | undefined;
  /** For a 429 with `x-ratelimit-reset-*` headers: the wait they name (`Retry-After` goes first). */
  retryAfterMs?: number | undefined;
}

/**
 * An OpenAI-style error (`{ error: { message, type, code } }`, from an HTTP error, an `error` SSE event or
 * an error inside a chunk) → kind. `code` decides where it is specific: `context_length_exceeded` →
 * `context_length`; `insufficient_quota` → `rate_limit` but not retryable (a fallback trigger, not a retry
 * trigger); `rate_limit_exceeded` → `rate_limit`; `invalid_api_key` → `auth`. Otherwise the status (or,
 * inside a stream, a numeric `code` used as a status) decides. The Responses API answers in the same
 * envelope, so its errors are read here too.
 *
 * @param headers the HTTP response headers, when there is a response: a 429 takes its wait from
 *   `x-ratelimit-reset-*` ({@link rateLimitResetMs}).
 * @see https://platform.openai.com/docs/guides/error-codes
 */
export function mapOpenAIChatError(
  status: number | undefined,
  body: unknown,
  headers?: Headers,
): OpenAIErrorInfo {
  const record = (typeof body === "object" && body !== null ? body : {}) as {
    error?: { message?: unknown; type?: unknown; code?: unknown } | string | null;
    message?: unknown;
  };
  const error = typeof record.error === "object" && record.error !== null ? record.error : undefined;
  const message =
    typeof error?.message === "string"
      ? error.message
      : typeof record.error === "string"
        ? record.error
        : typeof record.message === "string"
          ? record.message
          : status
            ? `HTTP ${status}`
            : "stream error";
  const rawCode = error?.code ?? error?.type;
  const code = rawCode === undefined || rawCode === null ? undefined : String(rawCode);
  const effectiveStatus = status ?? (typeof error?.code === "number" ? error.code : undefined);
  let kind: ProviderErrorKind =
    effectiveStatus === undefined ? "server" : errorKindFromStatus(effectiveStatus);
  let retryable: boolean | undefined;
  switch (code) {
    case "context_length_exceeded":
    case "string_above_max_length":
      kind = "context_length";
      break;
    case "insufficient_quota":
      kind = "rate_limit";
      retryable = false;
      break;
    case "rate_limit_exceeded":
      kind = "rate_limit";
      break;
    case "invalid_api_key":
    case "invalid_authentication":
      kind = "auth";
      break;
    case "model_not_found":
      kind = "not_found";
      break;
    case "server_error":
      kind = "server";
      break;
  }
  if (kind === "bad_request" && isContextOverflow(message)) kind = "context_length";
  const info: OpenAIErrorInfo = { kind, message, code, retryable };
  if (status === 429 && headers) info.retryAfterMs = rateLimitResetMs(headers);
  return info;
}
