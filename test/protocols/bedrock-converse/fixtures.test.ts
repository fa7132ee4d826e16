/**
 * Every recorded Bedrock response in the shared fixtures, decoded and assembled:
 * - ConverseStream bodies (binary, real `p` padding) through `assembleBedrockConverseStream`, whole and
 *   re-chunked at odd sizes, checked against expectations folded here from the raw events;
 * - vercel's decoded ConverseStream events, re-framed with the test encoder;
 * - the Anthropic InvokeModelWithResponseStream body through `assembleBedrockInvokeStream`, checked
 *   against the same events as first-party SSE through `anthropic()`;
 * - the Nova InvokeModel stream (Nova-native chunks: `invoke` refuses non-Anthropic ids), decoded only;
 * - the non-streaming Converse JSON responses through `parseBedrockConverseResponse`.
 */
import { describe, expect, it } from "vitest";
import { anthropic, type Response as ModelResponse, type StreamEvent } from "../../../src/index.ts";
import {
  assembleBedrockConverseStream,
  BedrockConverseStreamAssembler,
  type ConverseResponse,
  parseBedrockConverseResponse,
} from "../../../src/protocols/bedrock-converse/index.ts";
import { assembleBedrockInvokeStream } from "../../../src/protocols/bedrock-invoke/index.ts";
import { coalesceDeltas } from "../../../src/protocols/index.ts";
import { type AwsEventFrame, frameInfo, readAwsEventStream } from "../../../src/wire/aws-event-stream.ts";
import { converseFrames } from "../../helpers/bedrock-frames.ts";
import { byteStream } from "../../helpers/byte-stream.ts";
import { type FixtureInteraction, listFixtures, loadFixture } from "../../helpers/fixtures.ts";

type Json = Record<string, unknown>;
const decoder = new TextDecoder();
const CONTEXT = { provider: "bedrock", model: "test-model", origin: "bedrock" };

interface Recorded {
  name: string;
  uri: string;
  interaction: FixtureInteraction;
}

async function recorded(kind: "eventstream" | "json" | "jsonl"): Promise<Recorded[]> {
  const out: Recorded[] = [];
  for (const info of listFixtures("bedrock")) {
    if (info.format === "eventstream-vector") continue;
    const fixture = await loadFixture(info.path);
    for (const interaction of fixture.interactions) {
      if (interaction.bodyKind !== kind) continue;
      out.push({
        name: `${info.path}#${interaction.index}`,
        uri: interaction.request?.uri ?? "",
        interaction,
      });
    }
  }
  return out;
}

async function frames(body: Uint8Array, sizes?: number | number[]): Promise<AwsEventFrame[]> {
  const all: AwsEventFrame[] = [];
  for await (const batch of readAwsEventStream(byteStream(body, sizes))) all.push(...batch);
  return all;
}

async function collect(
  events: AsyncIterable<StreamEvent>,
): Promise<{ events: StreamEvent[]; response: ModelResponse }> {
  const seen: StreamEvent[] = [];
  for await (const event of events) seen.push(event);
  const done = seen.at(-1);
  if (done?.type !== "done") throw new Error("no done event");
  return { events: seen, response: done.response };
}

function base64Json(text: string): Json {
  return JSON.parse(decoder.decode(Uint8Array.from(atob(text), (char) => char.charCodeAt(0)))) as Json;
}

/** What a ConverseStream must assemble to, folded from its decoded events without any src/ code. */
function expectConverse(events: { type: string; payload: Json }[]) {
  let text = "";
  let reasoning = "";
  const signatures: string[] = [];
  const redacted: string[] = [];
  const calls = new Map<number, { id: string; name: string; json: string; server: boolean }>();
  let stopReason: string | undefined;
  let usage: Json | undefined;
  for (const { type, payload } of events) {
    if (type === "contentBlockStart") {
      const use = (payload.start as Json | undefined)?.toolUse as Json | undefined;
      if (use) {
        calls.set(payload.contentBlockIndex as number, {
          id: use.toolUseId as string,
          name: use.name as string,
          json: "",
          server: use.type !== undefined && use.type !== "tool_use",
        });
      }
    } else if (type === "contentBlockDelta") {
      const delta = payload.delta as Json;
      if (typeof delta.text === "string") text += delta.text;
      const rc = delta.reasoningContent as Json | undefined;
      if (typeof rc?.text === "string") reasoning += rc.text;
      if (typeof rc?.signature === "string") signatures.push(rc.signature);
      if (typeof rc?.redactedContent === "string") redacted.push(rc.redactedContent);
      const use = delta.toolUse as Json | undefined;
      if (use) calls.get(payload.contentBlockIndex as number)!.json += use.input as string;
    } else if (type === "messageStop") stopReason = payload.stopReason as string;
    else if (type === "metadata") usage = payload.usage as Json;
  }
  const toolCalls = [...calls.values()]
    .filter((call) => !call.server)
    .map((call) => ({ id: call.id, name: call.name, arguments: JSON.parse(call.json || "{}") as Json }));
  return {
    text,
    reasoning,
    signatures,
    redacted,
    toolCalls,
    stopReason,
    usage,
    serverCalls: [...calls.values()].filter((c) => c.server),
  };
}

function checkConverse(response: ModelResponse, expected: ReturnType<typeof expectConverse>): void {
  expect(response.message.content).toBe(expected.text);
  expect(response.reasoning ?? "").toBe(expected.reasoning);
  expect(response.message.toolCalls).toEqual(expected.toolCalls);
  expect(response.rawStopReason).toBe(expected.stopReason);
  expect(response.stopReason).toBe(
    expected.stopReason === "tool_use"
      ? "tool-calls"
      : expected.stopReason === "max_tokens"
        ? "length"
        : "stop",
  );
  expect(response.usage.inputTokens).toBe(expected.usage?.inputTokens);
  expect(response.usage.outputTokens).toBe(expected.usage?.outputTokens);
  const blocks = response.message.native!.blocks as Json[];
  expect(response.message.native).toMatchObject({
    protocol: "bedrock-converse",
    origin: "bedrock",
    model: "test-model",
  });
  const signed = blocks.flatMap((block) => {
    const text = (block.reasoningContent as Json | undefined)?.reasoningText as Json | undefined;
    return typeof text?.signature === "string" ? [text.signature] : [];
  });
  expect(signed).toEqual(expected.signatures);
  const redacted = blocks.flatMap((block) => {
    const value = (block.reasoningContent as Json | undefined)?.redactedContent;
    return typeof value === "string" ? [value] : [];
  });
  expect(redacted).toEqual(expected.redacted);
  const servers = blocks.filter((block) => (block.toolUse as Json | undefined)?.type === "server_tool_use");
  expect(servers.length).toBe(expected.serverCalls.length);
}

describe("recorded ConverseStream bodies (binary event stream)", async () => {
  const bodies = (await recorded("eventstream")).filter((entry) => entry.uri.includes("/converse-stream"));

  it("finds the recorded ConverseStream bodies", () => {
    expect(bodies.map((entry) => entry.name)).toEqual([
      "bedrock/openllmetry__test_anthropic_converse_stream_with_tool_use.yaml#0",
      "bedrock/pydantic-ai__test_bedrock_model_code_execution_tool_stream.yaml#0",
      "bedrock/pydantic-ai__test_bedrock_model_iter_stream.yaml#0",
      "bedrock/pydantic-ai__test_bedrock_model_iter_stream.yaml#1",
      "bedrock/pydantic-ai__test_bedrock_model_thinking_part_redacted_stream.yaml#0",
      "bedrock/pydantic-ai__test_bedrock_model_thinking_part_stream.yaml#0",
    ]);
  });

  for (const entry of bodies) {
    it(`${entry.name}: assembles, whatever the chunking`, async () => {
      const body = entry.interaction.body;
      const decoded = (await frames(body)).map((frame) => ({
        type: frameInfo(frame).eventType!,
        payload: JSON.parse(decoder.decode(frame.payload)) as Json,
      }));
      expect(decoded.every((event) => typeof event.payload.p === "string")).toBe(true);
      const expected = expectConverse(decoded);
      const whole = await collect(
        assembleBedrockConverseStream(readAwsEventStream(byteStream(body)), CONTEXT),
      );
      checkConverse(whole.response, expected);
      for (const sizes of [1, [3, 17, 5], 64]) {
        const split = await collect(
          assembleBedrockConverseStream(readAwsEventStream(byteStream(body, sizes)), CONTEXT),
        );
        expect(split.response).toEqual(whole.response);
        // The streamed deltas add up to the final message.
        const text = split.events
          .flatMap((event) => (event.type === "text-delta" ? [event.text] : []))
          .join("");
        expect(text).toBe(whole.response.message.content);
      }
    });
  }

  it("the thinking stream: signed reasoning then text, in block order", async () => {
    const entry = bodies.find((body) => body.name.includes("thinking_part_stream"))!;
    const { response } = await collect(
      assembleBedrockConverseStream(readAwsEventStream(byteStream(entry.interaction.body, 7)), CONTEXT),
    );
    const blocks = response.message.native!.blocks as Json[];
    expect(blocks.map((block) => Object.keys(block)[0])).toEqual(["reasoningContent", "text"]);
    expect(response.reasoning).toMatch(/^The user has greeted me/);
  });
});

describe("vercel's decoded ConverseStream events, re-framed", async () => {
  const files = await recorded("jsonl");

  for (const entry of files) {
    it(`${entry.name}: framed and assembled; apply() on the decoded events agrees`, async () => {
      const events = entry.interaction.events as Json[];
      const expected = expectConverse(
        events.map((event) => {
          const [type, payload] = Object.entries(event)[0]!;
          return { type, payload: payload as Json };
        }),
      );
      const body = converseFrames(events);
      const framed = await collect(
        assembleBedrockConverseStream(readAwsEventStream(byteStream(body, 5)), CONTEXT),
      );
      checkConverse(framed.response, expected);

      const assembler = new BedrockConverseStreamAssembler(CONTEXT);
      const out: StreamEvent[] = [];
      for (const event of events) {
        const [type, payload] = Object.entries(event)[0]!;
        assembler.apply(type, payload, out);
      }
      expect(assembler.ended).toBe(true);
      expect(assembler.finish()).toEqual(framed.response);
    });
  }
});

describe("recorded InvokeModelWithResponseStream bodies", async () => {
  const bodies = (await recorded("eventstream")).filter((entry) =>
    entry.uri.includes("/invoke-with-response-stream"),
  );

  it("finds the Anthropic and the Nova recordings", () => {
    expect(bodies.map((entry) => entry.name)).toEqual([
      "bedrock/openllmetry__test_anthropic_3_completion_streaming.yaml#0",
      "bedrock/openllmetry__test_nova_invoke_stream.yaml#0",
    ]);
  });

  it("Anthropic (claude-3-sonnet): the same Response as its events through the first-party SSE path", async () => {
    const entry = bodies[0]!;
    const decoded = (await frames(entry.interaction.body)).map((frame) => {
      expect(frameInfo(frame)).toMatchObject({ messageType: "event", eventType: "chunk" });
      return base64Json((JSON.parse(decoder.decode(frame.payload)) as { bytes: string }).bytes);
    });
    expect(decoded[0]!.type).toBe("message_start");
    expect(decoded.at(-1)).toMatchObject({ type: "message_stop", "amazon-bedrock-invocationMetrics": {} });

    const context = {
      provider: "bedrock",
      model: "anthropic.claude-3-sonnet-20240229-v1:0",
      origin: "bedrock",
    };
    const viaBedrock = await collect(
      assembleBedrockInvokeStream(readAwsEventStream(byteStream(entry.interaction.body, [1, 2, 3])), context),
    );
    const sse = decoded
      .map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`)
      .join("");
    const firstParty = anthropic({
      apiKey: "test-key",
      model: "claude-3-sonnet-20240229",
      fetch: async () => new Response(sse, { headers: { "content-type": "text/event-stream" } }),
    });
    const viaSse = await collect(firstParty.stream([{ role: "user", content: "joke" }]));
    expect(viaBedrock.response).toEqual({
      ...viaSse.response,
      provider: "bedrock",
      message: {
        ...viaSse.response.message,
        native: { ...viaSse.response.message.native!, origin: "bedrock", model: context.model },
      },
    });
    // Deltas are merged per network read, so compare them merged over the whole stream.
    const merged = (events: StreamEvent[]) => {
      const copy = events.slice(0, -1).map((event) => ({ ...event }));
      coalesceDeltas(copy);
      return copy;
    };
    expect(merged(viaBedrock.events)).toEqual(merged(viaSse.events));
    expect(viaBedrock.response.message.content).toBe(
      decoded
        .filter((event) => event.type === "content_block_delta")
        .map((event) => (event.delta as Json).text)
        .join(""),
    );
    expect(viaBedrock.response.usage).toEqual({ inputTokens: 16, outputTokens: 21 });
  });

  it("Nova (Nova-native chunks): every frame decodes, every chunk holds base64 JSON", async () => {
    const entry = bodies[1]!;
    const whole = await frames(entry.interaction.body);
    const split = await frames(entry.interaction.body, 1);
    expect(split.length).toBe(whole.length);
    expect(whole.length).toBeGreaterThan(100);
    for (const [index, frame] of whole.entries()) {
      expect(frameInfo(frame)).toMatchObject({ messageType: "event", eventType: "chunk" });
      expect(split[index]!.payload).toEqual(frame.payload);
      const event = base64Json((JSON.parse(decoder.decode(frame.payload)) as { bytes: string }).bytes);
      expect(Object.keys(event).length).toBeGreaterThan(0);
    }
  });
});

describe("recorded non-streaming Converse responses", async () => {
  const bodies = (await recorded("json")).filter((entry) => entry.interaction.status === 200);

  it("finds them", () => {
    // 4 text/tool/thinking/cache responses, and 16 from the image, document and structured-output
    // recordings (two of those files start with the download of the URL they then send as bytes).
    expect(bodies.length).toBe(20);
  });

  for (const entry of bodies) {
    it(`${entry.name}: parses`, () => {
      const json = entry.interaction.json as ConverseResponse;
      const response = parseBedrockConverseResponse(json, CONTEXT);
      expect(response.message.native?.blocks).toEqual(json.output?.message?.content);
      expect(response.usage.inputTokens).toBe(json.usage?.inputTokens);
      expect(response.usage.cachedInputTokens).toBe(json.usage?.cacheReadInputTokens ?? undefined);
      expect(response.usage.cacheWriteTokens).toBe(json.usage?.cacheWriteInputTokens ?? undefined);
      expect(response.rawStopReason).toBe(json.stopReason);
    });
  }

  it("cache write then read: Converse usage → cacheWriteTokens / cachedInputTokens", () => {
    const [write, read] = bodies.filter((entry) => entry.name.includes("cache_write_and_read"));
    expect(parseBedrockConverseResponse(write!.interaction.json as ConverseResponse, CONTEXT).usage).toEqual({
      inputTokens: 2,
      outputTokens: 5,
      cachedInputTokens: 0,
      cacheWriteTokens: 1322,
    });
    expect(parseBedrockConverseResponse(read!.interaction.json as ConverseResponse, CONTEXT).usage).toEqual({
      inputTokens: 2,
      outputTokens: 5,
      cachedInputTokens: 1322,
      cacheWriteTokens: 0,
    });
  });

  it("Claude thinking: signed reasoningContent kept verbatim, reasoning readable", () => {
    const entry = bodies.find((body) => body.name.includes("thinking_part_anthropic"))!;
    const json = entry.interaction.json as ConverseResponse;
    const response = parseBedrockConverseResponse(json, CONTEXT);
    const first = json.output!.message!.content![0]!;
    expect(response.reasoning).toBe(first.reasoningContent!.reasoningText!.text);
    expect(first.reasoningContent!.reasoningText!.signature).toMatch(/^E/);
    expect((response.message.native!.blocks[0] as Json).reasoningContent).toEqual(first.reasoningContent);
  });
});
