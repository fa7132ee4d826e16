/**
 * Failures on /v1/messages in Anthropic's own shape, as `@anthropic-ai/sdk` reads the real API's: 400
 * invalid_request_error naming the field, 401 authentication_error, 404 not_found_error for an unknown
 * model, 529 overloaded_error with the upstream's words, and a failure after the stream started as
 * `event: error` with the envelope — the upstream's own error event on a native route, a cut stream on a
 * converted one (never a clean end).
 */
import Anthropic, {
  APIError,
  AuthenticationError,
  BadRequestError,
  NotFoundError,
  OverloadedError,
} from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import {
  anthropicError,
  anthropicEvents,
  openaiFrames,
  parseSse,
  sseResponse,
  streamBody,
  TOKEN,
} from "./helpers.ts";
import { anthropicClient, anthropicSse, messagesGateway, sse } from "./messages-fixtures.ts";

const hi = [{ role: "user" as const, content: "hi" }];

describe("/v1/messages errors", () => {
  it("401 authentication_error without the gateway token", async () => {
    const { fetch } = messagesGateway(() => new Response("unexpected", { status: 500 }));
    const client = new Anthropic({ apiKey: "wrong", baseURL: "http://gateway.test", fetch, maxRetries: 0 });
    const error = await client.messages
      .create({ model: "claude", max_tokens: 8, messages: hi })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).type).toBe("authentication_error");
  });

  it("404 not_found_error for a model no route answers to, on both endpoints", async () => {
    const { fetch, calls } = messagesGateway(() => new Response("unexpected", { status: 500 }));
    const client = anthropicClient(fetch);
    for (const call of [
      () => client.messages.create({ model: "claude-opus-9", max_tokens: 8, messages: hi }),
      () => client.messages.countTokens({ model: "claude-opus-9", messages: hi }),
    ]) {
      const error = await call().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as NotFoundError).error).toMatchObject({
        type: "error",
        error: { type: "not_found_error", message: "model: claude-opus-9" },
      });
    }
    expect(calls).toHaveLength(0);
  });

  it("400 invalid_request_error naming each field a converted route cannot honour", async () => {
    const { fetch, calls } = messagesGateway(() => new Response("unexpected", { status: 500 }));
    const client = anthropicClient(fetch);
    const error = await client.messages
      .create({
        model: "gpt",
        max_tokens: 8,
        top_k: 5,
        tools: [{ type: "web_search_20250305", name: "web_search" }],
        messages: [
          {
            role: "user",
            content: [{ type: "image", source: { type: "file", file_id: "file_011CNha8iCJcU1wXNR6q4V8w" } }],
          },
        ],
      } as unknown as Anthropic.MessageCreateParamsNonStreaming)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    const body = (error as BadRequestError).error as {
      error: { type: string; issues: { path: string }[] };
    };
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.issues.map((issue) => issue.path)).toEqual([
      "top_k",
      "messages[0].content[0].source.file_id",
      "tools[0].type",
    ]);
    expect(calls).toHaveLength(0);
  });

  it("400 for a body that is not a Messages request: a missing max_tokens, an unknown field", async () => {
    const { call } = messagesGateway(() => new Response("unexpected", { status: 500 }));
    const response = await call("/v1/messages", {
      json: { model: "gpt", messages: hi, frequency_penalty: 1 },
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as {
      type: string;
      error: { type: string; issues: { path: string }[] };
    };
    expect(body.type).toBe("error");
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.issues.map((issue) => issue.path).sort()).toEqual(["frequency_penalty", "max_tokens"]);
  });

  it("a native route takes the body as it is: the upstream judges it", async () => {
    const { call, calls } = messagesGateway(() =>
      anthropicError(400, "invalid_request_error", "max_tokens: Field required"),
    );
    const response = await call("/v1/messages", { json: { model: "claude", messages: hi, top_k: 5 } });
    expect(response.status).toBe(400);
    // The upstream's own type and words (Claude Code's recovery matches on them).
    expect(await response.json()).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "max_tokens: Field required" },
    });
    expect(calls[0]!.body.top_k).toBe(5);
  });

  it("529 overloaded_error, the upstream's words kept", async () => {
    const { fetch } = messagesGateway(() => anthropicError(529, "overloaded_error", "Overloaded"));
    const client = anthropicClient(fetch);
    const error = await client.messages
      .create({ model: "claude", max_tokens: 8, messages: hi })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OverloadedError);
    const failure = error as OverloadedError;
    expect(failure.status).toBe(529);
    expect(failure.type).toBe("overloaded_error");
    expect(failure.error).toMatchObject({ error: { type: "overloaded_error", message: "Overloaded" } });
  });

  it("native: the upstream's mid-stream error event ends the stream as event: error", async () => {
    const events = anthropicEvents(["Hello"]).slice(0, 4);
    const { call, fetch } = messagesGateway(() =>
      sse(
        anthropicSse(events) +
          'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
      ),
    );
    const response = await call("/v1/messages", {
      json: { model: "claude", max_tokens: 8, stream: true, messages: hi },
    });
    expect(response.status).toBe(200);
    const frames = parseSse(await response.text());
    expect(frames.slice(0, 4).map((frame) => frame.event)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
    ]);
    expect(frames.at(-1)).toEqual({
      event: "error",
      id: undefined,
      data: JSON.stringify({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
    });

    const client = anthropicClient(fetch);
    const error = await client.messages
      .stream({ model: "claude", max_tokens: 8, messages: hi })
      .finalMessage()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).type).toBe("overloaded_error");
  });

  it("converted: a stream cut after content ends with event: error, never message_stop", async () => {
    const frames = openaiFrames("gpt-4o", ["Hello", " wor"]).slice(0, 3);
    const { call } = messagesGateway(() => sseResponse(streamBody(frames, { end: "error" })));
    const response = await call("/v1/messages", {
      json: { model: "gpt", max_tokens: 8, stream: true, messages: hi },
    });
    expect(response.status).toBe(200);
    const sent = parseSse(await response.text());
    expect(sent.map((frame) => frame.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_delta",
      "error",
    ]);
    const error = JSON.parse(sent.at(-1)!.data) as { type: string; error: { type: string; message: string } };
    expect(error.type).toBe("error");
    expect(error.error.type).toBe("api_error");
  });

  it("an unknown path is a 404 in the path's dialect: Anthropic's under /v1/messages/, OpenAI's under /v1/responses/", async () => {
    const { fetch, calls } = messagesGateway(() => new Response("unexpected", { status: 500 }));
    const client = anthropicClient(fetch);
    const error = await client
      .post("/v1/messages/batches", { body: { requests: [] } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).error).toMatchObject({
      type: "error",
      error: { type: "not_found_error", message: "No route for POST /v1/messages/batches" },
    });
    const openai = await fetch("http://gateway.test/v1/responses/resp_1/cancel", {
      method: "POST",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(openai.status).toBe(404);
    expect(await openai.json()).toEqual({
      error: {
        message: "No route for POST /v1/responses/resp_1/cancel",
        type: "invalid_request_error",
        param: null,
        code: "not_found",
      },
    });
    expect(calls).toHaveLength(0);
  });
});
