/** bedrock(): every way a call fails, as a ProviderError with the right kind. */
import { describe, expect, it } from "vitest";
import { collectStream, type ProviderError, type StreamEvent } from "../../src/index.ts";
import { bedrock } from "../../src/providers/bedrock.ts";
import {
  concat,
  converseEventFrame,
  converseFrames,
  encodeFrame,
  exceptionFrame,
  invokeFrames,
} from "../helpers/bedrock-frames.ts";
import { loadFixture } from "../helpers/fixtures.ts";
import {
  type Captured,
  CLAUDE,
  CONVERSE_EVENTS,
  collect,
  eventStream,
  failure,
  fakeFetch,
  HISTORY,
  json,
  quiet,
  SECRET_KEY,
  SESSION_TOKEN,
  THINKING_TOOL_EVENTS,
} from "./bedrock.helpers.ts";

describe("bedrock(): errors", () => {
  const provider = (
    respond: (captured: Captured) => Response | Promise<Response>,
    api: "invoke" | "converse" = "converse",
  ) =>
    bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api,
      credentials: {
        accessKeyId: "AKIAIOSFODNN7EXAMPLE",
        secretAccessKey: SECRET_KEY,
        sessionToken: SESSION_TOKEN,
      },
      fetch: fakeFetch(respond).fetch,
      ...quiet,
    });

  it("HTTP errors: x-amzn-errortype decides the kind; request id and Retry-After kept", async () => {
    const throttled = (await failure(() =>
      provider(() =>
        json(
          { message: "Too many requests, please wait before trying again." },
          {
            status: 429,
            headers: {
              "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
              "x-amzn-requestid": "req-123",
              "retry-after": "2",
            },
          },
        ),
      ).complete(HISTORY),
    )) as ProviderError;
    expect(throttled).toMatchObject({
      kind: "rate_limit",
      status: 429,
      code: "ThrottlingException",
      requestId: "req-123",
      retryAfterMs: 2000,
      retryable: true,
    });
    const tooLong = (await failure(() =>
      provider(() =>
        json(
          { message: "Input is too long for requested model." },
          { status: 400, headers: { "x-amzn-errortype": "ValidationException" } },
        ),
      ).complete(HISTORY),
    )) as ProviderError;
    expect(tooLong).toMatchObject({ kind: "context_length", code: "ValidationException", retryable: false });
    const unavailable = (await failure(() =>
      provider(() =>
        json(
          { message: "Bedrock is unable to process your request." },
          { status: 503, headers: { "x-amzn-errortype": "ServiceUnavailableException" } },
        ),
      ).complete(HISTORY),
    )) as ProviderError;
    expect(unavailable.kind).toBe("overloaded");
    const denied = (await failure(() =>
      provider(() =>
        json(
          { Message: "User is not authorized" },
          { status: 403, headers: { "x-amzn-errortype": "AccessDeniedException" } },
        ),
      ).complete(HISTORY),
    )) as ProviderError;
    expect(denied).toMatchObject({ kind: "auth", message: "bedrock 403: User is not authorized" });
    // No header: the status decides.
    const missing = (await failure(() =>
      provider(() => json({ message: "nope" }, { status: 404 })).complete(HISTORY),
    )) as ProviderError;
    expect(missing.kind).toBe("not_found");
  });

  it("the recorded ConverseStream 400 (invalid model id) is a bad_request before any stream", async () => {
    const fixture = await loadFixture("bedrock/pydantic-ai__test_bedrock_streaming_error.yaml");
    const recorded = fixture.interactions[0]!;
    const error = (await failure(() =>
      collectStream(
        provider(
          () => new Response(recorded.body.slice(), { status: recorded.status, headers: recorded.headers }),
        ).stream(HISTORY),
      ),
    )) as ProviderError;
    expect(error).toMatchObject({
      kind: "bad_request",
      status: 400,
      message: "bedrock 400: The provided model identifier is invalid.",
      partialOutput: false,
    });
  });

  it("credentials never appear in errors, even when the body echoes them", async () => {
    const echo = `The security token included in the request is invalid: ${SESSION_TOKEN} ${SECRET_KEY} AKIAIOSFODNN7EXAMPLE`;
    const error = (await failure(() =>
      provider(() =>
        json(
          { message: echo },
          { status: 403, headers: { "x-amzn-errortype": "UnrecognizedClientException" } },
        ),
      ).complete(HISTORY),
    )) as ProviderError;
    expect(error.kind).toBe("auth");
    const text = JSON.stringify(error.toJSON()) + error.message + String(error.stack);
    for (const secret of [SESSION_TOKEN, SECRET_KEY, "AKIAIOSFODNN7EXAMPLE"])
      expect(text).not.toContain(secret);
    // …and from mid-stream exception frames too.
    const midStream = (await failure(() =>
      collectStream(provider(() => eventStream(exceptionFrame("validationException", echo))).stream(HISTORY)),
    )) as ProviderError;
    const streamed = JSON.stringify(midStream.toJSON()) + midStream.message;
    for (const secret of [SESSION_TOKEN, SECRET_KEY, "AKIAIOSFODNN7EXAMPLE"])
      expect(streamed).not.toContain(secret);
    const network = (await failure(() =>
      provider(() => {
        throw new TypeError(`fetch failed for ${SECRET_KEY}`);
      }).complete(HISTORY),
    )) as ProviderError;
    expect(network.kind).toBe("network");
    expect(network.message).not.toContain(SECRET_KEY);
  });

  it("a mid-stream exception frame (converse): output first, then a ProviderError with partialOutput", async () => {
    const body = concat([
      converseEventFrame("messageStart", { role: "assistant" }),
      converseEventFrame("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Partial" } }),
      exceptionFrame("throttlingException", "Too many tokens, please wait before trying again."),
    ]);
    const seen: StreamEvent[] = [];
    const error = (await failure(async () => {
      for await (const event of provider(() => eventStream(body, [5, 11])).stream(HISTORY)) seen.push(event);
    })) as ProviderError;
    expect(seen).toEqual([{ type: "text-delta", text: "Partial" }]);
    expect(error).toMatchObject({
      kind: "rate_limit",
      code: "throttlingException",
      partialOutput: true,
      retryable: true,
      provider: "bedrock",
    });
    expect(error.message).toContain("Too many tokens");
  });

  it("a mid-stream exception frame (invoke): modelStreamErrorException is a server error with partialOutput", async () => {
    const body = concat([
      invokeFrames(THINKING_TOOL_EVENTS.slice(0, 4)),
      encodeFrame(
        {
          ":exception-type": "modelStreamErrorException",
          ":content-type": "application/json",
          ":message-type": "exception",
        },
        JSON.stringify({
          message: "Model stream error",
          originalStatusCode: 500,
          originalMessage: "overloaded",
        }),
      ),
    ]);
    const error = (await failure(() =>
      collectStream(provider(() => eventStream(body), "invoke").stream(HISTORY)),
    )) as ProviderError;
    expect(error).toMatchObject({ kind: "server", code: "modelStreamErrorException", partialOutput: true });
    expect(error.message).toContain("Model stream error (overloaded)");
  });

  it("a stream cut before messageStop / message_stop is truncated; a corrupted frame is invalid_response", async () => {
    const converseCut = converseFrames(CONVERSE_EVENTS.slice(0, 6));
    expect(
      await failure(() => collectStream(provider(() => eventStream(converseCut)).stream(HISTORY))),
    ).toMatchObject({
      kind: "truncated",
      partialOutput: true,
    });
    const invokeCut = invokeFrames(THINKING_TOOL_EVENTS.slice(0, 10));
    expect(
      await failure(() => collectStream(provider(() => eventStream(invokeCut), "invoke").stream(HISTORY))),
    ).toMatchObject({ kind: "truncated", partialOutput: true });
    // Cut inside a frame.
    const whole = converseFrames(CONVERSE_EVENTS);
    expect(
      await failure(() =>
        collectStream(provider(() => eventStream(whole.slice(0, whole.length - 3))).stream(HISTORY)),
      ),
    ).toMatchObject({ kind: "truncated" });
    const corrupted = whole.slice();
    corrupted[40] = corrupted[40]! ^ 0xff;
    expect(
      await failure(() => collectStream(provider(() => eventStream(corrupted)).stream(HISTORY))),
    ).toMatchObject({
      kind: "invalid_response",
    });
  });

  it("a 200 JSON body where the event stream belongs is invalid_response, with the body kept", async () => {
    const error = (await failure(() =>
      collectStream(provider(() => json({ message: "surprise" })).stream(HISTORY)),
    )) as ProviderError;
    expect(error).toMatchObject({ kind: "invalid_response", upstreamBody: '{"message":"surprise"}' });
  });

  it("ends after metadata without reading the rest of the body (converse)", async () => {
    let cancelled = false;
    const bytes = converseFrames(CONVERSE_EVENTS);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
      },
      cancel() {
        cancelled = true;
      },
    });
    const { response } = await collect(
      provider(
        () => new Response(body, { headers: { "content-type": "application/vnd.amazon.eventstream" } }),
      ).stream(HISTORY),
    );
    expect(response.stopReason).toBe("tool-calls");
    expect(cancelled).toBe(true);
  });
});
