/**
 * The failures of `/v1/chat/completions` and `/v1/models` in OpenAI's own shape, read by the real clients
 * inside workerd: a failure mid-stream is a final `data: {"error": …}` frame (no event name, no `[DONE]`)
 * that `@ai-sdk/openai-compatible` reads as an error (not a "Type validation failed") and the `openai`
 * client raises as an `APIError`; failures before the stream are HTTP errors the `openai` client maps to
 * its classes (429 `RateLimitError` with `Retry-After`, 401 `AuthenticationError`, an unknown model
 * `NotFoundError`). Keep-alives are SSE comments, never an Anthropic-style `event: ping`.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { streamText } from "ai";
import OpenAI, { type APIError } from "openai";
import { describe, expect, it } from "vitest";
import {
  ANTHROPIC_KEY,
  anthropicError,
  anthropicEvents,
  anthropicFrames,
  gateway,
  gatewayEnv,
  parseSse,
  sseResponse,
  streamBody,
  TOKEN,
  type UpstreamHandler,
} from "./helpers.ts";

const PROMPT = [{ role: "user" as const, content: "hi" }];

/** An Anthropic stream that says "Partial answer " and then fails with an `event: error` (overloaded). */
const failsMidStream: UpstreamHandler = () => {
  const frames = anthropicFrames(anthropicEvents(["Partial ", "answer ", "never ", "finished"])).slice(0, 5);
  frames.push(
    `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } })}\n\n`,
  );
  return sseResponse(streamBody(frames));
};

/** The gateway over `handler`, and a `fetch` into it for the clients. */
function setup(handler: UpstreamHandler, options: Parameters<typeof gateway>[1] = {}) {
  const { worker, calls, call } = gateway(handler, options);
  const fetchImpl = (async (url: RequestInfo | URL, init?: RequestInit) =>
    worker.app.fetch(new Request(url, init), gatewayEnv)) as typeof fetch;
  return { fetch: fetchImpl, calls, call };
}

function openai(fetchImpl: typeof fetch, apiKey = TOKEN) {
  return new OpenAI({ apiKey, baseURL: "http://gateway.test/v1", maxRetries: 0, fetch: fetchImpl });
}

function compatible(fetchImpl: typeof fetch) {
  return createOpenAICompatible({
    name: "modelwire",
    baseURL: "http://gateway.test/v1",
    apiKey: TOKEN,
    fetch: fetchImpl,
  })("claude");
}

describe("a failure mid-stream: a data-only OpenAI error frame", () => {
  it("the frames: chunks, then one `data: {error}` frame without an event name, no [DONE]", async () => {
    const { call } = setup(failsMidStream);
    const response = await call("/v1/chat/completions", {
      json: { model: "claude", messages: PROMPT, stream: true },
    });
    expect(response.status).toBe(200);
    const frames = parseSse(await response.text());
    expect(frames.map((frame) => frame.event)).toEqual(frames.map(() => undefined));
    expect(frames.some((frame) => frame.data === "[DONE]")).toBe(false);
    expect(JSON.parse(frames.at(-1)!.data)).toEqual({
      error: {
        message: expect.stringContaining("Overloaded"),
        type: "server_error",
        param: null,
        code: "server_is_overloaded",
      },
    });
    // Everything before it is a chunk.
    for (const frame of frames.slice(0, -1)) {
      expect(JSON.parse(frame.data)).toMatchObject({ object: "chat.completion.chunk" });
    }
  });

  it("@ai-sdk/openai-compatible streamText: an error part with the upstream's message, not a TypeValidationError", async () => {
    const { fetch } = setup(failsMidStream);
    const errors: unknown[] = [];
    const result = streamText({
      model: compatible(fetch),
      prompt: "hi",
      onError: ({ error }) => void errors.push(error),
    });
    const parts: { type: string; error?: unknown; text?: string }[] = [];
    for await (const part of result.fullStream) parts.push(part as (typeof parts)[number]);
    const text = parts
      .filter((part) => part.type === "text-delta")
      .map((part) => part.text)
      .join("");
    expect(text).toBe("Partial answer ");
    const errorParts = parts.filter((part) => part.type === "error");
    expect(errorParts).toHaveLength(1);
    const error = errorParts[0]!.error as { name?: string; message?: string };
    expect(error.name).not.toBe("AI_TypeValidationError");
    expect(JSON.stringify(error)).not.toContain("Type validation failed");
    expect(error.message).toContain("Overloaded");
    expect(errors).toHaveLength(1);
  });

  it("the openai client's chat stream raises an APIError carrying the upstream's message", async () => {
    const { fetch } = setup(failsMidStream);
    const stream = await openai(fetch).chat.completions.create({
      model: "claude",
      messages: PROMPT,
      stream: true,
    });
    let text = "";
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(text).toBe("Partial answer ");
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as APIError).message).toContain("Overloaded");
    expect((error as APIError).code).toBe("server_is_overloaded");
    expect((error as APIError).type).toBe("server_error");
  });

  it("a stream slow to open keeps the line with comments, never an `event: ping`; the AI SDK reads it cleanly", async () => {
    // An upstream with pings in its stream (Anthropic sends them), slower to open than the hold.
    const slow: UpstreamHandler = async () => {
      await new Promise((resolve) => setTimeout(resolve, 60));
      const events = anthropicEvents(["Hello ", "there."]);
      events.splice(3, 0, { type: "ping" }, { type: "ping" });
      return sseResponse(streamBody(anthropicFrames(events)));
    };
    const raw = setup(slow, { streamHoldMs: 5 });
    const response = await raw.call("/v1/chat/completions", {
      json: { model: "claude", messages: PROMPT, stream: true },
    });
    const text = await response.text();
    expect(text.startsWith(": ")).toBe(true);
    expect(text).not.toMatch(/^event:/m);
    expect(text).not.toContain("ping");
    expect(parseSse(text).at(-1)!.data).toBe("[DONE]");

    const { fetch } = setup(slow, { streamHoldMs: 5 });
    const parts: { type: string; text?: string }[] = [];
    for await (const part of streamText({ model: compatible(fetch), prompt: "hi" }).fullStream)
      parts.push(part as (typeof parts)[number]);
    expect(parts.filter((part) => part.type === "error")).toEqual([]);
    expect(
      parts
        .filter((part) => part.type === "text-delta")
        .map((part) => part.text)
        .join(""),
    ).toBe("Hello there.");
  });
});

describe("failures before the stream: HTTP errors in OpenAI's shape", () => {
  const limited: UpstreamHandler = () =>
    anthropicError(
      429,
      "rate_limit_error",
      `Number of request tokens has exceeded your rate limit (${ANTHROPIC_KEY})`,
      {
        "retry-after": "7",
      },
    );

  it("a 429 before any output: OpenAI's shape, Retry-After, and the openai client's RateLimitError", async () => {
    const { fetch, call } = setup(limited);
    for (const stream of [false, true]) {
      const response = await call("/v1/chat/completions", {
        json: { model: "claude", messages: PROMPT, stream },
      });
      expect(response.status).toBe(429);
      expect(response.headers.get("retry-after")).toBe("7");
      const text = await response.text();
      expect(text).not.toContain(ANTHROPIC_KEY);
      expect(JSON.parse(text)).toEqual({
        error: {
          message: expect.stringContaining("exceeded your rate limit"),
          type: "requests",
          param: null,
          code: "rate_limit_exceeded",
        },
      });
      const error = await openai(fetch)
        .chat.completions.create({ model: "claude", messages: PROMPT, stream })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(error).toBeInstanceOf(OpenAI.RateLimitError);
      expect((error as APIError).headers?.get("retry-after")).toBe("7");
      expect((error as APIError).message).toContain("exceeded your rate limit");
      expect((error as APIError).message).not.toContain(ANTHROPIC_KEY);
    }
  });

  it("a wrong gateway token: a 401 the openai client raises as AuthenticationError (invalid_api_key)", async () => {
    const { fetch, calls } = setup(limited);
    for (const run of [
      () => openai(fetch, "wrong-token").chat.completions.create({ model: "claude", messages: PROMPT }),
      () => openai(fetch, "wrong-token").models.list(),
    ]) {
      const error = await run().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
      expect((error as APIError).code).toBe("invalid_api_key");
      expect((error as APIError).type).toBe("invalid_request_error");
      expect((error as APIError).message).not.toContain("wrong-token");
    }
    expect(calls).toEqual([]);
  });

  it("an unknown model: 404 model_not_found, the openai client's NotFoundError; nothing called upstream", async () => {
    const { fetch, calls } = setup(limited);
    for (const stream of [false, true]) {
      const error = await openai(fetch)
        .chat.completions.create({ model: "gpt-9", messages: PROMPT, stream })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect((error as APIError).code).toBe("model_not_found");
      expect((error as APIError).param).toBe("model");
      expect((error as APIError).message).toContain("gpt-9");
    }
    expect(calls).toEqual([]);
  });

  it("a bad field: the openai client's BadRequestError naming it in `param`", async () => {
    const { fetch, calls } = setup(limited);
    const error = await openai(fetch)
      .chat.completions.create({ model: "claude", messages: PROMPT, temperature: 9 })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as APIError).param).toBe("temperature");
    expect(calls).toEqual([]);
  });
});
