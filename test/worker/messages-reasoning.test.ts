/**
 * Reasoning that survives a change of dialect: a Messages client (`@anthropic-ai/sdk`, `@ai-sdk/anthropic`)
 * on an OpenAI Responses route. The route's reasoning item (with its `encrypted_content`) rides in a
 * thinking block's signature — the reasoning envelope — and the client's next request, which replays the
 * block untouched, brings the item back to the Responses upstream byte-identical, in order. The same
 * history sent to another route leaves the envelope out with a warning; to a native Anthropic route the
 * gateway's own thinking blocks are taken out of the body, never sent to be verified.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { unwrapReasoning } from "../../src/worker/reasoning-envelope.ts";
import { anthropicMessage, OPENAI_BASE, parseSse, TOKEN, type UpstreamCall } from "./helpers.ts";
import { anthropicClient, messagesGateway, sse, WEATHER_TOOL } from "./messages-fixtures.ts";

const REASONING = {
  type: "reasoning",
  id: "rs_68af2c1e9d8c81a0b4b3e6f1d2c3a4b5",
  summary: [{ type: "summary_text", text: "Need the weather tool." }],
  encrypted_content:
    "gAAAAABor8QeZ2xXkP0Rz7yqQwJk3nL5pT8vW1aB4cD6eF9gH2iJ5kL8mN1oP4qR7sT0uV3wX6yZ9aB2cD5eF8gH1iJ4kL7mN0oP3qR6sT9uV2w==",
};
const CALL = {
  type: "function_call",
  id: "fc_68af2c1f0a1b81a0b4b3e6f1d2c3a4b5",
  call_id: "call_Rk3mWeather",
  name: "get_weather",
  arguments: '{"city":"Paris"}',
  status: "completed",
};
const ANSWER = {
  type: "message",
  id: "msg_68af2c2a1b2c81a0",
  role: "assistant",
  status: "completed",
  content: [{ type: "output_text", text: "Sunny in Paris.", annotations: [] }],
};

function responseOf(output: unknown[]) {
  return {
    id: "resp_68af2c1d",
    object: "response",
    created_at: 1756310557,
    status: "completed",
    model: "gpt-5-mini-2025-08-07",
    output,
    usage: {
      input_tokens: 75,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 40,
      output_tokens_details: { reasoning_tokens: 24 },
      total_tokens: 115,
    },
  };
}

/** The Responses stream of an answer that reasons, then calls the tool. */
function reasoningToolSse(): string {
  const events = [
    { type: "response.created", response: { ...responseOf([]), status: "in_progress" } },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...REASONING, summary: [], encrypted_content: "gAAAA-partial" },
    },
    {
      type: "response.reasoning_summary_text.delta",
      item_id: REASONING.id,
      output_index: 0,
      summary_index: 0,
      delta: "Need the weather tool.",
    },
    { type: "response.output_item.done", output_index: 0, item: REASONING },
    {
      type: "response.output_item.added",
      output_index: 1,
      item: { ...CALL, arguments: "", status: "in_progress" },
    },
    {
      type: "response.function_call_arguments.delta",
      item_id: CALL.id,
      output_index: 1,
      delta: '{"city":"Paris"}',
    },
    { type: "response.output_item.done", output_index: 1, item: CALL },
    { type: "response.completed", response: responseOf([REASONING, CALL]) },
  ];
  return events
    .map(
      (event, index) =>
        `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n\n`,
    )
    .join("");
}

/** A Responses upstream: reason and call the tool for a fresh question, answer once the result is in. */
function responsesUpstream(call: UpstreamCall): Response {
  if (call.url.startsWith("https://anthropic.upstream.test")) return Response.json(anthropicMessage("Hello"));
  expect(call.url).toBe(`${OPENAI_BASE}/responses`);
  const input = call.body.input as { type?: string }[];
  const answered = input.some((item) => item.type === "function_call_output");
  if (!answered) {
    return call.body.stream ? sse(reasoningToolSse()) : Response.json(responseOf([REASONING, CALL]));
  }
  if (!call.body.stream) return Response.json(responseOf([ANSWER]));
  const events = [
    { type: "response.created", response: { ...responseOf([]), status: "in_progress" } },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...ANSWER, status: "in_progress", content: [] },
    },
    {
      type: "response.output_text.delta",
      item_id: ANSWER.id,
      output_index: 0,
      content_index: 0,
      delta: "Sunny in Paris.",
    },
    { type: "response.output_item.done", output_index: 0, item: ANSWER },
    { type: "response.completed", response: responseOf([ANSWER]) },
  ];
  return sse(
    events
      .map(
        (event, index) =>
          `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n\n`,
      )
      .join(""),
  );
}

const question = { role: "user" as const, content: "Weather in Paris?" };

describe("reasoning across dialects: a Messages client on a Responses route", () => {
  for (const streamed of [true, false]) {
    it(`the reasoning item rides in the signature and comes back byte-identical (${streamed ? "streamed" : "whole"})`, async () => {
      const { fetch, calls } = messagesGateway(responsesUpstream);
      const client = anthropicClient(fetch);
      const params = { model: "responses", max_tokens: 1000, tools: [WEATHER_TOOL] };
      const first = streamed
        ? await client.messages.stream({ ...params, messages: [question] }).finalMessage()
        : await client.messages.create({ ...params, messages: [question] });
      expect(first.stop_reason).toBe("tool_use");
      expect(first.content.map((block) => block.type)).toEqual(["thinking", "tool_use", "thinking"]);
      expect(first.content[0]).toEqual({
        type: "thinking",
        thinking: "Need the weather tool.",
        signature: "",
      });
      expect(first.content[1]).toEqual({
        type: "tool_use",
        id: "call_Rk3mWeather",
        name: "get_weather",
        input: { city: "Paris" },
      });
      const carried = first.content[2] as { thinking: string; signature: string };
      expect(carried.thinking).toBe("");
      expect(unwrapReasoning(carried.signature)).toEqual({
        route: "responses",
        native: {
          protocol: "openai-responses",
          origin: "openai.upstream.test",
          model: "gpt-5-mini",
          blocks: [REASONING, CALL],
        },
      });

      const { data: second, response } = await client.messages
        .create({
          ...params,
          messages: [
            question,
            { role: "assistant", content: first.content },
            {
              role: "user",
              content: [{ type: "tool_result", tool_use_id: "call_Rk3mWeather", content: "sunny" }],
            },
          ],
        })
        .withResponse();
      expect(second.content).toEqual([{ type: "text", text: "Sunny in Paris.", citations: null }]);
      expect(response.headers.get("x-modelwire-warnings")).toBeNull();

      expect(calls).toHaveLength(2);
      const input = calls[1]!.body.input as Record<string, unknown>[];
      expect(input.map((item) => item.type ?? item.role)).toEqual([
        "user",
        "reasoning",
        "function_call",
        "function_call_output",
      ]);
      expect(JSON.stringify(input[1])).toBe(JSON.stringify(REASONING));
      expect(JSON.stringify(input[2])).toBe(JSON.stringify(CALL));
      expect(input[3]).toMatchObject({
        type: "function_call_output",
        call_id: "call_Rk3mWeather",
        output: "sunny",
      });
    });
  }

  it("the raw stream: the envelope is a last thinking block, a signature_delta before message_delta", async () => {
    const { call } = messagesGateway(responsesUpstream);
    const response = await call("/v1/messages", {
      json: {
        model: "responses",
        max_tokens: 1000,
        stream: true,
        tools: [WEATHER_TOOL],
        messages: [question],
      },
    });
    const raw = parseSse(await response.text());
    // Every frame names its type twice: the event: line and the JSON's type.
    for (const frame of raw) expect(frame.event).toBe((JSON.parse(frame.data) as { type: string }).type);
    const frames = raw.map((frame) => JSON.parse(frame.data) as Record<string, unknown>);
    expect(
      frames.map((frame) => `${frame.type}${frame.index === undefined ? "" : `:${frame.index}`}`),
    ).toEqual([
      "message_start",
      "content_block_start:0",
      "content_block_delta:0",
      "content_block_stop:0",
      "content_block_start:1",
      "content_block_delta:1",
      "content_block_stop:1",
      "content_block_start:2",
      "content_block_delta:2",
      "content_block_stop:2",
      "message_delta",
      "message_stop",
    ]);
    expect(frames[7]).toEqual({
      type: "content_block_start",
      index: 2,
      content_block: { type: "thinking", thinking: "", signature: "" },
    });
    expect((frames[8]!.delta as { type: string }).type).toBe("signature_delta");
    expect(frames[10]).toMatchObject({
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { input_tokens: 75, output_tokens: 40, cache_read_input_tokens: 0 },
    });
  });

  it("to another route the envelope is left out with a warning; the turn is rebuilt from its tool call", async () => {
    const { fetch, calls } = messagesGateway(responsesUpstream);
    const client = anthropicClient(fetch);
    const params = { max_tokens: 1000, tools: [WEATHER_TOOL] };
    const first = await client.messages.create({ ...params, model: "responses", messages: [question] });
    const { response } = await client.messages
      .create({
        ...params,
        model: "responses-b",
        messages: [
          question,
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "call_Rk3mWeather", content: "sunny" }],
          },
        ],
      })
      .withResponse();
    const warnings = JSON.parse(response.headers.get("x-modelwire-warnings")!) as string[];
    expect(warnings).toEqual([
      'messages[1]: reasoning carried from route "responses" does not replay on route "responses-b"; left out',
      "messages[1].content[0]: Anthropic thinking, redacted_thinking and server tool blocks mean nothing to this route; left out",
    ]);
    const input = calls[1]!.body.input as Record<string, unknown>[];
    expect(input.some((item) => item.type === "reasoning")).toBe(false);
    expect(JSON.stringify(input)).not.toContain(REASONING.encrypted_content);
    expect(input).toContainEqual(
      expect.objectContaining({ type: "function_call", call_id: "call_Rk3mWeather", name: "get_weather" }),
    );
  });

  it("to a native Anthropic route the gateway's thinking blocks are taken out of the body, with a warning", async () => {
    const { fetch, calls } = messagesGateway(responsesUpstream);
    const client = anthropicClient(fetch);
    const first = await client.messages.create({
      model: "responses",
      max_tokens: 1000,
      tools: [WEATHER_TOOL],
      messages: [question],
    });
    const { response } = await client.messages
      .create({
        model: "claude",
        max_tokens: 1000,
        tools: [WEATHER_TOOL],
        messages: [
          question,
          { role: "assistant", content: first.content },
          {
            role: "user",
            content: [{ type: "tool_result", tool_use_id: "call_Rk3mWeather", content: "sunny" }],
          },
        ],
      })
      .withResponse();
    const warnings = JSON.parse(response.headers.get("x-modelwire-warnings")!) as string[];
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/^messages\[1\]\.content\[0\]: a thinking block the gateway wrote/);
    expect(warnings[1]).toMatch(/^messages\[1\]\.content\[2\]: a thinking block the gateway wrote/);
    const sent = calls[1]!.body.messages as { role: string; content: unknown }[];
    expect(sent[1]).toEqual({
      role: "assistant",
      content: [{ type: "tool_use", id: "call_Rk3mWeather", name: "get_weather", input: { city: "Paris" } }],
    });
  });

  for (const streamed of [false, true]) {
    it(`@ai-sdk/anthropic: ${streamed ? "streamText" : "generateText"} over two steps carries the reasoning item back`, async () => {
      const { fetch, calls } = messagesGateway(responsesUpstream);
      const anthropic = createAnthropic({ baseURL: "http://gateway.test/v1", apiKey: TOKEN, fetch });
      const settings = {
        model: anthropic("responses"),
        tools: {
          get_weather: tool({
            description: "Current weather in a city",
            inputSchema: z.object({ city: z.string() }),
            execute: async () => "sunny",
          }),
        },
        stopWhen: stepCountIs(2),
        prompt: "Weather in Paris?",
      };
      const text = streamed ? await streamText(settings).text : (await generateText(settings)).text;
      expect(text).toBe("Sunny in Paris.");
      expect(calls).toHaveLength(2);
      expect(calls[0]!.body.stream === true).toBe(streamed);
      const input = calls[1]!.body.input as Record<string, unknown>[];
      const reasoning = input.find((item) => item.type === "reasoning");
      expect(JSON.stringify(reasoning)).toBe(JSON.stringify(REASONING));
    });
  }
});
