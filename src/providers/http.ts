/**
 * Transport shared by every provider: one POST through an injectable `fetch`, and every way it can fail
 * turned into a `ProviderError` with the right kind — without credentials in it.
 *
 * @module
 */
import { errorKindFromStatus, ProviderError, type ProviderErrorKind } from "../core/provider-error.ts";
import { ValidationError } from "../core/validation-error.ts";
import { WireError } from "../wire/wire-error.ts";

/** Who is calling, for errors. `secrets` are scrubbed from anything an error keeps. */
export interface TransportContext {
  provider: string;
  model: string;
  secrets?: readonly (string | undefined)[];
}

/** What a protocol makes of an error body: kind, message and codes. */
export interface ErrorBodyInfo {
  kind: ProviderErrorKind;
  message: string;
  code?: string | undefined;
  requestId?: string | undefined;
  retryable?: boolean | undefined;
  /** A wait the protocol found beyond `Retry-After` (used when `Retry-After` is absent). */
  retryAfterMs?: number | undefined;
}

/** Protocol-specific reading of an error response (the body already parsed as JSON when it was JSON). */
export type ErrorBodyMapper = (status: number, body: unknown, headers: Headers) => ErrorBodyInfo;

/** A POST request. */
export interface PostRequest {
  fetch: typeof fetch | undefined;
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal | undefined;
  context: TransportContext;
  mapErrorBody: ErrorBodyMapper;
}

/**
 * POSTs and returns the `Response` when its status is 2xx; otherwise throws the mapped `ProviderError`
 * (status, kind from the body where the protocol knows better, `Retry-After`, request id, the body
 * truncated). A rejected fetch becomes `network`, `timeout` or `aborted`.
 */
export async function post(request: PostRequest): Promise<globalThis.Response> {
  // Resolved per call, not at construction: tests and middleware may patch globalThis.fetch.
  const doFetch = request.fetch ?? globalThis.fetch;
  let response: globalThis.Response;
  try {
    response = await doFetch(request.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      signal: request.signal,
    });
  } catch (error) {
    throw toProviderError(error, request.context, request.signal);
  }
  if (response.ok) return response;
  throw await providerErrorFromResponse(response, request.context, request.mapErrorBody);
}

/** A non-2xx response → `ProviderError`. Reads (and so consumes) the body. */
export async function providerErrorFromResponse(
  response: globalThis.Response,
  context: TransportContext,
  mapErrorBody: ErrorBodyMapper,
): Promise<ProviderError> {
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const info = mapErrorBody(response.status, body, response.headers);
  const shouldRetry = response.headers.get("x-should-retry");
  return new ProviderError({
    kind: info.kind,
    message: `${context.provider} ${response.status}: ${info.message}`,
    status: response.status,
    retryable: shouldRetry === "true" ? true : shouldRetry === "false" ? false : info.retryable,
    // Retry-After first; then what the protocol reads elsewhere (OpenAI's x-ratelimit-reset-*).
    retryAfterMs: retryAfterMs(response.headers) ?? info.retryAfterMs,
    code: info.code,
    requestId:
      info.requestId ??
      response.headers.get("request-id") ??
      response.headers.get("x-request-id") ??
      undefined,
    upstreamBody: text || undefined,
    provider: context.provider,
    model: context.model,
    secrets: context.secrets,
  });
}

/** Default error-body reading: the status decides; `error.message` or `message` is the message. */
export function genericErrorBody(status: number, body: unknown): ErrorBodyInfo {
  const record = (typeof body === "object" && body !== null ? body : {}) as {
    error?: { message?: unknown; type?: unknown; code?: unknown } | string;
    message?: unknown;
  };
  const nested = typeof record.error === "object" ? record.error : undefined;
  const message =
    typeof nested?.message === "string"
      ? nested.message
      : typeof record.error === "string"
        ? record.error
        : typeof record.message === "string"
          ? record.message
          : `HTTP ${status}`;
  const code =
    typeof nested?.code === "string"
      ? nested.code
      : typeof nested?.type === "string"
        ? nested.type
        : undefined;
  return { kind: errorKindFromStatus(status), message, code };
}

/**
 * Milliseconds to wait, from `retry-after-ms`, then `Retry-After` as seconds or as an HTTP date.
 * Undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Headers, now: number = Date.now()): number | undefined {
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null) {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const retryAfter = headers.get("retry-after");
  if (retryAfter === null) return undefined;
  const seconds = Number(retryAfter);
  if (retryAfter.trim() !== "" && Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Any error thrown while calling or reading a provider → `ProviderError`:
 * - a `ProviderError` passes through (marked partial when output already went out);
 * - an abort (our `signal`, or an `AbortError`) → `aborted`; a `TimeoutError` → `timeout`;
 * - a `WireError` → `truncated` (cut frame) or `invalid_response` (oversized, corrupted, unparsable);
 * - anything else a fetch or body read throws (`TypeError: fetch failed`, a reset connection) → `network`.
 */
export function toProviderError(
  error: unknown,
  context: TransportContext,
  signal?: AbortSignal,
  partialOutput = false,
): ProviderError {
  if (ProviderError.is(error)) {
    return partialOutput && !error.partialOutput ? error.with({ partialOutput: true }) : error;
  }
  const name = (error as { name?: unknown } | null)?.name;
  const message = error instanceof Error ? error.message : String(error);
  let kind: ProviderErrorKind;
  if (signal?.aborted || name === "AbortError") kind = "aborted";
  else if (name === "TimeoutError") kind = "timeout";
  else if (WireError.is(error)) kind = error.code === "truncated" ? "truncated" : "invalid_response";
  else kind = "network";
  return new ProviderError({
    kind,
    message: kind === "aborted" ? "call aborted" : `${context.provider}: ${message}`,
    provider: context.provider,
    model: context.model,
    partialOutput,
    secrets: context.secrets,
    cause: error,
  });
}

/**
 * `path` appended to a base URL's path, keeping its query (`https://host/v1?api-version=2` +
 * `chat/completions` → `https://host/v1/chat/completions?api-version=2`). A base that is not an absolute
 * URL is a `ValidationError` naming `field`, raised when the provider is built, not on the first call.
 */
export function endpointURL(baseURL: string, path: string, field = "baseURL"): string {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw new ValidationError([
      { path: field, message: `must be an absolute URL, got ${JSON.stringify(baseURL)}` },
    ]);
  }
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path}`;
  return url.toString();
}
