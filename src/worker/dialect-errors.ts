/**
 * Failures in each client dialect's own shape, so every official SDK reads them as it reads the real API's:
 *
 * - OpenAI endpoints (`/v1/chat/completions`, `/v1/responses`, `/v1/models`):
 *   `{"error": {"message", "type", "param", "code"}}`; an unknown model is a 404 `model_not_found`.
 * - Anthropic endpoints (`/v1/messages`, `/v1/messages/count_tokens`):
 *   `{"type": "error", "error": {"type": "rate_limit_error" | "overloaded_error" | …, "message"}}`, an
 *   overloaded upstream a 529; an Anthropic upstream's own error type and message are kept word for word
 *   (Claude Code's recovery matches on them), except a refusal of the gateway's own upstream key, which
 *   is the gateway's failure (a 502 `api_error`), not the client's.
 * - The neutral endpoints keep modelwire's own shape (`gateway-error.ts`).
 *
 * The status of each failure and its `Retry-After` headers are `gateway-error.ts`'s rules, used here.
 *
 * @module
 */
import { ProviderError } from "../core/provider-error.ts";
import { StructuredOutputError } from "../core/structured-output.ts";
import { ValidationError, type ValidationIssue } from "../core/validation-error.ts";
import {
  GatewayRefusal,
  HTTPConfigError,
  retryHeaders,
  statusOf,
  structuredOutputErrorJSON,
} from "./gateway-error.ts";

/** Which shape a route answers failures in. */
export type Dialect = "modelwire" | "openai" | "anthropic";

/** The dialect of a request path. */
export function dialectOfPath(path: string): Dialect {
  if (path === "/v1/messages" || path.startsWith("/v1/messages/")) return "anthropic";
  if (
    path === "/v1/chat/completions" ||
    path === "/v1/responses" ||
    path.startsWith("/v1/responses/") ||
    path === "/v1/models" ||
    path.startsWith("/v1/models/")
  )
    return "openai";
  return "modelwire";
}

/** A request naming a model (route) the gateway does not serve: the client's 400, or 404 where the API says so. */
export class UnknownRouteError extends ValidationError {
  /** The route (model) asked for. */
  readonly route: string;

  constructor(route: string, issues: readonly ValidationIssue[]) {
    super(issues);
    this.route = route;
  }
}

/**
 * The body of a failure the gateway itself answers before any route runs (a 401, a 413), in `dialect`:
 * modelwire's `{error: {kind, message}}`, OpenAI's `{error: {message, type, param, code}}` or Anthropic's
 * `{type: "error", error: {type, message}}`, its type the status's.
 */
export function gatewayFailureBody(
  dialect: Dialect,
  status: number,
  message: string,
  names: { kind: string; code: string },
): unknown {
  if (dialect === "anthropic") return { type: "error", error: { type: anthropicErrorType(status), message } };
  if (dialect === "openai") return { error: openAIError(message, openAIType(status), names.code) };
  return { error: { kind: names.kind, message } };
}

/** A failure as the dialect's HTTP status, headers and body. */
export interface DialectFailure {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** The status of a provider failure in a dialect (Anthropic says overloaded with 529). */
function dialectStatus(error: ProviderError, dialect: Dialect): number {
  const status = statusOf(error.kind);
  return dialect === "anthropic" && error.kind === "overloaded" ? 529 : status;
}

/** `Retry-After` and `retry-after-ms` on a 429, 503 or 529 whose wait is known. */
function waitHeaders(status: number, error: ProviderError): Record<string, string> {
  return status === 429 || status === 503 || status === 529 ? retryHeaders(error.retryAfterMs) : {};
}

/** OpenAI's `error.type` for a status. */
function openAIType(status: number): string {
  // OpenAI's own 401 (a wrong key) is an `invalid_request_error` with code `invalid_api_key`.
  if (status === 401) return "invalid_request_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "invalid_request_error";
  if (status === 429) return "requests";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** Anthropic's `error.type` for a status. */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
      return "invalid_request_error";
    case 401:
      return "authentication_error";
    case 402:
      return "billing_error";
    case 403:
      return "permission_error";
    case 404:
      return "not_found_error";
    case 413:
      return "request_too_large";
    case 429:
      return "rate_limit_error";
    case 504:
      return "timeout_error";
    case 529:
      return "overloaded_error";
    default:
      return status >= 500 ? "api_error" : "invalid_request_error";
  }
}

/** An Anthropic error envelope in an upstream body (`{"type":"error","error":{type,message}}`), if it is one. */
function anthropicEnvelopeIn(body: string | undefined): { type: string; message: string } | undefined {
  if (body === undefined) return undefined;
  try {
    const value = JSON.parse(body) as {
      type?: unknown;
      error?: { type?: unknown; message?: unknown };
    } | null;
    if (value?.type !== "error") return undefined;
    const { type, message } = value.error ?? {};
    return typeof type === "string" && typeof message === "string" ? { type, message } : undefined;
  } catch {
    return undefined;
  }
}

/** An OpenAI error object (`{ message, type, param, code }`). */
function openAIError(message: string, type: string, code: string | null, param: string | null = null) {
  return { message, type, param, code };
}

/**
 * The OpenAI-dialect `code` of a provider failure — one mapping for the HTTP error body and the stream's
 * error frames of `/v1/chat/completions` and `/v1/responses`: OpenAI's own code where the failure has one
 * (`context_length_exceeded`, `rate_limit_exceeded`, `insufficient_quota`, `server_is_overloaded`,
 * `timeout`), else the upstream's own code when it is a plain snake_case word, else `server_error` (what
 * OpenAI sends; the message says what happened).
 */
export function openAIErrorCode(error: ProviderError): string {
  if (error.kind === "context_length") return "context_length_exceeded";
  if (error.kind === "rate_limit")
    return error.code === "insufficient_quota" ? "insufficient_quota" : "rate_limit_exceeded";
  if (error.kind === "overloaded") return "server_is_overloaded";
  if (error.kind === "timeout") return "timeout";
  return typeof error.code === "string" && /^[a-z_]{1,64}$/.test(error.code) ? error.code : "server_error";
}

/**
 * A provider failure as the body of a dialect's error: for the stream's error frame and the HTTP error
 * alike. The upstream's raw body is left out unless `expose` (see `exposeUpstreamErrors`).
 */
export function dialectErrorJSON(error: ProviderError, dialect: "openai" | "anthropic", expose = false) {
  const status = dialectStatus(error, dialect);
  if (dialect === "anthropic") {
    // An Anthropic upstream's own words (they were scrubbed of the call's secrets with the error) — but
    // not its `authentication_error` / `permission_error`: those are about the gateway's upstream key, a
    // 502 here, and the client's own key is fine (Claude Code would ask its user to log in again).
    const upstream =
      error.provider !== "modelwire" && error.kind !== "auth"
        ? anthropicEnvelopeIn(error.upstreamBody)
        : undefined;
    const type = upstream?.type ?? anthropicErrorType(status);
    const message = upstream?.message ?? error.message;
    const exposed = expose && error.upstreamBody ? { upstream_body: error.upstreamBody } : {};
    return { type: "error", error: { type, message, ...exposed } };
  }
  const body = openAIError(error.message, openAIType(status), openAIErrorCode(error));
  return { error: expose && error.upstreamBody ? { ...body, upstream_body: error.upstreamBody } : body };
}

/** Anything a dialect's route throws, as that dialect's failure (status, headers, body). */
export function dialectFailure(
  error: unknown,
  dialect: "openai" | "anthropic",
  options: { exposeUpstreamErrors?: boolean; log?: (message: string) => void } = {},
): DialectFailure {
  // Every bad field stays listed (`issues`), besides the dialect's own fields.
  const shape = (
    status: number,
    message: string,
    code: string | null,
    param: string | null = null,
    issues?: readonly ValidationIssue[],
  ) => {
    const listed = issues && issues.length > 0 ? { issues } : {};
    return {
      status,
      headers: {},
      body:
        dialect === "anthropic"
          ? { type: "error", error: { type: anthropicErrorType(status), message, ...listed } }
          : { error: { ...openAIError(message, openAIType(status), code, param), ...listed } },
    };
  };
  if (error instanceof HTTPConfigError)
    return shape(500, `server configuration: ${error.message}`, "config", null, error.issues);
  if (error instanceof GatewayRefusal) {
    const failure = shape(error.status, error.message, error.code);
    return { ...failure, headers: error.headers() };
  }
  if (error instanceof UnknownRouteError) {
    return dialect === "anthropic"
      ? shape(404, `model: ${error.route}`, "model_not_found", "model")
      : shape(
          404,
          `The model \`${error.route}\` does not exist or you do not have access to it.`,
          "model_not_found",
          "model",
        );
  }
  if (ValidationError.is(error))
    return shape(400, error.message, null, error.issues[0]?.path ?? null, error.issues);
  if (StructuredOutputError.is(error)) {
    const failure = shape(502, error.message, "structured_output");
    return { ...failure, body: { ...(failure.body as object), ...structuredOutputErrorJSON(error) } };
  }
  if (ProviderError.is(error)) {
    const status = dialectStatus(error, dialect);
    return {
      status,
      headers: waitHeaders(status, error),
      body: dialectErrorJSON(error, dialect, options.exposeUpstreamErrors),
    };
  }
  options.log?.(`modelwire: unexpected error: ${error instanceof Error ? error.message : String(error)}`);
  return shape(500, "internal error", "internal");
}

/** {@link dialectFailure} as an HTTP response. */
export function dialectErrorResponse(
  error: unknown,
  dialect: "openai" | "anthropic",
  options: { exposeUpstreamErrors?: boolean; log?: (message: string) => void } = {},
): Response {
  const failure = dialectFailure(error, dialect, options);
  return Response.json(failure.body, { status: failure.status, headers: failure.headers });
}
