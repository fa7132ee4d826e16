/** bedrock(api: converse): requests and answers of the Converse API. */
import { describe, expect, it } from "vitest";
import type { MessageInput } from "../../src/index.ts";
import { coalesceDeltas } from "../../src/protocols/index.ts";
import { bedrock } from "../../src/providers/bedrock.ts";
import { converseFrames } from "../helpers/bedrock-frames.ts";
import {
  BEARER,
  CLAUDE,
  CONVERSE_EVENTS,
  CONVERSE_JSON,
  collect,
  eventStream,
  fakeFetch,
  HISTORY,
  type Json,
  json,
  quiet,
} from "./bedrock.helpers.ts";

describe("bedrock(api: converse)", () => {
  it("stream() equals complete() for the same output, with reasoning, text and a tool call", async () => {
    const { fetch } = fakeFetch((request) =>
      request.url.endsWith("-stream")
        ? eventStream(converseFrames(CONVERSE_EVENTS), [2, 9, 1])
        : json(CONVERSE_JSON),
    );
    const provider = bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api: "converse",
      apiKey: BEARER,
      fetch,
      ...quiet,
    });
    const streamed = await collect(provider.stream(HISTORY));
    const completed = await provider.complete(HISTORY);
    expect(streamed.response).toEqual(completed);
    expect(completed).toMatchObject({
      provider: "bedrock",
      model: CLAUDE,
      stopReason: "tool-calls",
      rawStopReason: "tool_use",
      reasoning: "Weather lookup.",
      usage: { inputTokens: 30, outputTokens: 20, cachedInputTokens: 10, cacheWriteTokens: 0 },
      message: {
        content: "Checking Paris.",
        toolCalls: [{ id: "tooluse_abc123", name: "weather", arguments: { city: "Paris" } }],
        native: { protocol: "bedrock-converse", origin: "bedrock", model: CLAUDE },
      },
    });
    const content = streamed.events
      .filter((event) => event.type !== "usage" && event.type !== "done")
      .map((event) => ({ ...event }));
    coalesceDeltas(content);
    expect(content).toEqual([
      { type: "reasoning-delta", text: "Weather lookup." },
      { type: "text-delta", text: "Checking Paris." },
      { type: "tool-call-start", index: 0, id: "tooluse_abc123", name: "weather" },
      { type: "tool-call-delta", index: 0, id: "tooluse_abc123", argumentsDelta: '{"city":"Paris"}' },
      {
        type: "tool-call-end",
        index: 0,
        toolCall: { id: "tooluse_abc123", name: "weather", arguments: { city: "Paris" } },
      },
    ]);
    expect(streamed.events.filter((event) => event.type === "usage")).toEqual([
      {
        type: "usage",
        usage: { inputTokens: 30, outputTokens: 20, cachedInputTokens: 10, cacheWriteTokens: 0 },
      },
    ]);
  });

  it("sends the Converse body: toolConfig, inferenceConfig, Claude thinking, cache points; replays reasoning", async () => {
    const { fetch, requests } = fakeFetch(() => eventStream(converseFrames(CONVERSE_EVENTS)));
    const provider = bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api: "converse",
      apiKey: BEARER,
      fetch,
      ...quiet,
    });
    const tools = [
      {
        name: "weather",
        description: "Weather by city",
        parameters: { type: "object", properties: { city: { type: "string" } } },
      },
    ];
    const history: MessageInput[] = [{ role: "system", content: "Be brief." }, ...HISTORY];
    const first = await collect(
      provider.stream(history, tools, { thinking: { budgetTokens: 500 }, maxTokens: 800, temperature: 0.3 }),
    );
    const body = requests[0]!.json;
    expect(body).toEqual({
      messages: [
        {
          role: "user",
          content: [{ text: "What is the weather in Paris?" }, { cachePoint: { type: "default" } }],
        },
      ],
      system: [{ text: "Be brief." }, { cachePoint: { type: "default" } }],
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: "weather",
              description: "Weather by city",
              inputSchema: { json: { type: "object", properties: { city: { type: "string" } } } },
            },
          },
          { cachePoint: { type: "default" } },
        ],
      },
      inferenceConfig: { maxTokens: 1025 },
      additionalModelRequestFields: { thinking: { type: "enabled", budget_tokens: 1024 } },
    });
    expect(first.response.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining("below the API minimum"),
        expect.stringContaining("max_tokens 800"),
        expect.stringContaining("temperature 0.3"),
      ]),
    );
    // Next turn: the reasoning block goes back verbatim, the tool result is paired.
    await collect(
      provider.stream(
        [
          ...history,
          first.response.message,
          { role: "tool", toolResults: [{ callId: "tooluse_abc123", content: "18°C" }] },
        ],
        tools,
      ),
    );
    const messages = requests[1]!.json.messages as Json[];
    expect(messages[1]).toEqual({ role: "assistant", content: first.response.message.native!.blocks });
    expect(messages[2]).toEqual({
      role: "user",
      content: [
        { toolResult: { toolUseId: "tooluse_abc123", content: [{ text: "18°C" }] } },
        { cachePoint: { type: "default" } },
      ],
    });
  });

  it("non-Claude models: no cache points by default, no status field, thinking reported", async () => {
    const { fetch, requests } = fakeFetch(() => json(CONVERSE_JSON));
    const provider = bedrock({
      region: "us-east-1",
      model: "meta.llama3-70b-instruct-v1:0",
      api: "converse",
      apiKey: BEARER,
      fetch,
      ...quiet,
    });
    const response = await provider.complete(
      [
        ...HISTORY,
        { role: "assistant", toolCalls: [{ id: "t1", name: "weather", arguments: { city: "Paris" } }] },
        { role: "tool", toolResults: [{ callId: "t1", content: "boom", isError: true }] },
      ],
      [{ name: "weather" }],
      { thinking: "adaptive", temperature: 0.2 },
    );
    const body = requests[0]!.json;
    expect(JSON.stringify(body)).not.toContain("cachePoint");
    expect((body.messages as Json[])[2]).toEqual({
      role: "user",
      content: [{ toolResult: { toolUseId: "t1", content: [{ text: "Error: boom" }] } }],
    });
    expect(body.inferenceConfig).toEqual({ temperature: 0.2 });
    expect(body).not.toHaveProperty("additionalModelRequestFields");
    expect(response.warnings?.join(" ")).toContain("thinking is only mapped for Claude");
  });
});
