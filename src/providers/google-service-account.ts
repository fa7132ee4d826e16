/**
 * `googleServiceAccountTokens()`: OAuth access tokens for a Google service account, from its JSON key —
 * inside the library, with Web Crypto and `fetch` only. An RS256 JWT signed with the key's `private_key`
 * (`serviceAccountAssertion`) is exchanged at the key's `token_uri` for a bearer token; the token is cached
 * until shortly before it expires, and callers that ask while an exchange is under way share it.
 *
 * Nothing here prints, and no key material reaches an error: every string that could authenticate (the
 * PEM, its base64 body, each assertion and each token) is added to the `secrets` the caller's errors are
 * scrubbed of, and the errors this file raises name fields, never values.
 *
 * @see https://developers.google.com/identity/protocols/oauth2/service-account
 * @module
 */
import { base64ToBytes } from "../core/base64.ts";
import { errorKindFromStatus, ProviderError } from "../core/provider-error.ts";
import { ValidationError, type ValidationIssue } from "../core/validation-error.ts";
import { serviceAccountAssertion } from "./google-service-account-assertion.ts";

/**
 * A service-account key as Google's console downloads it (`type: "service_account"`). Only
 * `client_email` and `private_key` are required; other fields are kept and ignored.
 */
export interface GoogleServiceAccount {
  client_email: string;
  /** PEM, PKCS#8 (`-----BEGIN PRIVATE KEY-----`); literal `\n` sequences (from an env var) are read as newlines. */
  private_key: string;
  /** Sent as the JWT's `kid`. */
  private_key_id?: string | undefined;
  /** Where the assertion is exchanged; default `https://oauth2.googleapis.com/token`. */
  token_uri?: string | undefined;
  project_id?: string | undefined;
  type?: string | undefined;
  readonly [field: string]: unknown;
}

/** Options of {@link googleServiceAccountTokens}. */
export interface ServiceAccountTokenOptions {
  /** `fetch` for the token endpoint; `globalThis.fetch` when unset, resolved per exchange. */
  fetch?: typeof fetch | undefined;
  /** The clock, in milliseconds since the epoch (tests); default `Date.now`. */
  now?: (() => number) | undefined;
  /** OAuth scopes, space-separated; default `https://www.googleapis.com/auth/cloud-platform`. */
  scope?: string | undefined;
  /**
   * How long before its expiry a cached token is replaced; default five minutes (at most half the token's
   * lifetime, for short-lived tokens).
   */
  refreshBeforeMs?: number | undefined;
  /** Deadline of one exchange; default 30 s. */
  timeoutMs?: number | undefined;
  /** Who is asking, as errors name it (`provider`, `model`). */
  context?: { provider: string; model: string } | undefined;
  /**
   * Where the secrets this source handles are added (the key, and each assertion and token as it is
   * made, the older ones dropped): pass the array the provider's errors are scrubbed of.
   */
  secrets?: (string | undefined)[] | undefined;
}

/** Bearer tokens for one credential: cached, shared, and refreshed before they expire. */
export interface AccessTokenSource {
  /**
   * A token valid for at least the refresh margin: the cached one, the one the exchange under way brings,
   * or a new exchange's. `signal` stops this caller's wait (the exchange goes on for the others). A caller
   * that waited on another's exchange and saw it fail (other than Google refusing the key) tries one more
   * exchange. A failed exchange is not cached; it rejects with a `ProviderError` (`auth` when Google
   * refused it), unless the cached token has not expired yet: that one is returned (a failed refresh does
   * not fail the call).
   */
  token(signal?: AbortSignal): Promise<string>;
  /** Forgets `token` (an upstream answered 401 to it): the next `token()` exchanges again. */
  invalidate(token: string): void;
}

/** Google's token endpoint, where a key file names none. */
export const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token";
/** The scope Vertex AI takes. */
export const CLOUD_PLATFORM_SCOPE = "https://www.googleapis.com/auth/cloud-platform";

const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const PKCS8 = /-----BEGIN PRIVATE KEY-----([\s\S]*?)-----END PRIVATE KEY-----/;
/** Tokens (and assertions) kept in `secrets` besides the current one: errors of calls still under way. */
const KEPT_TOKENS = 4;

interface CachedToken {
  token: string;
  /** When it is replaced (expiry minus the refresh margin), in ms. */
  refreshAt: number;
  /** When it expires, in ms: until then it still serves when a refresh fails. */
  expiresAt: number;
}

/**
 * Reads a service-account key (the JSON text or the parsed object) and checks it, without touching Web
 * Crypto: what is wrong is a `ValidationError` naming the field (`credentials.private_key`), never quoting
 * a value. The PEM's DER bytes are returned for the key import.
 */
export function readServiceAccount(
  credentials: GoogleServiceAccount | string,
  field = "credentials",
): { account: GoogleServiceAccount; der: Uint8Array; pem: string; body: string } {
  let value: unknown = credentials;
  if (typeof credentials === "string") {
    try {
      value = JSON.parse(credentials);
    } catch {
      // JSON.parse's message quotes the text: not repeated.
      throw new ValidationError([{ path: field, message: "not JSON: expected a service-account key file" }]);
    }
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ValidationError([{ path: field, message: "must be a service-account key (a JSON object)" }]);
  }
  const account = value as GoogleServiceAccount;
  const issues: ValidationIssue[] = [];
  if (account.type !== undefined && account.type !== "service_account") {
    issues.push({
      path: `${field}.type`,
      message: `must be "service_account" (got ${JSON.stringify(String(account.type)).slice(0, 40)}): user credentials and external accounts are not read here; pass accessToken instead`,
    });
  }
  if (typeof account.client_email !== "string" || account.client_email.trim() === "") {
    issues.push({ path: `${field}.client_email`, message: "required: the service account's email" });
  }
  for (const name of ["private_key_id", "token_uri"] as const) {
    const entry = account[name];
    if (entry !== undefined && (typeof entry !== "string" || entry === "")) {
      issues.push({ path: `${field}.${name}`, message: "must be a non-empty string when set" });
    }
  }
  if (typeof account.token_uri === "string" && account.token_uri !== "") {
    let url: URL | undefined;
    try {
      url = new URL(account.token_uri);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
      issues.push({ path: `${field}.token_uri`, message: "must be an absolute http(s) URL" });
    }
  }
  let der: Uint8Array | undefined;
  let pem = "";
  let body = "";
  if (typeof account.private_key !== "string" || account.private_key.trim() === "") {
    issues.push({ path: `${field}.private_key`, message: "required: the PEM private key" });
  } else {
    pem = account.private_key.replace(/\\n/g, "\n");
    const match = PKCS8.exec(pem);
    if (!match) {
      issues.push({
        path: `${field}.private_key`,
        message: /BEGIN RSA PRIVATE KEY/.test(pem)
          ? "a PKCS#1 key (BEGIN RSA PRIVATE KEY): Google's keys are PKCS#8 (BEGIN PRIVATE KEY); convert it with `openssl pkcs8 -topk8 -nocrypt`"
          : "not a PEM PKCS#8 private key (-----BEGIN PRIVATE KEY-----)",
      });
    } else {
      body = match[1]!.replace(/\s+/g, "");
      try {
        der = base64ToBytes(body);
      } catch {
        der = undefined;
      }
      if (!der || der.length === 0) {
        issues.push({ path: `${field}.private_key`, message: "the PEM body is not base64" });
      }
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
  return { account, der: der!, pem, body };
}

/**
 * Access tokens for the service account `credentials` (see {@link AccessTokenSource}). The key is read and
 * checked now (a `ValidationError` naming the field); it is imported into Web Crypto at the first
 * exchange. One exchange: `POST token_uri` with `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`
 * and the signed assertion, form-encoded; the answer's `access_token` is cached for its `expires_in`
 * (3600 s when absent) less the refresh margin.
 *
 * Failures are `ProviderError`s naming the token endpoint: Google refusing the assertion (a 4xx, such as
 * `invalid_grant`), an answer without a token, or a key Web Crypto cannot import are `auth`, not retryable;
 * a 5xx or 429 of the endpoint keeps its status's kind, and a failed connection is `network` — both
 * retryable, as the same exchange may pass a moment later.
 *
 * @example
 * ```ts
 * const tokens = googleServiceAccountTokens(env.GOOGLE_SERVICE_ACCOUNT_JSON);
 * const headers = { authorization: `Bearer ${await tokens.token()}` };
 * ```
 */
export function googleServiceAccountTokens(
  credentials: GoogleServiceAccount | string,
  options: ServiceAccountTokenOptions = {},
): AccessTokenSource {
  const { account, der, pem, body } = readServiceAccount(credentials);
  const tokenURI = account.token_uri ?? GOOGLE_TOKEN_URI;
  const now = options.now ?? Date.now;
  const scope = options.scope ?? CLOUD_PLATFORM_SCOPE;
  const refreshBeforeMs = options.refreshBeforeMs ?? 300_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const context = options.context ?? { provider: "google", model: "" };
  const secrets = options.secrets ?? [];
  // The PEM whole, its base64 body, and each of its lines (so a percent-encoded echo of a line is found too).
  secrets.push(
    pem,
    body,
    account.private_key,
    ...pem.split("\n").filter((line) => line.length >= 16 && !line.startsWith("-----")),
  );
  const fixed = secrets.length;
  const issued: string[] = [];
  /** Adds `value` to the secrets, dropping the oldest issued ones past {@link KEPT_TOKENS}. */
  const remember = (value: string) => {
    issued.push(value);
    while (issued.length > 2 * (KEPT_TOKENS + 1)) {
      const old = issued.shift()!;
      const at = secrets.indexOf(old, fixed);
      if (at >= 0) secrets.splice(at, 1);
    }
    secrets.push(value);
  };

  let key: Promise<CryptoKey> | undefined;
  let cached: CachedToken | undefined;
  let pending: Promise<CachedToken> | undefined;

  const failure = (init: {
    kind: ProviderError["kind"];
    message: string;
    status?: number;
    code?: string | undefined;
    upstreamBody?: string | undefined;
    retryable?: boolean;
    cause?: unknown;
  }) =>
    new ProviderError({
      ...init,
      message: `${context.provider}: the service-account token exchange at ${tokenURI} failed: ${init.message}`,
      provider: context.provider,
      model: context.model,
      secrets,
    });

  const importKey = (): Promise<CryptoKey> => {
    key ??= crypto.subtle
      .importKey(
        "pkcs8",
        der as Uint8Array<ArrayBuffer>,
        { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
        false,
        ["sign"],
      )
      .catch((cause: unknown) => {
        key = undefined;
        throw failure({
          kind: "auth",
          message: "its private_key is not an RSA PKCS#8 key Web Crypto can import",
          retryable: false,
          cause: new Error((cause as { name?: string } | null)?.name ?? "DataError"),
        });
      });
    return key;
  };

  const exchange = async (): Promise<CachedToken> => {
    const signingKey = await importKey();
    const assertion = await serviceAccountAssertion(signingKey, {
      issuer: account.client_email,
      audience: tokenURI,
      scope,
      keyId: account.private_key_id,
      issuedAt: Math.floor(now() / 1000),
    });
    remember(assertion);
    const doFetch = options.fetch ?? globalThis.fetch;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    let response: globalThis.Response;
    let text: string;
    try {
      response = await doFetch(tokenURI, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
        body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }).toString(),
        signal: deadline.signal,
      });
      text = await response.text();
    } catch (cause) {
      const timedOut = deadline.signal.aborted;
      throw failure({
        kind: timedOut ? "timeout" : "network",
        message: timedOut ? `no answer within ${timeoutMs} ms` : String((cause as Error)?.message ?? cause),
        cause,
      });
    } finally {
      clearTimeout(timer);
    }
    let json: { access_token?: unknown; expires_in?: unknown; error?: unknown; error_description?: unknown };
    try {
      json = JSON.parse(text) ?? {};
    } catch {
      json = {};
    }
    if (!response.ok) {
      const code = typeof json.error === "string" ? json.error : undefined;
      const description = typeof json.error_description === "string" ? json.error_description : undefined;
      const refused = response.status < 500 && response.status !== 429;
      throw failure({
        kind: refused ? "auth" : errorKindFromStatus(response.status),
        message: `${response.status}${code ? ` ${code}` : ""}${description ? `: ${description}` : ""}`,
        status: response.status,
        code,
        upstreamBody: text || undefined,
        ...(refused ? { retryable: false } : {}),
      });
    }
    const token = json.access_token;
    if (typeof token !== "string" || token === "") {
      throw failure({ kind: "auth", message: "the answer has no access_token", retryable: false });
    }
    remember(token);
    const lifetimeMs =
      typeof json.expires_in === "number" && json.expires_in > 0 ? json.expires_in * 1000 : 3_600_000;
    const issuedAt = now();
    return {
      token,
      refreshAt: issuedAt + lifetimeMs - Math.min(refreshBeforeMs, lifetimeMs / 2),
      expiresAt: issuedAt + lifetimeMs,
    };
  };

  /** The exchange under way, or a new one; `mine` when this call started it. */
  const shared = (): { exchange: Promise<CachedToken>; mine: boolean } => {
    if (pending) return { exchange: pending, mine: false };
    const started = exchange().then((fresh) => {
      cached = fresh;
      return fresh;
    });
    pending = started;
    // Cleared either way: a failed exchange is not cached, the next call tries again.
    const clear = () => {
      if (pending === started) pending = undefined;
    };
    started.then(clear, clear);
    return { exchange: started, mine: true };
  };

  /** A fresh token; a caller that waited on another caller's exchange tries once more if it failed. */
  const fresh = async (signal: AbortSignal | undefined): Promise<CachedToken> => {
    const first = shared();
    try {
      return await untilAborted(first.exchange, signal);
    } catch (error) {
      // An exchange can fail with the call that started it (a cancelled Worker request takes its I/O with
      // it): a waiter whose own call goes on starts (or joins) one more, unless Google refused the key.
      const refused = error instanceof ProviderError && !error.retryable;
      if (first.mine || signal?.aborted || refused) throw error;
      if (pending === first.exchange) pending = undefined;
      return await untilAborted(shared().exchange, signal);
    }
  };

  return {
    async token(signal) {
      if (cached && now() < cached.refreshAt) return cached.token;
      try {
        return (await fresh(signal)).token;
      } catch (error) {
        // A refresh that failed while the cached token has not expired (a blip at the token endpoint): that
        // token still serves, and the next call tries the refresh again.
        if (!signal?.aborted && cached && now() < cached.expiresAt) return cached.token;
        throw error;
      }
    },
    invalidate(token) {
      if (cached?.token === token) cached = undefined;
    },
  };
}

/** `promise`, or a rejection with the signal's reason once `signal` aborts (the promise goes on). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
