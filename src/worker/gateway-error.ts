/**
 * How the gateway answers a failure: one place for the HTTP status of each error, the body a client sees,
 * and the headers that tell it when to come back.
 *
 * - A `ProviderError` keeps its kind, message and codes, but not the upstream's raw body (`upstreamBody`)
 *   unless the operator opts in (`exposeUpstreamErrors` in the config): an upstream's body can quote the
 *   request or hold what only the operator should read. Every field was scrubbed of the call's
 *   credentials when the error was made.
 * - 429 and 503 carry `Retry-After` (seconds, rounded up) and `retry-after-ms` when the wait is known, so
 *   clients such as the official SDKs wait as long as the upstream asked.
 * - A bad request is a 400 naming every bad field; a configuration problem is a 500 naming the fields the
 *   operator must fix (never a value).
 * - An answer that is not the JSON a `responseFormat` asked for (`StructuredOutputError`) is a 502 of kind
 *   `structured_output` carrying the response, so the client still has the text the model wrote.
 *
 * @module
 */
import { ProviderError, type ProviderErrorJSON, type ProviderErrorKind } from "../core/provider-error.ts";
import { StructuredOutputError } from "../core/structured-output.ts";
import { ValidationError, type ValidationIssue } from "../core/validation-error.ts";

/** A configuration problem: the operator's, reported as a 500 that names the fields. */
export class HTTPConfigError extends Error {
  override readonly name = "HTTPConfigError";
  readonly issues: readonly ValidationIssue[];

  constructor(message: string, issues: readonly ValidationIssue[] = []) {
    super(message);
    this.issues = issues;
  }
}

/**
 * A request the gateway refuses itself, for the key that made it: a limit reached (429 with the wait),
 * a route the key may not use (403), a key that is not valid (401). Answered in the path's dialect, with
 * `code` as the OpenAI-dialect code (`rate_limit_exceeded`, `budget_exceeded`, …) and `Retry-After` when the
 * wait is known; it never reaches an upstream.
 */
export class GatewayRefusal extends Error {
  override readonly name = "GatewayRefusal";
  readonly status: number;
  readonly code: string;
  readonly retryAfterMs: number | undefined;

  constructor(refusal: { status: number; code: string; message: string; retryAfterMs?: number | undefined }) {
    super(refusal.message);
    this.status = refusal.status;
    this.code = refusal.code;
    this.retryAfterMs = refusal.retryAfterMs;
  }

  /** The neutral dialect's `kind` of the refusal's status. */
  get kind(): string {
    return this.status === 429 ? "rate_limit" : this.status === 403 ? "forbidden" : "auth";
  }

  /** `Retry-After` (429s), and `www-authenticate` (401s). */
  headers(): Record<string, string> {
    if (this.status === 401) return { "www-authenticate": "Bearer" };
    return this.status === 429 ? retryHeaders(this.retryAfterMs) : {};
  }
}

/** HTTP status for a provider failure seen by a gateway client. */
export function statusOf(kind: ProviderErrorKind | string): number {
  switch (kind) {
    case "bad_request":
    case "context_length":
      return 400;
    case "rate_limit":
      return 429;
    case "overloaded":
      return 503;
    case "timeout":
      return 504;
    case "not_found":
      return 404;
    case "aborted":
      return 499;
    default:
      // auth, server, network, truncated, invalid_response: the upstream failed, not the client.
      return 502;
  }
}

/** A provider error as a gateway client sees it: without the upstream body unless `expose` says so. */
export function clientErrorJSON(error: ProviderError | ProviderErrorJSON, expose = false): ProviderErrorJSON {
  const json = ProviderError.is(error) ? error.toJSON() : { ...error };
  if (!expose) delete json.upstreamBody;
  return json;
}

/** `Retry-After` (whole seconds, rounded up) and `retry-after-ms` for a wait, when there is one. */
export function retryHeaders(retryAfterMs: number | undefined): Record<string, string> {
  if (retryAfterMs === undefined || !Number.isFinite(retryAfterMs) || retryAfterMs < 0) return {};
  return {
    "retry-after": String(Math.ceil(retryAfterMs / 1000)),
    "retry-after-ms": String(Math.ceil(retryAfterMs)),
  };
}

/** A `StructuredOutputError` as a client sees it: its message and the response it kept (raw text included). */
export function structuredOutputErrorJSON(error: StructuredOutputError): Record<string, unknown> {
  return {
    kind: "structured_output",
    message: error.message,
    ...(error.issues.length > 0 ? { issues: error.issues } : {}),
    response: error.response,
  };
}

/** The JSON error response for anything a route throws. */
export function errorResponse(
  error: unknown,
  options: { exposeUpstreamErrors?: boolean; log?: (message: string) => void } = {},
): Response {
  if (error instanceof HTTPConfigError) {
    return Response.json(
      { error: { kind: "config", message: `server configuration: ${error.message}`, issues: error.issues } },
      { status: 500 },
    );
  }
  if (ValidationError.is(error)) {
    return Response.json(
      { error: { kind: "bad_request", message: error.message, issues: error.issues } },
      {
        status: 400,
      },
    );
  }
  if (StructuredOutputError.is(error)) {
    return Response.json({ error: structuredOutputErrorJSON(error) }, { status: 502 });
  }
  if (error instanceof GatewayRefusal) {
    return Response.json(
      { error: { kind: error.kind, code: error.code, message: error.message } },
      { status: error.status, headers: error.headers() },
    );
  }
  if (ProviderError.is(error)) {
    const status = statusOf(error.kind);
    return Response.json(
      { error: clientErrorJSON(error, options.exposeUpstreamErrors) },
      { status, headers: status === 429 || status === 503 ? retryHeaders(error.retryAfterMs) : {} },
    );
  }
  options.log?.(`modelwire: unexpected error: ${error instanceof Error ? error.message : String(error)}`);
  return Response.json({ error: { kind: "internal", message: "internal error" } }, { status: 500 });
}
