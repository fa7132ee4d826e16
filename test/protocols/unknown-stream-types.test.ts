/**
 * What each stream assembler does with block, delta and item types it does not know: what can be
 * accumulated is (by the one rule of `mergeUnknownDelta`), the rest is kept verbatim, and what cannot be
 * kept is a warning on the response — and `stream()` gives what `complete()` gives for the same answer.
 */
import { describe, expect, it } from "vitest";
import {
  anthropic,
  bedrock,
  type Response as ModelResponse,
  openaiChat,
  openaiResponses,
  type Provider,
  type StreamEvent,
} from "../../src/index.ts";
import { converseFrames } from "../helpers/bedrock-frames.ts";
import { byteStream } from "../helpers/byte-stream.ts";

type Json = Record<string, unknown>;

const HISTORY = [{ role: "user" as const, content: "hi" }];

function respond(body: Uint8Array | string, contentType: string): typeof fetch {
  return async () =>
    new Response(typeof body === "string" ? body : byteStream(body, [64, 7]), {
      headers: { "content-type": contentType },
    });
}

function sse(events: readonly Json[], named = true): string {
  return events
    .map((event) => `${named ? `event: ${String(event.type)}\n` : ""}data: ${JSON.stringify(event)}\n\n`)
    .join("");
}

async function streamed(provider: Provider): Promise<{ events: StreamEvent[]; response: ModelResponse }> {
  const events: StreamEvent[] = [];
  for await (const event of provider.stream(HISTORY)) events.push(event);
  const done = events.at(-1);
  if (done?.type !== "done") throw new Error("no done");
  return { events, response: done.response };
}

describe("Anthropic: unknown block and delta types", () => {
  const provider = (fetchImpl: typeof fetch) =>
    anthropic({ apiKey: "k", model: "claude-sonnet-4-5", fetch: fetchImpl });
  const start = {
    type: "message_start",
    message: { id: "m1", model: "claude-sonnet-4-5", content: [], usage: {} },
  };
  const end = [
    { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 3 } },
    { type: "message_stop" },
  ];

  it("a new block type's deltas accumulate into it (strings appended, new fields taken) as the whole answer has it", async () => {
    const events = [
      start,
      { type: "content_block_start", index: 0, content_block: { type: "memo", title: "", tags: [] } },
      { type: "content_block_delta", index: 0, delta: { type: "memo_delta", title: "Sum", tags: ["a"] } },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "memo_delta", title: "mary", tags: ["b"], done: true },
      },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "ok" } },
      { type: "content_block_stop", index: 1 },
      ...end,
    ];
    const { response } = await streamed(provider(respond(sse(events), "text/event-stream")));
    const memo = { type: "memo", title: "Summary", tags: ["a", "b"], done: true };
    expect(response.message.native!.blocks).toStrictEqual([memo, { type: "text", text: "ok" }]);
    expect(response.warnings).toBeUndefined();
    const whole = {
      id: "m1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [memo, { type: "text", text: "ok" }],
      stop_reason: "end_turn",
      usage: { output_tokens: 3 },
    };
    expect(
      await provider(respond(JSON.stringify(whole), "application/json")).complete(HISTORY),
    ).toStrictEqual(response);
  });

  it("a delta that cannot be merged (a number onto another) replaces the value, and the turn says so", async () => {
    const events = [
      start,
      { type: "content_block_start", index: 0, content_block: { type: "gauge", level: 1 } },
      { type: "content_block_delta", index: 0, delta: { type: "gauge_delta", level: 2 } },
      { type: "content_block_stop", index: 0 },
      ...end,
    ];
    const { response } = await streamed(provider(respond(sse(events), "text/event-stream")));
    expect(response.message.native!.blocks).toStrictEqual([{ type: "gauge", level: 2 }]);
    expect(response.warnings).toEqual(["gauge block 0: gauge_delta replaced level"]);
  });
});

describe("Bedrock Converse: unknown block kinds and delta members", () => {
  const model = "amazon.nova-pro-v1:0";
  const provider = (fetchImpl: typeof fetch) =>
    bedrock({ region: "us-east-1", model, api: "converse", apiKey: "k", logger: false, fetch: fetchImpl });
  const EVENT_STREAM = "application/vnd.amazon.eventstream";

  it("a block kind it does not know is kept as it started, its deltas merged in: as Converse returns it", async () => {
    const events = [
      { messageStart: { role: "assistant" } },
      { contentBlockStart: { contentBlockIndex: 0, start: { image: { format: "png" } } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { image: { source: { bytes: "iVBOR" } } } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { image: { source: { bytes: "w0KGgo" } } } } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      { contentBlockDelta: { contentBlockIndex: 1, delta: { text: "here" } } },
      { contentBlockStop: { contentBlockIndex: 1 } },
      { messageStop: { stopReason: "end_turn" } },
      { metadata: { usage: { inputTokens: 1, outputTokens: 2 } } },
    ];
    const { response } = await streamed(provider(respond(converseFrames(events), EVENT_STREAM)));
    const blocks = [{ image: { format: "png", source: { bytes: "iVBORw0KGgo" } } }, { text: "here" }];
    expect(response.message.native!.blocks).toStrictEqual(blocks);
    expect(response.warnings).toBeUndefined();
    const whole = {
      output: { message: { role: "assistant", content: blocks } },
      stopReason: "end_turn",
      usage: { inputTokens: 1, outputTokens: 2 },
    };
    expect(
      await provider(respond(JSON.stringify(whole), "application/json")).complete(HISTORY),
    ).toStrictEqual(response);
  });

  it("a member it does not know, sent for a text block (which has no field for it), is left out with a warning", async () => {
    const events = [
      { messageStart: { role: "assistant" } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { text: "cited" } } },
      { contentBlockDelta: { contentBlockIndex: 0, delta: { citation: { title: "doc" } } } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      { messageStop: { stopReason: "end_turn" } },
      { metadata: { usage: {} } },
    ];
    const { response } = await streamed(provider(respond(converseFrames(events), EVENT_STREAM)));
    expect(response.message.native!.blocks).toStrictEqual([{ text: "cited" }]);
    expect(response.warnings).toEqual(["content block 0 (text): contentBlockDelta citation left out"]);
  });
});

describe("OpenAI Responses: item types it does not know", () => {
  const provider = (fetchImpl: typeof fetch) =>
    openaiResponses({ apiKey: "k", model: "gpt-5", fetch: fetchImpl });

  it("are kept verbatim from the terminal response, as complete() keeps them", async () => {
    const item = { type: "image_generation_call", id: "ig_1", status: "completed", result: "iVBOR" };
    const response = {
      id: "resp_1",
      model: "gpt-5",
      status: "completed",
      output: [item],
      usage: { input_tokens: 1 },
    };
    const events = [
      { type: "response.created", response: { ...response, status: "in_progress", output: [] } },
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { ...item, status: "in_progress", result: null },
      },
      { type: "response.image_generation_call.partial_image", output_index: 0, partial_image_b64: "iV" },
      { type: "response.output_item.done", output_index: 0, item },
      { type: "response.completed", response },
    ];
    const { response: done } = await streamed(provider(respond(sse(events), "text/event-stream")));
    expect(done.message.native!.blocks).toStrictEqual([item]);
    expect(
      await provider(respond(JSON.stringify(response), "application/json")).complete(HISTORY),
    ).toStrictEqual(done);
  });

  it("one that never finished, under a terminal response without output, is kept as added, with a warning", async () => {
    const added = { type: "image_generation_call", id: "ig_1", status: "in_progress" };
    const events = [
      { type: "response.created", response: { id: "resp_1", model: "gpt-5", output: [] } },
      { type: "response.output_item.added", output_index: 0, item: added },
      { type: "response.completed", response: { id: "resp_1", model: "gpt-5", status: "completed" } },
    ];
    const { response } = await streamed(provider(respond(sse(events), "text/event-stream")));
    expect(response.message.native!.blocks).toStrictEqual([added]);
    expect(response.warnings).toEqual([
      "output[0] (image_generation_call) never got its output_item.done and the terminal response has no output: kept as output_item.added sent it",
    ]);
  });
});

describe("OpenAI Chat: delta members it does not read", () => {
  it("are left out of the canonical message both ways (OpenRouter's reasoning_details, annotations)", async () => {
    const provider = (fetchImpl: typeof fetch) =>
      openaiChat({
        apiKey: "k",
        model: "m",
        endpoint: { kind: "openrouter" },
        baseURL: "https://o.example/v1",
        fetch: fetchImpl,
      });
    const chunk = (delta: Json, finish: string | null = null) => ({
      id: "c1",
      model: "m",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const details = [{ type: "reasoning.text", text: "think", signature: "sig" }];
    const events = [
      chunk({ role: "assistant", reasoning: "think", reasoning_details: details }),
      chunk({ content: "hi", annotations: [] }),
      chunk({}, "stop"),
    ];
    const body = `${sse(events, false)}data: [DONE]\n\n`;
    const { response } = await streamed(provider(respond(body, "text/event-stream")));
    const whole = {
      id: "c1",
      model: "m",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "hi",
            reasoning: "think",
            reasoning_details: details,
            annotations: [],
          },
          finish_reason: "stop",
        },
      ],
    };
    expect(response.message.native!.blocks).toStrictEqual([
      { role: "assistant", content: "hi", reasoning_content: "think" },
    ]);
    expect(
      await provider(respond(JSON.stringify(whole), "application/json")).complete(HISTORY),
    ).toStrictEqual(response);
  });
});
