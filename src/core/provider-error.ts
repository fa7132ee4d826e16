/**
 * `ProviderError`: every failed provider call, whatever the provider, as one class with a `kind`, so that
 * retry, fallback and the Worker switch on data instead of parsing messages.
 *
 * @module
 */

/** What went wrong, in neutral terms. */
export type ProviderErrorKind =
  /** 429: too many requests. Retryable unless the provider says the quota is spent. */
  | "rate_limit"
  /** The provider is overloaded (Anthropic 529 / `overloaded_error`, 503, Bedrock ServiceUnavailable). */
  | "overloaded"
  /** Any other 5xx, or 409. */
  | "server"
  /** 408, 504, or our own deadline. */
  | "timeout"
  /** The connection failed or broke before a response arrived. */
  | "network"
  /** The response ended early: a stream without its terminal event, a frame cut in half. */
  | "truncated"
  /** 401 / 403: bad, missing or unauthorised credentials. */
  | "auth"
  /** 400 / 413 / 422: the request was rejected as invalid. */
  | "bad_request"
  /** The request is too long for the model's context window. */
  | "context_length"
  /** 404: unknown model or endpoint. */
  | "not_found"
  /** The provider's answer could not be understood (bad JSON, a frame failing its checksum). */
  | "invalid_response"
  /** The caller aborted the call (`signal`). */
  | "aborted";

/** Every kind, in a stable order. */
export const PROVIDER_ERROR_KINDS: readonly ProviderErrorKind[] = [
  "rate_limit",
  "overloaded",
  "server",
  "timeout",
  "network",
  "truncated",
  "auth",
  "bad_request",
  "context_length",
  "not_found",
  "invalid_response",
  "aborted",
];

const RETRYABLE_KINDS: ReadonlySet<ProviderErrorKind> = new Set([
  "rate_limit",
  "overloaded",
  "server",
  "timeout",
  "network",
  "truncated",
]);

/** Whether a kind is worth retrying when nothing says otherwise. */
export function isRetryableKind(kind: ProviderErrorKind): boolean {
  return RETRYABLE_KINDS.has(kind);
}

/**
 * The kind an HTTP status means when the body says nothing more specific.
 * @see https://docs.anthropic.com/en/api/errors
 * @see https://platform.openai.com/docs/guides/error-codes
 */
export function errorKindFromStatus(status: number): ProviderErrorKind {
  switch (status) {
    case 400:
    case 413:
    case 422:
      return "bad_request";
    case 401:
    case 403:
      return "auth";
    case 404:
      return "not_found";
    case 408:
    case 504:
      return "timeout";
    case 429:
      return "rate_limit";
    case 503:
    case 529:
      return "overloaded";
    default:
      if (status >= 500) return "server";
      if (status === 409) return "server";
      return "bad_request";
  }
}

/** What a `ProviderError` is made from. */
export interface ProviderErrorInit {
  kind: ProviderErrorKind;
  message: string;
  provider: string;
  model: string;
  status?: number | undefined;
  /** Overrides the kind's default (e.g. a 429 whose body says the quota is spent is not retryable). */
  retryable?: boolean | undefined;
  /** How long to wait before trying again; capped at {@link MAX_RETRY_AFTER_MS}. */
  retryAfterMs?: number | undefined;
  /** The provider's own error type or code (`overloaded_error`, `context_length_exceeded`, …). */
  code?: string | undefined;
  /** The provider's request id, for support tickets. */
  requestId?: string | undefined;
  /** The upstream response body (truncated to {@link MAX_UPSTREAM_BODY} characters). */
  upstreamBody?: string | undefined;
  /** True when some output had already reached the caller before the failure. */
  partialOutput?: boolean | undefined;
  /**
   * Secrets that must not appear in the message or body (the API key of the call). They are replaced
   * with `[redacted]` and not stored.
   */
  secrets?: readonly (string | undefined)[] | undefined;
  cause?: unknown;
}

/** Plain data form of a {@link ProviderError}, for SSE `error` events and Durable Object RPC results. */
export interface ProviderErrorJSON {
  name: "ProviderError";
  kind: ProviderErrorKind;
  message: string;
  provider: string;
  model: string;
  status?: number | undefined;
  retryable: boolean;
  retryAfterMs?: number | undefined;
  code?: string | undefined;
  requestId?: string | undefined;
  upstreamBody?: string | undefined;
  partialOutput: boolean;
}

/** Longest upstream body kept on an error, in characters. */
export const MAX_UPSTREAM_BODY = 8192;

/** A failed provider call. Thrown by `complete()` and by iterating `stream()`. */
export class ProviderError extends Error {
  override readonly name = "ProviderError";
  readonly kind: ProviderErrorKind;
  readonly provider: string;
  readonly model: string;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  /** The upstream response body, truncated and with credentials removed. Never request headers. */
  readonly upstreamBody: string | undefined;
  /** True when some output had already reached the caller before the failure. */
  readonly partialOutput: boolean;

  constructor(init: ProviderErrorInit) {
    // Every text field is scrubbed, and the body before it is cut: a cut must never leave part of a key.
    const clean = (text: string | undefined) =>
      text === undefined ? undefined : redactSecrets(text, init.secrets);
    super(clean(init.message)!, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.provider = init.provider;
    this.model = clean(init.model)!;
    this.status = init.status;
    this.retryable = init.retryable ?? isRetryableKind(init.kind);
    this.retryAfterMs = clampRetryAfter(init.retryAfterMs);
    this.code = clean(init.code);
    this.requestId = clean(init.requestId);
    this.upstreamBody =
      init.upstreamBody === undefined ? undefined : truncate(clean(init.upstreamBody)!, MAX_UPSTREAM_BODY);
    this.partialOutput = init.partialOutput ?? false;
  }

  /** True for `ProviderError`s from any copy of this package (a realm-proof check by name). */
  static is(error: unknown): error is ProviderError {
    return error instanceof ProviderError || (error as { name?: unknown } | null)?.name === "ProviderError";
  }

  /** Plain data, safe to send to a client or across a Durable Object boundary. */
  toJSON(): ProviderErrorJSON {
    return {
      name: "ProviderError",
      kind: this.kind,
      message: this.message,
      provider: this.provider,
      model: this.model,
      status: this.status,
      retryable: this.retryable,
      retryAfterMs: this.retryAfterMs,
      code: this.code,
      requestId: this.requestId,
      upstreamBody: this.upstreamBody,
      partialOutput: this.partialOutput,
    };
  }

  /** Rebuilds an error from {@link ProviderError.toJSON} data. */
  static fromJSON(json: ProviderErrorJSON): ProviderError {
    return new ProviderError(json);
  }

  /** A copy with some fields changed (e.g. `partialOutput: true` once output has reached the caller). */
  with(changes: Partial<Omit<ProviderErrorInit, "secrets">>): ProviderError {
    return new ProviderError({ ...this.toJSON(), cause: this.cause, ...changes });
  }
}

/**
 * The one rule for an error raised once content has reached the caller (`contentSent`): a `ProviderError`
 * gets `partialOutput: true` (a copy; one already marked is returned as it is), anything else passes
 * unchanged. The stream loop of the protocols, the HTTP shell and the stream guards all apply it, so
 * nobody switches providers and sends the same text twice.
 */
export function markPartialOutput<E>(error: E, contentSent: boolean): E {
  return contentSent && ProviderError.is(error) && !error.partialOutput
    ? (error.with({ partialOutput: true }) as E)
    : error;
}

/**
 * Longest wait an error asks for: one hour. A `Retry-After` date years ahead (seen from misconfigured
 * servers) is not a plan anyone should follow; past an hour the caller decides.
 */
export const MAX_RETRY_AFTER_MS = 3_600_000;

function clampRetryAfter(ms: number | undefined): number | undefined {
  if (ms === undefined || Number.isNaN(ms)) return undefined;
  return Math.min(Math.max(0, Math.ceil(ms)), MAX_RETRY_AFTER_MS);
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

/**
 * Shapes that are credentials whatever the context: OpenAI / Anthropic keys, AWS access key ids, bearer
 * tokens and SigV4 signatures. Bodies echoing a request (some gateways do) must not carry them onwards.
 */
const SECRET_PATTERNS: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g,
  /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  /\b(Signature=)[0-9a-f]{64}\b/g,
  /("?(?:x-api-key|api[_-]?key|authorization|x-amz-security-token)"?\s*[:=]\s*"?)[^"\s,}]{8,}/gi,
  // user:password@ in a URL.
  /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@"]+:[^/\s@"]*(@)/gi,
];

/** Secrets shorter than this are redacted only as whole words: a 4-letter key must not eat every "test". */
const WHOLE_WORD_BELOW = 8;
/** A run of at least this many characters of a known secret is redacted too (a truncated or partial echo). */
const FRAGMENT = 12;

/**
 * Replaces credentials in `text` with `[redacted]`: every string in `secrets`, and anything shaped like a
 * key or token (`sk-…`, AWS key ids, `Bearer …`, `user:password@` in URLs).
 *
 * A known secret is found in every encoding a server may echo it in: as is, JSON-escaped (`\/`,
 * `\uXXXX`), percent-encoded, or any mix of these; and so is any run of 12 or more of its characters (what
 * is left of a key that a server or a log cut short). A secret under 8 characters is redacted where it
 * stands as a whole word.
 */
export function redactSecrets(text: string, secrets?: readonly (string | undefined)[]): string {
  let result = text;
  if (secrets) {
    // Longest first, so a secret that contains another is replaced whole.
    const known = [
      ...new Set(secrets.filter((secret): secret is string => typeof secret === "string" && secret !== "")),
    ];
    known.sort((a, b) => b.length - a.length);
    for (const secret of known) {
      const encoded = secretPattern(secret);
      const pattern =
        secret.length < WHOLE_WORD_BELOW
          ? new RegExp(`(?<![\\w%])${encoded}(?!\\w)`, "g")
          : new RegExp(encoded, "g");
      result = result.replace(pattern, "[redacted]");
      if (secret.length > FRAGMENT) result = redactFragments(result, secret);
    }
  }
  for (const pattern of SECRET_PATTERNS) {
    result = result.replace(pattern, (_match, prefix?: unknown, suffix?: unknown) =>
      typeof prefix === "string"
        ? `${prefix}[redacted]${typeof suffix === "string" ? suffix : ""}`
        : "[redacted]",
    );
  }
  return result;
}

/** A regular expression source matching `secret` with each character as itself or escaped (JSON, URL). */
function secretPattern(secret: string): string {
  let source = "";
  for (const char of secret) {
    const code = char.codePointAt(0)!;
    const forms = [escapeRegExp(char)];
    if (code <= 0xffff) forms.push(`\\\\u${hexCaseless(code, 4)}`);
    if (char === "/") forms.push("\\\\/");
    if (code < 0x80) forms.push(`%${hexCaseless(code, 2)}`);
    source += forms.length === 1 ? forms[0] : `(?:${forms.join("|")})`;
  }
  return source;
}

function hexCaseless(code: number, width: number): string {
  return [...code.toString(16).padStart(width, "0")]
    .map((digit) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit))
    .join("");
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** Redacts every run of {@link FRAGMENT} or more consecutive characters of `secret` found verbatim in `text`. */
function redactFragments(text: string, secret: string): string {
  let result = text;
  for (let start = 0; start + FRAGMENT <= secret.length; start++) {
    const window = secret.slice(start, start + FRAGMENT);
    let at = result.indexOf(window);
    while (at !== -1) {
      // Grow the match to the longest run of the secret around it.
      let from = at;
      let secretFrom = start;
      while (from > 0 && secretFrom > 0 && result[from - 1] === secret[secretFrom - 1]) {
        from--;
        secretFrom--;
      }
      let to = at + FRAGMENT;
      let secretTo = start + FRAGMENT;
      while (to < result.length && secretTo < secret.length && result[to] === secret[secretTo]) {
        to++;
        secretTo++;
      }
      result = `${result.slice(0, from)}[redacted]${result.slice(to)}`;
      at = result.indexOf(window, from + "[redacted]".length);
    }
  }
  return result;
}
