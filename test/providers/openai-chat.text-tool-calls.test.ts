/** openaiChat(): tool calls written as text by servers without a tool parser (vLLM). */
import { describe, expect, it } from "vitest";
import { collectStream, openaiChat, type StreamEvent } from "../../src/index.ts";
import {
  chunk,
  completion,
  fakeFetch,
  HI,
  type Json,
  sse,
  sseResponse,
  WEATHER,
} from "./openai-chat.helpers.ts";

describe("openaiChat() tool calls written as text (vLLM without a tool parser)", () => {
  const HERMES_CONTENT =
    'Let me check the weather.\n<tool_call>\n{"name": "weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "weather", "arguments": {"city": "Zürich <tool_call>"}}\n</tool_call>';

  function server(content: string, pieceSize: number, reasoning = "") {
    const pieces: string[] = [];
    for (let i = 0; i < content.length; i += pieceSize) pieces.push(content.slice(i, i + pieceSize));
    const stream = sse([
      chunk({ role: "assistant", content: "" }),
      ...(reasoning ? [chunk({ reasoning_content: reasoning })] : []),
      ...pieces.map((piece) => chunk({ content: piece })),
      chunk({}, "stop"),
      {
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        model: "served-model",
        choices: [],
        usage: { prompt_tokens: 30, completion_tokens: 40 },
      },
      "[DONE]",
    ]);
    const json = completion(
      { content, ...(reasoning ? { reasoning_content: reasoning } : {}) },
      { usage: { prompt_tokens: 30, completion_tokens: 40 } },
    );
    return fakeFetch((request) => (request.body.stream ? sseResponse(stream, 7) : Response.json(json)));
  }

  const provider = (fetch: typeof globalThis.fetch) =>
    openaiChat({ model: "Qwen/Qwen3-8B", endpoint: { kind: "vllm", textToolCalls: "hermes" }, fetch });

  for (const pieceSize of [1, 2, 3, 5, 11, 1000]) {
    it(`stream() and complete() give the same response; the tag never reaches text events (deltas of ${pieceSize})`, async () => {
      const { fetch } = server(HERMES_CONTENT, pieceSize, "Need the weather.");
      const events: StreamEvent[] = [];
      const streamed = await collectStream(provider(fetch).stream(HI, [WEATHER]), {
        onEvent: (e) => events.push(e),
      });
      const completed = await provider(fetch).complete(HI, [WEATHER]);
      expect(streamed).toStrictEqual(completed);
      const text = events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");
      // The newline between the two calls is text too: nothing the model wrote outside a tag is dropped.
      expect(text).toBe("Let me check the weather.\n\n");
      expect(text).not.toContain("<tool");
      expect(streamed.message.content).toBe(text);
      expect(streamed.message.toolCalls).toStrictEqual([
        {
          id: "call_chatcmpl-1_0",
          name: "weather",
          arguments: { city: "Paris" },
          argumentsText: '{"city":"Paris"}',
        },
        {
          id: "call_chatcmpl-1_1",
          name: "weather",
          arguments: { city: "Zürich <tool_call>" },
          argumentsText: '{"city":"Zürich <tool_call>"}',
        },
      ]);
      expect(streamed.stopReason).toBe("tool-calls");
      expect(streamed.rawStopReason).toBe("stop");
      expect(streamed.reasoning).toBe("Need the weather.");
      expect(streamed.usage).toStrictEqual({ inputTokens: 30, outputTokens: 40 });
      // Tool-call events for both calls, in order, ending before done.
      expect(
        events.filter((e) => e.type === "tool-call-start").map((e) => e.type === "tool-call-start" && e.name),
      ).toEqual(["weather", "weather"]);
      expect(events.filter((e) => e.type === "tool-call-end")).toHaveLength(2);
      // Text before the first tag went out before any tool event. (The newline between the tags may come
      // before the first call's events when one delta completes the tag and carries it: the scanner hands
      // text and calls back separately per delta.)
      const firstTool = events.findIndex((e) => e.type === "tool-call-start");
      const before = events.slice(0, firstTool).flatMap((e) => (e.type === "text-delta" ? [e.text] : []));
      expect(before.join("")).toMatch(/^Let me check the weather\.\n\n?$/);
    });
  }

  it("text before a tag is yielded while the tag is still open (nothing waits for the end of the body)", async () => {
    const encoder = new TextEncoder();
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
    });
    const send = (data: Json | string) => controller.enqueue(encoder.encode(sse([data])));
    const push = (delta: Json) => send(chunk(delta));
    const stream = provider(async () => new Response(body)).stream(HI, [WEATHER]);
    const iterator = stream[Symbol.asyncIterator]();
    const next = () =>
      Promise.race([
        iterator.next(),
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("no event: text held back")), 1000),
        ),
      ]);
    push({ role: "assistant", content: "" });
    push({ content: "Let me check" });
    push({ content: " the weather.\n<tool" });
    push({ content: '_call>\n{"name": "weather", "arg' });
    let text = "";
    while (text !== "Let me check the weather.\n") {
      const { value } = await next();
      expect(value?.type).toBe("text-delta");
      if (value?.type === "text-delta") text += value.text;
    }
    push({ content: 'uments": {"city": "Paris"}}\n</tool_call>' });
    send(chunk({}, "stop"));
    send("[DONE]");
    controller.close();
    const rest: StreamEvent[] = [];
    for (let step = await next(); !step.done; step = await next()) rest.push(step.value);
    expect(rest.map((e) => e.type)).toEqual(["tool-call-start", "tool-call-delta", "tool-call-end", "done"]);
    expect(rest.some((e) => e.type === "text-delta")).toBe(false);
  });

  it("the replayed assistant turn sends the calls as tool_calls, not as text", async () => {
    const { fetch, requests } = server(HERMES_CONTENT, 4);
    const response = await collectStream(provider(fetch).stream(HI, [WEATHER]));
    await provider(fetch)
      .complete(
        [
          ...HI,
          response.message,
          {
            role: "tool",
            toolResults: response.message.toolCalls.map((c) => ({ callId: c.id, content: "sunny" })),
          },
        ],
        [WEATHER],
      )
      .catch(() => undefined);
    const replay = requests[1]!.body.messages as Json[];
    expect(replay[1]).toStrictEqual({
      role: "assistant",
      content: "Let me check the weather.\n\n",
      tool_calls: response.message.toolCalls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.argumentsText },
      })),
    });
    expect(replay.slice(2).map((m) => m.role)).toEqual(["tool", "tool"]);
  });

  it("a malformed tag stays text, with a warning, in both paths", async () => {
    const content = 'Sure.\n<tool_call>\n{"name": "weather", "arguments": {"city": \n</tool_call> done';
    for (const size of [1, 4, 1000]) {
      const { fetch } = server(content, size);
      const streamed = await collectStream(provider(fetch).stream(HI, [WEATHER]));
      const completed = await provider(fetch).complete(HI, [WEATHER]);
      expect(streamed).toStrictEqual(completed);
      expect(streamed.message.content).toBe(content);
      expect(streamed.message.toolCalls).toEqual([]);
      expect(streamed.stopReason).toBe("stop");
      expect(streamed.warnings?.length).toBeGreaterThan(0);
    }
  });

  it("without textToolCalls in the profile, the same text is just text", async () => {
    const { fetch } = server(HERMES_CONTENT, 3);
    const plain = openaiChat({ model: "Qwen/Qwen3-8B", endpoint: "vllm", fetch });
    const streamed = await collectStream(plain.stream(HI, [WEATHER]));
    expect(streamed.message.content).toBe(HERMES_CONTENT);
    expect(streamed.message.toolCalls).toEqual([]);
    expect(await plain.complete(HI, [WEATHER])).toStrictEqual(streamed);
  });
});
