/**
 * Failures in each dialect's shape: every ProviderError kind's status and OpenAI / Anthropic `type`; an
 * Anthropic upstream's own envelope kept word for word (not its refusal of the gateway's key); overloaded
 * a 529 on the Anthropic dialect; Retry-After on 429, 503 and 529; the upstream body only with `expose`;
 * bad requests, unknown models, configuration problems and the unexpected, in both shapes.
 */
import { describe, expect, it } from "vitest";
import {
  PROVIDER_ERROR_KINDS,
  ProviderError,
  type ProviderErrorKind,
} from "../../src/core/provider-error.ts";
import { StructuredOutputError } from "../../src/core/structured-output.ts";
import { ValidationError } from "../../src/core/validation-error.ts";
import {
  anthropicErrorType,
  dialectErrorJSON,
  dialectErrorResponse,
  dialectFailure,
  dialectOfPath,
  gatewayFailureBody,
  UnknownRouteError,
} from "../../src/worker/dialect-errors.ts";
import { HTTPConfigError } from "../../src/worker/gateway-error.ts";

const error = (
  kind: ProviderErrorKind,
  extra: Partial<ConstructorParameters<typeof ProviderError>[0]> = {},
) => new ProviderError({ kind, message: `upstream ${kind}`, provider: "openai", model: "gpt-4o", ...extra });

/** Status, OpenAI type, Anthropic status and type, for each kind. */
const TABLE: Record<
  ProviderErrorKind,
  [status: number, openai: string, anthropicStatus: number, anthropic: string]
> = {
  rate_limit: [429, "requests", 429, "rate_limit_error"],
  overloaded: [503, "server_error", 529, "overloaded_error"],
  server: [502, "server_error", 502, "api_error"],
  timeout: [504, "server_error", 504, "timeout_error"],
  network: [502, "server_error", 502, "api_error"],
  truncated: [502, "server_error", 502, "api_error"],
  auth: [502, "server_error", 502, "api_error"],
  bad_request: [400, "invalid_request_error", 400, "invalid_request_error"],
  context_length: [400, "invalid_request_error", 400, "invalid_request_error"],
  not_found: [404, "invalid_request_error", 404, "not_found_error"],
  invalid_response: [502, "server_error", 502, "api_error"],
  aborted: [499, "invalid_request_error", 499, "invalid_request_error"],
};

describe("dialectOfPath", () => {
  it("Anthropic for /v1/messages*, OpenAI for the OpenAI endpoints, modelwire elsewhere", () => {
    for (const path of ["/v1/messages", "/v1/messages/count_tokens"])
      expect(dialectOfPath(path)).toBe("anthropic");
    for (const path of [
      "/v1/chat/completions",
      "/v1/responses",
      "/v1/responses/resp_1",
      "/v1/models",
      "/v1/models/x",
    ])
      expect(dialectOfPath(path)).toBe("openai");
    for (const path of [
      "/v1/complete",
      "/v1/stream",
      "/v1/messagesx",
      "/v1/tasks",
      "/v1/responsesx",
      "/health",
    ])
      expect(dialectOfPath(path)).toBe("modelwire");
  });
});

/** The OpenAI codes of the kinds that have one (`openAIErrorCode`). */
const OPENAI_CODES: Partial<Record<ProviderErrorKind, string>> = {
  context_length: "context_length_exceeded",
  rate_limit: "rate_limit_exceeded",
  overloaded: "server_is_overloaded",
  timeout: "timeout",
};

describe("each ProviderError kind", () => {
  it("the table covers every kind", () => {
    expect(Object.keys(TABLE).sort()).toEqual([...PROVIDER_ERROR_KINDS].sort());
  });

  for (const kind of PROVIDER_ERROR_KINDS) {
    const [status, openaiType, anthropicStatus, anthropicType] = TABLE[kind];
    it(`${kind}: OpenAI ${status} ${openaiType}, Anthropic ${anthropicStatus} ${anthropicType}`, () => {
      const failure = error(kind, { code: "upstream_code" });
      const openai = dialectFailure(failure, "openai");
      expect(openai.status).toBe(status);
      // The kinds OpenAI has a code for get it (one mapping with the Responses stream); others the upstream's.
      const code = OPENAI_CODES[kind] ?? "upstream_code";
      expect(openai.body).toEqual({
        error: { message: `upstream ${kind}`, type: openaiType, param: null, code },
      });
      const anthropic = dialectFailure(failure, "anthropic");
      expect(anthropic.status).toBe(anthropicStatus);
      expect(anthropic.body).toEqual({
        type: "error",
        error: { type: anthropicType, message: `upstream ${kind}` },
      });
      expect(anthropicErrorType(anthropicStatus)).toBe(anthropicType);
    });
  }

  it("OpenAI's code: OpenAI's own for the kinds that have one, else the upstream's, else server_error", () => {
    const code = (failure: ProviderError) =>
      (dialectErrorJSON(failure, "openai").error as { code: string }).code;
    expect(code(error("rate_limit"))).toBe("rate_limit_exceeded");
    expect(code(error("rate_limit", { code: "insufficient_quota" }))).toBe("insufficient_quota");
    expect(code(error("context_length", { code: "invalid_request_error" }))).toBe("context_length_exceeded");
    expect(code(error("overloaded"))).toBe("server_is_overloaded");
    expect(code(error("bad_request", { code: "invalid_value" }))).toBe("invalid_value");
    expect(code(error("server", { code: "Weird Code!" }))).toBe("server_error");
    expect(code(error("truncated"))).toBe("server_error");
  });

  it("Anthropic's types of the other statuses", () => {
    expect(
      [401, 402, 403, 413, 409, 422, 500, 503].map((status) => [status, anthropicErrorType(status)]),
    ).toEqual([
      [401, "authentication_error"],
      [402, "billing_error"],
      [403, "permission_error"],
      [413, "request_too_large"],
      [409, "invalid_request_error"],
      [422, "invalid_request_error"],
      [500, "api_error"],
      [503, "api_error"],
    ]);
  });
});

describe("an Anthropic upstream's own envelope", () => {
  const envelope = (type: string, message: string) =>
    JSON.stringify({ type: "error", error: { type, message }, request_id: "req_011" });

  it("is kept word for word on the Anthropic dialect: its type and message, not the gateway's", () => {
    const upstream = new ProviderError({
      kind: "bad_request",
      message: "anthropic 400: prompt is too long: 210000 tokens > 200000 maximum",
      provider: "anthropic",
      model: "claude",
      status: 400,
      upstreamBody: envelope("invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum"),
    });
    expect(dialectErrorJSON(upstream, "anthropic")).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" },
    });
    const overloaded = new ProviderError({
      kind: "overloaded",
      message: "anthropic stream error: Overloaded",
      provider: "anthropic",
      model: "claude",
      upstreamBody: envelope("overloaded_error", "Overloaded"),
    });
    const failure = dialectFailure(overloaded, "anthropic");
    expect(failure.status).toBe(529);
    expect(failure.body).toEqual({
      type: "error",
      error: { type: "overloaded_error", message: "Overloaded" },
    });
  });

  it("a type the status table does not have (billing, a new one) is kept too", () => {
    const billing = new ProviderError({
      kind: "bad_request",
      message: "anthropic 400: credit balance",
      provider: "anthropic",
      model: "claude",
      upstreamBody: envelope("billing_error", "Your credit balance is too low"),
    });
    expect(dialectErrorJSON(billing, "anthropic")).toEqual({
      type: "error",
      error: { type: "billing_error", message: "Your credit balance is too low" },
    });
  });

  it("but not its refusal of the gateway's own key: that is the gateway's 502 api_error", () => {
    for (const [type, status] of [
      ["authentication_error", 401],
      ["permission_error", 403],
    ] as const) {
      const refused = new ProviderError({
        kind: "auth",
        message: `anthropic ${status}: invalid x-api-key`,
        provider: "anthropic",
        model: "claude",
        status,
        upstreamBody: envelope(type, "invalid x-api-key"),
      });
      const failure = dialectFailure(refused, "anthropic");
      expect(failure.status).toBe(502);
      expect(failure.body).toEqual({
        type: "error",
        error: { type: "api_error", message: `anthropic ${status}: invalid x-api-key` },
      });
    }
  });

  it("not on the OpenAI dialect, not from modelwire itself, not when the body is not an envelope", () => {
    const upstream = (body: string, provider = "anthropic") =>
      new ProviderError({
        kind: "rate_limit",
        message: "gateway words",
        provider,
        model: "m",
        upstreamBody: body,
      });
    const kept = envelope("rate_limit_error", "upstream words");
    expect(dialectErrorJSON(upstream(kept), "openai")).toMatchObject({ error: { message: "gateway words" } });
    expect(dialectErrorJSON(upstream(kept, "modelwire"), "anthropic")).toMatchObject({
      error: { message: "gateway words" },
    });
    for (const body of [
      '{"error":{"message":"openai shape","type":"requests"}}',
      '{"type":"error","error":{"type":7,"message":"x"}}',
      '{"type":"error","error":{"type":"x"}}',
      "not json",
      "null",
    ]) {
      expect(dialectErrorJSON(upstream(body), "anthropic"), body).toEqual({
        type: "error",
        error: { type: "rate_limit_error", message: "gateway words" },
      });
    }
  });
});

describe("Retry-After", () => {
  it("on a 429, 503 and 529 whose wait is known, in both dialects (seconds rounded up, and ms)", () => {
    const cases: [kind: ProviderErrorKind, dialect: "openai" | "anthropic", status: number][] = [
      ["rate_limit", "openai", 429],
      ["rate_limit", "anthropic", 429],
      ["overloaded", "openai", 503],
      ["overloaded", "anthropic", 529],
    ];
    for (const [kind, dialect, status] of cases) {
      const failure = dialectFailure(error(kind, { retryAfterMs: 6500 }), dialect);
      expect(failure.status).toBe(status);
      expect(failure.headers, `${kind} ${dialect}`).toEqual({ "retry-after": "7", "retry-after-ms": "6500" });
      const response = dialectErrorResponse(error(kind, { retryAfterMs: 6500 }), dialect);
      expect(response.status).toBe(status);
      expect(response.headers.get("retry-after")).toBe("7");
    }
  });

  it("not without a known wait, and not on other statuses even with one", () => {
    expect(dialectFailure(error("rate_limit"), "openai").headers).toEqual({});
    for (const kind of ["server", "timeout", "bad_request", "network"] as const) {
      expect(dialectFailure(error(kind, { retryAfterMs: 1000 }), "anthropic").headers, kind).toEqual({});
      expect(dialectFailure(error(kind, { retryAfterMs: 1000 }), "openai").headers, kind).toEqual({});
    }
  });
});

describe("the upstream's raw body", () => {
  const withBody = error("server", { upstreamBody: '{"detail":"internal trace id 42"}' });

  it("is left out unless exposed", () => {
    for (const dialect of ["openai", "anthropic"] as const) {
      expect(JSON.stringify(dialectFailure(withBody, dialect).body)).not.toContain("trace id 42");
      expect(JSON.stringify(dialectErrorJSON(withBody, dialect))).not.toContain("trace id 42");
    }
  });

  it("is in Anthropic's error object as upstream_body when exposed", () => {
    expect(dialectFailure(withBody, "anthropic", { exposeUpstreamErrors: true }).body).toEqual({
      type: "error",
      error: {
        type: "api_error",
        message: "upstream server",
        upstream_body: '{"detail":"internal trace id 42"}',
      },
    });
  });

  it("is in OpenAI's error object as upstream_body when exposed", () => {
    expect(dialectFailure(withBody, "openai", { exposeUpstreamErrors: true }).body).toEqual({
      error: {
        message: "upstream server",
        type: "server_error",
        param: null,
        code: "server_error",
        upstream_body: '{"detail":"internal trace id 42"}',
      },
    });
    expect(dialectErrorJSON(withBody, "openai", true)).toMatchObject({
      error: { upstream_body: '{"detail":"internal trace id 42"}' },
    });
  });
});

describe("what a route throws besides ProviderErrors", () => {
  const invalid = new ValidationError([
    { path: "temperature", message: "must be at most 2" },
    { path: "messages[0].role", message: "unknown role" },
  ]);

  it("a bad request: 400 naming the first field in param (OpenAI) and every one in issues", () => {
    expect(dialectFailure(invalid, "openai")).toEqual({
      status: 400,
      headers: {},
      body: {
        error: {
          message: invalid.message,
          type: "invalid_request_error",
          param: "temperature",
          code: null,
          issues: invalid.issues,
        },
      },
    });
    expect(dialectFailure(invalid, "anthropic")).toEqual({
      status: 400,
      headers: {},
      body: {
        type: "error",
        error: { type: "invalid_request_error", message: invalid.message, issues: invalid.issues },
      },
    });
  });

  it("an unknown model: 404 model_not_found (OpenAI), not_found_error (Anthropic)", () => {
    const unknown = new UnknownRouteError("gpt-9", [{ path: "route", message: 'no route "gpt-9"' }]);
    expect(dialectFailure(unknown, "openai")).toMatchObject({
      status: 404,
      body: {
        error: {
          message: "The model `gpt-9` does not exist or you do not have access to it.",
          type: "invalid_request_error",
          param: "model",
          code: "model_not_found",
        },
      },
    });
    expect(dialectFailure(unknown, "anthropic")).toMatchObject({
      status: 404,
      body: { type: "error", error: { type: "not_found_error", message: expect.stringContaining("gpt-9") } },
    });
  });

  it("a configuration problem: the operator's 500, naming the fields", () => {
    const config = new HTTPConfigError("routes.claude.apiKeySecret: no secret", [
      { path: "routes.claude.apiKeySecret", message: "no secret" },
    ]);
    expect(dialectFailure(config, "openai")).toMatchObject({
      status: 500,
      body: {
        error: {
          type: "server_error",
          code: "config",
          message: expect.stringContaining("routes.claude.apiKeySecret"),
          issues: [{ path: "routes.claude.apiKeySecret" }],
        },
      },
    });
    expect(dialectFailure(config, "anthropic")).toMatchObject({
      status: 500,
      body: { type: "error", error: { type: "api_error", issues: [{ path: "routes.claude.apiKeySecret" }] } },
    });
  });

  it("an answer that is not the JSON asked for: 502 keeping the response", () => {
    const response = { message: { role: "assistant", content: "Paris, I think.", toolCalls: [] } };
    const structured = new StructuredOutputError("not JSON", response as never, []);
    const failure = dialectFailure(structured, "openai");
    expect(failure.status).toBe(502);
    expect(failure.body).toMatchObject({
      error: { type: "server_error", code: "structured_output" },
      response: { message: { content: "Paris, I think." } },
    });
  });

  it("anything else: a 500 that says only 'internal error', logged", () => {
    const logs: string[] = [];
    for (const dialect of ["openai", "anthropic"] as const) {
      const failure = dialectFailure(new Error("secret detail sk-123"), dialect, {
        log: (line) => logs.push(line),
      });
      expect(failure.status).toBe(500);
      expect(JSON.stringify(failure.body)).not.toContain("secret detail");
      expect(JSON.stringify(failure.body)).toContain("internal error");
    }
    expect(logs).toHaveLength(2);
  });
});

describe("gatewayFailureBody (the gateway's own 401 and 413)", () => {
  it("each dialect's shape, the type the status's", () => {
    const names = { kind: "auth", code: "invalid_api_key" };
    expect(gatewayFailureBody("openai", 401, "no token", names)).toEqual({
      error: { message: "no token", type: "invalid_request_error", param: null, code: "invalid_api_key" },
    });
    expect(gatewayFailureBody("anthropic", 401, "no token", names)).toEqual({
      type: "error",
      error: { type: "authentication_error", message: "no token" },
    });
    expect(gatewayFailureBody("modelwire", 401, "no token", names)).toEqual({
      error: { kind: "auth", message: "no token" },
    });
    expect(
      gatewayFailureBody("anthropic", 413, "too large", { kind: "bad_request", code: "request_too_large" }),
    ).toEqual({ type: "error", error: { type: "request_too_large", message: "too large" } });
  });
});
