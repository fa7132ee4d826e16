/**
 * `anthropic().native`: a client's Messages body passed through (model replaced, `stream` set), the
 * settings' and the client's betas merged into one `anthropic-beta`, the client's `anthropic-version`
 * forwarded, the provider's own key in `x-api-key`; the answer's JSON and events as the upstream sent
 * them (a recorded stream, byte for byte); failures mapped with no key in any field; count_tokens.
 */
import { describe, expect, it } from "vitest";
import { anthropic, ProviderError } from "../../src/index.ts";
import { type NativeEndpoint, nativeEndpointOf } from "../../src/providers/native.ts";
import { byteStream, controlledByteStream } from "../helpers/byte-stream.ts";
import {
  anthropicSse,
  drain,
  drainFailing,
  recording,
  recordingFetch,
  sseAnswer,
  sseEventsOf,
  textOf,
} from "./native.helpers.ts";

const KEY = "sk-ant-api03-native-test-key-0000000000";
const BASE = "https://anthropic.example/v1";

/** What Claude Code sends, more or less: blocks the neutral model does not carry, all of them. */
const CLIENT_BODY = {
  model: "claude-sonnet-4-5-20250929",
  max_tokens: 32000,
  stream: false,
  system: [{ type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } }],
  messages: [
    { role: "user", content: [{ type: "text", text: "Fix the bug." }] },
    {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Look at the file.", signature: "EqQBCkYIBxgCKkBsig+/==" },
        { type: "redacted_thinking", data: "RW5jcnlwdGVk" },
        { type: "tool_use", id: "toolu_01", name: "Read", input: { path: "a.ts" } },
      ],
    },
    {
      role: "user",
      content: [
        {
          type: "tool_result",
          tool_use_id: "toolu_01",
          content: "const a = 1;",
          cache_control: { type: "ephemeral" },
        },
      ],
    },
  ],
  tools: [{ name: "Read", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } }],
  thinking: { type: "enabled", budget_tokens: 1024 },
  metadata: { user_id: "user_abc_account__session_123" },
  context_management: { edits: [{ type: "clear_tool_uses_20250919" }] },
};

const MESSAGE_TEXT =
  '{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929",   "content":[{"type":"text","text":"Fixed ✓"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":30,"output_tokens":4}}';

function native(respond: Parameters<typeof recordingFetch>[0], settings: { betas?: string[] } = {}) {
  const { fetch, requests } = recordingFetch(respond);
  const provider = anthropic({ apiKey: KEY, model: "claude-sonnet-4-5", baseURL: BASE, fetch, ...settings });
  const endpoint = nativeEndpointOf(provider, "anthropic-messages");
  if (!endpoint) throw new Error("anthropic() has no native endpoint");
  return { endpoint, requests };
}

/** Every string an error carries, as JSON: where a key must not be. */
const everything = (error: unknown) =>
  JSON.stringify({
    json: (error as ProviderError).toJSON(),
    message: (error as Error).message,
    stack: (error as Error).stack,
  });

describe("anthropic().native: the request", () => {
  it("is the Anthropic Messages endpoint of origin anthropic", () => {
    const { endpoint } = native(() => new Response(MESSAGE_TEXT));
    expect(endpoint).toMatchObject({ protocol: "anthropic-messages", origin: "anthropic" });
    expect(nativeEndpointOf(anthropic({ apiKey: KEY, model: "m" }), "openai-responses")).toBeUndefined();
  });

  it("passes the client's body through with the provider's model and `stream` as asked", async () => {
    for (const stream of [false, true]) {
      const { endpoint, requests } = native(() =>
        stream ? sseAnswer(anthropicSse([{ type: "message_stop" }])) : new Response(MESSAGE_TEXT),
      );
      const answer = await endpoint.send({ body: { ...CLIENT_BODY, stream: !stream }, stream });
      if (answer.events) await drainFailing(answer.events).catch(() => {});
      expect(requests).toHaveLength(1);
      expect(requests[0]!.url).toBe(`${BASE}/messages`);
      expect(requests[0]!.body).toEqual({ ...CLIENT_BODY, model: "claude-sonnet-4-5", stream });
    }
  });

  it("anthropic-beta: the settings' betas and the client's, each once, comma-joined header values split", async () => {
    const { endpoint, requests } = native(() => new Response(MESSAGE_TEXT), {
      betas: ["prompt-caching-2024-07-31", "context-1m-2025-08-07"],
    });
    await endpoint.send({
      body: CLIENT_BODY,
      stream: false,
      betas: [
        "claude-code-20250219,interleaved-thinking-2025-05-14",
        "context-1m-2025-08-07",
        " fine-grained-tool-streaming-2025-05-14 ",
      ],
    });
    expect(requests[0]!.headers.get("anthropic-beta")).toBe(
      "prompt-caching-2024-07-31,context-1m-2025-08-07,claude-code-20250219,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14",
    );
  });

  it("anthropic-version: the client's when it sent one, the provider's default otherwise", async () => {
    const { endpoint, requests } = native(() => new Response(MESSAGE_TEXT));
    await endpoint.send({ body: CLIENT_BODY, stream: false, version: "2026-10-21" });
    await endpoint.send({ body: CLIENT_BODY, stream: false });
    expect(requests.map((request) => request.headers.get("anthropic-version"))).toEqual([
      "2026-10-21",
      "2023-06-01",
    ]);
    // No betas asked, none configured: no header at all.
    expect(requests[1]!.headers.has("anthropic-beta")).toBe(false);
  });

  it("x-api-key is the provider's own key, and no other credential goes upstream", async () => {
    const { endpoint, requests } = native(() => new Response(MESSAGE_TEXT));
    await endpoint.send({ body: { ...CLIENT_BODY, api_key: "client-key-should-not-auth" }, stream: false });
    const headers = requests[0]!.headers;
    expect(headers.get("x-api-key")).toBe(KEY);
    expect(headers.has("authorization")).toBe(false);
    expect([...headers.values()].join(" ")).not.toContain("client-key-should-not-auth");
  });
});

describe("anthropic().native: the answer", () => {
  it("complete: the upstream's JSON text as sent, the request id, and the parsed Response", async () => {
    const { endpoint } = native(
      () =>
        new Response(MESSAGE_TEXT, {
          headers: { "content-type": "application/json", "request-id": "req_01native" },
        }),
    );
    const answer = await endpoint.send({ body: CLIENT_BODY, stream: false });
    expect(answer.status).toBe(200);
    expect(answer.json).toBe(MESSAGE_TEXT);
    expect(answer.events).toBeUndefined();
    expect(answer.requestId).toBe("req_01native");
    expect(answer.droppedBetas).toEqual([]);
    expect(answer.warnings).toEqual([]);
    expect(answer.response()).toMatchObject({
      message: { role: "assistant", content: "Fixed ✓" },
      usage: { inputTokens: 30, outputTokens: 4 },
      stopReason: "stop",
    });
  });

  for (const path of [
    "anthropic/pydantic-ai__test_anthropic_model_thinking_part_stream.yaml",
    "anthropic/pydantic-ai__test_anthropic_model_web_search_tool_stream.yaml",
    "anthropic/anthropic-sdk-ts__stream-a-toolrefusal.sse",
  ]) {
    it(`stream: the events of ${path.split("/")[1]} byte for byte, then the assembled Response`, async () => {
      const body = (await recording(path)).body;
      const { endpoint } = native(() => sseAnswer(byteStream(body, [3, 101, 17])));
      const answer = await endpoint.send({ body: CLIENT_BODY, stream: true });
      expect(answer.json).toBeUndefined();
      expect(answer.response()).toBeUndefined();
      const events = await drain(answer.events);
      expect(events).toEqual(sseEventsOf(textOf(body)));
      expect(events.at(-1)!.event).toBe("message_stop");
      expect(answer.response()?.usage?.outputTokens).toBeGreaterThan(0);
    });
  }

  it("stream: an upstream error event mid-stream is a ProviderError after the events before it, without the key", async () => {
    const events = [
      {
        type: "message_start",
        message: {
          id: "msg_01",
          type: "message",
          role: "assistant",
          model: "claude",
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 3, output_tokens: 1 },
        },
      },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Half" } },
      { type: "error", error: { type: "overloaded_error", message: `Overloaded (${KEY})` } },
    ];
    const { endpoint } = native(() => sseAnswer(anthropicSse(events)));
    const answer = await endpoint.send({ body: CLIENT_BODY, stream: true });
    const { events: out, error } = await drainFailing(answer.events);
    expect(out.map((event) => event.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
    ]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "overloaded", partialOutput: true, provider: "anthropic" });
    expect(everything(error)).not.toContain(KEY);
  });

  it("stream: cut before message_stop is truncated, never a clean end", async () => {
    const body = (await recording("anthropic/pydantic-ai__test_anthropic_model_thinking_part_stream.yaml"))
      .body;
    const text = textOf(body);
    const cut = text.slice(0, text.indexOf("event: message_delta"));
    const { endpoint } = native(() => sseAnswer(cut));
    const answer = await endpoint.send({ body: CLIENT_BODY, stream: true });
    const { events, error } = await drainFailing(answer.events);
    expect(events).toEqual(sseEventsOf(cut));
    expect(error).toMatchObject({ kind: "truncated", partialOutput: true });
    expect(answer.response()).toBeUndefined();
  });

  it("stream: a consumer that stops early aborts the upstream request", async () => {
    const body = controlledByteStream();
    let signal: AbortSignal | undefined;
    const { fetch } = recordingFetch(() => sseAnswer(body.stream));
    const provider = anthropic({
      apiKey: KEY,
      model: "claude-sonnet-4-5",
      baseURL: BASE,
      fetch: ((input: RequestInfo | URL, init?: RequestInit) => {
        signal = init?.signal ?? undefined;
        return fetch(input, init);
      }) as typeof fetch,
    });
    const endpoint = nativeEndpointOf(provider, "anthropic-messages") as NativeEndpoint;
    body.push(
      anthropicSse([
        {
          type: "message_start",
          message: {
            id: "m",
            type: "message",
            role: "assistant",
            model: "c",
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 1, output_tokens: 1 },
          },
        },
        { type: "ping" },
      ]),
    );
    const answer = await endpoint.send({ body: CLIENT_BODY, stream: true });
    for await (const event of answer.events!) if (event.event === "ping") break;
    expect(signal?.aborted).toBe(true);
  });
});

describe("anthropic().native: failures before the answer", () => {
  const cases: [status: number, type: string, kind: string, headers?: Record<string, string>][] = [
    [400, "invalid_request_error", "bad_request"],
    [401, "authentication_error", "auth"],
    [404, "not_found_error", "not_found"],
    [429, "rate_limit_error", "rate_limit", { "retry-after": "7" }],
    [529, "overloaded_error", "overloaded"],
    [500, "api_error", "server"],
  ];
  for (const [status, type, kind, headers] of cases) {
    it(`${status} ${type}: the ProviderError of kind ${kind}, the key in no field`, async () => {
      for (const stream of [false, true]) {
        const { endpoint } = native(() =>
          Response.json(
            { type: "error", error: { type, message: `upstream said no (x-api-key: ${KEY})` } },
            { status, headers: { "request-id": "req_err", ...headers } },
          ),
        );
        const error = await endpoint.send({ body: CLIENT_BODY, stream }).then(
          () => undefined,
          (caught: unknown) => caught,
        );
        expect(error).toBeInstanceOf(ProviderError);
        expect(error).toMatchObject({ kind, status, code: type, provider: "anthropic" });
        if (status === 429) expect(error).toMatchObject({ retryAfterMs: 7000 });
        expect(everything(error)).not.toContain(KEY);
        expect((error as ProviderError).upstreamBody).toContain("upstream said no");
      }
    });
  }
});

describe("anthropic().native: count_tokens", () => {
  it("POSTs the body (no stream, the provider's model) to {baseURL}/messages/count_tokens, with the betas", async () => {
    const { endpoint, requests } = native(() => Response.json({ input_tokens: 2095 }), {
      betas: ["token-counting-2024-11-01"],
    });
    const { stream: _stream, max_tokens: _max, metadata: _metadata, ...countBody } = CLIENT_BODY;
    const count = await endpoint.countTokens!({
      body: { ...countBody, stream: true },
      betas: ["claude-code-20250219"],
      version: "2023-06-01",
    });
    expect(count).toBe(2095);
    expect(requests[0]!.url).toBe(`${BASE}/messages/count_tokens`);
    expect(requests[0]!.body).toEqual({ ...countBody, model: "claude-sonnet-4-5" });
    expect(requests[0]!.headers.get("anthropic-beta")).toBe("token-counting-2024-11-01,claude-code-20250219");
    expect(requests[0]!.headers.get("anthropic-version")).toBe("2023-06-01");
    expect(requests[0]!.headers.get("x-api-key")).toBe(KEY);
  });

  it("an answer without input_tokens is invalid_response", async () => {
    for (const body of [
      '{"tokens": 12}',
      '{"input_tokens": "12"}',
      '{"input_tokens": -1}',
      "not json",
      "null",
    ]) {
      const { endpoint } = native(
        () => new Response(body, { headers: { "content-type": "application/json" } }),
      );
      const error = await endpoint.countTokens!({ body: { messages: [] } }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, body).toBeInstanceOf(ProviderError);
      expect(error, body).toMatchObject({ kind: "invalid_response" });
    }
  });

  it("a failed count is the mapped ProviderError, without the key", async () => {
    const { endpoint } = native(() =>
      Response.json(
        { type: "error", error: { type: "rate_limit_error", message: `slow down ${KEY}` } },
        { status: 429 },
      ),
    );
    const error = await endpoint.countTokens!({ body: { messages: [] } }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ kind: "rate_limit", status: 429 });
    expect(everything(error)).not.toContain(KEY);
  });
});
