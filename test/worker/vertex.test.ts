/**
 * A Vertex AI route in the gateway, inside workerd: the service-account key comes from one Worker secret
 * (`credentialsSecret`, the key file's JSON text), the OAuth token is made inside the Worker with workerd's
 * Web Crypto (the fake token endpoint verifies the assertion with the public key), and Claude answers
 * through rawPredict / streamRawPredict. A refused exchange reaches the client without any key material.
 */
import { describe, expect, it } from "vitest";
import { createWorker } from "../../src/worker/app.ts";
import { buildRoutes } from "../../src/worker/config.ts";
import {
  checkJwt,
  errorTexts,
  fakeGoogle,
  fakeServiceAccount,
  leakedPiece,
  type SeenRequest,
} from "../helpers/google-service-account.ts";
import { gatewayEnv, TOKEN } from "./helpers.ts";

const CLAUDE = "claude-sonnet-4-5@20250929";
const CONFIG = {
  routes: {
    claude: {
      protocol: "vertex",
      model: CLAUDE,
      project: "example-project",
      location: "us-east5",
      credentialsSecret: "GCP_SERVICE_ACCOUNT",
    },
  },
};
const MESSAGE = {
  id: "msg_w1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [{ type: "text", text: "Hello from Vertex" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 9, output_tokens: 4 },
};
const EVENTS = [
  {
    type: "message_start",
    message: { ...MESSAGE, content: [], stop_reason: null, usage: { input_tokens: 9, output_tokens: 1 } },
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello from " } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Vertex" } },
  { type: "content_block_stop", index: 0 },
  {
    type: "message_delta",
    delta: { stop_reason: "end_turn", stop_sequence: null },
    usage: { output_tokens: 4 },
  },
  { type: "message_stop" },
];

function vertexAnswer(request: SeenRequest): Response {
  if (request.url.endsWith(":streamRawPredict")) {
    const body = EVENTS.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  }
  return Response.json(MESSAGE);
}

async function setup(token?: Parameters<typeof fakeGoogle>[0]["token"]) {
  const service = await fakeServiceAccount();
  const google = fakeGoogle({ token, api: vertexAnswer });
  const worker = createWorker({ config: CONFIG, log: () => {}, providers: { fetch: google.fetch } });
  const env = { ...gatewayEnv, GCP_SERVICE_ACCOUNT: JSON.stringify(service.account) };
  const call = (path: string, json: unknown, headers: Record<string, string> = {}) =>
    worker.app.fetch(
      new Request(`http://gateway.test${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", ...headers },
        body: JSON.stringify(json),
      }),
      env,
    );
  return { service, google, call };
}

describe("a vertex route (service-account key from a Worker secret)", () => {
  it("POST /v1/complete: the token is made in the Worker, its assertion verifies, Claude answers via rawPredict", async () => {
    const { service, google, call } = await setup();
    const response = await call("/v1/complete", {
      route: "claude",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      message: { role: "assistant", content: "Hello from Vertex" },
    });
    expect(google.exchanges).toHaveLength(1);
    const jwt = await checkJwt(google.exchanges[0]!.assertion, service.publicKey);
    expect(jwt.verified).toBe(true);
    expect(jwt.claims).toMatchObject({ iss: service.account.client_email, aud: service.account.token_uri });
    expect(google.calls[0]!.url).toBe(
      `https://us-east5-aiplatform.googleapis.com/v1/projects/example-project/locations/us-east5/publishers/anthropic/models/${CLAUDE}:rawPredict`,
    );
    expect(google.calls[0]!.headers.get("authorization")).toMatch(/^Bearer ya29\./);
    expect(JSON.parse(google.calls[0]!.text)).toMatchObject({ anthropic_version: "vertex-2023-10-16" });
  });

  it("POST /v1/stream and /v1/chat/completions reuse the cached token", async () => {
    const { google, call } = await setup();
    const streamed = await (
      await call("/v1/stream", { route: "claude", messages: [{ role: "user", content: "hi" }] })
    ).text();
    const deltas = [...streamed.matchAll(/event: text-delta\ndata: (.*)\n/g)].map(
      (match) => JSON.parse(match[1]!).text,
    );
    expect(deltas.join("")).toBe("Hello from Vertex");
    expect(streamed).toMatch(/event: done\n/);
    const chat = await call("/v1/chat/completions", {
      model: "claude",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(await chat.json()).toMatchObject({ choices: [{ message: { content: "Hello from Vertex" } }] });
    expect(google.calls.map((request) => request.url.split(":").at(-1))).toEqual([
      "streamRawPredict",
      "rawPredict",
    ]);
  });

  it("a refused exchange is an auth error to the client, with no piece of the key in it", async () => {
    const { service, call } = await setup(
      (exchange) =>
        new Response(
          JSON.stringify({
            error: "invalid_grant",
            error_description: `Invalid JWT Signature. ${exchange.assertion} ${service.account.private_key}`,
          }),
          { status: 400, headers: { "content-type": "application/json" } },
        ),
    );
    const response = await call("/v1/complete", {
      route: "claude",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    const text = await response.text();
    expect(text).toMatch(/auth/);
    expect(leakedPiece(errorTexts({ message: text }), service.keyLines)).toBeUndefined();
  });

  it("a missing secret or a broken key breaks only that route, naming credentialsSecret and quoting nothing", async () => {
    const missing = buildRoutes(CONFIG, gatewayEnv);
    expect(missing.routes.has("claude")).toBe(false);
    expect(missing.broken.get("claude")).toEqual([
      {
        path: "routes.claude.credentialsSecret",
        message: "the Worker secret GCP_SERVICE_ACCOUNT is not set",
      },
    ]);
    const garbled = buildRoutes(CONFIG, {
      ...gatewayEnv,
      GCP_SERVICE_ACCOUNT: '{"client_email": "x", "private_key": "hunter2-secret',
    });
    expect(garbled.broken.get("claude")).toEqual([
      { path: "routes.claude.credentials", message: expect.stringMatching(/not JSON/) },
    ]);
    expect(JSON.stringify(garbled.broken.get("claude"))).not.toContain("hunter2");
    const none = buildRoutes(
      { routes: { claude: { ...CONFIG.routes.claude, credentialsSecret: undefined } } },
      gatewayEnv,
    );
    expect(none.broken.get("claude")![0]!.message).toMatch(/credentialsSecret/);
  });
});

describe("/v1/messages on a vertex Claude route (passthrough)", () => {
  /** What Claude Code v2.1 sends in `anthropic-beta` (recorded), plus a flag with a line break. */
  const CLAUDE_CODE_BETAS =
    "claude-code-20250219,oauth-2025-04-20,adaptive-thinking-2026-01-28,context-management-2025-06-27," +
    "prompt-caching-scope-2026-01-05,advanced-tool-use-2025-11-20,effort-2025-11-24,interleaved-thinking-2025-05-14";
  const body = {
    model: "claude",
    max_tokens: 64,
    system: [{ type: "text", text: "You are terse.", cache_control: { type: "ephemeral", scope: "global" } }],
    messages: [{ role: "user", content: "hi" }],
  };

  for (const stream of [false, true]) {
    it(`${stream ? "stream" : "complete"}: only the flags Vertex takes go upstream (renamed where Vertex's name differs), the others are listed; no cache_control.scope`, async () => {
      const { google, call } = await setup();
      const response = await call(
        "/v1/messages",
        { ...body, stream },
        { "anthropic-beta": CLAUDE_CODE_BETAS },
      );
      expect(response.status).toBe(200);
      await response.text();
      const sent = google.calls.find(
        (request) => request.url.includes("RawPredict") || request.url.includes("rawPredict"),
      )!;
      expect(sent.headers.get("anthropic-beta")).toBe(
        "claude-code-20250219,context-management-2025-06-27,tool-search-tool-2025-10-19,effort-2025-11-24,interleaved-thinking-2025-05-14",
      );
      expect(response.headers.get("x-modelwire-dropped-betas")).toBe(
        "oauth-2025-04-20,adaptive-thinking-2026-01-28,prompt-caching-scope-2026-01-05",
      );
      const upstream = JSON.parse(sent.text) as { system: { cache_control: unknown }[] };
      expect(upstream.system[0]!.cache_control).toEqual({ type: "ephemeral" });
      expect(JSON.parse(response.headers.get("x-modelwire-warnings")!)).toEqual([
        "Vertex takes no cache_control.scope; left out of 1 breakpoint(s)",
      ]);
    });
  }

  it("count_tokens: the same flags only, no cache_control.scope", async () => {
    const { google, call } = await setup();
    const response = await call("/v1/messages/count_tokens", body, { "anthropic-beta": CLAUDE_CODE_BETAS });
    await response.text();
    const sent = google.calls.find((request) => request.url.includes("count-tokens"))!;
    expect(sent.headers.get("anthropic-beta")).not.toContain("oauth-2025-04-20");
    expect(sent.headers.get("anthropic-beta")).not.toContain("prompt-caching-scope");
    expect(sent.text).not.toContain('"scope"');
  });
});
