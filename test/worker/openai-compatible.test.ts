/**
 * `openaiChat()` against a local OpenAI-compatible fake server, inside workerd (no nodejs_compat).
 *
 * The fake server is a `fetch` handler: it gets a real `Request`, checks it as vLLM would, and answers
 * `/v1/chat/completions` with a real `Response` — JSON, or a streaming body (a `ReadableStream` writing SSE
 * chunks with small delays). It plays a vLLM serving Qwen3 without a tool parser: reasoning arrives as
 * `reasoning_content`, tool calls as Hermes `<tool_call>` text in the content.
 */
import { describe, expect, it } from "vitest";
import {
  collectStream,
  type MessageInput,
  openaiChat,
  ProviderError,
  type StreamEvent,
  sessionAffinity,
} from "../../src/index.ts";

const MODEL = "Qwen/Qwen3-8B";
const BASE_URL = "http://vllm.local:8000/v1";
const WEATHER = {
  name: "weather",
  description: "Current weather for a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

type Json = Record<string, unknown>;

interface ServerLog {
  requests: { url: string; headers: Headers; body: Json }[];
  cancelled: number;
  chunksWritten: number;
}

const encoder = new TextEncoder();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the model "says" for a conversation: a tool call first, the answer once the tool result is in. */
function script(messages: Json[]): { reasoning: string; pieces: string[]; promptTokens: number } {
  const last = messages.at(-1);
  if (last?.role === "tool") {
    return {
      reasoning: "The tool says sunny.",
      pieces: ["It is ", "sunny in ", "Zürich ☀️."],
      promptTokens: 61,
    };
  }
  return {
    reasoning: "The user wants the weather. I should call the tool.",
    // The tag and its JSON arrive cut at awkward places, as token streams do.
    pieces: [
      "Let me ",
      "check.\n<tool",
      '_call>\n{"name": "wea',
      'ther", "arguments": {"city": "Zür',
      'ich"}}\n</tool_',
      "call>",
    ],
    promptTokens: 42,
  };
}

/** A tiny vLLM: `/v1/chat/completions`, streaming or not, as a fetch handler. */
function fakeVllm(log: ServerLog): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (request.method !== "POST" || url.pathname !== "/v1/chat/completions") {
      return Response.json(
        { object: "error", message: "Not Found", type: "NotFoundError", code: 404 },
        { status: 404 },
      );
    }
    let body: Json;
    try {
      body = (await request.json()) as Json;
    } catch {
      return Response.json(
        { object: "error", message: "bad JSON", type: "BadRequestError", code: 400 },
        { status: 400 },
      );
    }
    log.requests.push({ url: request.url, headers: request.headers, body });
    if (body.model !== MODEL) {
      return Response.json(
        {
          object: "error",
          message: `The model \`${String(body.model)}\` does not exist.`,
          type: "NotFoundError",
          code: 404,
        },
        { status: 404 },
      );
    }
    const messages = body.messages as Json[];
    const { reasoning, pieces, promptTokens } = script(messages);
    const content = pieces.join("");
    const usage = { prompt_tokens: promptTokens, completion_tokens: 30, total_tokens: promptTokens + 30 };
    const id = `chatcmpl-${log.requests.length}`;
    const created = 1_760_000_000;

    if (!body.stream) {
      return Response.json({
        id,
        object: "chat.completion",
        created,
        model: MODEL,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content, reasoning_content: reasoning, tool_calls: [] },
            logprobs: null,
            finish_reason: "stop",
            stop_reason: null,
          },
        ],
        usage,
      });
    }

    const chunk = (delta: Json, finish: string | null = null) => ({
      id,
      object: "chat.completion.chunk",
      created,
      model: MODEL,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
    const events: (Json | string)[] = [chunk({ role: "assistant", content: "" })];
    for (const word of reasoning.split(/(?<= )/)) events.push(chunk({ reasoning_content: word }));
    for (const piece of pieces) events.push(chunk({ content: piece }));
    events.push(chunk({ content: "" }, "stop"));
    const includeUsage = (body.stream_options as Json | undefined)?.include_usage === true;
    if (includeUsage)
      events.push({ id, object: "chat.completion.chunk", created, model: MODEL, choices: [], usage });
    events.push("[DONE]");

    let next = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await sleep(1);
        const event = events[next++];
        if (event === undefined) {
          controller.close();
          return;
        }
        log.chunksWritten++;
        controller.enqueue(
          encoder.encode(`data: ${typeof event === "string" ? event : JSON.stringify(event)}\n\n`),
        );
      },
      cancel() {
        log.cancelled++;
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream; charset=utf-8" } });
  };
}

function setup(options: { affinity?: boolean } = {}) {
  const log: ServerLog = { requests: [], cancelled: 0, chunksWritten: 0 };
  const provider = openaiChat({
    model: MODEL,
    baseURL: BASE_URL,
    endpoint: { kind: "vllm", textToolCalls: "hermes" },
    fetch: fakeVllm(log),
    ...(options.affinity ? { affinity: sessionAffinity({ header: "x-session-affinity" }) } : {}),
  });
  return { log, provider };
}

const HISTORY: MessageInput[] = [{ role: "user", content: "Weather in Zürich?" }];

describe("openaiChat() against a fake vLLM, in workerd", () => {
  it("runs inside workerd, not Node", () => {
    expect(navigator.userAgent).toBe("Cloudflare-Workers");
  });

  it("streams reasoning, text and a Hermes text tool call; the tag never reaches text events", async () => {
    const { log, provider } = setup();
    const events: StreamEvent[] = [];
    const response = await collectStream(provider.stream(HISTORY, [WEATHER], { maxTokens: 256 }), {
      onEvent: (event) => events.push(event),
    });
    const [request] = log.requests;
    expect(request!.url).toBe("http://vllm.local:8000/v1/chat/completions");
    expect(request!.headers.has("authorization")).toBe(false);
    expect(request!.body).toMatchObject({
      model: MODEL,
      messages: [{ role: "user", content: "Weather in Zürich?" }],
      max_tokens: 256,
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: "function", function: { name: "weather" } }],
    });

    const text = events.flatMap((e) => (e.type === "text-delta" ? [e.text] : [])).join("");
    expect(text).toBe("Let me check.\n");
    const reasoning = events.flatMap((e) => (e.type === "reasoning-delta" ? [e.text] : [])).join("");
    expect(reasoning).toBe("The user wants the weather. I should call the tool.");
    expect(events.filter((e) => e.type === "reasoning-delta").length).toBeGreaterThan(5);
    expect(events.map((e) => e.type).filter((t) => t.startsWith("tool-call"))).toEqual([
      "tool-call-start",
      "tool-call-delta",
      "tool-call-end",
    ]);
    expect(response.message.toolCalls).toStrictEqual([
      {
        id: "call_chatcmpl-1_0",
        name: "weather",
        arguments: { city: "Zürich" },
        argumentsText: '{"city":"Zürich"}',
      },
    ]);
    expect(response).toMatchObject({
      message: { role: "assistant", content: "Let me check.\n" },
      stopReason: "tool-calls",
      rawStopReason: "stop",
      reasoning,
      usage: { inputTokens: 42, outputTokens: 30 },
      model: MODEL,
      provider: "vllm",
      id: "chatcmpl-1",
    });
    expect(events.at(-1)?.type).toBe("done");
  });

  it("complete() against the same server gives the same response as stream()", async () => {
    const streamed = await collectStream(setup().provider.stream(HISTORY, [WEATHER]));
    const completed = await setup().provider.complete(HISTORY, [WEATHER]);
    expect(completed).toStrictEqual(streamed);
  });

  it("a full tool loop: the call goes back as tool_calls, the result as a tool message", async () => {
    const { log, provider } = setup();
    const first = await collectStream(provider.stream(HISTORY, [WEATHER]));
    const call = first.message.toolCalls[0]!;
    const history: MessageInput[] = [
      ...HISTORY,
      first.message,
      { role: "tool", toolResults: [{ callId: call.id, content: "sunny, 21 °C" }] },
    ];
    const second = await collectStream(provider.stream(history, [WEATHER]));
    expect(second.message.content).toBe("It is sunny in Zürich ☀️.");
    expect(second.message.toolCalls).toEqual([]);
    expect(second.stopReason).toBe("stop");
    expect(second.usage).toStrictEqual({ inputTokens: 61, outputTokens: 30 });
    expect(log.requests[1]!.body.messages).toStrictEqual([
      { role: "user", content: "Weather in Zürich?" },
      {
        role: "assistant",
        content: "Let me check.\n",
        tool_calls: [
          { id: call.id, type: "function", function: { name: "weather", arguments: '{"city":"Zürich"}' } },
        ],
      },
      { role: "tool", tool_call_id: call.id, content: "sunny, 21 °C" },
    ]);
  });

  it("session affinity reaches the server as a header", async () => {
    const { log, provider } = setup({ affinity: true });
    await provider.complete(HISTORY, [WEATHER], { sessionId: "conversation-7" });
    await provider.complete(HISTORY, [WEATHER]);
    expect(log.requests[0]!.headers.get("x-session-affinity")).toBe("conversation-7");
    expect(log.requests[1]!.headers.has("x-session-affinity")).toBe(false);
  });

  it("breaking out of the stream cancels the server's body", async () => {
    const { log, provider } = setup();
    for await (const event of provider.stream(HISTORY, [WEATHER])) {
      if (event.type === "reasoning-delta") break;
    }
    expect(log.cancelled).toBe(1);
    expect(log.chunksWritten).toBeLessThan(8);
  });

  it("server errors become ProviderErrors (an unknown model → not_found)", async () => {
    const log: ServerLog = { requests: [], cancelled: 0, chunksWritten: 0 };
    const wrong = openaiChat({
      model: "no-such-model",
      baseURL: BASE_URL,
      endpoint: "vllm",
      fetch: fakeVllm(log),
    });
    const error = await collectStream(wrong.stream(HISTORY)).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "not_found", status: 404, provider: "vllm", model: "no-such-model" });
  });
});
