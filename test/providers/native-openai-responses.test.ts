/**
 * `openaiResponses().native`: a client's Responses body passed through (model replaced, `stream` set),
 * the provider's own key; the answer's JSON and events as the upstream sent them (recorded streams, byte
 * for byte); an `error` event or a failed status a ProviderError after the events before it.
 */
import { describe, expect, it } from "vitest";
import { openaiResponses, ProviderError } from "../../src/index.ts";
import { type NativeEndpoint, nativeEndpointOf } from "../../src/providers/native.ts";
import { byteStream } from "../helpers/byte-stream.ts";
import {
  drain,
  drainFailing,
  recording,
  recordingFetch,
  sseAnswer,
  sseEventsOf,
  textOf,
} from "./native.helpers.ts";

const KEY = "sk-proj-native-responses-key-0000000000";
const BASE = "https://responses.example/v1";

/** What Codex sends, more or less: reasoning items with encrypted content, replayed in order. */
const CLIENT_BODY = {
  model: "gpt-5-codex",
  instructions: "You are Codex.",
  input: [
    { type: "message", role: "user", content: [{ type: "input_text", text: "List the files." }] },
    { type: "reasoning", id: "rs_01", summary: [], encrypted_content: "gAAAAABo-encrypted==" },
    { type: "function_call", id: "fc_01", call_id: "call_01", name: "shell", arguments: '{"cmd":["ls"]}' },
    { type: "function_call_output", call_id: "call_01", output: "a.ts\nb.ts" },
  ],
  tools: [{ type: "function", name: "shell", parameters: { type: "object" }, strict: false }],
  tool_choice: "auto",
  parallel_tool_calls: false,
  reasoning: { effort: "medium", summary: "auto" },
  store: false,
  stream: true,
  include: ["reasoning.encrypted_content"],
  prompt_cache_key: "session-123",
};

function native(respond: Parameters<typeof recordingFetch>[0]) {
  const { fetch, requests } = recordingFetch(respond);
  const provider = openaiResponses({ apiKey: KEY, model: "gpt-5", baseURL: BASE, fetch });
  return { endpoint: nativeEndpointOf(provider, "openai-responses") as NativeEndpoint, requests };
}

const RESPONSE_TEXT =
  '{"id":"resp_01","object":"response","created_at":1763474589,"status":"completed","model":"gpt-5-2025-08-07","output":[{"id":"msg_01","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"a.ts and b.ts ✓","annotations":[]}]}],   "usage":{"input_tokens":40,"output_tokens":6,"total_tokens":46}}';

describe("openaiResponses().native", () => {
  it("is the Responses endpoint of the provider's origin", () => {
    const { endpoint } = native(() => new Response(RESPONSE_TEXT));
    expect(endpoint).toMatchObject({ protocol: "openai-responses", origin: "responses.example" });
    expect(endpoint.countTokens).toBeUndefined();
  });

  it("passes the client's body through, the provider's model and `stream` as asked, its own key", async () => {
    for (const stream of [false, true]) {
      const body = (await recording("openai-responses/pydantic-ai__test_openai_responses_stream.yaml", 1))
        .body;
      const { endpoint, requests } = native(() =>
        stream ? sseAnswer(byteStream(body)) : new Response(RESPONSE_TEXT),
      );
      const answer = await endpoint.send({ body: { ...CLIENT_BODY, stream: !stream }, stream });
      if (answer.events) await drain(answer.events);
      expect(requests[0]!.url).toBe(`${BASE}/responses`);
      expect(requests[0]!.body).toEqual({ ...CLIENT_BODY, model: "gpt-5", stream });
      expect(requests[0]!.headers.get("authorization")).toBe(`Bearer ${KEY}`);
    }
  });

  it("complete: the upstream's JSON text as sent, and the parsed Response", async () => {
    const { endpoint } = native(
      () => new Response(RESPONSE_TEXT, { headers: { "x-request-id": "req_resp_1" } }),
    );
    const answer = await endpoint.send({ body: CLIENT_BODY, stream: false });
    expect(answer.json).toBe(RESPONSE_TEXT);
    expect(answer.requestId).toBe("req_resp_1");
    expect(answer.response()).toMatchObject({
      message: { content: "a.ts and b.ts ✓" },
      usage: { inputTokens: 40, outputTokens: 6 },
    });
  });

  for (const [path, index] of [
    ["openai-responses/pydantic-ai__test_openai_responses_stream.yaml", 1],
    ["openai-responses/pydantic-ai__test_openai_responses_thinking_part_iter.yaml", 0],
    ["openai-responses/vercel-ai__openai-reasoning-encrypted-content.1.chunks.txt", 0],
  ] as const) {
    it(`stream: the events of ${path.split("/")[1]} as sent, byte for byte, then the Response`, async () => {
      const body = (await recording(path, index)).body;
      const { endpoint } = native(() => sseAnswer(byteStream(body, [5, 211, 3])));
      const answer = await endpoint.send({ body: CLIENT_BODY, stream: true });
      const events = await drain(answer.events);
      // One response: a recording of two steps is read up to the first one's terminal event.
      const recorded = sseEventsOf(textOf(body));
      const end = recorded.findIndex((event) => event.event === "response.completed");
      expect(events).toEqual(recorded.slice(0, end + 1));
      expect(answer.response()?.usage?.outputTokens).toBeGreaterThan(0);
    });
  }

  it("stream: an `error` event (the recorded insufficient_quota) is a ProviderError after the events before it", async () => {
    const body = (await recording("openai-responses/vercel-ai__openai-error.1.chunks.txt")).body;
    const all = sseEventsOf(textOf(body));
    const { endpoint } = native(() => sseAnswer(byteStream(body)));
    const { events, error } = await drainFailing(
      (await endpoint.send({ body: CLIENT_BODY, stream: true })).events,
    );
    expect(events).toEqual(
      all.slice(
        0,
        all.findIndex((event) => event.event === "error"),
      ),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      partialOutput: false,
      message: expect.stringContaining("exceeded your current quota"),
    });
  });

  it("stream: cut before response.completed is truncated", async () => {
    const body = (await recording("openai-responses/pydantic-ai__test_openai_responses_stream.yaml", 1)).body;
    const text = textOf(body);
    const cut = text.slice(0, text.indexOf("event: response.completed"));
    const { endpoint } = native(() => sseAnswer(cut));
    const { events, error } = await drainFailing(
      (await endpoint.send({ body: CLIENT_BODY, stream: true })).events,
    );
    expect(events).toEqual(sseEventsOf(cut));
    expect(error).toMatchObject({ kind: "truncated", partialOutput: true });
  });

  it("a 429 before the stream: the mapped ProviderError, the key in no field", async () => {
    const { endpoint } = native(() =>
      Response.json(
        {
          error: {
            message: `Rate limit reached (${KEY})`,
            type: "requests",
            param: null,
            code: "rate_limit_exceeded",
          },
        },
        { status: 429, headers: { "retry-after": "3" } },
      ),
    );
    const error = await endpoint.send({ body: CLIENT_BODY, stream: true }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: "rate_limit", status: 429, retryAfterMs: 3000 });
    expect(JSON.stringify((error as ProviderError).toJSON())).not.toContain(KEY);
    expect((error as Error).message).not.toContain(KEY);
  });
});
