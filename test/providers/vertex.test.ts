/** vertex(): settings, URLs, auth modes, errors (status → kind, Retry-After, no credential in any field), Claude. */
import { describe, expect, it } from "vitest";
import {
  anthropic,
  costOf,
  createProvider,
  type MessageInput,
  ProviderError,
  ValidationError,
  vertex,
} from "../../src/index.ts";
import { googleServiceAccountTokens, mapVertexAnthropicError } from "../../src/protocols/index.ts";
import { vertexURL } from "../../src/providers/vertex-url.ts";
import {
  errorTexts,
  fakeClock,
  fakeGoogle,
  fakeServiceAccount,
  leakedPiece,
} from "../helpers/google-service-account.ts";
import { callsOf } from "../protocols/google-gemini/recorded-calls.helpers.ts";
import { collect, failure, type Json, outcome, recordedAnthropicMessages } from "./bedrock.helpers.ts";

const CLAUDE = "claude-sonnet-4-5@20250929";
const PROJECT = "example-project";
const TOKEN = "ya29.a0AfB_byC-static-access-token-EXAMPLE0123456789";
const HISTORY: MessageInput[] = [{ role: "user", content: "Hello" }];
const MESSAGE = {
  id: "msg_v1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [{ type: "text", text: "Hi." }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 5, output_tokens: 2 },
};

function claude(fetch: typeof globalThis.fetch, extra: Partial<Parameters<typeof vertex>[0]> = {}) {
  return vertex({
    project: PROJECT,
    location: "us-east5",
    model: CLAUDE,
    accessToken: TOKEN,
    fetch,
    ...extra,
  });
}

function issues(run: () => unknown): { path: string; message: string }[] {
  try {
    run();
  } catch (error) {
    if (ValidationError.is(error)) return [...error.issues];
    throw error;
  }
  throw new Error("expected a ValidationError");
}

describe("vertex() settings", () => {
  it("names each missing or wrong field before any request", () => {
    expect(issues(() => vertex({ model: CLAUDE, accessToken: TOKEN })).map((issue) => issue.path)).toEqual([
      "project",
      "location",
    ]);
    expect(issues(() => vertex({ model: CLAUDE, project: PROJECT, location: "us-east5" }))).toEqual([
      { path: "credentials", message: expect.stringMatching(/one of credentials.*accessToken.*apiKey/) },
    ]);
    expect(
      issues(() =>
        vertex({ model: CLAUDE, project: "bad/project", location: "US East", accessToken: TOKEN }),
      ).map((issue) => issue.path),
    ).toEqual(["project", "location"]);
    expect(issues(() => vertex({ model: "", accessToken: TOKEN }))[0]!.path).toBe("model");
    expect(
      issues(() =>
        vertex({ model: "claude/../x", project: PROJECT, location: "global", accessToken: TOKEN }),
      )[0]!.path,
    ).toBe("model");
    expect(
      issues(() =>
        vertex({ model: "llama-3", project: PROJECT, location: "global", accessToken: TOKEN }),
      ).map((i) => i.path),
    ).toEqual(["publisher"]);
  });

  it("takes one credential: two is an error naming the second", () => {
    const both = issues(() =>
      vertex({ model: "gemini-2.5-flash", accessToken: TOKEN, apiKey: "AIzaSyEXAMPLE-0123456789" }),
    );
    expect(both.map((issue) => issue.path)).toContain("apiKey");
    expect(both.find((issue) => issue.path === "apiKey")!.message).toMatch(
      /one of credentials, accessToken and apiKey/,
    );
    expect(issues(() => claude(fetch, { accessToken: "  " }))[0]!.path).toBe("accessToken");
  });

  it("an API key is express mode: Gemini only, and no project or location", () => {
    const onClaude = issues(() => vertex({ model: CLAUDE, apiKey: "AIzaSyEXAMPLE-0123456789" }));
    expect(onClaude).toEqual([{ path: "apiKey", message: expect.stringMatching(/Gemini models only/) }]);
    const scoped = issues(() =>
      vertex({
        model: "gemini-2.5-flash",
        apiKey: "AIzaSyEXAMPLE-0123456789",
        project: PROJECT,
        location: "global",
      }),
    );
    expect(scoped.map((issue) => issue.path)).toEqual(["project", "location"]);
  });

  it("Gemini on Vertex: generateContent with the bearer token, native origin vertex, signatures replayed to Vertex only", async () => {
    const recorded = callsOf("google_vertex_tool_combination").filter((call) => !call.stream);
    const first = recorded[0]!;
    const seen: { url: string; headers: Headers; body: Record<string, unknown> }[] = [];
    const fetchImpl = (async (url: RequestInfo | URL, init?: RequestInit) => {
      seen.push({
        url: String(url),
        headers: new Headers(init?.headers),
        body: JSON.parse(String(init?.body)) as Record<string, unknown>,
      });
      return new Response(first.body.slice(), { headers: { "content-type": "application/json" } });
    }) as typeof fetch;
    const gemini = vertex({
      model: first.model,
      project: PROJECT,
      location: "global",
      accessToken: TOKEN,
      fetch: fetchImpl,
    });
    expect(gemini.protocol).toBe("google-gemini");
    const answer = await gemini.complete(HISTORY);
    expect(seen[0]!.url).toBe(
      `https://aiplatform.googleapis.com/v1/projects/${PROJECT}/locations/global/publishers/google/models/${first.model}:generateContent`,
    );
    expect(seen[0]!.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
    expect(answer.message.native).toMatchObject({
      protocol: "google-gemini",
      origin: "vertex",
      model: first.model,
    });
    // The model's parts, thought signatures in place, go back to the same model on Vertex exactly as they came.
    const parts = (answer.message.native!.blocks as Record<string, unknown>[]).filter(
      (part) => "thoughtSignature" in part,
    );
    expect(parts.length).toBeGreaterThan(0);
    await gemini.complete([...HISTORY, answer.message, { role: "user", content: "And then?" }]);
    const replayed = (seen[1]!.body.contents as { role: string; parts: Record<string, unknown>[] }[]).find(
      (content) => content.role === "model",
    );
    expect(replayed?.parts.filter((part) => "thoughtSignature" in part)).toEqual(parts);
  });

  it("Gemini on Vertex streams from streamGenerateContent?alt=sse on the regional host", async () => {
    const urls: string[] = [];
    const sse =
      'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1,"totalTokenCount":4}}\r\n\r\n';
    const fetchImpl = (async (url: RequestInfo | URL) => {
      urls.push(String(url));
      return new Response(sse, { headers: { "content-type": "text/event-stream" } });
    }) as typeof fetch;
    const gemini = vertex({
      model: "gemini-2.5-flash",
      project: PROJECT,
      location: "europe-west4",
      accessToken: TOKEN,
      fetch: fetchImpl,
    });
    const events = [];
    for await (const event of gemini.stream(HISTORY)) events.push(event);
    expect(urls[0]).toBe(
      `https://europe-west4-aiplatform.googleapis.com/v1/projects/${PROJECT}/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
    );
    const done = events.at(-1);
    expect(done?.type === "done" && done.response.message.content).toBe("Hi");
    expect(done?.type === "done" && done.response.usage?.inputTokens).toBe(3);
  });

  it("a service-account key that is not JSON, or lacks its fields, fails naming the field and quoting nothing", async () => {
    const { account } = await fakeServiceAccount();
    const notJson = issues(() => claude(fetch, { accessToken: undefined, credentials: "{ secret-ish text" }));
    expect(notJson).toEqual([{ path: "credentials", message: expect.stringMatching(/not JSON/) }]);
    expect(JSON.stringify(notJson)).not.toContain("secret-ish");
    const missing = issues(() =>
      claude(fetch, {
        accessToken: undefined,
        credentials: { ...account, client_email: "", private_key: "" },
      }),
    );
    expect(missing.map((issue) => issue.path)).toEqual([
      "credentials.client_email",
      "credentials.private_key",
    ]);
    const pkcs1 = issues(() =>
      claude(fetch, {
        accessToken: undefined,
        credentials: {
          ...account,
          private_key: "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
        },
      }),
    );
    expect(pkcs1[0]!.message).toMatch(/PKCS#1.*PKCS#8/);
    const user = issues(() =>
      claude(fetch, { accessToken: undefined, credentials: { ...account, type: "authorized_user" } }),
    );
    expect(user[0]!.path).toBe("credentials.type");
  });

  it("reads a key whose PEM has literal \\n (as env vars hold it)", async () => {
    const { account } = await fakeServiceAccount();
    const google = fakeGoogle({ api: () => Response.json(MESSAGE) });
    const flat = { ...account, private_key: account.private_key.replace(/\n/g, "\\n") };
    const provider = claude(google.fetch, { accessToken: undefined, credentials: flat });
    expect((await provider.complete(HISTORY)).message.content).toBe("Hi.");
    expect(google.exchanges).toHaveLength(1);
  });

  it("a Vertex Claude id is priced and profiled as its Claude model", async () => {
    const google = fakeGoogle({ api: () => Response.json(MESSAGE) });
    const answer = await claude(google.fetch).complete(HISTORY);
    expect(costOf(answer.usage, CLAUDE)).toBeCloseTo((5 * 3 + 2 * 15) / 1e6, 12);
    // The profile's thinking floor applies: a budget below 1024 is raised, as on the first-party API.
    await claude(google.fetch).complete(HISTORY, [], { thinking: { budgetTokens: 100 }, maxTokens: 4000 });
    expect(JSON.parse(google.calls[1]!.text).thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
  });

  it("sends an Anthropic API id with a date in Vertex's form", async () => {
    const google = fakeGoogle({ api: () => Response.json(MESSAGE) });
    const provider = claude(google.fetch, { model: "claude-sonnet-4-5-20250929" });
    expect(provider.model).toBe("claude-sonnet-4-5@20250929");
    await provider.complete(HISTORY);
    expect(google.calls[0]!.url).toMatch(/models\/claude-sonnet-4-5@20250929:rawPredict$/);
  });
});

describe("vertexURL", () => {
  const parts = {
    apiVersion: "v1",
    publisher: "anthropic",
    model: CLAUDE,
    method: "rawPredict",
    project: PROJECT,
  };
  it("follows the location: global, the multi-regions, a region", () => {
    expect(vertexURL({ ...parts, location: "global" })).toBe(
      `https://aiplatform.googleapis.com/v1/projects/${PROJECT}/locations/global/publishers/anthropic/models/${CLAUDE}:rawPredict`,
    );
    expect(vertexURL({ ...parts, location: "eu" })).toBe(
      `https://aiplatform.eu.rep.googleapis.com/v1/projects/${PROJECT}/locations/eu/publishers/anthropic/models/${CLAUDE}:rawPredict`,
    );
    expect(vertexURL({ ...parts, location: "us" })).toMatch(
      /^https:\/\/aiplatform\.us\.rep\.googleapis\.com\//,
    );
    expect(vertexURL({ ...parts, location: "europe-west4", apiVersion: "v1beta1" })).toBe(
      `https://europe-west4-aiplatform.googleapis.com/v1beta1/projects/${PROJECT}/locations/europe-west4/publishers/anthropic/models/${CLAUDE}:rawPredict`,
    );
  });

  it("express mode names no project; a query and a base URL are kept", () => {
    expect(
      vertexURL({
        apiVersion: "v1",
        publisher: "google",
        model: "gemini-2.5-flash",
        method: "streamGenerateContent",
        query: "alt=sse",
      }),
    ).toBe(
      "https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    );
    expect(vertexURL({ ...parts, location: "global", baseURL: "http://localhost:8080/vertex/v1/" })).toBe(
      `http://localhost:8080/vertex/v1/projects/${PROJECT}/locations/global/publishers/anthropic/models/${CLAUDE}:rawPredict`,
    );
  });
});

describe("vertex() auth modes", () => {
  it("a static access token goes as the bearer; custom headers cannot replace it", async () => {
    const google = fakeGoogle({ api: () => Response.json(MESSAGE) });
    await claude(google.fetch, { headers: { authorization: "Bearer other", "x-trace": "1" } }).complete(
      HISTORY,
    );
    expect(google.calls[0]!.headers.get("authorization")).toBe(`Bearer ${TOKEN}`);
    expect(google.calls[0]!.headers.get("x-trace")).toBe("1");
  });

  it("an access-token function is asked on every call; its tokens never reach an error", async () => {
    let asked = 0;
    const google = fakeGoogle({
      api: (request) =>
        Response.json(
          {
            error: {
              code: 403,
              status: "PERMISSION_DENIED",
              message: `denied for ${request.headers.get("authorization")}`,
            },
          },
          { status: 403 },
        ),
    });
    const provider = claude(google.fetch, {
      accessToken: async () => `ya29.rotating-token-${++asked}-0123456789`,
    });
    const first = (await failure(() => provider.complete(HISTORY))) as ProviderError;
    const second = (await failure(() => provider.complete(HISTORY))) as ProviderError;
    expect(asked).toBe(2);
    expect(google.calls.map((call) => call.headers.get("authorization"))).toEqual([
      "Bearer ya29.rotating-token-1-0123456789",
      "Bearer ya29.rotating-token-2-0123456789",
    ]);
    for (const error of [first, second]) {
      expect(error.kind).toBe("auth");
      expect(
        leakedPiece(errorTexts(error), ["rotating-token-1-0123456789", "rotating-token-2-0123456789"], 12),
      ).toBeUndefined();
    }
    const broken = claude(google.fetch, {
      accessToken: () => {
        throw new Error("metadata server unreachable");
      },
    });
    const error = (await failure(() => broken.complete(HISTORY))) as ProviderError;
    expect([error.kind, error.retryable]).toEqual(["auth", false]);
    expect(error.message).toMatch(/accessToken\(\) failed: metadata server unreachable/);
  });

  it("a 401 forgets the cached service-account token and sends the call once more with a fresh one", async () => {
    const { account } = await fakeServiceAccount();
    let rejected = 1;
    const unauthenticated = () =>
      Response.json(
        {
          error: {
            code: 401,
            status: "UNAUTHENTICATED",
            message: "Request had invalid authentication credentials.",
          },
        },
        { status: 401 },
      );
    const google = fakeGoogle({
      token: (_exchange, count) => ({ token: `ya29.sa-token-${count}-0123456789` }),
      api: () => (rejected-- > 0 ? unauthenticated() : Response.json(MESSAGE)),
    });
    const provider = claude(google.fetch, { accessToken: undefined, credentials: account });
    expect((await provider.complete(HISTORY)).message.content).toBe("Hi.");
    expect(google.exchanges).toHaveLength(2);
    expect(google.calls.map((call) => [call.headers.get("authorization"), call.text])).toEqual([
      ["Bearer ya29.sa-token-1-0123456789", google.calls[0]!.text],
      ["Bearer ya29.sa-token-2-0123456789", google.calls[0]!.text],
    ]);
    expect(JSON.parse(google.calls[1]!.text)).toMatchObject({ messages: [{ role: "user" }] });
    // The fresh token is the cached one now.
    await provider.complete(HISTORY);
    expect(google.exchanges).toHaveLength(2);
    // A 401 to the fresh token too: once more only, then the 401 is the call's answer.
    rejected = 5;
    const error = (await failure(() => provider.complete(HISTORY))) as ProviderError;
    expect([error.kind, error.code]).toEqual(["auth", "UNAUTHENTICATED"]);
    expect(google.calls).toHaveLength(5);
    expect(google.exchanges).toHaveLength(3);
    // A host function that gives the same token again: nothing new to send, no second request.
    let asked = 0;
    const fixed = fakeGoogle({ api: unauthenticated });
    await failure(() =>
      claude(fixed.fetch, {
        accessToken: () => {
          asked++;
          return TOKEN;
        },
      }).complete(HISTORY),
    );
    expect([fixed.calls.length, asked]).toEqual([1, 2]);
  });

  it("the call's signal and first-byte deadline cover the wait for a token; the exchange goes on for others", async () => {
    const { account } = await fakeServiceAccount();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const google = fakeGoogle({
      token: async () => {
        await gate;
        return { token: "ya29.late-token-0123456789" };
      },
      api: () => Response.json(MESSAGE),
    });
    const provider = claude(google.fetch, { accessToken: undefined, credentials: account });
    const controller = new AbortController();
    const aborted = provider.complete(HISTORY, [], { signal: controller.signal });
    const timedOut = provider.complete(HISTORY, [], { timeouts: { firstByteMs: 30 } });
    const patient = provider.complete(HISTORY);
    controller.abort();
    expect(((await failure(() => aborted)) as ProviderError).kind).toBe("aborted");
    expect(((await failure(() => timedOut)) as ProviderError).kind).toBe("timeout");
    release();
    expect((await patient).message.content).toBe("Hi.");
    expect(google.exchanges).toHaveLength(1);
    expect(google.calls).toHaveLength(1);
  });

  it("callers waiting on another caller's exchange that failed with it try one more, shared; not when Google refused the key", async () => {
    const { account } = await fakeServiceAccount();
    let fail: (error: Error) => void = () => {};
    const first = new Promise<never>((_resolve, reject) => {
      fail = reject;
    });
    first.catch(() => {});
    const google = fakeGoogle({
      token: (_exchange, count) => (count === 1 ? first : { token: `ya29.retried-${count}-0123456789` }),
    });
    const tokens = googleServiceAccountTokens(account, { fetch: google.fetch });
    const starter = tokens.token();
    const waiters = [tokens.token(), tokens.token()];
    // The starter's request is cancelled: its exchange's fetch fails with it.
    fail(new TypeError("the request that started this fetch was cancelled"));
    expect(((await failure(() => starter)) as ProviderError).kind).toBe("network");
    expect(await Promise.all(waiters)).toEqual(Array(2).fill("ya29.retried-2-0123456789"));
    expect(google.exchanges).toHaveLength(2);

    const refusing = fakeGoogle({
      token: () => Response.json({ error: "invalid_grant" }, { status: 400 }),
    });
    const refused = googleServiceAccountTokens(account, { fetch: refusing.fetch });
    const all = await Promise.allSettled([refused.token(), refused.token(), refused.token()]);
    expect(all.map((settled) => settled.status)).toEqual(Array(3).fill("rejected"));
    expect(refusing.exchanges).toHaveLength(1);
  });

  it("a token endpoint that is down is retryable (server / network), not auth", async () => {
    const { account } = await fakeServiceAccount();
    const google = fakeGoogle({ token: () => new Response("upstream connect error", { status: 503 }) });
    const down = (await failure(() =>
      claude(google.fetch, { accessToken: undefined, credentials: account }).complete(HISTORY),
    )) as ProviderError;
    expect([down.kind, down.retryable, down.status]).toEqual(["overloaded", true, 503]);
    const unreachable = (await failure(() =>
      claude(
        async () => {
          throw new TypeError("fetch failed");
        },
        { accessToken: undefined, credentials: account },
      ).complete(HISTORY),
    )) as ProviderError;
    expect([unreachable.kind, unreachable.retryable]).toEqual(["network", true]);
    const noToken = fakeGoogle({ token: () => Response.json({ token_type: "Bearer" }) });
    const empty = (await failure(() =>
      claude(noToken.fetch, { accessToken: undefined, credentials: account }).complete(HISTORY),
    )) as ProviderError;
    expect([empty.kind, empty.retryable]).toEqual(["auth", false]);
  });

  it("a refresh that fails while the cached token has not expired yet does not fail the call", async () => {
    const { account } = await fakeServiceAccount();
    const clock = fakeClock();
    let down = false;
    const google = fakeGoogle({
      token: (_exchange, count) =>
        down
          ? new Response("upstream connect error", { status: 503 })
          : { token: `ya29.kept-${count}-0123456789`, expiresIn: 3600 },
      api: () => Response.json(MESSAGE),
    });
    const provider = claude(google.fetch, { accessToken: undefined, credentials: account, now: clock.now });
    await provider.complete(HISTORY);
    down = true;
    // Inside the five-minute refresh margin: the refresh fails, the cached token still serves.
    clock.advance(3_300_000);
    await provider.complete(HISTORY);
    clock.advance(299_999);
    await provider.complete(HISTORY);
    expect(google.exchanges).toHaveLength(3);
    expect(google.calls.map((call) => call.headers.get("authorization"))).toEqual(
      Array(3).fill("Bearer ya29.kept-1-0123456789"),
    );
    // Expired: the failure is the call's.
    clock.advance(1);
    const error = (await failure(() => provider.complete(HISTORY))) as ProviderError;
    expect([error.kind, error.status]).toEqual(["overloaded", 503]);
    expect(google.calls).toHaveLength(3);
    down = false;
    await provider.complete(HISTORY);
    expect(google.calls[3]!.headers.get("authorization")).toBe("Bearer ya29.kept-5-0123456789");
  });

  it("a short-lived token is refreshed at half its life, not after it expired", async () => {
    const { account } = await fakeServiceAccount();
    const clock = fakeClock();
    const google = fakeGoogle({
      token: (_exchange, count) => ({ token: `ya29.short-${count}-0123456789`, expiresIn: 120 }),
      api: () => Response.json(MESSAGE),
    });
    const provider = claude(google.fetch, { accessToken: undefined, credentials: account, now: clock.now });
    await provider.complete(HISTORY);
    clock.advance(59_000);
    await provider.complete(HISTORY);
    expect(google.exchanges).toHaveLength(1);
    clock.advance(1_000);
    await provider.complete(HISTORY);
    expect(google.exchanges).toHaveLength(2);
  });
});

describe("vertex() errors", () => {
  const cases: [number, unknown, string, string | undefined][] = [
    [
      429,
      {
        error: {
          code: 429,
          status: "RESOURCE_EXHAUSTED",
          message: "Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model",
        },
      },
      "rate_limit",
      "RESOURCE_EXHAUSTED",
    ],
    [
      403,
      {
        error: {
          code: 403,
          status: "PERMISSION_DENIED",
          message: "Permission 'aiplatform.endpoints.predict' denied",
        },
      },
      "auth",
      "PERMISSION_DENIED",
    ],
    [
      404,
      { error: { code: 404, status: "NOT_FOUND", message: "Publisher Model `claude-x` not found." } },
      "not_found",
      "NOT_FOUND",
    ],
    [
      400,
      {
        error: {
          code: 400,
          status: "FAILED_PRECONDITION",
          message: "Project is not allowed to use Publisher Model",
        },
      },
      "bad_request",
      "FAILED_PRECONDITION",
    ],
    [
      503,
      { error: { code: 503, status: "UNAVAILABLE", message: "The service is currently unavailable." } },
      "overloaded",
      "UNAVAILABLE",
    ],
    [
      500,
      [{ error: { code: 500, status: "INTERNAL", message: "Internal error encountered." } }],
      "server",
      "INTERNAL",
    ],
    [
      529,
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      "overloaded",
      "overloaded_error",
    ],
    [
      400,
      {
        type: "error",
        error: {
          type: "invalid_request_error",
          message: "prompt is too long: 210000 tokens > 200000 maximum",
        },
      },
      "context_length",
      "invalid_request_error",
    ],
    [
      400,
      [
        {
          type: "error",
          error: {
            type: "invalid_request_error",
            message: "Unexpected value(s) `x` for the `anthropic-beta` header",
          },
        },
      ],
      "bad_request",
      "invalid_request_error",
    ],
    [502, "<html>bad gateway</html>", "server", undefined],
  ];
  for (const [status, body, kind, code] of cases) {
    it(`${status} ${JSON.stringify(body).slice(0, 60)} → ${kind}`, async () => {
      const google = fakeGoogle({
        api: () =>
          new Response(typeof body === "string" ? body : JSON.stringify(body), {
            status,
            headers: { "content-type": "application/json" },
          }),
      });
      const error = (await failure(() => claude(google.fetch).complete(HISTORY))) as ProviderError;
      expect(ProviderError.is(error)).toBe(true);
      expect([error.kind, error.status, error.code]).toEqual([kind, status, code]);
      // And before any event of a stream.
      const streamed = (await failure(() => collect(claude(google.fetch).stream(HISTORY)))) as ProviderError;
      expect([streamed.kind, streamed.partialOutput]).toEqual([kind, false]);
    });
  }

  it("Retry-After first, then google.rpc.RetryInfo; a per-day quota is not retryable", async () => {
    const quota = (retryDelay: string, quotaId = "RequestsPerMinutePerProject") => ({
      error: {
        code: 429,
        status: "RESOURCE_EXHAUSTED",
        message: "You exceeded your current quota.",
        details: [
          { "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [{ quotaId }] },
          { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay },
        ],
      },
    });
    const run = async (response: Response) =>
      (await failure(() =>
        claude(fakeGoogle({ api: () => response }).fetch).complete(HISTORY),
      )) as ProviderError;
    const withHeader = await run(
      Response.json(quota("34.4s"), { status: 429, headers: { "retry-after": "7" } }),
    );
    expect([withHeader.retryAfterMs, withHeader.retryable]).toEqual([7000, true]);
    const fromBody = await run(Response.json(quota("34.4s"), { status: 429 }));
    expect(fromBody.retryAfterMs).toBe(34_400);
    const daily = await run(
      Response.json(quota("0s", "GenerateRequestsPerDayPerProjectPerModel"), { status: 429 }),
    );
    expect(daily.retryable).toBe(false);
    expect(mapVertexAnthropicError(429, undefined).kind).toBe("rate_limit");
    expect(mapVertexAnthropicError(418, { error: null }).kind).toBe("bad_request");
  });

  it("never puts the token into an error, even when Vertex echoes it", async () => {
    const echo = fakeGoogle({
      api: (request) =>
        Response.json(
          {
            error: {
              code: 401,
              status: "UNAUTHENTICATED",
              message: `bad credential ${request.headers.get("authorization")} / ${encodeURIComponent(TOKEN)}`,
            },
          },
          { status: 401 },
        ),
    });
    const error = (await failure(() => claude(echo.fetch).complete(HISTORY))) as ProviderError;
    expect(error.kind).toBe("auth");
    expect(leakedPiece(errorTexts(error), [TOKEN], 12)).toBeUndefined();
    expect(error.upstreamBody).toContain("[redacted]");
  });

  it("a stream cut before message_stop is truncated with partialOutput, never a success", async () => {
    const events = [
      { type: "message_start", message: { ...MESSAGE, content: [], stop_reason: null } },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hi" } },
    ];
    const body = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
    const google = fakeGoogle({
      api: () => new Response(body, { headers: { "content-type": "text/event-stream" } }),
    });
    const error = (await failure(() => collect(claude(google.fetch).stream(HISTORY)))) as ProviderError;
    expect([error.kind, error.partialOutput]).toEqual(["truncated", true]);
  });
});

describe("vertex() Claude: the first-party Messages protocol through rawPredict", () => {
  it("every recorded first-party Anthropic stream, sent as Vertex's streamRawPredict SSE, gives the first-party outcome (origin vertex)", async () => {
    const messages = await recordedAnthropicMessages();
    expect(messages.length).toBeGreaterThanOrEqual(25);
    for (const { name, events } of messages) {
      const sse = events
        .map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`)
        .join("");
      const answer = () => new Response(sse, { headers: { "content-type": "text/event-stream" } });
      const firstParty = anthropic({
        apiKey: "sk-ant-test-0000000000000000",
        model: "claude-sonnet-4-5",
        fetch: async () => answer(),
      });
      const onVertex = claude(async () => answer());
      const expected = await outcome(firstParty.stream(HISTORY));
      const actual = await outcome(onVertex.stream(HISTORY));
      if ("response" in expected) {
        const response = expected.response;
        expect(actual, name).toEqual({
          response: {
            ...response,
            provider: "vertex",
            message: {
              ...response.message,
              native: { ...response.message.native!, origin: "vertex", model: CLAUDE },
            },
          },
        });
      } else {
        expect(actual, name).toEqual(expected);
      }
    }
  });

  it("the body is the Messages body without model, with anthropic_version first; URL sources are refused", async () => {
    const google = fakeGoogle({ api: () => Response.json(MESSAGE) });
    const provider = claude(google.fetch);
    await provider.complete([{ role: "system", content: "Be brief." }, ...HISTORY], [], {
      maxTokens: 100,
      stopSequences: ["END"],
    });
    const body = JSON.parse(google.calls[0]!.text) as Json;
    expect(Object.keys(body)).toEqual([
      "anthropic_version",
      "max_tokens",
      "messages",
      "system",
      "stop_sequences",
    ]);
    expect(body.anthropic_version).toBe("vertex-2023-10-16");
    expect(google.calls[0]!.url).toMatch(/:rawPredict$/);
    await expect(
      provider.complete([{ role: "user", content: [{ type: "image", url: "https://example.com/cat.png" }] }]),
    ).rejects.toThrow(/download it first/);
  });

  it("passes a client's Messages body through (native), and counts its tokens at count-tokens:rawPredict", async () => {
    const google = fakeGoogle({
      api: (request) =>
        request.url.includes("count-tokens") ? Response.json({ input_tokens: 17 }) : Response.json(MESSAGE),
    });
    const provider = claude(google.fetch, { betas: ["interleaved-thinking-2025-05-14"] }) as ReturnType<
      typeof claude
    > & {
      native: NonNullable<import("../../src/providers/native.ts").NativeEndpoint>;
    };
    expect([provider.native.protocol, provider.native.origin]).toEqual(["anthropic-messages", "vertex"]);
    const body = { model: "claude-sonnet-4-5", max_tokens: 10, messages: [{ role: "user", content: "hi" }] };
    const answer = await provider.native.send({ body, stream: false, betas: ["context-1m-2025-08-07"] });
    expect(JSON.parse(answer.json!)).toEqual(MESSAGE);
    const sent = JSON.parse(google.calls[0]!.text) as Json;
    expect(sent).toEqual({
      anthropic_version: "vertex-2023-10-16",
      max_tokens: 10,
      messages: body.messages,
      stream: false,
    });
    expect(google.calls[0]!.headers.get("anthropic-beta")).toBe(
      "interleaved-thinking-2025-05-14,context-1m-2025-08-07",
    );
    expect(await provider.native.countTokens!({ body })).toBe(17);
    expect(google.calls[1]!.url).toBe(
      `https://us-east5-aiplatform.googleapis.com/v1/projects/${PROJECT}/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict`,
    );
    expect(JSON.parse(google.calls[1]!.text)).toEqual({
      anthropic_version: "vertex-2023-10-16",
      ...body,
      model: CLAUDE,
    });
  });
});

describe("createProvider({ protocol: 'vertex' })", () => {
  it("builds a Vertex Claude provider from plain data, the key file in settings.credentials", async () => {
    const { account } = await fakeServiceAccount();
    const google = fakeGoogle({ api: () => Response.json(MESSAGE) });
    const provider = createProvider(
      {
        protocol: "vertex",
        model: CLAUDE,
        project: PROJECT,
        location: "global",
        settings: { credentials: JSON.stringify(account) },
      },
      { fetch: google.fetch },
    );
    expect([provider.name, provider.model, provider.protocol]).toEqual([
      "vertex",
      CLAUDE,
      "anthropic-messages",
    ]);
    await provider.complete(HISTORY);
    expect(google.exchanges).toHaveLength(1);
    expect(google.calls[0]!.url).toMatch(
      /^https:\/\/aiplatform\.googleapis\.com\/v1\/projects\/example-project\/locations\/global\//,
    );
    expect(() =>
      createProvider({ protocol: "vertex-ai", model: CLAUDE, project: PROJECT, location: "global" }),
    ).toThrow(/credentials/);
    expect(() =>
      createProvider({
        protocol: "vertex",
        model: CLAUDE,
        region: "x",
        project: PROJECT,
        location: "global",
      }),
    ).toThrow(/region/);
  });
});
