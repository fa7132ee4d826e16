/**
 * The official `openai` npm client (7.x, loaded inside workerd without nodejs_compat) talking to the
 * gateway's /v1/chat/completions: the deployed Worker's demo route, and an Anthropic-backed route of a
 * `createWorker()` gateway whose upstream is faked at the fetch layer — content, tool calls both ways,
 * usage with `stream_options.include_usage`, errors and aborts.
 */
import { exports } from "cloudflare:workers";
import OpenAI, { APIError } from "openai";
import { describe, expect, it } from "vitest";
import {
  ANTHROPIC_BASE,
  ANTHROPIC_KEY,
  anthropicError,
  anthropicEvents,
  anthropicFrames,
  anthropicMessage,
  gateway,
  gatewayEnv,
  sseResponse,
  streamBody,
  TOKEN,
  type UpstreamHandler,
  waitFor,
} from "./helpers.ts";

const WEATHER_TOOL: OpenAI.Chat.Completions.ChatCompletionFunctionTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather in a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

/** A client for the deployed Worker (its own env and Durable Objects). */
function workerClient(): OpenAI {
  return new OpenAI({
    apiKey: TOKEN,
    baseURL: "http://worker.test/v1",
    maxRetries: 0,
    fetch: (url, init) => exports.default.fetch(new Request(url, init)),
  });
}

/** A client for a `createWorker()` gateway over fake upstreams. */
function gatewayClient(handler: UpstreamHandler) {
  const { worker, calls } = gateway(handler);
  const client = new OpenAI({
    apiKey: TOKEN,
    baseURL: "http://gateway.test/v1",
    maxRetries: 0,
    fetch: async (url, init) => worker.app.fetch(new Request(url, init), gatewayEnv),
  });
  return { client, calls };
}

/** Anthropic: a tool call for a fresh question, the answer once the tool result is in. */
const anthropicUpstream: UpstreamHandler = (call) => {
  expect(call.url).toBe(`${ANTHROPIC_BASE}/messages`);
  const messages = call.body.messages as { role: string; content: { type: string }[] }[];
  const answered = messages.at(-1)!.content.some((block) => block.type === "tool_result");
  if (call.body.stream !== true) {
    return Response.json(
      answered
        ? anthropicMessage("It is 18 °C and sunny in Paris.")
        : anthropicMessage("Let me check.", {
            id: "toolu_01A09q90qw90lq917835lq9",
            name: "get_weather",
            input: { city: "Paris" },
          }),
    );
  }
  return sseResponse(
    streamBody(
      anthropicFrames(
        answered
          ? anthropicEvents(["It is 18 °C ", "and sunny ", "in Paris."])
          : anthropicEvents(["Let me ", "check."], {
              id: "toolu_01A09q90qw90lq917835lq9",
              name: "get_weather",
              pieces: ['{"city"', ': "Par', 'is"}'],
            }),
      ),
    ),
  );
};

describe("the openai client against the deployed Worker (demo route)", () => {
  it("lists the models", async () => {
    const models = [];
    for await (const model of workerClient().models.list()) models.push(model.id);
    expect(models).toEqual(expect.arrayContaining(["demo", "local"]));
  });

  it("non-streaming: content, finish_reason and usage", async () => {
    const completion = await workerClient().chat.completions.create({
      model: "demo",
      messages: [
        { role: "system", content: "Be nice." },
        { role: "user", content: "hi there" },
      ],
    });
    expect(completion.object).toBe("chat.completion");
    expect(completion.model).toBe("demo");
    expect(completion.choices[0]!.message).toMatchObject({
      role: "assistant",
      content: "Hello from the modelwire demo route. You said: hi there",
    });
    expect(completion.choices[0]!.finish_reason).toBe("stop");
    expect(completion.usage).toMatchObject({ completion_tokens: 12 });
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + 12);
  });

  it("streaming with include_usage: text deltas, the finish reason, then the usage chunk", async () => {
    const stream = await workerClient().chat.completions.create({
      model: "demo",
      messages: [{ role: "user", content: "stream please" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks++;
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? "";
        if (choice.finish_reason) finishes.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(chunks).toBeGreaterThan(3);
    expect(text).toBe("Hello from the modelwire demo route. You said: stream please");
    expect(finishes).toEqual(["stop"]);
    expect(usage).toMatchObject({ completion_tokens: 12 });
  });

  it("the client sends tools; the demo route answers with a tool call (streamed and not)", async () => {
    const client = workerClient();
    const shout: OpenAI.Chat.Completions.ChatCompletionFunctionTool = {
      type: "function",
      function: { name: "shout", parameters: { type: "object", properties: { text: { type: "string" } } } },
    };
    const completion = await client.chat.completions.create({
      model: "demo",
      messages: [{ role: "user", content: "loud" }],
      tools: [shout],
    });
    expect(completion.choices[0]!.finish_reason).toBe("tool_calls");
    const [call] = completion.choices[0]!.message.tool_calls!;
    expect(call).toMatchObject({ type: "function", function: { name: "shout" } });
    expect(
      JSON.parse((call as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall).function.arguments),
    ).toEqual({
      text: "loud",
    });

    // The same turn streamed, assembled by the client's own helper.
    const runner = client.chat.completions.stream({
      model: "demo",
      messages: [{ role: "user", content: "loud" }],
      tools: [shout],
      stream_options: { include_usage: true },
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(final.choices[0]!.message.tool_calls).toMatchObject([
      { type: "function", function: { name: "shout", arguments: '{"text":"loud"}' } },
    ]);
    expect(final.usage).toMatchObject({ completion_tokens: 12 });
  });

  it("a wrong token: the client raises AuthenticationError", async () => {
    const client = new OpenAI({
      apiKey: "not-a-token",
      baseURL: "http://worker.test/v1",
      maxRetries: 0,
      fetch: (url, init) => exports.default.fetch(new Request(url, init)),
    });
    const error = await client.chat.completions
      .create({ model: "demo", messages: [{ role: "user", content: "hi" }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as APIError).status).toBe(401);
  });
});

describe("the openai client against an Anthropic-backed route", () => {
  it("non-streaming: a tool call out, the tool result back in, the answer, usage", async () => {
    const { client, calls } = gatewayClient(anthropicUpstream);
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: "system", content: "You report the weather." },
      { role: "user", content: "Weather in Paris?" },
    ];
    const first = await client.chat.completions.create({
      model: "claude",
      messages,
      tools: [WEATHER_TOOL],
      max_tokens: 400,
    });
    expect(first.model).toBe("claude");
    expect(first.choices[0]!.finish_reason).toBe("tool_calls");
    const message = first.choices[0]!.message;
    expect(message.content).toBe("Let me check.");
    expect(message.tool_calls).toEqual([
      {
        id: "toolu_01A09q90qw90lq917835lq9",
        type: "function",
        function: { name: "get_weather", arguments: '{"city":"Paris"}' },
      },
    ]);
    expect(first.usage).toMatchObject({
      prompt_tokens: 572,
      completion_tokens: 89,
      total_tokens: 661,
      prompt_tokens_details: { cached_tokens: 100 },
    });
    // What Anthropic received: its own shapes, the route's key, the configured URL.
    expect(calls[0]!.headers.get("x-api-key")).toBe(ANTHROPIC_KEY);
    expect(calls[0]!.body).toMatchObject({
      model: "claude-sonnet-4-5",
      max_tokens: 400,
      system: [{ type: "text", text: "You report the weather." }],
      tools: [
        {
          name: "get_weather",
          description: "Current weather in a city",
          input_schema: WEATHER_TOOL.function.parameters,
        },
      ],
    });

    messages.push(message, {
      role: "tool",
      tool_call_id: message.tool_calls![0]!.id,
      content: "18 °C, sunny",
    });
    const second = await client.chat.completions.create({ model: "claude", messages, tools: [WEATHER_TOOL] });
    expect(second.choices[0]!.message.content).toBe("It is 18 °C and sunny in Paris.");
    expect(second.choices[0]!.finish_reason).toBe("stop");
    // The tool round trip reached Anthropic as tool_use / tool_result blocks.
    expect(calls[1]!.body.messages).toMatchObject([
      { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Let me check." },
          {
            type: "tool_use",
            id: "toolu_01A09q90qw90lq917835lq9",
            name: "get_weather",
            input: { city: "Paris" },
          },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_01A09q90qw90lq917835lq9", content: "18 °C, sunny" },
        ],
      },
    ]);
  });

  it("streaming: text and tool-call deltas, finish reason, usage with include_usage", async () => {
    const { client, calls } = gatewayClient(anthropicUpstream);
    const stream = await client.chat.completions.create({
      model: "claude",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      tools: [WEATHER_TOOL],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    const toolCalls = new Map<number, { id?: string; name?: string; arguments: string }>();
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      for (const choice of chunk.choices) {
        text += choice.delta.content ?? "";
        for (const delta of choice.delta.tool_calls ?? []) {
          const entry = toolCalls.get(delta.index) ?? { arguments: "" };
          if (delta.id) entry.id = delta.id;
          if (delta.function?.name) entry.name = delta.function.name;
          entry.arguments += delta.function?.arguments ?? "";
          toolCalls.set(delta.index, entry);
        }
        if (choice.finish_reason) finishes.push(choice.finish_reason);
      }
      if (chunk.usage) usage = chunk.usage;
    }
    expect(calls[0]!.body.stream).toBe(true);
    expect(text).toBe("Let me check.");
    expect([...toolCalls.values()]).toEqual([
      { id: "toolu_01A09q90qw90lq917835lq9", name: "get_weather", arguments: '{"city": "Paris"}' },
    ]);
    expect(finishes).toEqual(["tool_calls"]);
    expect(usage).toMatchObject({ prompt_tokens: 572, completion_tokens: 89, total_tokens: 661 });
  });

  it("streaming without include_usage: no usage chunk", async () => {
    const { client } = gatewayClient(anthropicUpstream);
    const stream = await client.chat.completions.create({
      model: "claude",
      messages: [{ role: "user", content: "Weather in Paris?" }],
      stream: true,
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
    expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
  });

  it("an upstream 429 before output: RateLimitError with status 429, no key in the error", async () => {
    const { client } = gatewayClient(() =>
      anthropicError(429, "rate_limit_error", `rate limited for key ${ANTHROPIC_KEY}`, {
        "retry-after": "3",
      }),
    );
    for (const stream of [false, true]) {
      const error = await client.chat.completions
        .create({ model: "claude", messages: [{ role: "user", content: "hi" }], stream })
        .catch((caught: unknown) => caught);
      expect(error, `stream: ${stream}`).toBeInstanceOf(OpenAI.RateLimitError);
      expect((error as APIError).status).toBe(429);
      expect(JSON.stringify((error as APIError).error)).not.toContain(ANTHROPIC_KEY);
      expect((error as APIError).message).not.toContain(ANTHROPIC_KEY);
    }
  });

  it("an upstream cut mid-stream surfaces as an error in the client, not a clean end", async () => {
    const { client } = gatewayClient(() =>
      sseResponse(
        streamBody(anthropicFrames(anthropicEvents(["Partial ", "answer ", "then ", "nothing"])).slice(0, 5)),
      ),
    );
    const stream = await client.chat.completions.create({
      model: "claude",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    let text = "";
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    })().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    // message_start, content_block_start, ping, then two text deltas went out before the cut.
    expect(text).toBe("Partial answer ");
    expect(error).toBeInstanceOf(APIError);
    // The client reads the gateway's final `data: {"error": …}` frame, in OpenAI's shape.
    expect((error as APIError).error).toEqual({
      message: expect.stringContaining("stream ended"),
      type: "server_error",
      param: null,
      code: "server_error",
    });
    expect((error as APIError).message).toContain(
      (error as APIError & { error: { message: string } }).error.message,
    );
  });

  it("breaking out of the client's stream aborts the upstream fetch", async () => {
    let signal: AbortSignal | undefined;
    const { client } = gatewayClient((upstream) => {
      signal = upstream.signal;
      return sseResponse(
        streamBody(anthropicFrames(anthropicEvents(["Hello"])).slice(0, 4), {
          end: "hang",
          signal: upstream.signal,
        }),
      );
    });
    const stream = await client.chat.completions.create({
      model: "claude",
      messages: [{ role: "user", content: "hi" }],
      stream: true,
    });
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) break;
    }
    await waitFor(() => signal?.aborted);
  });
});
