/** openaiChat(): stream assembly beyond the recordings. */
import { describe, expect, it } from "vitest";
import { collectStream, openaiChat, type StreamEvent } from "../../src/index.ts";
import { chunk, completion, fakeFetch, HI, type Json, sse, sseResponse } from "./openai-chat.helpers.ts";

describe("openaiChat() stream assembly beyond the recordings", () => {
  const provider = (text: string) =>
    openaiChat({
      model: "m",
      endpoint: { kind: "gemini-compat" },
      baseURL: "https://x.example/v1",
      fetch: async () => sseResponse(text, 3),
    });
  const toolDelta = (call: Json) => chunk({ tool_calls: [call] });

  it("tool-call deltas without index (Gemini's compatible API): a new id is a new call, no id continues the last", async () => {
    const response = await collectStream(
      provider(
        sse([
          toolDelta({ id: "call_a", type: "function", function: { name: "weather", arguments: '{"city":' } }),
          toolDelta({ function: { arguments: '"Paris"}' } }),
          toolDelta({
            id: "call_b",
            type: "function",
            function: { name: "time", arguments: '{"tz":"CET"}' },
          }),
          // A server repeating the id on a continuation is the same call.
          toolDelta({ id: "call_b", function: { arguments: "" } }),
          chunk({}, "stop"),
          "[DONE]",
        ]),
      ).stream(HI),
    );
    expect(response.message.toolCalls).toStrictEqual([
      { id: "call_a", name: "weather", arguments: { city: "Paris" }, argumentsText: '{"city":"Paris"}' },
      { id: "call_b", name: "time", arguments: { tz: "CET" }, argumentsText: '{"tz":"CET"}' },
    ]);
    // Gemini streams finish_reason "stop" for tool calls; calls are what the caller must act on.
    expect(response.stopReason).toBe("tool-calls");
  });

  it("a delta without index after indexed ones continues the last call, whatever its wire index", async () => {
    const response = await collectStream(
      provider(
        sse([
          toolDelta({ index: 1, id: "toolu_1", type: "function", function: { name: "read", arguments: "" } }),
          toolDelta({ function: { arguments: '{"path":"a.txt"}' } }),
          chunk({}, "tool_calls"),
          "[DONE]",
        ]),
      ).stream(HI),
    );
    expect(response.message.toolCalls).toStrictEqual([
      { id: "toolu_1", name: "read", arguments: { path: "a.txt" }, argumentsText: '{"path":"a.txt"}' },
    ]);
    expect(response.warnings).toBeUndefined();
  });

  it("parallel calls interleaved by index, id and name once, arguments in pieces", async () => {
    const events: StreamEvent[] = [];
    const response = await collectStream(
      provider(
        sse([
          toolDelta({ index: 0, id: "c0", type: "function", function: { name: "a", arguments: "" } }),
          toolDelta({ index: 1, id: "c1", type: "function", function: { name: "b", arguments: '{"y"' } }),
          toolDelta({ index: 0, function: { arguments: '{"x"' } }),
          toolDelta({ index: 1, function: { arguments: ":2}" } }),
          toolDelta({ index: 0, function: { arguments: ":1}" } }),
          chunk({}, "tool_calls"),
          "[DONE]",
        ]),
      ).stream(HI),
      { onEvent: (event) => events.push(event) },
    );
    expect(response.message.toolCalls.map((c) => [c.id, c.name, c.argumentsText])).toEqual([
      ["c0", "a", '{"x":1}'],
      ["c1", "b", '{"y":2}'],
    ]);
    expect(
      events
        .filter((e) => e.type === "tool-call-delta")
        .map((e) => e.type === "tool-call-delta" && [e.index, e.argumentsDelta]),
    ).toEqual([
      [1, '{"y"'],
      [0, '{"x"'],
      [1, ":2}"],
      [0, ":1}"],
    ]);
  });

  it("a refusal: content-filter, the refusal as content, the same from complete()", async () => {
    const stream = sse([
      chunk({ role: "assistant", content: null, refusal: "" }),
      chunk({ refusal: "I can't " }),
      chunk({ refusal: "help with that." }),
      chunk({}, "stop"),
      "[DONE]",
    ]);
    const json = completion({ content: null, refusal: "I can't help with that." }, { usage: undefined });
    const fetch = fakeFetch((request) =>
      request.body.stream ? sseResponse(stream) : Response.json(json),
    ).fetch;
    const chat = openaiChat({ model: "m", endpoint: "generic", baseURL: "https://x.example/v1", fetch });
    const streamed = await collectStream(chat.stream(HI));
    expect(streamed).toMatchObject({
      message: { content: "I can't help with that." },
      stopReason: "content-filter",
      rawStopReason: "stop",
    });
    expect(streamed.message.native?.blocks).toEqual([
      { role: "assistant", content: null, refusal: "I can't help with that." },
    ]);
    expect(await chat.complete(HI)).toStrictEqual(streamed);
  });

  it("usage: DeepSeek's prompt_cache_hit_tokens count as cached input; absent details stay undefined", async () => {
    const response = await collectStream(
      provider(
        sse([
          chunk({ content: "hi" }, "stop"),
          {
            id: "chatcmpl-1",
            choices: [],
            usage: {
              prompt_tokens: 10,
              completion_tokens: 3,
              prompt_cache_hit_tokens: 4,
              prompt_cache_miss_tokens: 6,
            },
          },
          "[DONE]",
        ]),
      ).stream(HI),
    );
    expect(response.usage).toStrictEqual({ inputTokens: 6, cachedInputTokens: 4, outputTokens: 3 });
  });
});
