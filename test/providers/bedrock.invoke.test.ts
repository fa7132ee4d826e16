/** bedrock(api: invoke): the Anthropic Messages body, and the same output as the first-party API. */
import { describe, expect, it } from "vitest";
import { anthropic, type MessageInput } from "../../src/index.ts";
import { bedrock } from "../../src/providers/bedrock.ts";
import { invokeFrames } from "../helpers/bedrock-frames.ts";
import {
  BEARER,
  CLAUDE,
  collect,
  eventStream,
  fakeFetch,
  HISTORY,
  invokeMessageJson,
  type Json,
  json,
  outcome,
  provenance,
  quiet,
  recordedAnthropicMessages,
  SIGNATURE,
  THINKING_TOOL_EVENTS,
} from "./bedrock.helpers.ts";

describe("bedrock(api: invoke): the Anthropic Messages body, and the same output as the first-party API", () => {
  it("sends anthropic_version and no model, no stream field; betas as anthropic_beta; metadata left out", async () => {
    const { fetch, requests } = fakeFetch(() => eventStream(invokeFrames(THINKING_TOOL_EVENTS)));
    const provider = bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api: "invoke",
      apiKey: BEARER,
      betas: ["interleaved-thinking-2025-05-14"],
      fetch,
      ...quiet,
    });
    const { response } = await collect(
      provider.stream(HISTORY, [{ name: "weather", parameters: { type: "object" } }], {
        thinking: { budgetTokens: 2000 },
        maxTokens: 1000,
        metadata: { user_id: "u-1" },
      }),
    );
    const body = requests[0]!.json;
    expect(body.anthropic_version).toBe("bedrock-2023-05-31");
    expect(body).not.toHaveProperty("model");
    expect(body).not.toHaveProperty("stream");
    expect(body).not.toHaveProperty("metadata");
    expect(body.anthropic_beta).toEqual(["interleaved-thinking-2025-05-14"]);
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 2000 });
    expect(body.max_tokens).toBe(2001);
    expect(response.warnings).toEqual(
      expect.arrayContaining([
        expect.stringContaining("metadata.user_id"),
        expect.stringContaining("max_tokens 1000"),
      ]),
    );
  });

  it("a stream with thinking (signed), redacted_thinking and tool_use: the Response of the first-party stream", async () => {
    const sse = THINKING_TOOL_EVENTS.map(
      (event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`,
    ).join("");
    const firstParty = anthropic({
      apiKey: "sk-ant-test-0000000000000000",
      model: "claude-sonnet-4-5",
      fetch: async () => new Response(sse, { headers: { "content-type": "text/event-stream" } }),
    });
    const viaSse = await collect(firstParty.stream(HISTORY));
    const { fetch } = fakeFetch(() => eventStream(invokeFrames(THINKING_TOOL_EVENTS), [1, 7, 2, 19, 3]));
    const viaBedrock = await collect(
      bedrock({ region: "us-east-1", model: CLAUDE, api: "invoke", apiKey: BEARER, fetch, ...quiet }).stream(
        HISTORY,
      ),
    );
    expect(viaBedrock.response).toEqual(provenance(viaSse.response, CLAUDE));
    const blocks = viaBedrock.response.message.native!.blocks as Json[];
    expect(blocks).toEqual([
      { type: "thinking", thinking: "The user wants the weather.", signature: SIGNATURE },
      { type: "redacted_thinking", data: "RW5jcnlwdGVk" },
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "toolu_bdrk_01", name: "weather", input: { city: "Paris" } },
    ]);
    expect(viaBedrock.response.message.toolCalls).toEqual([
      { id: "toolu_bdrk_01", name: "weather", arguments: { city: "Paris" } },
    ]);
    expect(viaBedrock.response.usage).toEqual({
      inputTokens: 50,
      outputTokens: 42,
      cachedInputTokens: 10,
      cacheWriteTokens: 0,
    });
  });

  it("every recorded first-party Anthropic message, wrapped in Bedrock chunk frames, gives the same outcome", async () => {
    const messages = await recordedAnthropicMessages();
    expect(messages.length).toBeGreaterThanOrEqual(25);
    let thinkingAndTools = 0;
    for (const { name, events } of messages) {
      const sse = events
        .map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`)
        .join("");
      const firstParty = anthropic({
        apiKey: "sk-ant-test-0000000000000000",
        model: "claude-sonnet-4-5",
        fetch: async () => new Response(sse, { headers: { "content-type": "text/event-stream" } }),
      });
      const { fetch } = fakeFetch(() => eventStream(invokeFrames(events), [3, 1, 11]));
      const onBedrock = bedrock({
        region: "us-east-1",
        model: CLAUDE,
        api: "invoke",
        apiKey: BEARER,
        fetch,
        ...quiet,
      });
      const expected = await outcome(firstParty.stream(HISTORY));
      const actual = await outcome(onBedrock.stream(HISTORY));
      if ("response" in expected) {
        expect(actual, name).toEqual({ response: provenance(expected.response, CLAUDE) });
        const types = (expected.response.message.native!.blocks as Json[]).map((block) => block.type);
        if (types.includes("thinking") && types.some((type) => String(type).includes("tool_use")))
          thinkingAndTools++;
      } else {
        expect(actual, name).toEqual(expected);
      }
    }
    // Recorded thinking followed by (server) tool use, e.g. web search and MCP.
    expect(thinkingAndTools).toBeGreaterThanOrEqual(2);
  });

  it("complete() returns what stream() returns for the same output", async () => {
    const { fetch } = fakeFetch((request) =>
      request.url.endsWith("-stream")
        ? eventStream(invokeFrames(THINKING_TOOL_EVENTS))
        : json(invokeMessageJson(THINKING_TOOL_EVENTS)),
    );
    const provider = bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api: "invoke",
      apiKey: BEARER,
      fetch,
      ...quiet,
    });
    expect(await provider.complete(HISTORY)).toEqual((await collect(provider.stream(HISTORY))).response);
  });

  it("replays its own thinking to the same Bedrock model; first-party or other-model thinking is dropped", async () => {
    const { fetch, requests } = fakeFetch(() => eventStream(invokeFrames(THINKING_TOOL_EVENTS)));
    const provider = bedrock({
      region: "us-east-1",
      model: CLAUDE,
      api: "invoke",
      apiKey: BEARER,
      fetch,
      ...quiet,
    });
    const first = await collect(provider.stream(HISTORY));
    const next: MessageInput[] = [
      ...HISTORY,
      first.response.message,
      { role: "tool", toolResults: [{ callId: "toolu_bdrk_01", content: "18°C" }] },
    ];
    await collect(provider.stream(next));
    const assistant = (requests[1]!.json.messages as Json[])[1]!;
    expect(assistant.content).toEqual(first.response.message.native!.blocks);
    const foreign = {
      ...first.response.message,
      native: { ...first.response.message.native!, origin: "anthropic" },
    };
    const { response } = await collect(provider.stream([...HISTORY, foreign, next[2]!]));
    const rebuilt = (requests[2]!.json.messages as Json[])[1]!;
    expect((rebuilt.content as Json[]).map((block) => block.type)).toEqual(["text", "tool_use"]);
    expect(response.warnings?.join(" ")).toContain("2 reasoning block(s) dropped");
  });
});
