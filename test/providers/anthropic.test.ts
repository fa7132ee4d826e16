import { describe, expect, it } from "vitest";
import {
  anthropic,
  collectStream,
  ProviderError,
  type StreamEvent,
  ValidationError,
} from "../../src/index.ts";
import { retryAfterMs } from "../../src/protocols/index.ts";

const KEY = "sk-ant-api03-test-secret-key-000000";

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

const MESSAGE_JSON = {
  id: "msg_1",
  type: "message",
  role: "assistant",
  model: "claude-sonnet-4-5-20250929",
  content: [{ type: "text", text: "Hello" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 10, output_tokens: 2, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
};

function sse(events: object[]): string {
  return events
    .map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`)
    .join("");
}

const TEXT_STREAM = [
  {
    type: "message_start",
    message: {
      ...MESSAGE_JSON,
      content: [],
      stop_reason: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hel" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "lo" } },
  { type: "content_block_stop", index: 0 },
  {
    type: "message_delta",
    delta: { stop_reason: "end_turn", stop_sequence: null },
    usage: { output_tokens: 2 },
  },
  { type: "message_stop" },
];

function errorResponse(
  status: number,
  type: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ type: "error", error: { type, message }, request_id: "req_42" }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ProviderError.is(error)).toBe(true);
  return error as ProviderError;
}

describe("anthropic() transport", () => {
  it("posts to /v1/messages with the key, version, betas and custom headers", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(MESSAGE_JSON));
    const provider = anthropic({
      apiKey: KEY,
      model: "claude-sonnet-4-5",
      fetch,
      betas: ["interleaved-thinking-2025-05-14", "context-1m-2025-08-07"],
      headers: { "x-trace": "t1" },
    });
    const response = await provider.complete([{ role: "user", content: "hi" }], undefined, {
      maxTokens: 100,
    });
    expect(requests).toHaveLength(1);
    const [request] = requests;
    expect(request!.url).toBe("https://api.anthropic.com/v1/messages");
    expect(request!.headers.get("x-api-key")).toBe(KEY);
    expect(request!.headers.get("anthropic-version")).toBe("2023-06-01");
    expect(request!.headers.get("anthropic-beta")).toBe(
      "interleaved-thinking-2025-05-14,context-1m-2025-08-07",
    );
    expect(request!.headers.get("x-trace")).toBe("t1");
    expect(request!.body).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: 100 });
    expect(request!.body.stream).toBeUndefined();
    expect(response).toMatchObject({
      provider: "anthropic",
      model: "claude-sonnet-4-5-20250929",
      stopReason: "stop",
      rawStopReason: "end_turn",
      message: {
        content: "Hello",
        native: { protocol: "anthropic-messages", origin: "anthropic", model: "claude-sonnet-4-5" },
      },
      usage: { inputTokens: 10, outputTokens: 2, cachedInputTokens: 0, cacheWriteTokens: 0 },
    });
  });

  it("honours baseURL (trailing slash or not) and anthropicVersion", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(MESSAGE_JSON));
    await anthropic({
      apiKey: KEY,
      model: "m",
      fetch,
      baseURL: "http://127.0.0.1:9/v1/",
      anthropicVersion: "2099-01-01",
    }).complete([{ role: "user", content: "hi" }]);
    expect(requests[0]!.url).toBe("http://127.0.0.1:9/v1/messages");
    expect(requests[0]!.headers.get("anthropic-version")).toBe("2099-01-01");
  });

  it("a custom header cannot replace the API key", async () => {
    const { fetch, requests } = fakeFetch(() => Response.json(MESSAGE_JSON));
    await anthropic({ apiKey: KEY, model: "m", fetch, headers: { "x-api-key": "other" } }).complete([
      { role: "user", content: "x" },
    ]);
    expect(requests[0]!.headers.get("x-api-key")).toBe(KEY);
  });

  it("streams with stream: true and ends with the assembled response", async () => {
    const { fetch, requests } = fakeFetch(
      () => new Response(sse(TEXT_STREAM), { headers: { "content-type": "text/event-stream" } }),
    );
    const events: StreamEvent[] = [];
    const response = await collectStream(
      anthropic({ apiKey: KEY, model: "claude-sonnet-4-5", fetch }).stream([{ role: "user", content: "hi" }]),
      {
        onEvent: (event) => events.push(event),
      },
    );
    expect(requests[0]!.body.stream).toBe(true);
    // Both deltas arrived in one read: they are merged into one event (nothing is held back for it).
    expect(
      events.filter((event) => event.type === "text-delta").map((event) => (event as { text: string }).text),
    ).toEqual(["Hello"]);
    expect(response.message.content).toBe("Hello");
    expect(response.usage).toEqual({ inputTokens: 10, outputTokens: 2 });
  });

  it("deltas that arrive in separate reads stay separate events, each out as soon as its read lands", async () => {
    const encoder = new TextEncoder();
    const frames = TEXT_STREAM.map((event) => encoder.encode(sse([event])));
    let served = 0;
    const { fetch } = fakeFetch(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              if (served < frames.length) controller.enqueue(frames[served++]!);
              else controller.close();
            },
          }),
        ),
    );
    const texts: Array<{ text: string; readsSoFar: number }> = [];
    for await (const event of anthropic({ apiKey: KEY, model: "m", fetch }).stream([
      { role: "user", content: "hi" },
    ])) {
      if (event.type === "text-delta") texts.push({ text: event.text, readsSoFar: served });
    }
    expect(texts.map((entry) => entry.text)).toEqual(["Hel", "lo"]);
    // "Hel" is the third frame: it surfaced before the fourth was read.
    expect(texts[0]!.readsSoFar).toBeLessThanOrEqual(4);
  });

  it("rejects missing configuration before any request", () => {
    expect(() => anthropic({ apiKey: "", model: "m" })).toThrow(ValidationError);
    expect(() => anthropic({ apiKey: "", model: "m" })).toThrow(/^apiKey: /);
    expect(() => anthropic({ apiKey: KEY, model: "" })).toThrow(/^model: /);
  });
});

describe("anthropic() errors", () => {
  const cases: Array<[number, string, string, string, boolean]> = [
    [400, "invalid_request_error", "messages: field required", "bad_request", false],
    [
      400,
      "invalid_request_error",
      "prompt is too long: 210000 tokens > 200000 maximum",
      "context_length",
      false,
    ],
    [401, "authentication_error", "invalid x-api-key", "auth", false],
    [403, "permission_error", "not allowed", "auth", false],
    [404, "not_found_error", "model: claude-nope", "not_found", false],
    [413, "request_too_large", "Request exceeds the maximum size", "bad_request", false],
    [
      429,
      "rate_limit_error",
      "Number of request tokens has exceeded your per-minute rate limit",
      "rate_limit",
      true,
    ],
    [500, "api_error", "Internal server error", "server", true],
    [529, "overloaded_error", "Overloaded", "overloaded", true],
  ];
  for (const [status, type, message, kind, retryable] of cases) {
    it(`${status} ${type} → ${kind}, keeping the upstream message`, async () => {
      const { fetch } = fakeFetch(() => errorResponse(status, type, message));
      const error = await failure(
        anthropic({ apiKey: KEY, model: "m", fetch }).complete([{ role: "user", content: "x" }]),
      );
      expect(error).toMatchObject({
        kind,
        status,
        retryable,
        code: type,
        requestId: "req_42",
        provider: "anthropic",
        model: "m",
      });
      expect(error.message).toContain(message);
      expect(error.upstreamBody).toContain(type);
    });
  }

  it("429 carries retry-after; x-should-retry overrides the default", async () => {
    const { fetch } = fakeFetch(() =>
      errorResponse(429, "rate_limit_error", "slow down", { "retry-after": "7" }),
    );
    const error = await failure(
      anthropic({ apiKey: KEY, model: "m", fetch }).complete([{ role: "user", content: "x" }]),
    );
    expect(error.retryAfterMs).toBe(7000);
    const { fetch: noRetry } = fakeFetch(() =>
      errorResponse(500, "api_error", "x", { "x-should-retry": "false" }),
    );
    expect(
      (await failure(anthropic({ apiKey: KEY, model: "m", fetch: noRetry }).complete([]))).retryable,
    ).toBe(false);
  });

  it("the same errors surface from stream() before any event", async () => {
    const { fetch } = fakeFetch(() => errorResponse(529, "overloaded_error", "Overloaded"));
    const seen: StreamEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const event of anthropic({ apiKey: KEY, model: "m", fetch }).stream([
          { role: "user", content: "x" },
        ]))
          seen.push(event);
      })(),
    );
    expect(seen).toEqual([]);
    expect(error.kind).toBe("overloaded");
    expect(error.partialOutput).toBe(false);
  });

  it("never puts the API key into an error, even when the upstream body echoes it", async () => {
    const { fetch } = fakeFetch(
      () =>
        new Response(
          JSON.stringify({
            type: "error",
            error: { type: "authentication_error", message: `bad key ${KEY}` },
            echo: { "x-api-key": KEY },
          }),
          {
            status: 401,
          },
        ),
    );
    const error = await failure(
      anthropic({ apiKey: KEY, model: "m", fetch }).complete([{ role: "user", content: "x" }]),
    );
    const everything = `${error.message} ${error.upstreamBody} ${JSON.stringify(error)} ${String(error.stack)}`;
    expect(everything).not.toContain(KEY);
    expect(error.upstreamBody).toContain("[redacted]");
  });

  it("a rejected fetch is a network error; an abort is aborted and not retryable", async () => {
    const network = await failure(
      anthropic({
        apiKey: KEY,
        model: "m",
        fetch: (async () => {
          throw new TypeError("fetch failed");
        }) as typeof fetch,
      }).complete([]),
    );
    expect(network).toMatchObject({ kind: "network", retryable: true });

    const controller = new AbortController();
    const hanging = (async (_input: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      })) as typeof fetch;
    const pending = anthropic({ apiKey: KEY, model: "m", fetch: hanging }).complete([], undefined, {
      signal: controller.signal,
    });
    controller.abort();
    expect(await failure(pending)).toMatchObject({ kind: "aborted", retryable: false });
  });

  it("a body that breaks mid-stream is a network error with partialOutput, never a success", async () => {
    const encoder = new TextEncoder();
    const head = sse(TEXT_STREAM.slice(0, 3));
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode(head));
      },
      pull(controller) {
        controller.error(new TypeError("terminated"));
      },
    });
    const { fetch } = fakeFetch(() => new Response(body));
    const seen: string[] = [];
    const error = await failure(
      (async () => {
        for await (const event of anthropic({ apiKey: KEY, model: "m", fetch }).stream([
          { role: "user", content: "x" },
        ]))
          seen.push(event.type);
      })(),
    );
    expect(seen).toContain("text-delta");
    expect(seen).not.toContain("done");
    expect(error).toMatchObject({ kind: "network", partialOutput: true });
  });

  it("a 200 whose JSON is not a message is invalid_response", async () => {
    const { fetch } = fakeFetch(() => Response.json({ nope: true }));
    expect((await failure(anthropic({ apiKey: KEY, model: "m", fetch }).complete([]))).kind).toBe(
      "invalid_response",
    );
    const { fetch: notJson } = fakeFetch(() => new Response("<html>gateway</html>"));
    expect((await failure(anthropic({ apiKey: KEY, model: "m", fetch: notJson }).complete([]))).kind).toBe(
      "invalid_response",
    );
  });
});

describe("retryAfterMs", () => {
  it("reads retry-after-ms, then seconds, then an HTTP date", () => {
    expect(retryAfterMs(new Headers({ "retry-after-ms": "250", "retry-after": "9" }))).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "1.5" }))).toBe(1500);
    const now = Date.parse("2026-11-30T10:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "Mon, 30 Nov 2026 10:00:30 GMT" }), now)).toBe(30_000);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(retryAfterMs(new Headers())).toBeUndefined();
  });
});

describe("credentials in extra headers", () => {
  it("a gateway key passed in headers never appears in an error either", async () => {
    const gatewayKey = "gw-secret-abcdef-123456";
    const { fetch } = fakeFetch(
      () =>
        new Response(
          JSON.stringify({
            type: "error",
            error: { type: "authentication_error", message: `bad ${gatewayKey}` },
          }),
          { status: 401 },
        ),
    );
    const error = await failure(
      anthropic({
        apiKey: KEY,
        model: "m",
        fetch,
        headers: { authorization: `Bearer ${gatewayKey}` },
      }).complete([{ role: "user", content: "x" }]),
    );
    expect(`${error.message} ${error.upstreamBody} ${JSON.stringify(error)}`).not.toContain(gatewayKey);
  });
});
