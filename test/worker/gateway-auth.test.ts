/**
 * Gateway auth, inside workerd: every route but /health needs `Authorization: Bearer <token>` (or
 * `x-api-key: <token>`) matching GATEWAY_TOKENS (the test config sets "test-token-a, test-token-b"); a
 * Worker with no token configured refuses every /v1 route; a token is never echoed. The 401 is in the
 * path's dialect: OpenAI's shape on the OpenAI endpoints, modelwire's own elsewhere.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createWorker, type WorkerEnv } from "../../src/worker/app.ts";

const V1_ROUTES: [method: string, path: string][] = [
  ["GET", "/v1/models"],
  ["POST", "/v1/complete"],
  ["POST", "/v1/stream"],
  ["POST", "/v1/chat/completions"],
  ["GET", "/v1/sessions/s-1"],
  ["DELETE", "/v1/sessions/s-1"],
  ["POST", "/v1/tasks"],
  ["GET", "/v1/tasks/t-1"],
  ["GET", "/v1/tasks/t-1/events"],
  ["POST", "/v1/tasks/t-1/pause"],
  ["POST", "/v1/tasks/t-1/resume"],
  ["POST", "/v1/tasks/t-1/abort"],
  // Not a route at all: still 401, so an unauthenticated caller learns nothing about what exists.
  ["GET", "/v1/no-such-route"],
];

/** The 401 body a path answers with: OpenAI's `invalid_api_key` on its endpoints, else modelwire's `auth`. */
function unauthorizedBody(path: string, message: unknown): unknown {
  return path === "/v1/models" || path === "/v1/chat/completions"
    ? { error: { message, type: "invalid_request_error", param: null, code: "invalid_api_key" } }
    : { error: { kind: "auth", message } };
}

const DEMO_CALL = { route: "demo", messages: [{ role: "user", content: "hi" }] };

function request(method: string, path: string, authorization?: string): Request {
  const headers = new Headers();
  if (authorization !== undefined) headers.set("authorization", authorization);
  const hasBody = method === "POST";
  if (hasBody) headers.set("content-type", "application/json");
  return new Request(`http://worker.test${path}`, {
    method,
    headers,
    ...(hasBody
      ? { body: JSON.stringify(path === "/v1/tasks" ? { workflow: "demo", input: "x" } : DEMO_CALL) }
      : {}),
  });
}

describe("gateway auth (the deployed Worker)", () => {
  it("/health needs no token", async () => {
    const response = await exports.default.fetch("http://worker.test/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, name: "modelwire" });
  });

  it("no Authorization header: 401 with a Bearer challenge on every /v1 route", async () => {
    for (const [method, path] of V1_ROUTES) {
      const response = await exports.default.fetch(request(method, path));
      expect(response.status, `${method} ${path}`).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await response.json(), `${method} ${path}`).toEqual(
        unauthorizedBody(path, "missing or invalid bearer token"),
      );
    }
  });

  it("path variants of a /v1 route never get past auth", async () => {
    for (const path of [
      "/%761/models",
      "/v1/%6dodels",
      "/v1/models/",
      "/v1//models",
      "/v1/models?token=test-token-a",
      "/health/../v1/models",
      "/V1/models",
      "//v1/models",
    ]) {
      const response = await exports.default.fetch(`http://worker.test${path}`);
      expect([401, 404], path).toContain(response.status);
      expect(await response.text()).not.toContain('"object":"list"');
    }
  });

  it("a wrong token is refused, and not echoed", async () => {
    const wrong = [
      "Bearer test-token-c",
      "Bearer test-token-", // a prefix of a real token
      "Bearer test-token-aa", // a real token plus one character
      "Bearer test-token-a, test-token-b", // the whole secret value
      "Basic test-token-a", // right token, wrong scheme
      "test-token-a", // no scheme
      "Bearer ",
    ];
    for (const authorization of wrong) {
      const response = await exports.default.fetch(request("GET", "/v1/models", authorization));
      expect(response.status, authorization).toBe(401);
      const text = await response.text();
      expect(text).not.toContain("test-token");
    }
  });

  it("either configured token is accepted (scheme case-insensitive, spaces trimmed)", async () => {
    for (const authorization of ["Bearer test-token-a", "bearer test-token-b", "BEARER   test-token-a  "]) {
      const response = await exports.default.fetch(request("GET", "/v1/models", authorization));
      expect(response.status, authorization).toBe(200);
      const text = await response.text();
      expect(text).not.toContain("test-token");
      expect(JSON.parse(text)).toMatchObject({
        object: "list",
        data: expect.arrayContaining([expect.objectContaining({ id: "demo" })]),
      });
    }
  });

  it("x-api-key (how Claude Code sends ANTHROPIC_API_KEY) is accepted on every /v1 route", async () => {
    for (const [method, path] of V1_ROUTES) {
      const plain = request(method, path);
      const headers = new Headers(plain.headers);
      headers.set("x-api-key", "test-token-b");
      const response = await exports.default.fetch(new Request(plain, { headers }));
      expect(response.status, `${method} ${path}`).not.toBe(401);
      expect(await response.text()).not.toContain("test-token");
    }
    const models = await exports.default.fetch("http://worker.test/v1/models", {
      headers: { "x-api-key": "  test-token-a " },
    });
    expect(models.status).toBe(200);
    expect(await models.json()).toMatchObject({ object: "list" });
  });

  it("a wrong x-api-key is refused and not echoed; a Bearer token, when sent, is the one checked", async () => {
    const cases: [label: string, headers: Record<string, string>][] = [
      ["a wrong key", { "x-api-key": "test-token-c" }],
      ["the whole secret value", { "x-api-key": "test-token-a, test-token-b" }],
      ["an empty key", { "x-api-key": "  " }],
      ["a wrong Bearer beside a right key", { authorization: "Bearer nope", "x-api-key": "test-token-a" }],
    ];
    for (const [label, headers] of cases) {
      const response = await exports.default.fetch("http://worker.test/v1/models", { headers });
      expect(response.status, label).toBe(401);
      expect(await response.text(), label).not.toContain("test-token");
    }
  });

  it("with the right token the routes answer, and no response carries the token or a key", async () => {
    const complete = await exports.default.fetch(request("POST", "/v1/complete", "Bearer test-token-a"));
    expect(complete.status).toBe(200);
    const completeText = await complete.text();
    expect(JSON.parse(completeText)).toMatchObject({
      message: { role: "assistant", content: "Hello from the modelwire demo route. You said: hi" },
    });
    const chat = await exports.default.fetch(
      new Request("http://worker.test/v1/chat/completions", {
        method: "POST",
        headers: { authorization: "Bearer test-token-b", "content-type": "application/json" },
        body: JSON.stringify({ model: "demo", messages: [{ role: "user", content: "hi" }] }),
      }),
    );
    expect(chat.status).toBe(200);
    const chatText = await chat.text();
    for (const text of [completeText, chatText]) {
      expect(text).not.toContain("test-token");
      expect(text).not.toContain(env.ANTHROPIC_API_KEY);
    }
  });
});

describe("a Worker with no GATEWAY_TOKENS (and no ADMIN_TOKENS, so no virtual keys either)", () => {
  const worker = createWorker();
  const closedEnvs: [label: string, env: WorkerEnv][] = [
    ["unset", { ...env, GATEWAY_TOKENS: undefined, ADMIN_TOKENS: undefined }],
    ["empty", { ...env, GATEWAY_TOKENS: "", ADMIN_TOKENS: "" }],
    ["only separators", { ...env, GATEWAY_TOKENS: " , ,, ", ADMIN_TOKENS: " , " }],
  ];

  it("refuses every /v1 route, even with a token that would otherwise be valid", async () => {
    for (const [label, closed] of closedEnvs) {
      for (const [method, path] of V1_ROUTES) {
        for (const authorization of [undefined, "Bearer test-token-a", "Bearer "]) {
          const response = await worker.app.fetch(request(method, path, authorization), closed);
          expect(response.status, `${label}: ${method} ${path} (${authorization})`).toBe(401);
          expect(await response.json(), `${label}: ${method} ${path}`).toEqual(
            unauthorizedBody(path, expect.stringContaining("no GATEWAY_TOKENS")),
          );
        }
      }
    }
  });

  it("still serves /health", async () => {
    for (const [, closed] of closedEnvs) {
      const response = await worker.app.fetch(new Request("http://worker.test/health"), closed);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ ok: true });
    }
  });
});
