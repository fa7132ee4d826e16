/**
 * Transport shared by every provider: one POST through an injectable `fetch`, and every way it can fail
 * turned into a `ProviderError` with the right kind — without credentials in it.
 *
 * @module
 */
import type { Timeouts } from "../core/call-options.ts";
import { markPartialOutput, ProviderError, type ProviderErrorKind } from "../core/provider-error.ts";
import { ValidationError } from "../core/validation-error.ts";
import type { ErrorBodyMapper } from "../protocols/protocol.ts";
import { WireError } from "../wire/wire-error.ts";

/** Who is calling, for errors. `secrets` are scrubbed from anything an error keeps. */
export interface TransportContext {
  provider: string;
  model: string;
  secrets?: readonly (string | undefined)[];
}

/** A POST request, and who makes it (the provider, model and secrets its errors name). */
export interface PostRequest extends TransportContext {
  fetch?: typeof fetch | undefined;
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal | undefined;
  mapErrorBody: ErrorBodyMapper;
  /** Whether the response is a stream (it picks the default first-byte timeout). */
  stream?: boolean;
  /** The call's timeouts (see {@link DEFAULT_TIMEOUTS}). */
  timeouts?: Timeouts | undefined;
  /** Adds credentials to the finished request (SigV4 signs the body); headers alone when unset. */
  authorize?: (url: string, body: string, headers: Headers) => Headers | Promise<Headers>;
}

/**
 * Timeouts when neither the call nor the provider says: the response headers of a stream are due fast
 * (servers send them before generating), those of a whole response only when it is ready; between two
 * pieces of a body, five minutes (a reasoning model can think that long without sending a byte).
 */
export const DEFAULT_TIMEOUTS: {
  readonly stream: Required<Timeouts>;
  readonly complete: Required<Timeouts>;
} = {
  stream: { firstByteMs: 120_000, idleMs: 300_000 },
  complete: { firstByteMs: 600_000, idleMs: 300_000 },
};

/**
 * POSTs and returns the `Response` when its status is 2xx; otherwise throws the mapped `ProviderError`
 * (status, kind from the body where the protocol knows better, `Retry-After`, request id, the body
 * truncated). A rejected fetch becomes `network`, `timeout` or `aborted`.
 *
 * Deadlines: no response headers within `timeouts.firstByteMs`, or no body bytes for `timeouts.idleMs`,
 * aborts the upstream request and fails with kind `timeout`. The caller's `signal` aborts it too (kind
 * `aborted`).
 */
export async function post(request: PostRequest): Promise<globalThis.Response> {
  // Resolved per call, not at construction: tests and middleware may patch globalThis.fetch.
  const doFetch = request.fetch ?? globalThis.fetch;
  const limits = {
    ...(request.stream ? DEFAULT_TIMEOUTS.stream : DEFAULT_TIMEOUTS.complete),
    ...request.timeouts,
  };
  const upstream = new AbortController();
  const callerSignal = request.signal;
  const onCallerAbort = () => upstream.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
  const release = () => callerSignal?.removeEventListener("abort", onCallerAbort);
  const deadline = (what: "firstByteMs" | "idleMs") =>
    new ProviderError({
      kind: "timeout",
      message:
        what === "firstByteMs"
          ? `${request.provider}: no response within ${limits.firstByteMs} ms (timeouts.firstByteMs)`
          : `${request.provider}: no data for ${limits.idleMs} ms (timeouts.idleMs)`,
      provider: request.provider,
      model: request.model,
      secrets: request.secrets,
    });
  let timedOut: ProviderError | undefined;
  const timer = setTimeout(() => {
    timedOut = deadline("firstByteMs");
    upstream.abort(timedOut);
  }, limits.firstByteMs);
  let response: globalThis.Response;
  try {
    const headers = new Headers(request.headers);
    response = await doFetch(request.url, {
      method: "POST",
      headers: request.authorize ? await request.authorize(request.url, request.body, headers) : headers,
      body: request.body,
      signal: upstream.signal,
    });
  } catch (error) {
    release();
    throw timedOut ?? toProviderError(error, request, callerSignal);
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok) {
    try {
      throw await providerErrorFromResponse(response, request, request.mapErrorBody);
    } finally {
      release();
    }
  }
  return withIdleDeadline(
    response,
    limits.idleMs,
    () => {
      const error = deadline("idleMs");
      upstream.abort(error);
      return error;
    },
    release,
  );
}

/**
 * `response` with a body that fails with the error `onIdle` returns when no bytes arrive for `idleMs`
 * (the upstream request is aborted by it). `done` runs once when the body ends, fails or is cancelled.
 *
 * One timer serves the whole body, not one per read: it is armed when a read starts and none is running,
 * and when it fires it looks at how long the pending read has waited — failing the body if that is
 * `idleMs`, arming itself for the rest otherwise, stopping if no read is pending. A read costs a clock
 * reading instead of a timer and a race.
 */
function withIdleDeadline(
  response: globalThis.Response,
  idleMs: number,
  onIdle: () => ProviderError,
  done: () => void,
): globalThis.Response {
  const source = response.body;
  if (!source) {
    done();
    return response;
  }
  const reader = source.getReader();
  let finished = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** When the pending read started (`Date.now()`); undefined while no read is pending. */
  let waitingSince: number | undefined;
  const finish = () => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    done();
  };
  /** The body's controller (from `start`), which the timer fails too. */
  let output: ReadableStreamDefaultController<Uint8Array>;
  const fail = (error: unknown) => {
    finish();
    reader.cancel(error).catch(() => {});
    output.error(error);
  };
  const check = () => {
    timer = undefined;
    if (finished || waitingSince === undefined) return;
    const waited = Date.now() - waitingSince;
    if (waited < idleMs) timer = setTimeout(check, idleMs - waited);
    else fail(onIdle());
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        output = controller;
      },
      pull(controller) {
        waitingSince = Date.now();
        timer ??= setTimeout(check, idleMs);
        return reader.read().then(
          ({ done: ended, value }) => {
            waitingSince = undefined;
            // The deadline passed while the read was pending: the body has already failed.
            if (finished) return;
            if (ended) {
              finish();
              controller.close();
            } else controller.enqueue(value);
          },
          (error: unknown) => {
            waitingSince = undefined;
            if (!finished) fail(error);
          },
        );
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
      // Pulled only when the reader asks: no read-ahead, so an event surfaces from the read that carried it.
    },
    { highWaterMark: 0 },
  );
  return new globalThis.Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
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
  if (ProviderError.is(error)) return markPartialOutput(error, partialOutput);
  const name = (error as { name?: unknown } | null)?.name;
  const message = error instanceof Error ? error.message : String(error);
  let kind: ProviderErrorKind;
  if (signal?.aborted || name === "AbortError") kind = "aborted";
  else if (name === "TimeoutError") kind = "timeout";
  else if (WireError.is(error)) kind = error.code === "truncated" ? "truncated" : "invalid_response";
  else kind = "network";
  // The runtime refused the connection itself (Deno without --allow-net: `NotCapable`, `PermissionDenied`
  // before Deno 2): asking again cannot help.
  const denied = kind === "network" && (name === "NotCapable" || name === "PermissionDenied");
  return new ProviderError({
    kind,
    message:
      kind === "aborted"
        ? "call aborted"
        : denied
          ? `${context.provider}: the runtime denied network access (${message}); in Deno, grant it with --allow-net`
          : `${context.provider}: ${message}`,
    provider: context.provider,
    model: context.model,
    partialOutput,
    ...(denied ? { retryable: false } : {}),
    secrets: context.secrets,
    cause: error,
  });
}

/**
 * {@link toProviderError}, with the call's `secrets` redacted again: errors read from inside a response
 * (an `error` event, an exception frame, a `failed` response) were built without them.
 */
export function toScrubbedProviderError(
  error: unknown,
  context: TransportContext,
  signal?: AbortSignal,
  partialOutput = false,
): ProviderError {
  const failure = toProviderError(error, context, signal, partialOutput);
  return new ProviderError({ ...failure.toJSON(), cause: failure.cause, secrets: context.secrets });
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
    // Echoed without any user:password part (a config error may reach clients and logs).
    const shown = baseURL.replace(
      /^([^/@\s]*\/\/)?[^/@\s]*@/,
      (_, scheme?: string) => `${scheme ?? ""}[redacted]@`,
    );
    throw new ValidationError([
      { path: field, message: `must be an absolute URL, got ${JSON.stringify(shown)}` },
    ]);
  }
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path}`;
  return url.toString();
}

/** Header names whose values are credentials (`authorization`, `x-api-key`, `api-key`, `*-token`, …). */
const CREDENTIAL_HEADER = /authorization|api[-_]?key|token|secret/i;

/**
 * What must never appear in an error: the API key, and any credential passed in extra headers (a gateway
 * key in `authorization`, say).
 */
export function secretsOf(apiKey: string | undefined, headers: Record<string, string> | undefined): string[] {
  const secrets = apiKey ? [apiKey] : [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (!CREDENTIAL_HEADER.test(name) || typeof value !== "string") continue;
    secrets.push(value);
    // "Bearer <token>": the token alone may be echoed too.
    const token = /^\S+\s+(\S{6,})$/.exec(value)?.[1];
    if (token) secrets.push(token);
  }
  return secrets;
}
