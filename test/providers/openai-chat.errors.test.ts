/** openaiChat(): every way a call fails, as a ProviderError with the right kind. */
import { describe, expect, it } from "vitest";
import { openaiChat, type StreamEvent } from "../../src/index.ts";
import {
  chunk,
  errorResponse,
  failure,
  fakeFetch,
  HI,
  KEY,
  sse,
  sseResponse,
  streamFailure,
} from "./openai-chat.helpers.ts";

describe("openaiChat() errors", () => {
  const provider = (respond: () => Response | Promise<Response>) =>
    openaiChat({ apiKey: KEY, model: "gpt-4.1", fetch: fakeFetch(respond).fetch });

  it("400 context_length_exceeded → context_length, not retryable", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(
          400,
          {
            message:
              "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
            type: "invalid_request_error",
            param: "messages",
            code: "context_length_exceeded",
          },
          { "x-request-id": "req_1" },
        ),
      ).complete(HI),
    );
    expect(error).toMatchObject({
      kind: "context_length",
      status: 400,
      code: "context_length_exceeded",
      retryable: false,
      requestId: "req_1",
      provider: "openai",
      model: "gpt-4.1",
    });
    expect(error.message).toMatch(/^openai 400: This model's maximum context length/);
  });

  it("an overflow described only in the message is context_length too (servers without codes)", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(400, {
          message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
          type: "BadRequestError",
          code: 400,
        }),
      ).complete(HI),
    );
    expect(error.kind).toBe("context_length");
  });

  it("401 → auth; the key never appears in the error", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(401, {
          message: `Incorrect API key provided: ${KEY}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: "invalid_request_error",
          code: "invalid_api_key",
        }),
      ).complete(HI),
    );
    expect(error).toMatchObject({ kind: "auth", status: 401, retryable: false });
    expect(JSON.stringify(error.toJSON())).not.toContain(KEY);
    expect(error.message).toContain("[redacted]");
  });

  it("404 → not_found", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(404, {
          message: "The model `gpt-9` does not exist or you do not have access to it.",
          type: "invalid_request_error",
          code: "model_not_found",
        }),
      ).complete(HI),
    );
    expect(error).toMatchObject({
      kind: "not_found",
      status: 404,
      code: "model_not_found",
      retryable: false,
    });
  });

  it("429 with retry-after → rate_limit, retryable, retryAfterMs", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(
          429,
          {
            message: "Rate limit reached for gpt-4.1 on tokens per min.",
            type: "tokens",
            code: "rate_limit_exceeded",
          },
          { "retry-after": "7" },
        ),
      ).complete(HI),
    );
    expect(error).toMatchObject({ kind: "rate_limit", status: 429, retryable: true, retryAfterMs: 7000 });
    const ms = await failure(
      provider(() =>
        errorResponse(429, { message: "slow down" }, { "retry-after-ms": "250", "retry-after": "1" }),
      ).complete(HI),
    );
    expect(ms.retryAfterMs).toBe(250);
  });

  it("429 without Retry-After takes the wait from x-ratelimit-reset-* (the spent limit's)", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(
          429,
          { message: "Rate limit reached for requests", code: "rate_limit_exceeded" },
          {
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": "1.5s",
            "x-ratelimit-remaining-tokens": "9000",
            "x-ratelimit-reset-tokens": "6m0s",
          },
        ),
      ).complete(HI),
    );
    expect(error).toMatchObject({ kind: "rate_limit", retryAfterMs: 1500 });
  });

  it("429 insufficient_quota → rate_limit but not retryable", async () => {
    const error = await failure(
      provider(() =>
        errorResponse(429, {
          message: "You exceeded your current quota, please check your plan and billing details.",
          type: "insufficient_quota",
          code: "insufficient_quota",
        }),
      ).complete(HI),
    );
    expect(error).toMatchObject({
      kind: "rate_limit",
      status: 429,
      code: "insufficient_quota",
      retryable: false,
    });
  });

  it("500 → server, 503 → overloaded, both retryable; a non-JSON body is kept as the upstream body", async () => {
    const server = await failure(
      provider(() =>
        errorResponse(500, { message: "The server had an error", type: "server_error" }),
      ).complete(HI),
    );
    expect(server).toMatchObject({ kind: "server", status: 500, retryable: true });
    const overloaded = await failure(
      provider(() => new Response("upstream connect error", { status: 503 })).complete(HI),
    );
    expect(overloaded).toMatchObject({
      kind: "overloaded",
      status: 503,
      retryable: true,
      upstreamBody: "upstream connect error",
    });
  });

  it("stream(): HTTP errors throw from the iteration, before any event", async () => {
    const events: StreamEvent[] = [];
    const error = await failure(
      (async () => {
        for await (const event of provider(() =>
          errorResponse(429, { message: "busy", code: "rate_limit_exceeded" }, { "retry-after": "2" }),
        ).stream(HI))
          events.push(event);
      })(),
    );
    expect(events).toEqual([]);
    expect(error).toMatchObject({ kind: "rate_limit", retryAfterMs: 2000, partialOutput: false });
  });

  it("a 200 without choices: the error inside it, or invalid_response", async () => {
    const inBody = await failure(
      provider(() => Response.json({ error: { message: "quota", code: "insufficient_quota" } })).complete(HI),
    );
    expect(inBody).toMatchObject({ kind: "rate_limit", retryable: false });
    const empty = await failure(provider(() => new Response("not json")).complete(HI));
    expect(empty).toMatchObject({ kind: "invalid_response", upstreamBody: "not json" });
  });

  it("network failures → network; the key is in no error, whatever path it takes", async () => {
    const network = await failure(
      provider(() => {
        throw new TypeError(`fetch failed (authorization: Bearer ${KEY})`);
      }).complete(HI),
    );
    expect(network.kind).toBe("network");
    const echo = `echo ${KEY}`;
    const errors = [
      network,
      await failure(provider(() => errorResponse(400, { message: echo })).complete(HI)),
      await failure(provider(() => new Response(echo, { status: 502 })).complete(HI)),
      await failure(provider(() => Response.json({ error: { message: echo } })).complete(HI)),
      await streamFailure(provider(() => errorResponse(500, { message: echo })).stream(HI)),
      // A mid-stream error that echoes the key, after output went out.
      await streamFailure(
        provider(() =>
          sseResponse(sse([chunk({ content: "partial" }), { error: { message: echo, code: 500 } }])),
        ).stream(HI),
      ),
      await streamFailure(provider(() => sseResponse(`data: {"oops": "${KEY}`)).stream(HI)),
    ];
    for (const error of errors) {
      expect(JSON.stringify(error.toJSON()), error.message).not.toContain(KEY);
      expect(error.message).not.toContain(KEY);
    }
    expect(errors[5]).toMatchObject({ kind: "server", partialOutput: true });
  });
});
