/**
 * The Messages stream assembler on hand-built event sequences: the failure paths and boundaries the recorded
 * streams never reach (issue 15, "mutation gap" 2–4; gap 1, blocks of more than 256 deltas, is the
 * 10,000-delta suite of test/protocols/piece-buffer.test.ts). Each test states the behaviour a user relies on.
 */
import { describe, expect, it } from "vitest";
import { ProviderError } from "../../../src/core/provider-error.ts";
import type { StreamEvent } from "../../../src/core/stream-event.ts";
import { assembleAnthropicStream } from "../../../src/protocols/anthropic-messages/assemble-anthropic-stream.ts";
import type { SseEvent } from "../../../src/wire/sse.ts";

const CONTEXT = { provider: "anthropic", model: "claude-x", origin: "anthropic" };

/** An SSE event of the Messages stream: `event:` is the payload's type, as the API sends it. */
function sse(payload: Record<string, unknown> | string, event?: string): SseEvent {
  const data = typeof payload === "string" ? payload : JSON.stringify(payload);
  const type = typeof payload === "string" ? event : String(payload.type);
  return { event: type, data, id: undefined };
}

const START = sse({
  type: "message_start",
  message: {
    id: "msg_1",
    type: "message",
    role: "assistant",
    model: "claude-x",
    content: [],
    usage: { input_tokens: 5 },
  },
});
const STOP = sse({ type: "message_stop" });
const END_TURN = sse({
  type: "message_delta",
  delta: { stop_reason: "end_turn" },
  usage: { output_tokens: 3 },
});
const textStart = (index: number) =>
  sse({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
const textDelta = (index: number, text: string) =>
  sse({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
const blockStop = (index: number) => sse({ type: "content_block_stop", index });

/** Each entry is one network read: a single event or the events of that read. */
async function* reads(batches: readonly (SseEvent | readonly SseEvent[])[]) {
  for (const batch of batches) yield batch;
}

async function run(batches: readonly (SseEvent | readonly SseEvent[])[]) {
  const events: StreamEvent[] = [];
  let error: unknown;
  try {
    for await (const event of assembleAnthropicStream(reads(batches), CONTEXT)) events.push(event);
  } catch (caught) {
    error = caught;
  }
  return { events, error: error as ProviderError | undefined };
}

function doneOf(events: readonly StreamEvent[]) {
  const last = events.at(-1);
  if (last?.type !== "done") throw new Error(`no done event: ${JSON.stringify(events.map((e) => e.type))}`);
  return last.response;
}

describe("mutation gap 2: malformed events are invalid_response, never skipped or a TypeError", () => {
  it("an event whose data is not JSON names the event", async () => {
    const { events, error } = await run([START, textStart(0), sse("{not json", "content_block_delta")]);
    expect(ProviderError.is(error)).toBe(true);
    expect(error?.kind).toBe("invalid_response");
    expect(error?.message).toBe("anthropic stream sent an event that is not JSON (content_block_delta)");
    expect(events.some((event) => event.type === "done")).toBe(false);
  });

  it.each([
    [
      "content_block_start without a block",
      sse({ type: "content_block_start", index: 0 }),
      "content_block_start",
    ],
    [
      "content_block_start without an index",
      sse({ type: "content_block_start", content_block: { type: "text", text: "" } }),
      "content_block_start",
    ],
    ["a delta for a block that never started", textDelta(3, "x"), "content_block_delta"],
    [
      "a delta that is not an object",
      sse({ type: "content_block_delta", index: 0, delta: "x" }),
      "content_block_delta",
    ],
    ["a stop for a block that never started", blockStop(4), "content_block_stop"],
  ])("%s", async (_name, bad, what) => {
    const { error } = await run([START, textStart(0), bad]);
    expect(ProviderError.is(error)).toBe(true);
    expect(error?.kind).toBe("invalid_response");
    expect(error?.message).toBe(`anthropic stream sent a malformed ${what} event`);
  });

  it("citations_delta on a block that came without citations builds the list, one citation per delta, in order", async () => {
    const first = {
      type: "char_location",
      cited_text: "a",
      document_index: 0,
      start_char_index: 0,
      end_char_index: 1,
    };
    const second = {
      type: "char_location",
      cited_text: "b",
      document_index: 0,
      start_char_index: 1,
      end_char_index: 2,
    };
    const { events, error } = await run([
      START,
      textStart(0),
      sse({ type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation: first } }),
      textDelta(0, "A"),
      sse({ type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation: second } }),
      textDelta(0, "B"),
      blockStop(0),
      END_TURN,
      STOP,
    ]);
    expect(error).toBeUndefined();
    const response = doneOf(events);
    expect(response.message.content).toBe("AB");
    expect(response.message.native?.blocks).toEqual([
      { type: "text", text: "AB", citations: [first, second] },
    ]);
  });
});

describe("mutation gap 3: partialOutput and the end of the stream", () => {
  const overloaded = sse({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });

  it("an error after text streamed is partial (a retry would repeat the text)", async () => {
    const { events, error } = await run([START, textStart(0), textDelta(0, "Hel"), overloaded]);
    expect(events.filter((event) => event.type === "text-delta")).toEqual([
      { type: "text-delta", text: "Hel" },
    ]);
    expect(error?.kind).toBe("overloaded");
    expect(error?.partialOutput).toBe(true);
  });

  it("an error after only usage (message_start) is not partial: a fallback may still switch", async () => {
    const { events, error } = await run([START, overloaded]);
    expect(events.map((event) => event.type)).toEqual(["usage"]);
    expect(error?.kind).toBe("overloaded");
    expect(error?.partialOutput).toBe(false);
  });

  it("a body cut after text is truncated and partial; one cut before any content is not partial", async () => {
    const cut = await run([START, textStart(0), textDelta(0, "Hel")]);
    expect(cut.error?.kind).toBe("truncated");
    expect(cut.error?.message).toBe("anthropic stream ended before message_stop");
    expect(cut.error?.partialOutput).toBe(true);
    const early = await run([START]);
    expect(early.error?.kind).toBe("truncated");
    expect(early.error?.partialOutput).toBe(false);
  });

  it("done comes at message_stop, without reading the body again (a connection held open cannot hang the caller)", async () => {
    let readAfterStop = false;
    async function* heldOpen() {
      yield [START, textStart(0), textDelta(0, "Hi"), blockStop(0), END_TURN];
      yield STOP;
      readAfterStop = true;
      // A server that keeps the connection open sends nothing more; a second read would wait forever.
      await new Promise(() => {});
    }
    const events: StreamEvent[] = [];
    for await (const event of assembleAnthropicStream(heldOpen(), CONTEXT)) events.push(event);
    expect(readAfterStop).toBe(false);
    expect(doneOf(events).message.content).toBe("Hi");
  });

  it("events after message_stop in the same read are not applied", async () => {
    const { events } = await run([
      [START, textStart(0), textDelta(0, "Hi"), blockStop(0), STOP, textDelta(0, "!")],
    ]);
    expect(doneOf(events).message.content).toBe("Hi");
    expect(events.filter((event) => event.type === "text-delta")).toEqual([
      { type: "text-delta", text: "Hi" },
    ]);
  });
});

describe("mutation gap 4: one read, many pieces; signatures from nothing", () => {
  const toolStart = sse({
    type: "content_block_start",
    index: 0,
    content_block: { type: "tool_use", id: "toolu_1", name: "lookup", input: {} },
  });
  const json = (partial_json: string) =>
    sse({ type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json } });

  it("two argument pieces of one call in one read are one delta with both pieces, in order", async () => {
    const { events, error } = await run([
      START,
      [toolStart, json('{"city":'), json('"Oslo"}')],
      [blockStop(0), sse({ type: "message_delta", delta: { stop_reason: "tool_use" } }), STOP],
    ]);
    expect(error).toBeUndefined();
    expect(events.filter((event) => event.type === "tool-call-delta")).toEqual([
      { type: "tool-call-delta", index: 0, id: "toolu_1", argumentsDelta: '{"city":"Oslo"}' },
    ]);
    const response = doneOf(events);
    expect(response.message.toolCalls).toEqual([
      { id: "toolu_1", name: "lookup", arguments: { city: "Oslo" } },
    ]);
    expect(response.stopReason).toBe("tool-calls");
  });

  it("pieces in separate reads are separate deltas", async () => {
    const { events } = await run([START, toolStart, json('{"a"'), json(":1}"), blockStop(0), STOP]);
    expect(
      events.filter((event) => event.type === "tool-call-delta").map((event) => event.argumentsDelta),
    ).toEqual(['{"a"', ":1}"]);
  });

  it("two text pieces of one read are one text-delta", async () => {
    const { events } = await run([
      START,
      [textStart(0), textDelta(0, "Hel"), textDelta(0, "lo")],
      blockStop(0),
      STOP,
    ]);
    expect(events.filter((event) => event.type === "text-delta")).toEqual([
      { type: "text-delta", text: "Hello" },
    ]);
  });

  it("a thinking block that starts without a signature gets exactly the streamed one (not 'undefined…')", async () => {
    const { events } = await run([
      START,
      sse({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } }),
      sse({
        type: "content_block_delta",
        index: 0,
        delta: { type: "thinking_delta", thinking: "Let me see." },
      }),
      sse({
        type: "content_block_delta",
        index: 0,
        delta: { type: "signature_delta", signature: "EqQBCkYI" },
      }),
      sse({
        type: "content_block_delta",
        index: 0,
        delta: { type: "signature_delta", signature: "AhgCKkA=" },
      }),
      blockStop(0),
      END_TURN,
      STOP,
    ]);
    const response = doneOf(events);
    expect(response.message.native?.blocks).toEqual([
      { type: "thinking", thinking: "Let me see.", signature: "EqQBCkYIAhgCKkA=" },
    ]);
    expect(response.reasoning).toBe("Let me see.");
    expect(response.warnings).toBeUndefined();
  });
});

describe("blocks that arrive whole, start with content, or are never stopped", () => {
  it("a text block that starts with text streams it and keeps it before the deltas", async () => {
    const { events } = await run([
      START,
      sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "Hi" } }),
      textDelta(0, " there"),
      blockStop(0),
      END_TURN,
      STOP,
    ]);
    expect(events.filter((event) => event.type === "text-delta").map((event) => event.text)).toEqual([
      "Hi",
      " there",
    ]);
    expect(doneOf(events).message.content).toBe("Hi there");
  });

  it("a thinking block that starts with thinking streams it as reasoning", async () => {
    const { events } = await run([
      START,
      sse({
        type: "content_block_start",
        index: 0,
        content_block: { type: "thinking", thinking: "Hmm", signature: "" },
      }),
      sse({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "…" } }),
      sse({ type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "c2ln" } }),
      blockStop(0),
      STOP,
    ]);
    expect(events.filter((event) => event.type === "reasoning-delta").map((event) => event.text)).toEqual([
      "Hmm",
      "…",
    ]);
    expect(doneOf(events).message.native?.blocks).toEqual([
      { type: "thinking", thinking: "Hmm…", signature: "c2ln" },
    ]);
  });

  it("blocks sent whole inside message_start (programmatic tool calling) are the answer, calls ended", async () => {
    const { events } = await run([
      sse({
        type: "message_start",
        message: {
          id: "msg_2",
          role: "assistant",
          model: "claude-x",
          content: [
            { type: "text", text: "Calling." },
            { type: "tool_use", id: "toolu_9", name: "lookup", input: { q: "x" } },
          ],
          stop_reason: "tool_use",
          usage: { input_tokens: 3 },
        },
      }),
      STOP,
    ]);
    const response = doneOf(events);
    expect(response.message.content).toBe("Calling.");
    expect(response.message.toolCalls).toEqual([{ id: "toolu_9", name: "lookup", arguments: { q: "x" } }]);
    expect(events.filter((event) => event.type === "tool-call-end")).toHaveLength(1);
    expect(response.stopReason).toBe("tool-calls");
  });

  it("message_stop ends a block left open (a max_tokens cut): its call ends once, its text is kept", async () => {
    const toolStart = sse({
      type: "content_block_start",
      index: 1,
      content_block: { type: "tool_use", id: "toolu_1", name: "lookup", input: {} },
    });
    const { events } = await run([
      START,
      textStart(0),
      textDelta(0, "Let me"),
      toolStart,
      sse({
        type: "content_block_delta",
        index: 1,
        delta: { type: "input_json_delta", partial_json: '{"q":"os' },
      }),
      sse({ type: "message_delta", delta: { stop_reason: "max_tokens" }, usage: { output_tokens: 9 } }),
      STOP,
    ]);
    const response = doneOf(events);
    expect(response.message.content).toBe("Let me");
    expect(response.message.toolCalls).toEqual([
      { id: "toolu_1", name: "lookup", arguments: {}, argumentsText: '{"q":"os' },
    ]);
    expect(events.filter((event) => event.type === "tool-call-end")).toHaveLength(1);
    expect(response.stopReason).toBe("length");
  });

  it("a second content_block_stop for a block changes nothing (no second tool-call-end)", async () => {
    const { events } = await run([
      START,
      sse({
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "t", name: "f", input: {} },
      }),
      sse({
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"a":1}' },
      }),
      blockStop(0),
      blockStop(0),
      STOP,
    ]);
    expect(events.filter((event) => event.type === "tool-call-end")).toHaveLength(1);
    expect(doneOf(events).message.toolCalls).toEqual([{ id: "t", name: "f", arguments: { a: 1 } }]);
  });

  it("a server tool's streamed input is kept in its block, and makes no tool-call events", async () => {
    const { events } = await run([
      START,
      sse({
        type: "content_block_start",
        index: 0,
        content_block: { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: {} },
      }),
      sse({
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"query":' },
      }),
      sse({
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '"oslo"}' },
      }),
      blockStop(0),
      STOP,
    ]);
    expect(events.some((event) => event.type.startsWith("tool-call"))).toBe(false);
    const response = doneOf(events);
    expect(response.message.toolCalls).toEqual([]);
    expect(response.message.native?.blocks).toEqual([
      { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "oslo" } },
    ]);
  });

  it("a message_delta without usage sends no usage event; one with usage sends the merged figures", async () => {
    const { events } = await run([
      START,
      sse({ type: "message_delta", delta: { stop_reason: "end_turn" } }),
      sse({ type: "message_delta", delta: {}, usage: { output_tokens: 4 } }),
      STOP,
    ]);
    const usage = events.filter((event) => event.type === "usage");
    expect(usage).toHaveLength(2);
    expect(usage[1]).toEqual({
      type: "usage",
      usage: expect.objectContaining({ inputTokens: 5, outputTokens: 4 }),
    });
    expect(doneOf(events).stopReason).toBe("stop");
  });
});

describe("what a stream may leave out, and deltas that reach another block's field", () => {
  const overloaded = sse({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });

  it.each([
    [
      "a content_block_start whose block is null",
      sse({ type: "content_block_start", index: 0, content_block: null }),
      "content_block_start",
    ],
    [
      "a delta that is null",
      sse({ type: "content_block_delta", index: 0, delta: null }),
      "content_block_delta",
    ],
  ])("%s is invalid_response, not a TypeError", async (_name, bad, what) => {
    const { error } = await run([START, textStart(0), bad]);
    expect(ProviderError.is(error)).toBe(true);
    expect(error?.kind).toBe("invalid_response");
    expect(error?.message).toBe(`anthropic stream sent a malformed ${what} event`);
  });

  it("an event whose data is JSON but not an object is skipped, and the stream goes on", async () => {
    const { events, error } = await run([
      START,
      textStart(0),
      sse("null", "ping"),
      sse("42", "ping"),
      textDelta(0, "Hi"),
      blockStop(0),
      STOP,
    ]);
    expect(error).toBeUndefined();
    expect(doneOf(events).message.content).toBe("Hi");
  });

  it("a block that starts empty sends no output: an error right after it is not partial", async () => {
    const { events, error } = await run([
      [START, textStart(0)],
      [sse({ type: "content_block_start", index: 1, content_block: { type: "thinking", thinking: "" } })],
      overloaded,
    ]);
    expect(events.map((event) => event.type)).toEqual(["usage"]);
    expect(error?.kind).toBe("overloaded");
    expect(error?.partialOutput).toBe(false);
  });

  it("a text block that starts without a text field streams and keeps exactly the streamed text (not 'undefined…')", async () => {
    const { events } = await run([
      START,
      sse({ type: "content_block_start", index: 0, content_block: { type: "text" } }),
      textDelta(0, "Hello"),
      blockStop(0),
      END_TURN,
      STOP,
    ]);
    expect(events.filter((event) => event.type === "text-delta")).toEqual([
      { type: "text-delta", text: "Hello" },
    ]);
    const response = doneOf(events);
    expect(response.message.content).toBe("Hello");
    expect(response.message.native?.blocks).toEqual([{ type: "text", text: "Hello" }]);
  });

  it("a message_start whose message has no content list streams the answer as usual", async () => {
    const { events, error } = await run([
      sse({ type: "message_start", message: { id: "msg_3", model: "claude-x", usage: { input_tokens: 2 } } }),
      textStart(0),
      textDelta(0, "Hi"),
      blockStop(0),
      END_TURN,
      STOP,
    ]);
    expect(error).toBeUndefined();
    const response = doneOf(events);
    expect(response.message.content).toBe("Hi");
    expect(response.id).toBe("msg_3");
  });

  it("a call that arrives whole in message_start ends at once, before the events that follow it", async () => {
    const { events } = await run([
      [
        sse({
          type: "message_start",
          message: {
            id: "msg_4",
            model: "claude-x",
            content: [{ type: "tool_use", id: "toolu_7", name: "lookup", input: { q: "x" } }],
            usage: { input_tokens: 3 },
          },
        }),
        sse({ type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 1 } }),
        STOP,
      ],
    ]);
    expect(events.map((event) => event.type)).toEqual([
      "usage",
      "tool-call-start",
      "tool-call-end",
      "usage",
      "done",
    ]);
    expect(doneOf(events).message.toolCalls).toEqual([
      { id: "toolu_7", name: "lookup", arguments: { q: "x" } },
    ]);
  });

  it("a message_delta that carries only usage (no delta, or an empty one) keeps the stop reason and the refusal's explanation", async () => {
    const { events, error } = await run([
      START,
      sse({
        type: "message_delta",
        delta: {
          stop_reason: "refusal",
          stop_details: { type: "refusal", explanation: "I can't help with that." },
        },
      }),
      sse({ type: "message_delta", usage: { output_tokens: 2 } }),
      sse({ type: "message_delta", delta: {}, usage: { output_tokens: 4 } }),
      STOP,
    ]);
    expect(error).toBeUndefined();
    const response = doneOf(events);
    expect(response.stopReason).toBe("content-filter");
    expect(response.rawStopReason).toBe("refusal");
    expect(response.refusal).toBe("I can't help with that.");
    expect(response.usage.outputTokens).toBe(4);
  });

  it("a text_delta sent to a thinking block leaves its thinking exactly as streamed (its signature must match) and is kept beside it", async () => {
    const { events } = await run([
      START,
      sse({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "" } }),
      textDelta(0, "stray"),
      sse({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: "Let me" } }),
      sse({ type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: " see." } }),
      sse({ type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "c2ln" } }),
      blockStop(0),
      END_TURN,
      STOP,
    ]);
    const response = doneOf(events);
    expect(response.reasoning).toBe("Let me see.");
    expect(response.message.native?.blocks).toEqual([
      { type: "thinking", thinking: "Let me see.", signature: "c2ln", text: "stray" },
    ]);
    expect(response.warnings).toBeUndefined();
  });

  it("a delta of a type this version does not know that carries the block's text is appended in order", async () => {
    const { events } = await run([
      START,
      textStart(0),
      textDelta(0, "Hel"),
      sse({ type: "content_block_delta", index: 0, delta: { type: "text_v2_delta", text: "lo" } }),
      textDelta(0, "!"),
      blockStop(0),
      END_TURN,
      STOP,
    ]);
    const response = doneOf(events);
    expect(response.message.content).toBe("Hello!");
    expect(response.warnings).toBeUndefined();
  });
});
