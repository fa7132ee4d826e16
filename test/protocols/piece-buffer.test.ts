/**
 * The piece buffer every stream assembler keeps block text, thinking and tool arguments in
 * (src/protocols/piece-buffer.ts): exact for any number and size of pieces — checked on its own, and on
 * blocks of 10,000 deltas (far past the 256 pieces it joins at a time) streamed through every assembler,
 * every byte of the result compared.
 */
import { describe, expect, it } from "vitest";
import type { Response as ModelResponse, StreamEvent } from "../../src/index.ts";
import { assembleAnthropicStream } from "../../src/protocols/anthropic-messages/index.ts";
import { assembleBedrockConverseStream } from "../../src/protocols/bedrock-converse/index.ts";
import { assembleOpenAIChatStream } from "../../src/protocols/openai-chat/index.ts";
import { assembleOpenAIResponsesStream } from "../../src/protocols/openai-responses/index.ts";
import { PieceBuffer } from "../../src/protocols/piece-buffer.ts";
import { openAIChatEndpointProfile } from "../../src/providers/openai-chat.ts";
import { readAwsEventStream } from "../../src/wire/aws-event-stream.ts";
import { readSseBatches } from "../../src/wire/sse.ts";
import { converseFrames } from "../helpers/bedrock-frames.ts";
import { byteStream } from "../helpers/byte-stream.ts";

type Json = Record<string, unknown>;

const DELTAS = 10_000;
const encoder = new TextEncoder();

/**
 * `count` distinct pieces: varying lengths (empty ones too), ASCII, accents, CJK, emoji (surrogate pairs),
 * quotes and backslashes (escaped in JSON), newlines — each tagged with its number, so a lost, repeated
 * or reordered piece shows.
 */
function distinctPieces(count: number, tag: string): string[] {
  const alphabet = ["a", "é", "漢", "🙂", '"', "\\", "\n", " ", "z", "ß"];
  const out: string[] = [];
  for (let index = 0; index < count; index++) {
    if (index % 97 === 13) {
      out.push("");
      continue;
    }
    let piece = `${tag}${index}:`;
    for (let at = 0; at < index % 7; at++) piece += alphabet[(index + at) % alphabet.length];
    out.push(piece);
  }
  return out;
}

function sse(events: readonly Json[]): Uint8Array {
  return encoder.encode(
    events
      .map((event) => `event: ${String(event.type ?? "message")}\ndata: ${JSON.stringify(event)}\n\n`)
      .join(""),
  );
}

async function drain(
  events: AsyncIterable<StreamEvent>,
): Promise<{ events: StreamEvent[]; response: ModelResponse }> {
  const seen: StreamEvent[] = [];
  for await (const event of events) seen.push(event);
  const done = seen.at(-1);
  if (done?.type !== "done") throw new Error("no done");
  return { events: seen, response: done.response };
}

function joined(events: readonly StreamEvent[], type: "text-delta" | "reasoning-delta"): string {
  return events.flatMap((event) => (event.type === type ? [event.text] : [])).join("");
}

describe("PieceBuffer", () => {
  it("gives back exactly what was pushed, for every count around the 256-piece joins", () => {
    for (const count of [0, 1, 2, 255, 256, 257, 511, 512, 513, 1000, 2049]) {
      const pieces = distinctPieces(count, "p");
      const buffer = new PieceBuffer();
      for (const piece of pieces) buffer.push(piece);
      expect(buffer.text(), String(count)).toBe(pieces.join(""));
    }
  });

  it("can be read at any point; pushes after a read append", () => {
    const pieces = distinctPieces(1500, "r");
    const buffer = new PieceBuffer();
    let expected = "";
    for (const [index, piece] of pieces.entries()) {
      buffer.push(piece);
      expected += piece;
      if (index % 333 === 0) expect(buffer.text()).toBe(expected);
    }
    expect(buffer.text()).toBe(expected);
    expect(buffer.text()).toBe(expected);
  });
});

describe("10,000-delta blocks, streamed, come out byte for byte", () => {
  const thinking = distinctPieces(DELTAS, "t");
  const text = distinctPieces(DELTAS, "x");
  const args = distinctPieces(DELTAS, "a").map((piece) => JSON.stringify(piece).slice(1, -1));
  const argumentsJson = `{"value":"${args.join("")}"}`;
  const signature = `Eo${"A".repeat(700)}==`;

  it("mutation gap 1: Anthropic: signed thinking, text and tool input", async () => {
    const events: Json[] = [
      { type: "message_start", message: { id: "msg", model: "m", content: [], usage: { input_tokens: 1 } } },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "thinking", thinking: "", signature: "" },
      },
      ...thinking.map((piece) => ({
        type: "content_block_delta",
        index: 0,
        delta: { type: "thinking_delta", thinking: piece },
      })),
      // A signature sent in pieces is kept whole (appended, never replaced).
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "signature_delta", signature: signature.slice(0, 300) },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "signature_delta", signature: signature.slice(300) },
      },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      ...text.map((piece) => ({
        type: "content_block_delta",
        index: 1,
        delta: { type: "text_delta", text: piece },
      })),
      { type: "content_block_stop", index: 1 },
      {
        type: "content_block_start",
        index: 2,
        content_block: { type: "tool_use", id: "t1", name: "f", input: {} },
      },
      ...[`{"value":"`, ...args, `"}`].map((partial_json) => ({
        type: "content_block_delta",
        index: 2,
        delta: { type: "input_json_delta", partial_json },
      })),
      { type: "content_block_stop", index: 2 },
      { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 9 } },
      { type: "message_stop" },
    ];
    const { events: out, response } = await drain(
      assembleAnthropicStream(readSseBatches(byteStream(sse(events), [4096, 7, 1, 65536])), {
        provider: "anthropic",
        model: "m",
        origin: "anthropic",
      }),
    );
    expect(response.message.native!.blocks).toStrictEqual([
      { type: "thinking", thinking: thinking.join(""), signature },
      { type: "text", text: text.join("") },
      { type: "tool_use", id: "t1", name: "f", input: { value: distinctPieces(DELTAS, "a").join("") } },
    ]);
    expect(response.reasoning).toBe(thinking.join(""));
    expect(response.message.content).toBe(text.join(""));
    expect(joined(out, "reasoning-delta")).toBe(thinking.join(""));
    expect(joined(out, "text-delta")).toBe(text.join(""));
    const argumentText = out
      .flatMap((e) => (e.type === "tool-call-delta" ? [e.argumentsDelta] : []))
      .join("");
    expect(argumentText).toBe(argumentsJson);
  });

  it("Bedrock Converse: signed reasoning and text", async () => {
    const events: Json[] = [
      { messageStart: { role: "assistant" } },
      ...thinking.map((piece) => ({
        contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { text: piece } } },
      })),
      { contentBlockDelta: { contentBlockIndex: 0, delta: { reasoningContent: { signature } } } },
      { contentBlockStop: { contentBlockIndex: 0 } },
      ...text.map((piece) => ({ contentBlockDelta: { contentBlockIndex: 1, delta: { text: piece } } })),
      { contentBlockStop: { contentBlockIndex: 1 } },
      { messageStop: { stopReason: "end_turn" } },
      { metadata: { usage: { inputTokens: 1, outputTokens: 2 } } },
    ];
    const { events: out, response } = await drain(
      assembleBedrockConverseStream(readAwsEventStream(byteStream(converseFrames(events), [4096, 3])), {
        provider: "bedrock",
        model: "m",
        origin: "bedrock",
      }),
    );
    expect(response.message.native!.blocks).toStrictEqual([
      { reasoningContent: { reasoningText: { text: thinking.join(""), signature } } },
      { text: text.join("") },
    ]);
    expect(joined(out, "reasoning-delta")).toBe(thinking.join(""));
    expect(joined(out, "text-delta")).toBe(text.join(""));
  });

  it("OpenAI Chat: reasoning_content, content and tool arguments", async () => {
    const chunk = (delta: Json) => ({
      id: "c",
      model: "m",
      choices: [{ index: 0, delta, finish_reason: null }],
    });
    const events: Json[] = [
      ...thinking.map((piece) => chunk({ reasoning_content: piece })),
      ...text.map((piece) => chunk({ content: piece })),
      chunk({
        tool_calls: [{ index: 0, id: "t1", type: "function", function: { name: "f", arguments: "" } }],
      }),
      ...[`{"value":"`, ...args, `"}`].map((piece) =>
        chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }),
      ),
      { id: "c", model: "m", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
    ];
    const body = encoder.encode(
      `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")}data: [DONE]\n\n`,
    );
    const { events: out, response } = await drain(
      assembleOpenAIChatStream(readSseBatches(byteStream(body, [4096, 5])), {
        provider: "deepseek",
        model: "m",
        profile: openAIChatEndpointProfile({ kind: "deepseek" }),
      }),
    );
    expect(response.reasoning).toBe(thinking.join(""));
    expect(response.message.content).toBe(text.join(""));
    expect(response.message.toolCalls).toStrictEqual([
      {
        id: "t1",
        name: "f",
        arguments: { value: distinctPieces(DELTAS, "a").join("") },
        argumentsText: argumentsJson,
      },
    ]);
    expect(joined(out, "reasoning-delta")).toBe(thinking.join(""));
    expect(joined(out, "text-delta")).toBe(text.join(""));
  });

  it("OpenAI Responses: text deltas of an item the terminal response does not list", async () => {
    const events: Json[] = [
      { type: "response.created", response: { id: "r", model: "m", output: [] } },
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { type: "message", id: "i", content: [] },
      },
      ...text.map((delta) => ({
        type: "response.output_text.delta",
        output_index: 0,
        content_index: 0,
        delta,
      })),
      { type: "response.completed", response: { id: "r", model: "m", status: "completed" } },
    ];
    const { events: out, response } = await drain(
      assembleOpenAIResponsesStream(readSseBatches(byteStream(sse(events), [4096, 9])), {
        provider: "openai",
        model: "m",
        origin: "openai",
      }),
    );
    // Rebuilt from its deltas (no output_item.done, no terminal output): kept, and said so.
    expect(response.message.native!.blocks).toStrictEqual([
      { type: "message", id: "i", content: [{ type: "output_text", text: text.join(""), annotations: [] }] },
    ]);
    expect(response.warnings).toEqual([
      "output[0] (message) never got its output_item.done and the terminal response has no output: rebuilt from its deltas",
    ]);
    expect(joined(out, "text-delta")).toBe(text.join(""));
  });
});
