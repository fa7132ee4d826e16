/**
 * The official `@anthropic-ai/sdk` client against the gateway's /v1/messages, inside workerd, routed to a
 * first-party Anthropic upstream and a Bedrock InvokeModel upstream (native passthrough: signed thinking
 * and tool calls over two turns reach the upstream byte-identical) and to an OpenAI Chat upstream
 * (converted through the neutral model): `messages.create`, `messages.stream`, `countTokens`, and a 429
 * the client surfaces as `RateLimitError`, retried after the upstream's `retry-after`.
 */
import Anthropic, { APIError, RateLimitError } from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { estimateInputTokens } from "../../src/worker/anthropic-dialect/count-tokens.ts";
import {
  ANTHROPIC_BASE,
  anthropicError,
  anthropicEvents,
  anthropicMessage,
  OPENAI_BASE,
  openaiCompletion,
  openaiFrames,
  type UpstreamCall,
} from "./helpers.ts";
import {
  anthropicClient,
  anthropicSse,
  BEDROCK_HOST,
  BEDROCK_MODEL,
  bedrockStream,
  messagesGateway,
  SIGNATURE,
  sse,
  thinkingToolEvents,
  thinkingToolMessage,
  WEATHER_TOOL,
} from "./messages-fixtures.ts";

type Script = (call: UpstreamCall) => { events: Record<string, unknown>[]; message: Record<string, unknown> };

/** The two native upstreams: how each is called, and how it answers a script. */
const natives = [
  {
    route: "claude",
    host: "anthropic.upstream.test",
    answer: (call: UpstreamCall, script: Script): Response => {
      if (call.url === `${ANTHROPIC_BASE}/messages/count_tokens`) return Response.json({ input_tokens: 42 });
      expect(call.url).toBe(`${ANTHROPIC_BASE}/messages`);
      const { events, message } = script(call);
      if (call.body.stream) return sse(anthropicSse(events));
      return Response.json(message, { headers: { "request-id": "req_01TestAnswer" } });
    },
    /** What the upstream must have received for `sent` (the client's body). */
    expectedBody: (sent: Record<string, unknown>) => ({ ...sent, model: "claude-sonnet-4-5" }),
  },
  {
    route: "bedrock",
    host: BEDROCK_HOST,
    answer: (call: UpstreamCall, script: Script): Response => {
      const base = `https://${BEDROCK_HOST}/model/${encodeURIComponent(BEDROCK_MODEL)}`;
      if (
        call.url ===
        `https://${BEDROCK_HOST}/model/${encodeURIComponent("anthropic.claude-sonnet-4-5-20250929-v1:0")}/count-tokens`
      )
        return Response.json({ inputTokens: 42 });
      const { events, message } = script(call);
      if (call.url === `${base}/invoke-with-response-stream`) return bedrockStream(events);
      expect(call.url).toBe(`${base}/invoke`);
      return Response.json(message);
    },
    expectedBody: (sent: Record<string, unknown>) => {
      const { model: _model, stream: _stream, ...rest } = sent;
      return { anthropic_version: "bedrock-2023-05-31", ...rest };
    },
  },
] as const;

const textScript: Script = () => ({
  events: anthropicEvents(["Hello", " there"]),
  message: anthropicMessage("Hello there"),
});

/** Turn 1: think, then call the tool; turn 2 (a tool result in): answer. */
const toolLoop: Script = (call) => {
  const messages = call.body.messages as unknown[];
  return messages.length === 1
    ? { events: thinkingToolEvents(), message: thinkingToolMessage() }
    : {
        events: anthropicEvents(["It is sunny in Paris."]),
        message: anthropicMessage("It is sunny in Paris."),
      };
};

describe.each(natives)("native route $route", ({ route, host, answer, expectedBody }) => {
  it("messages.create: the upstream's Message, the client's body sent as it was (model aside)", async () => {
    const { fetch, calls } = messagesGateway((call) => answer(call, textScript));
    const client = anthropicClient(fetch);
    const params = {
      model: route,
      max_tokens: 256,
      system: "Be brief.",
      messages: [{ role: "user" as const, content: "Say hello" }],
    };
    const { data, response } = await client.messages.create(params).withResponse();
    expect(data.content).toEqual([{ type: "text", text: "Hello there" }]);
    expect(data.usage).toMatchObject({ input_tokens: 472, output_tokens: 89, cache_read_input_tokens: 100 });
    if (route === "claude") expect(response.headers.get("request-id")).toBe("req_01TestAnswer");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.host).toBe(host);
    expect(calls[0]!.body).toEqual(
      expectedBody({ ...params, ...(route === "claude" ? { stream: false } : {}) }),
    );
  });

  it("messages.stream: the upstream's events in order, assembled by the client", async () => {
    const { fetch } = messagesGateway((call) => answer(call, textScript));
    const client = anthropicClient(fetch);
    const stream = client.messages.stream({
      model: route,
      max_tokens: 256,
      messages: [{ role: "user", content: "Say hello" }],
    });
    const pieces: string[] = [];
    stream.on("text", (text) => pieces.push(text));
    const message = await stream.finalMessage();
    expect(pieces).toEqual(["Hello", " there"]);
    expect(message.content).toEqual([{ type: "text", text: "Hello there" }]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage.output_tokens).toBe(89);
  });

  it("the raw stream is the upstream's events, each under its own event: name", async () => {
    const { call } = messagesGateway((upstreamCall) => answer(upstreamCall, textScript));
    const response = await call("/v1/messages", {
      json: { model: route, max_tokens: 64, stream: true, messages: [{ role: "user", content: "hi" }] },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await response.text()).toBe(anthropicSse(anthropicEvents(["Hello", " there"])));
  });

  for (const streamed of [true, false]) {
    it(`thinking with a tool over two turns (${streamed ? "streamed" : "whole"}): the signed blocks go back byte-identical`, async () => {
      const { fetch, calls } = messagesGateway((call) => answer(call, toolLoop));
      const client = anthropicClient(fetch);
      const question = { role: "user" as const, content: "Weather in Paris?" };
      const params = {
        model: route,
        max_tokens: 2048,
        thinking: { type: "enabled" as const, budget_tokens: 1024 },
        tools: [WEATHER_TOOL],
      };
      const first = streamed
        ? await client.messages.stream({ ...params, messages: [question] }).finalMessage()
        : await client.messages.create({ ...params, messages: [question] });
      expect(first.stop_reason).toBe("tool_use");
      expect(first.content[0]).toEqual({
        type: "thinking",
        thinking: "The user wants the weather.",
        signature: SIGNATURE,
      });
      const toolUse = first.content.find((block) => block.type === "tool_use")!;
      expect(toolUse).toMatchObject({ id: "toolu_01Weather", name: "get_weather", input: { city: "Paris" } });

      const followUp = [
        question,
        { role: "assistant" as const, content: first.content },
        {
          role: "user" as const,
          content: [
            { type: "tool_result" as const, tool_use_id: "toolu_01Weather", content: "sunny, 21 °C" },
          ],
        },
      ];
      const second = streamed
        ? await client.messages.stream({ ...params, messages: followUp }).finalMessage()
        : await client.messages.create({ ...params, messages: followUp });
      expect(second.content).toEqual([{ type: "text", text: "It is sunny in Paris." }]);

      expect(calls).toHaveLength(2);
      const sent = calls[1]!.body.messages as { content: unknown[] }[];
      // What the client sent back is what the upstream got, block for block, byte for byte.
      expect(JSON.stringify(sent[1]!.content)).toBe(JSON.stringify(first.content));
      expect(JSON.stringify(sent[1]!.content[0])).toBe(
        JSON.stringify({ type: "thinking", thinking: "The user wants the weather.", signature: SIGNATURE }),
      );
    });
  }

  it("count_tokens with the fields of a create body: those the count does not take are left out, with a warning", async () => {
    const { call, calls } = messagesGateway((upstreamCall) => answer(upstreamCall, textScript));
    const response = await call("/v1/messages/count_tokens", {
      json: {
        model: route,
        max_tokens: 1024,
        stream: true,
        temperature: 0.2,
        messages: [{ role: "user", content: "hi" }],
      },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ input_tokens: 42 });
    expect(JSON.parse(response.headers.get("x-modelwire-warnings")!)).toEqual([
      "count_tokens takes no max_tokens, stream, temperature; left out of the count request",
    ]);
    const sent =
      route === "bedrock"
        ? (JSON.parse(
            atob((calls[0]!.body as { input: { invokeModel: { body: string } } }).input.invokeModel.body),
          ) as Record<string, unknown>)
        : calls[0]!.body;
    expect(sent.temperature).toBeUndefined();
    expect(sent.stream).toBeUndefined();
    // Bedrock's CountTokens validates the InvokeModel body, which needs a max_tokens: the provider adds one.
    expect(sent.max_tokens).toBe(route === "bedrock" ? 1 : undefined);
  });

  it("messages.countTokens: a count the upstream refuses (404, 400) is estimated, said so; a refused key is not", async () => {
    for (const status of [404, 400]) {
      const { fetch } = messagesGateway(() =>
        Response.json(
          {
            type: "error",
            error: {
              type: status === 404 ? "not_found_error" : "invalid_request_error",
              message: "The provided model identifier is invalid.",
            },
          },
          { status },
        ),
      );
      const messages = [{ role: "user" as const, content: "Count me" }];
      const { data, response } = await anthropicClient(fetch)
        .messages.countTokens({ model: route, messages })
        .withResponse();
      expect(data.input_tokens).toBe(estimateInputTokens({ messages }));
      expect(response.headers.get("x-modelwire-token-count")).toBe("estimate");
      expect(JSON.parse(response.headers.get("x-modelwire-warnings")!)).toEqual([
        `count_tokens: the upstream did not count (${status === 404 ? "not_found" : "bad_request"} ${status}); estimated instead`,
      ]);
    }
    const { fetch } = messagesGateway(() =>
      Response.json(
        { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } },
        { status: 401 },
      ),
    );
    const error = await anthropicClient(fetch)
      .messages.countTokens({ model: route, messages: [{ role: "user", content: "Count me" }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
  });

  it("messages.countTokens: the upstream's count, marked as such", async () => {
    const { fetch, calls } = messagesGateway((call) => answer(call, textScript));
    const client = anthropicClient(fetch);
    const { data, response } = await client.messages
      .countTokens({ model: route, messages: [{ role: "user", content: "Count me" }], tools: [WEATHER_TOOL] })
      .withResponse();
    expect(data).toEqual({ input_tokens: 42 });
    expect(response.headers.get("x-modelwire-token-count")).toBe("upstream");
    expect(calls).toHaveLength(1);
    if (route === "bedrock") {
      const body = calls[0]!.body as { input: { invokeModel: { body: string } } };
      const decoded = JSON.parse(atob(body.input.invokeModel.body)) as Record<string, unknown>;
      expect(decoded).toMatchObject({
        anthropic_version: "bedrock-2023-05-31",
        messages: [{ role: "user", content: "Count me" }],
        tools: [WEATHER_TOOL],
      });
      expect(decoded.model).toBeUndefined();
    } else {
      expect(calls[0]!.body).toEqual({
        model: "claude-sonnet-4-5",
        messages: [{ role: "user", content: "Count me" }],
        tools: [WEATHER_TOOL],
      });
    }
  });
});

describe("a 429 from the upstream", () => {
  const limited = (retryAfter: string) => {
    let count = 0;
    return messagesGateway(() => {
      count += 1;
      if (count === 1)
        return anthropicError(
          429,
          "rate_limit_error",
          "Number of request tokens has exceeded your per-minute rate limit",
          {
            "retry-after": retryAfter,
          },
        );
      return Response.json(anthropicMessage("answer two"));
    });
  };

  it("is a RateLimitError with the upstream's type, message and retry-after", async () => {
    const { fetch, calls } = limited("1");
    const client = anthropicClient(fetch, 0);
    const error = await client.messages
      .create({ model: "claude", max_tokens: 16, messages: [{ role: "user", content: "hi" }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RateLimitError);
    const failure = error as RateLimitError;
    expect(failure.status).toBe(429);
    expect(failure.type).toBe("rate_limit_error");
    expect(failure.error).toMatchObject({
      type: "error",
      error: {
        type: "rate_limit_error",
        message: "Number of request tokens has exceeded your per-minute rate limit",
      },
    });
    expect(failure.headers?.get("retry-after")).toBe("1");
    expect(calls).toHaveLength(1);
  });

  it("is retried by the client after the wait it names", async () => {
    const { fetch, calls } = limited("1");
    const client = anthropicClient(fetch, 1);
    const started = Date.now();
    const message = await client.messages.create({
      model: "claude",
      max_tokens: 16,
      messages: [{ role: "user", content: "hi" }],
    });
    expect(message.content).toEqual([{ type: "text", text: "answer two" }]);
    expect(calls).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("streaming: still a plain HTTP 429 before the stream starts", async () => {
    const { fetch } = limited("1");
    const client = anthropicClient(fetch, 0);
    const error = await client.messages
      .stream({ model: "bedrock-less", max_tokens: 16, messages: [{ role: "user", content: "hi" }] })
      .finalMessage()
      .catch((caught: unknown) => caught);
    // An unknown model: a 404 not_found_error, in Anthropic's shape.
    expect(error).toBeInstanceOf(Anthropic.NotFoundError);
    expect((error as Anthropic.NotFoundError).type).toBe("not_found_error");

    const limitedError = await client.messages
      .stream({ model: "claude", max_tokens: 16, messages: [{ role: "user", content: "hi" }] })
      .finalMessage()
      .catch((caught: unknown) => caught);
    expect(limitedError).toBeInstanceOf(RateLimitError);
  });
});

describe("OpenAI Chat route (converted)", () => {
  /** Chat: the weather tool for a fresh question, the answer once the tool result is in. */
  const chatUpstream = (call: UpstreamCall): Response => {
    expect(call.url).toBe(`${OPENAI_BASE}/chat/completions`);
    const messages = call.body.messages as { role: string }[];
    const toolTurn = messages.at(-1)!.role === "user" && (call.body.tools as unknown[] | undefined)?.length;
    if (call.body.stream) {
      return sse(
        openaiFrames(
          "gpt-4o",
          toolTurn ? ["Let me check."] : ["It is ", "sunny."],
          toolTurn
            ? { tool: { id: "call_Weather1", name: "get_weather", pieces: ['{"city":', '"Paris"}'] } }
            : {},
        ).join(""),
      );
    }
    return Response.json(
      toolTurn
        ? openaiCompletion("gpt-4o", "Let me check.", {
            id: "call_Weather1",
            name: "get_weather",
            arguments: '{"city":"Paris"}',
          })
        : openaiCompletion("gpt-4o", "It is sunny."),
    );
  };

  it("messages.create: a Message with the text, the stop reason and the usage", async () => {
    const { fetch, calls } = messagesGateway(chatUpstream);
    const client = anthropicClient(fetch);
    const message = await client.messages.create({
      model: "gpt",
      max_tokens: 100,
      system: [{ type: "text", text: "Be brief." }],
      messages: [
        { role: "assistant", content: "Hi!" },
        { role: "user", content: "Weather?" },
      ],
    });
    expect(message).toMatchObject({
      type: "message",
      role: "assistant",
      model: "gpt",
      content: [{ type: "text", text: "It is sunny." }],
      stop_reason: "end_turn",
      stop_sequence: null,
    });
    expect(message.id).toMatch(/^msg_/);
    // Anthropic's input_tokens is uncached input: 82 prompt tokens, 64 of them from the cache.
    expect(message.usage).toMatchObject({ input_tokens: 18, cache_read_input_tokens: 64, output_tokens: 17 });
    expect(calls[0]!.body.max_completion_tokens ?? calls[0]!.body.max_tokens).toBe(100);
    expect(calls[0]!.body).toMatchObject({
      model: "gpt-4o",
      messages: [
        { role: "system", content: "Be brief." },
        { role: "assistant", content: "Hi!" },
        { role: "user", content: "Weather?" },
      ],
    });
  });

  it("messages.stream: text deltas, the final message and its usage", async () => {
    const { fetch } = messagesGateway(chatUpstream);
    const client = anthropicClient(fetch);
    const stream = client.messages.stream({
      model: "gpt",
      max_tokens: 100,
      messages: [{ role: "user", content: "Weather?" }],
    });
    const pieces: string[] = [];
    stream.on("text", (text) => pieces.push(text));
    const message = await stream.finalMessage();
    expect(pieces.join("")).toBe("It is sunny.");
    expect(message.content).toEqual([{ type: "text", text: "It is sunny." }]);
    expect(message.stop_reason).toBe("end_turn");
    expect(message.usage).toMatchObject({ input_tokens: 18, cache_read_input_tokens: 64, output_tokens: 17 });
  });

  for (const streamed of [true, false]) {
    it(`a tool over two turns (${streamed ? "streamed" : "whole"}): tool_use out, tool_result back as a tool message`, async () => {
      const { fetch, calls } = messagesGateway(chatUpstream);
      const client = anthropicClient(fetch);
      const question = { role: "user" as const, content: "Weather in Paris?" };
      const params = { model: "gpt", max_tokens: 300, tools: [WEATHER_TOOL] };
      const first = streamed
        ? await client.messages.stream({ ...params, messages: [question] }).finalMessage()
        : await client.messages.create({ ...params, messages: [question] });
      expect(first.stop_reason).toBe("tool_use");
      expect(first.content).toEqual([
        { type: "text", text: "Let me check.", ...(streamed ? {} : { citations: null }) },
        { type: "tool_use", id: "call_Weather1", name: "get_weather", input: { city: "Paris" } },
      ]);
      const second = await client.messages.create({
        ...params,
        messages: [
          question,
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "call_Weather1", content: "sunny" }],
          },
        ],
      });
      expect(second.content).toEqual([{ type: "text", text: "It is sunny.", citations: null }]);
      expect(calls[0]!.body.tools).toEqual([
        {
          type: "function",
          function: {
            name: "get_weather",
            description: "Current weather in a city",
            parameters: WEATHER_TOOL.input_schema,
          },
        },
      ]);
      expect(calls[1]!.body.messages).toMatchObject([
        { role: "user", content: "Weather in Paris?" },
        {
          role: "assistant",
          content: "Let me check.",
          tool_calls: [{ id: "call_Weather1", type: "function", function: { name: "get_weather" } }],
        },
        { role: "tool", tool_call_id: "call_Weather1", content: "sunny" },
      ]);
    });
  }

  it("messages.countTokens: an estimate, marked as one", async () => {
    const { fetch, calls } = messagesGateway(chatUpstream);
    const client = anthropicClient(fetch);
    const messages = [{ role: "user" as const, content: "Count me, please." }];
    const { data, response } = await client.messages.countTokens({ model: "gpt", messages }).withResponse();
    expect(response.headers.get("x-modelwire-token-count")).toBe("estimate");
    const json = JSON.stringify({ system: null, messages, tools: [] });
    expect(data.input_tokens).toBe(Math.ceil(json.length / 4));
    expect(calls).toHaveLength(0);
  });

  it("thinking with a tool over two turns: reasoning_content shown as thinking, carried back to a server that wants it", async () => {
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: "ds-1", object: "chat.completion.chunk", created: 1, model: "deepseek-reasoner", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const { fetch, calls } = messagesGateway((call) => {
      expect(call.url).toBe("https://deepseek.upstream.test/v1/chat/completions");
      const messages = call.body.messages as { role: string }[];
      if (messages.at(-1)!.role === "user") {
        return sse(
          [
            chunk({ role: "assistant", content: "", reasoning_content: "Paris weather: " }),
            chunk({ reasoning_content: "use the tool." }),
            chunk({
              tool_calls: [
                {
                  index: 0,
                  id: "call_ds1",
                  type: "function",
                  function: { name: "get_weather", arguments: '{"city":"Paris"}' },
                },
              ],
            }),
            chunk({}, "tool_calls"),
            "data: [DONE]\n\n",
          ].join(""),
        );
      }
      return Response.json(openaiCompletion("deepseek-reasoner", "Sunny."));
    });
    const client = anthropicClient(fetch);
    const params = { model: "deepseek", max_tokens: 500, tools: [WEATHER_TOOL] };
    const question = { role: "user" as const, content: "Weather in Paris?" };
    const first = await client.messages.stream({ ...params, messages: [question] }).finalMessage();
    expect(first.content.map((block) => block.type)).toEqual(["thinking", "tool_use", "thinking"]);
    expect(first.content[0]).toEqual({
      type: "thinking",
      thinking: "Paris weather: use the tool.",
      signature: "",
    });
    expect((first.content[2] as { signature: string }).signature).toMatch(/^mw1\./);
    await client.messages.create({
      ...params,
      messages: [
        question,
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call_ds1", content: "sunny" }] },
      ],
    });
    expect(calls[1]!.body.messages).toEqual([
      { role: "user", content: "Weather in Paris?" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "call_ds1",
            type: "function",
            function: { name: "get_weather", arguments: '{"city":"Paris"}' },
          },
        ],
        reasoning_content: "Paris weather: use the tool.",
      },
      { role: "tool", tool_call_id: "call_ds1", content: "sunny" },
    ]);
  });
});
