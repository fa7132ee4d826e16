import { errorKindFromStatus, type ProviderErrorKind } from "../../core/provider-error.ts";
import { mapAnthropicError } from "../anthropic-messages/map-anthropic-error.ts";
import { isContextOverflow } from "../context-overflow.ts";
import type { ErrorBodyInfo } from "../protocol.ts";
import type { GoogleRpcErrorBody } from "./vertex-anthropic-wire.ts";

/**
 * A Vertex AI error answer to a Claude call → kind, message, code and wait. Two shapes arrive:
 * Anthropic's own (`{ type: "error", error: { type, message } }`, from the model: overloaded, invalid
 * request, prompt too long), read by `mapAnthropicError`; and Google's (`{ error: { code, status,
 * message, details } }`, from Vertex's front end: quota, IAM, an unknown model), whose `status` (the
 * `google.rpc.Code` name) decides the kind, the HTTP status otherwise. Either may come wrapped in a
 * one-element array (`streamRawPredict` does that). A `google.rpc.RetryInfo` `retryDelay` is the wait; a
 * `QuotaFailure` on a per-day quota is not retryable. A too-long prompt is `context_length`.
 *
 * @see https://cloud.google.com/apis/design/errors#handling_errors
 * @see https://docs.anthropic.com/en/api/errors
 */
export function mapVertexAnthropicError(status: number, json: unknown, headers?: Headers): ErrorBodyInfo {
  const body = Array.isArray(json) ? json[0] : json;
  const record = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : undefined;
  const anthropicShaped =
    record?.type === "error" ||
    typeof (record?.error as { type?: unknown } | null | undefined)?.type === "string";
  if (anthropicShaped) {
    const info = mapAnthropicError(status, record);
    return {
      kind: info.kind,
      message: info.message,
      code: info.code,
      requestId: info.requestId ?? headers?.get("x-request-id") ?? undefined,
    };
  }
  const error = (record as GoogleRpcErrorBody | undefined)?.error ?? undefined;
  const code = typeof error?.status === "string" && error.status !== "" ? error.status : undefined;
  const message =
    typeof error?.message === "string" && error.message !== ""
      ? error.message
      : code
        ? `Vertex AI ${code}`
        : `HTTP ${status}`;
  let kind = googleCodeKind(code) ?? errorKindFromStatus(status);
  if (kind === "bad_request" && isContextOverflow(message)) kind = "context_length";
  const details = Array.isArray(error?.details) ? error.details : [];
  const info: ErrorBodyInfo = { kind, message, code };
  const wait = retryDelayMs(details);
  if (wait !== undefined) info.retryAfterMs = wait;
  if (kind === "rate_limit" && dailyQuota(details)) info.retryable = false;
  return info;
}

/**
 * The kind a `google.rpc.Code` name means.
 * @see https://github.com/googleapis/googleapis/blob/master/google/rpc/code.proto
 */
function googleCodeKind(code: string | undefined): ProviderErrorKind | undefined {
  switch (code) {
    case "INVALID_ARGUMENT":
    case "FAILED_PRECONDITION":
    case "OUT_OF_RANGE":
      return "bad_request";
    case "UNAUTHENTICATED":
    case "PERMISSION_DENIED":
      return "auth";
    case "NOT_FOUND":
      return "not_found";
    case "RESOURCE_EXHAUSTED":
      return "rate_limit";
    case "UNAVAILABLE":
      return "overloaded";
    case "DEADLINE_EXCEEDED":
      return "timeout";
    case "INTERNAL":
    case "UNKNOWN":
    case "ABORTED":
    case "DATA_LOSS":
      return "server";
    default:
      return undefined;
  }
}

/** `google.rpc.RetryInfo.retryDelay` (a Duration in JSON: `"34.4s"`) in ms. */
function retryDelayMs(details: readonly Record<string, unknown>[]): number | undefined {
  for (const detail of details) {
    if (typeof detail?.["@type"] !== "string" || !detail["@type"].endsWith("google.rpc.RetryInfo")) continue;
    const delay = detail.retryDelay;
    const match = typeof delay === "string" ? /^(\d+(?:\.\d+)?)s$/.exec(delay) : null;
    if (match) return Number(match[1]) * 1000;
  }
  return undefined;
}

/** Whether a `google.rpc.QuotaFailure` names a per-day quota: waiting seconds will not lift it. */
function dailyQuota(details: readonly Record<string, unknown>[]): boolean {
  return details.some(
    (detail) =>
      typeof detail?.["@type"] === "string" &&
      detail["@type"].endsWith("google.rpc.QuotaFailure") &&
      Array.isArray(detail.violations) &&
      detail.violations.some((violation: unknown) =>
        /per[-_ ]?day/i.test(String((violation as { quotaId?: unknown } | null)?.quotaId ?? "")),
      ),
  );
}
