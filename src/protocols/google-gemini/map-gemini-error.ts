import { errorKindFromStatus, type ProviderErrorKind } from "../../core/provider-error.ts";
import { isContextOverflow } from "../context-overflow.ts";
import type { ErrorBodyInfo } from "../protocol.ts";
import { isPlainObject } from "../stored-history.ts";
import type { GeminiErrorBody } from "./google-gemini-wire.ts";

/** Gemini's own words for a prompt over the context window. */
const GEMINI_OVERFLOW = /input token count.*exceeds the maximum number of tokens/i;

/**
 * A Google API error (`{ error: { code, message, status, details } }`, also as a one-element array, as an
 * HTTP error body or a stream event) → kind, message, code and wait. The `status` (a `google.rpc.Code`
 * name) decides where it is specific, the HTTP status (or `error.code`) otherwise:
 *
 * - `RESOURCE_EXHAUSTED` → `rate_limit`; its `google.rpc.RetryInfo.retryDelay` (`"34.4s"`) → `retryAfterMs`;
 *   a daily quota (`QuotaFailure` naming `…PerDay…`) and a 402 (credit spent) are `retryable: false`;
 * - `INVALID_ARGUMENT` / `FAILED_PRECONDITION` / `OUT_OF_RANGE` → `bad_request` — `auth` when
 *   `ErrorInfo.reason` is `API_KEY_INVALID` (an invalid key is a 400 here), `context_length` when the
 *   message says the prompt exceeds the window (`isContextOverflow`, or Gemini's "The input token count (N)
 *   exceeds the maximum number of tokens allowed (M)");
 * - `UNAUTHENTICATED` / `PERMISSION_DENIED` → `auth`; `NOT_FOUND` → `not_found`; `UNAVAILABLE` →
 *   `overloaded`; `DEADLINE_EXCEEDED` → `timeout`; `INTERNAL` / `UNKNOWN` / `ABORTED` → `server`.
 *
 * Total: any status, body and headers give a kind and a message.
 *
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting
 * @see https://cloud.google.com/apis/design/errors
 */
export function mapGeminiError(status: number | undefined, json: unknown, _headers?: Headers): ErrorBodyInfo {
  const body = (Array.isArray(json) ? json[0] : json) as GeminiErrorBody | undefined;
  const error =
    typeof body === "object" && body !== null && isPlainObject(body.error) ? body.error : undefined;
  const code = typeof error?.status === "string" ? error.status : undefined;
  const httpStatus = status ?? (typeof error?.code === "number" ? error.code : undefined);
  const text = typeof error?.message === "string" ? error.message : undefined;
  const message = text ?? (httpStatus !== undefined ? `HTTP ${httpStatus}` : "Gemini stream error");
  const details = Array.isArray(error?.details) ? error.details.filter(isPlainObject) : [];
  const detail = (type: string) => details.find((entry) => String(entry["@type"]).endsWith(type));

  let kind: ProviderErrorKind;
  let retryable: boolean | undefined;
  switch (code) {
    case "RESOURCE_EXHAUSTED":
      kind = "rate_limit";
      if (httpStatus === 402 || dailyQuota(detail("google.rpc.QuotaFailure"))) retryable = false;
      break;
    case "INVALID_ARGUMENT":
    case "FAILED_PRECONDITION":
    case "OUT_OF_RANGE":
      kind = "bad_request";
      break;
    case "UNAUTHENTICATED":
    case "PERMISSION_DENIED":
      kind = "auth";
      break;
    case "NOT_FOUND":
      kind = "not_found";
      break;
    case "UNAVAILABLE":
      kind = "overloaded";
      break;
    case "DEADLINE_EXCEEDED":
      kind = "timeout";
      break;
    case "INTERNAL":
    case "UNKNOWN":
    case "ABORTED":
    case "DATA_LOSS":
      kind = "server";
      break;
    default:
      kind = httpStatus === undefined ? "server" : errorKindFromStatus(httpStatus);
  }
  if (detail("google.rpc.ErrorInfo")?.reason === "API_KEY_INVALID") kind = "auth";
  if (kind === "bad_request" && (isContextOverflow(message) || GEMINI_OVERFLOW.test(message))) {
    kind = "context_length";
  }
  const info: ErrorBodyInfo = { kind, message };
  if (code !== undefined) info.code = code;
  if (retryable !== undefined) info.retryable = retryable;
  const wait = retryDelayMs(detail("google.rpc.RetryInfo")?.retryDelay);
  if (wait !== undefined) info.retryAfterMs = wait;
  return info;
}

/** A `google.protobuf.Duration` in JSON (`"34.4s"`, `"1s"`) → milliseconds. */
function retryDelayMs(value: unknown): number | undefined {
  if (typeof value !== "string") return undefined;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
  return match ? Math.round(Number(match[1]) * 1000) : undefined;
}

/** Whether a `QuotaFailure` names a per-day quota (it will not pass by waiting seconds). */
function dailyQuota(failure: Record<string, unknown> | undefined): boolean {
  const violations = Array.isArray(failure?.violations) ? failure.violations : [];
  return violations.some(
    (violation: unknown) => isPlainObject(violation) && /PerDay/i.test(String(violation.quotaId ?? "")),
  );
}
