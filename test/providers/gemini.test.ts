import { describe, expect, it } from "vitest";
import {
  collectStream,
  createProvider,
  fallback,
  gemini,
  ProviderError,
  type StreamEvent,
  ValidationError,
} from "../../src/index.ts";

const KEY = "AIzaSyTest-secret-gemini-key-0000000";

interface Captured {
  url: string;
  headers: Headers;
  body: Record<string, unknown>;
}

function fakeFetch(respond: (captured: Captured) => Response | Promise<Response>): {
  fetch: typeof fetch;
  requests: Captured[];
} {
  const requests: Captured[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const captured = {
      url: String(input),
      headers: new Headers(init?.headers),
      body: JSON.parse(String(init?.body)) as Record<string, unknown>,
    };
    requests.push(captured);
    return respond(captured);
  }) as typeof fetch;
  return { fetch: fetchImpl, requests };
}

const ANSWER = {
  candidates: [{ content: { role: "model", parts: [{ text: "Hello" }] }, finishReason: "STOP", index: 0 }],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, totalTokenCount: 12 },
  modelVersion: "gemini-2.5-flash",
  responseId: "r-1",
};

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

const sse = (events: unknown[]) =>
  new Response(events.map((event) => `data: ${JSON.stringify(event)}\r\n\r\n`).join(""), {
    status: 200,
    headers: { "content-type": "text/event-stream" },
  });

const googleError = (code: number, status: string, message: string, details: unknown[] = []) => ({
  error: { code, message, status, details },
});

describe("gemini()", () => {
  it("posts to models/{model}:generateContent with x-goog-api-key (never in the URL) and custom headers", async () => {
    const { fetch, requests } = fakeFetch(() => json(ANSWER));
    const provider = gemini({ apiKey: KEY, model: "gemini-2.5-flash", fetch, headers: { "x-trace": "t1" } });
    const response = await provider.complete([{ role: "user", content: "hi" }], [], { maxTokens: 64 });
    expect(requests[0]!.url).toBe(
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
    );
    expect(requests[0]!.url).not.toContain(KEY);
    expect(requests[0]!.headers.get("x-goog-api-key")).toBe(KEY);
    expect(requests[0]!.headers.get("x-trace")).toBe("t1");
    expect(requests[0]!.headers.get("content-type")).toBe("application/json");
    expect(requests[0]!.body).toEqual({
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      generationConfig: { maxOutputTokens: 64 },
    });
    expect(response).toMatchObject({
      provider: "gemini",
      model: "gemini-2.5-flash",
      id: "r-1",
      stopReason: "stop",
    });
    expect(response.message.native).toMatchObject({ protocol: "google-gemini", origin: "gemini" });
    expect(provider.protocol).toBe("google-gemini");
  });

  it("streams from :streamGenerateContent?alt=sse and honours baseURL and a models/ prefix", async () => {
    const { fetch, requests } = fakeFetch(() => sse([ANSWER]));
    const provider = gemini({
      apiKey: KEY,
      model: "models/gemini-2.5-flash",
      baseURL: "https://proxy.example/gemini/v1beta/",
      fetch,
    });
    const events: StreamEvent[] = [];
    for await (const event of provider.stream([{ role: "user", content: "hi" }])) events.push(event);
    expect(requests[0]!.url).toBe(
      "https://proxy.example/gemini/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
    );
    expect(events.at(-1)).toMatchObject({ type: "done", response: { message: { content: "Hello" } } });
  });

  it("a custom header cannot replace the API key", async () => {
    const { fetch, requests } = fakeFetch(() => json(ANSWER));
    const provider = gemini({
      apiKey: KEY,
      model: "gemini-2.5-flash",
      fetch,
      headers: { "x-goog-api-key": "x" },
    });
    await provider.complete([{ role: "user", content: "hi" }]);
    expect(requests[0]!.headers.get("x-goog-api-key")).toBe(KEY);
  });

  it("rejects a missing key or model before any request, naming the setting", () => {
    expect(() => gemini({ apiKey: "", model: "gemini-2.5-flash" })).toThrow(ValidationError);
    expect(() => gemini({ apiKey: KEY, model: "" })).toThrow(/model/);
    expect(() => gemini({ apiKey: KEY, model: "gemini-2.5-flash", baseURL: "nope" })).toThrow(/baseURL/);
    expect(() => createProvider({ protocol: "google-gemini", model: "gemini-2.5-flash" })).toThrow(/apiKey/);
  });

  it("createProvider builds it under google-gemini", async () => {
    for (const protocol of ["google-gemini", " Google-Gemini "]) {
      const { fetch, requests } = fakeFetch(() => json(ANSWER));
      const provider = createProvider({ protocol, model: "gemini-2.5-pro", apiKey: KEY }, { fetch });
      expect(provider.protocol).toBe("google-gemini");
      await provider.complete([{ role: "user", content: "hi" }]);
      expect(requests[0]!.url).toContain("/models/gemini-2.5-pro:generateContent");
    }
    expect(() =>
      createProvider({ protocol: "google-gemini", model: "gemini-2.5-pro", apiKey: KEY, location: "eu" }),
    ).toThrow(/location/);
  });

  const cases: [number, unknown, string, string | undefined][] = [
    [
      400,
      googleError(400, "INVALID_ARGUMENT", "Invalid JSON payload received."),
      "bad_request",
      "INVALID_ARGUMENT",
    ],
    [
      400,
      googleError(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", [
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID" },
      ]),
      "auth",
      "INVALID_ARGUMENT",
    ],
    [
      400,
      googleError(
        400,
        "INVALID_ARGUMENT",
        "The input token count (2551556) exceeds the maximum number of tokens allowed (1048576).",
      ),
      "context_length",
      "INVALID_ARGUMENT",
    ],
    [
      403,
      googleError(403, "PERMISSION_DENIED", "Permission denied on resource project."),
      "auth",
      "PERMISSION_DENIED",
    ],
    [
      404,
      googleError(404, "NOT_FOUND", "models/gemini-pro is not found for API version v1beta"),
      "not_found",
      "NOT_FOUND",
    ],
    [
      429,
      googleError(429, "RESOURCE_EXHAUSTED", "You exceeded your current quota."),
      "rate_limit",
      "RESOURCE_EXHAUSTED",
    ],
    [500, googleError(500, "INTERNAL", "Internal error encountered."), "server", "INTERNAL"],
    [
      503,
      googleError(503, "UNAVAILABLE", "The model is overloaded. Please try again later."),
      "overloaded",
      "UNAVAILABLE",
    ],
    [504, googleError(504, "DEADLINE_EXCEEDED", "Deadline expired."), "timeout", "DEADLINE_EXCEEDED"],
    [502, "<html>bad gateway</html>", "server", undefined],
  ];
  for (const [status, body, kind, code] of cases) {
    it(`${status} ${code ?? "(no JSON)"} → ${kind}, keeping the upstream message`, async () => {
      const { fetch } = fakeFetch(() =>
        typeof body === "string" ? new Response(body, { status }) : json(body, status),
      );
      const provider = gemini({ apiKey: KEY, model: "gemini-2.5-flash", fetch });
      const error = await provider
        .complete([{ role: "user", content: "hi" }])
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderError);
      expect(error).toMatchObject({ kind, status, code, provider: "gemini" });
      if (typeof body !== "string")
        expect((error as Error).message).toContain((body as { error: { message: string } }).error.message);
    });
  }

  it("429 RESOURCE_EXHAUSTED: RetryInfo.retryDelay is the wait; Retry-After wins when sent; a daily quota is not retryable", async () => {
    const retryInfo = { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "34.4s" };
    const quota = (quotaId: string) => ({
      "@type": "type.googleapis.com/google.rpc.QuotaFailure",
      violations: [{ quotaId }],
    });
    const body = googleError(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", [
      quota("GenerateRequestsPerMinutePerProjectPerModel-FreeTier"),
      retryInfo,
    ]);
    const run = async (response: Response) => {
      const provider = gemini({
        apiKey: KEY,
        model: "gemini-2.5-flash",
        fetch: fakeFetch(() => response).fetch,
      });
      return (await provider
        .complete([{ role: "user", content: "hi" }])
        .catch((e: unknown) => e)) as ProviderError;
    };
    const perMinute = await run(json(body, 429));
    expect(perMinute).toMatchObject({ kind: "rate_limit", retryAfterMs: 34_400 });
    expect(perMinute.retryable).not.toBe(false);
    expect(await run(json(body, 429, { "retry-after": "2" }))).toMatchObject({ retryAfterMs: 2000 });
    const daily = await run(
      json(
        googleError(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", [
          quota("GenerateRequestsPerDayPerProjectPerModel"),
        ]),
        429,
      ),
    );
    expect(daily).toMatchObject({ kind: "rate_limit", retryable: false });
    // The array-wrapped form some Google streams answer with reads the same.
    expect(await run(json([body], 429))).toMatchObject({ kind: "rate_limit", retryAfterMs: 34_400 });
  });

  it("an error event mid-stream is its ProviderError after the text before it, with partialOutput", async () => {
    const { fetch } = fakeFetch(() =>
      sse([
        { candidates: [{ content: { role: "model", parts: [{ text: "Hel" }] } }] },
        googleError(503, "UNAVAILABLE", "The model is overloaded."),
      ]),
    );
    const provider = gemini({ apiKey: KEY, model: "gemini-2.5-flash", fetch });
    const events: StreamEvent[] = [];
    const error = await (async () => {
      for await (const event of provider.stream([{ role: "user", content: "hi" }])) events.push(event);
    })().catch((caught: unknown) => caught);
    expect(events).toEqual([{ type: "text-delta", text: "Hel" }]);
    expect(error).toMatchObject({ kind: "overloaded", partialOutput: true, code: "UNAVAILABLE" });
  });

  it("a stream without a finishReason is truncated, never a success", async () => {
    const { fetch } = fakeFetch(() =>
      sse([{ candidates: [{ content: { role: "model", parts: [{ text: "Hel" }] } }] }]),
    );
    const provider = gemini({ apiKey: KEY, model: "gemini-2.5-flash", fetch });
    await expect(collectStream(provider.stream([{ role: "user", content: "hi" }]))).rejects.toMatchObject({
      kind: "truncated",
      partialOutput: true,
    });
  });

  it("never puts the API key into an error, even when the upstream echoes it", async () => {
    const echo = googleError(400, "INVALID_ARGUMENT", `API key not valid: ${KEY}`);
    for (const stream of [false, true]) {
      const { fetch } = fakeFetch(() => json(echo, 400));
      const provider = gemini({ apiKey: KEY, model: "gemini-2.5-flash", fetch });
      const error = (await (stream
        ? collectStream(provider.stream([{ role: "user", content: "hi" }]))
        : provider.complete([{ role: "user", content: "hi" }])
      ).catch((caught: unknown) => caught)) as ProviderError;
      expect(error).toBeInstanceOf(ProviderError);
      const everything = JSON.stringify({ ...error.toJSON(), message: error.message, stack: error.stack });
      expect(everything).not.toContain(KEY);
      expect(everything).not.toContain(btoa(KEY));
    }
  });

  it("a 200 that is an { error } is that error; a 200 that is no answer is invalid_response", async () => {
    const run = async (body: unknown) => {
      const provider = gemini({
        apiKey: KEY,
        model: "gemini-2.5-flash",
        fetch: fakeFetch(() => json(body)).fetch,
      });
      return provider.complete([{ role: "user", content: "hi" }]).catch((caught: unknown) => caught);
    };
    expect(await run(googleError(500, "INTERNAL", "boom"))).toMatchObject({
      kind: "server",
      code: "INTERNAL",
    });
    expect(await run({ hello: "world" })).toMatchObject({ kind: "invalid_response" });
  });

  it("a fallback chain between Gemini models drops the first model's thoughts and signatures at the switch", async () => {
    const history = [
      { role: "user" as const, content: "go" },
      {
        role: "assistant" as const,
        content: "Looking.",
        toolCalls: [{ id: "c1", name: "lookup", arguments: { q: "x" } }],
        native: {
          protocol: "google-gemini",
          origin: "gemini",
          model: "gemini-3-pro-preview",
          blocks: [
            { text: "THOUGHT-TEXT", thought: true },
            { text: "Looking." },
            { functionCall: { name: "lookup", args: { q: "x" } }, thoughtSignature: "U0lHLTM=" },
          ],
        },
      },
      { role: "tool" as const, toolResults: [{ callId: "c1", content: "found" }] },
    ];
    const pro = fakeFetch(() => json(googleError(503, "UNAVAILABLE", "overloaded"), 503));
    const flash = fakeFetch(() => json(ANSWER));
    const chain = fallback([
      { provider: gemini({ apiKey: KEY, model: "gemini-3-pro-preview", fetch: pro.fetch }) },
      { provider: gemini({ apiKey: KEY, model: "gemini-2.5-flash", fetch: flash.fetch }) },
    ]);
    const response = await chain.complete(history, [{ name: "lookup", parameters: { type: "object" } }]);
    // The first model got its own parts back, signature in place; the second a rebuilt turn.
    expect((pro.requests[0]!.body.contents as { parts: unknown[] }[])[1]!.parts).toEqual(
      (history[1] as { native: { blocks: unknown[] } }).native.blocks,
    );
    const sent = JSON.stringify(flash.requests[0]!.body);
    expect(sent).not.toContain("THOUGHT-TEXT");
    expect(sent).not.toContain("U0lHLTM=");
    expect((flash.requests[0]!.body.contents as { parts: unknown[] }[])[1]!.parts).toEqual([
      { text: "Looking." },
      { functionCall: { name: "lookup", args: { q: "x" } } },
    ]);
    expect(response.servedBy).toMatchObject({ index: 1, model: "gemini-2.5-flash" });
    expect(response.warnings?.join("\n")).toMatch(/1 thought part\(s\) and 1 thought signature\(s\) dropped/);
  });
});
