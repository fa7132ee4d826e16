import { describe, expect, it } from "vitest";
import { ProviderError } from "../../src/index.ts";
import {
  errorKindFromStatus,
  isRetryableKind,
  MAX_RETRY_AFTER_MS,
  MAX_UPSTREAM_BODY,
  PROVIDER_ERROR_KINDS,
  redactSecrets,
} from "../../src/protocols/index.ts";

describe("ProviderError", () => {
  it("maps HTTP statuses to kinds", () => {
    const table: Record<number, string> = {
      400: "bad_request",
      401: "auth",
      403: "auth",
      404: "not_found",
      408: "timeout",
      409: "server",
      413: "bad_request",
      422: "bad_request",
      429: "rate_limit",
      500: "server",
      502: "server",
      503: "overloaded",
      504: "timeout",
      529: "overloaded",
    };
    for (const [status, kind] of Object.entries(table))
      expect([status, errorKindFromStatus(Number(status))]).toEqual([status, kind]);
  });

  it("defaults retryable by kind, and lets the provider override it", () => {
    const retryable = PROVIDER_ERROR_KINDS.filter(isRetryableKind);
    expect(retryable.sort()).toEqual([
      "network",
      "overloaded",
      "rate_limit",
      "server",
      "timeout",
      "truncated",
    ]);
    const quota = new ProviderError({
      kind: "rate_limit",
      message: "quota",
      provider: "openai",
      model: "m",
      retryable: false,
    });
    expect(quota.retryable).toBe(false);
    expect(new ProviderError({ kind: "aborted", message: "x", provider: "p", model: "m" }).retryable).toBe(
      false,
    );
  });

  it("round-trips through toJSON / fromJSON and JSON text", () => {
    const error = new ProviderError({
      kind: "rate_limit",
      message: "Too many requests",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      status: 429,
      retryAfterMs: 1500,
      code: "rate_limit_error",
      requestId: "req_1",
      upstreamBody: '{"type":"error"}',
    });
    const copy = ProviderError.fromJSON(JSON.parse(JSON.stringify(error)));
    expect(copy).toBeInstanceOf(ProviderError);
    expect(copy.toJSON()).toEqual(error.toJSON());
    expect(copy.message).toBe("Too many requests");
    expect(ProviderError.is(copy)).toBe(true);
    // Realm-proof: a plain object carrying the name counts too (errors from another copy of the package).
    expect(ProviderError.is({ name: "ProviderError" })).toBe(true);
    expect(ProviderError.is(new Error("x"))).toBe(false);
  });

  it("never keeps credentials in the message, the upstream body or the JSON", () => {
    const key = "my-very-secret-key-123";
    const error = new ProviderError({
      kind: "auth",
      message: `invalid x-api-key ${key}`,
      provider: "anthropic",
      model: "m",
      upstreamBody: `{"echo":{"authorization":"Bearer abcdefghijklmnop","key":"sk-ant-api03-abcdefghijklmnopqrstuv","other":"${key}","aws":"AKIAIOSFODNN7EXAMPLE"}}`,
      secrets: [key],
    });
    const text = JSON.stringify(error) + error.message + String(error.upstreamBody);
    expect(text).not.toContain(key);
    expect(text).not.toContain("abcdefghijklmnop");
    expect(text).not.toContain("sk-ant-api03-abcdefghijklmnopqrstuv");
    expect(text).not.toContain("AKIAIOSFODNN7EXAMPLE");
    expect(text).toContain("[redacted]");
    expect(Object.keys(error.toJSON())).not.toContain("secrets");
  });

  it("redactSecrets leaves ordinary text alone", () => {
    const text = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
    expect(redactSecrets(text)).toBe(text);
  });

  describe("redactSecrets: every encoding of a known secret", () => {
    const key = "sk-proj-Ab/cd+EF_gh-IJ0123456789xyz";
    const unicode = [...key].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
    it.each([
      ["as is", key],
      ["JSON-escaped slash", key.replaceAll("/", "\\/")],
      ["\\u escapes, lower case", unicode],
      ["\\u escapes, upper case", unicode.toUpperCase().replaceAll("\\U", "\\u")],
      ["percent-encoded", encodeURIComponent(key)],
      [
        "a mix",
        `${key.slice(0, 5)}${encodeURIComponent(key.slice(5, 12))}${key.slice(12).replaceAll("/", "\\/")}`,
      ],
    ])("%s", (_label, form) => {
      // Without the secret list the shape patterns cannot know this key: only the list finds it.
      const text = `before ${form} after`;
      expect(redactSecrets(text, [key])).toBe("before [redacted] after");
    });

    it("a run of 12 or more of its characters (a cut or partial echo) is redacted; 11 are left", () => {
      expect(redactSecrets(`cut: ${key.slice(0, 14)}`, [key])).toBe("cut: [redacted]");
      expect(redactSecrets(`tail: ${key.slice(-12)}!`, [key])).toBe("tail: [redacted]!");
      expect(redactSecrets(`short: ${key.slice(3, 14)}`, [key])).toBe(`short: ${key.slice(3, 14)}`);
    });

    it("a secret under 8 characters is redacted as a whole word only", () => {
      expect(redactSecrets("key k9x2 is bad; k9x2x and xk9x2 are other words", ["k9x2"])).toBe(
        "key [redacted] is bad; k9x2x and xk9x2 are other words",
      );
    });

    it("user:password in a URL is redacted, the rest of the URL kept", () => {
      expect(redactSecrets("GET https://admin:hunter22@10.0.0.7:8000/v1 failed")).toBe(
        "GET https://[redacted]@10.0.0.7:8000/v1 failed",
      );
    });

    it("every text field of a ProviderError is scrubbed, and the body before it is cut", () => {
      const error = new ProviderError({
        kind: "auth",
        message: `bad key ${key}`,
        provider: "openai",
        model: "gpt",
        code: key,
        requestId: `req_${key}`,
        upstreamBody: "x".repeat(MAX_UPSTREAM_BODY - 10) + key,
        secrets: [key],
      });
      const text = JSON.stringify(error.toJSON());
      for (let start = 0; start + 12 <= key.length; start++)
        expect(text).not.toContain(key.slice(start, start + 12));
      expect(error.code).toBe("[redacted]");
      expect(error.requestId).toBe("req_[redacted]");
      expect(error.upstreamBody!.endsWith("x[redacted]")).toBe(true);
    });
  });

  it("caps retryAfterMs at an hour and never lets it go negative", () => {
    const make = (retryAfterMs: number) =>
      new ProviderError({ kind: "rate_limit", message: "x", provider: "p", model: "m", retryAfterMs });
    expect(make(343_574_601_719).retryAfterMs).toBe(MAX_RETRY_AFTER_MS);
    expect(MAX_RETRY_AFTER_MS).toBe(3_600_000);
    expect(make(-5).retryAfterMs).toBe(0);
    expect(make(1500.2).retryAfterMs).toBe(1501);
  });

  it("truncates a huge upstream body", () => {
    const error = new ProviderError({
      kind: "server",
      message: "x",
      provider: "p",
      model: "m",
      upstreamBody: "a".repeat(100_000),
    });
    expect(error.upstreamBody!.length).toBeLessThan(MAX_UPSTREAM_BODY + 100);
    expect(error.upstreamBody).toContain("more characters");
  });

  it("with() copies an error with changed fields and keeps the cause", () => {
    const cause = new TypeError("fetch failed");
    const error = new ProviderError({ kind: "network", message: "x", provider: "p", model: "m", cause });
    const partial = error.with({ partialOutput: true });
    expect(partial.partialOutput).toBe(true);
    expect(partial.kind).toBe("network");
    expect(partial.cause).toBe(cause);
    expect(error.partialOutput).toBe(false);
  });
});
