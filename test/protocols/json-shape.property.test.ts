/**
 * The JSON-shape fast paths of the Anthropic, Chat Completions and Responses stream assemblers (src/protocols/
 * json-shape.ts): an event they read without `JSON.parse` must give exactly what parsing it gives, and
 * anything else — malformed JSON included — must fall through to the parse. Each run assembles a random
 * stream twice: as sent, and with every event's data behind one leading space, which JSON ignores and the
 * fast patterns (anchored at `{`) never match. Events, final response and error must be the same.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../src/core/stream-event.ts";
import { assembleAnthropicStream } from "../../src/protocols/anthropic-messages/assemble-anthropic-stream.ts";
import { assembleOpenAIChatStream } from "../../src/protocols/openai-chat/assemble-openai-chat-stream.ts";
import { assembleOpenAIResponsesStream } from "../../src/protocols/openai-responses/assemble-openai-responses-stream.ts";
import { openAIChatEndpointProfile } from "../../src/providers/openai-chat.ts";
import type { SseEvent } from "../../src/wire/sse.ts";

type Assemble = (events: AsyncIterable<SseEvent[]>) => AsyncGenerator<StreamEvent, void, undefined>;

async function outcome(assemble: Assemble, batches: SseEvent[][]) {
  async function* reads() {
    for (const batch of batches) yield batch.map((event) => ({ ...event }));
  }
  const events: StreamEvent[] = [];
  try {
    for await (const event of assemble(reads())) events.push(event);
    return { events: JSON.stringify(events) };
  } catch (error) {
    const { kind, message } = error as { kind?: string; message?: string };
    return { events: JSON.stringify(events), error: { kind, message } };
  }
}

/** Pieces of text that stress JSON strings: quotes, escapes, control characters, surrogates. */
const textArb = fc.string({
  unit: fc.oneof(
    fc.constantFrom('"', "\\", "\n", "\t", "\u0000", "\u001f", "\u2028", "/", "é", "😀", "\ud800", "u", "}"),
    fc.string({ minLength: 1, maxLength: 1 }),
  ),
  maxLength: 12,
});

/** A serialised event, or that text with one character inserted, removed or replaced. */
function mutated(dataArb: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const junk = fc.constantFrom('"', "\\", " ", "0", "1", "}", "{", ",", "\u0001", "x", "\\u00", "\\x");
  return fc.oneof(
    { weight: 3, arbitrary: dataArb },
    // Numbers JSON does not write: a leading zero, a sign, a fraction.
    fc
      .tuple(dataArb, fc.constantFrom("0", "-", "+"), fc.constantFrom("", ".0", "e1"))
      .map(([data, before, after]) => data.replace(/index":(\d+)/, `index":${before}$1${after}`)),
    fc.tuple(dataArb, fc.double({ min: 0, max: 1, noNaN: true }), junk).map(([data, at, insert]) => {
      const i = Math.floor(at * data.length);
      return data.slice(0, i) + insert + data.slice(i);
    }),
    fc.tuple(dataArb, fc.double({ min: 0, max: 1, noNaN: true }), fc.boolean()).map(([data, at, replace]) => {
      const i = Math.floor(at * data.length);
      return data.slice(0, i) + (replace ? "9" : "") + data.slice(i + 1);
    }),
  );
}

/**
 * The reads of a stream: either all events well formed, so the stream completes and its final response is
 * compared too, or some of them mutated (a malformed one ends the stream with an error).
 */
function readsArb(dataArb: fc.Arbitrary<string>): fc.Arbitrary<string[][]> {
  return fc.oneof(
    fc.array(fc.array(dataArb, { minLength: 1, maxLength: 4 }), { maxLength: 8 }),
    fc.array(fc.array(mutated(dataArb), { minLength: 1, maxLength: 4 }), { maxLength: 8 }),
  );
}

const sse = (data: string, event?: string): SseEvent => ({ id: undefined, event, data });
const behindSpace = (batches: SseEvent[][]) =>
  batches.map((batch) =>
    batch.map((event) => (event.data === "[DONE]" ? event : { ...event, data: ` ${event.data}` })),
  );

describe("fast paths read what JSON.parse reads, and nothing else", () => {
  it("Anthropic content_block_delta events", async () => {
    const context = { provider: "anthropic", model: "m", origin: "anthropic" };
    const assemble: Assemble = (events) => assembleAnthropicStream(events, context);
    const head = [
      JSON.stringify({ type: "message_start", message: { id: "msg", model: "m", content: [], usage: {} } }),
      JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      JSON.stringify({
        type: "content_block_start",
        index: 1,
        content_block: { type: "thinking", thinking: "" },
      }),
      JSON.stringify({
        type: "content_block_start",
        index: 2,
        content_block: { type: "tool_use", id: "t", name: "f", input: {} },
      }),
    ].map((data) => sse(data));
    const tail = [
      JSON.stringify({
        type: "message_delta",
        delta: { stop_reason: "end_turn" },
        usage: { output_tokens: 1 },
      }),
      JSON.stringify({ type: "message_stop" }),
    ].map((data) => sse(data));
    const deltaArb = fc
      .tuple(
        fc.constantFrom(0, 1, 2, 3, 10),
        fc.constantFrom(
          ["text_delta", "text"],
          ["thinking_delta", "thinking"],
          ["input_json_delta", "partial_json"],
          ["signature_delta", "signature"],
        ),
        textArb,
      )
      .map(([index, [type, member], text]) =>
        JSON.stringify({ type: "content_block_delta", index, delta: { type, [member!]: text } }),
      );
    await fc.assert(
      fc.asyncProperty(readsArb(deltaArb), async (reads) => {
        const batches = [head, ...reads.map((read) => read.map((data) => sse(data))), tail];
        expect(await outcome(assemble, batches)).toEqual(await outcome(assemble, behindSpace(batches)));
      }),
      { numRuns: 300 },
    );
  });

  it("Chat Completions chunks", async () => {
    const context = {
      provider: "deepseek",
      model: "m",
      profile: openAIChatEndpointProfile({ kind: "deepseek" }),
    };
    const assemble: Assemble = (events) => assembleOpenAIChatStream(events, context);
    const envelope = {
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1775000000,
      model: "m",
      system_fingerprint: "fp_1",
    };
    const first = sse(
      JSON.stringify({ ...envelope, choices: [{ index: 0, delta: { role: "assistant", content: "" } }] }),
    );
    const open = sse(
      JSON.stringify({
        ...envelope,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [{ index: 0, id: "c", type: "function", function: { name: "f", arguments: "" } }],
            },
          },
        ],
      }),
    );
    const chunkArb = fc
      .tuple(
        fc.constantFrom("content", "reasoning_content", "reasoning", "tool"),
        textArb,
        fc.constantFrom(0, 1, 7),
        fc.constantFrom({}, { logprobs: null }),
        fc.constantFrom({}, { usage: null }, { obfuscation: "aZ0+" }, { usage: { prompt_tokens: 1 } }),
        fc.constantFrom("m", "other"),
      )
      .map(([member, text, index, logprobs, extra, model]) =>
        JSON.stringify({
          ...envelope,
          model,
          choices: [
            {
              index: 0,
              delta:
                member === "tool"
                  ? { tool_calls: [{ index, function: { arguments: text } }] }
                  : { [member]: text },
              ...logprobs,
              finish_reason: null,
            },
          ],
          ...extra,
        }),
      );
    await fc.assert(
      fc.asyncProperty(readsArb(chunkArb), async (reads) => {
        const batches = [
          [first, open],
          ...reads.map((read) => read.map((data) => sse(data))),
          [sse("[DONE]")],
        ];
        expect(await outcome(assemble, batches)).toEqual(await outcome(assemble, behindSpace(batches)));
      }),
      { numRuns: 300 },
    );
  });

  it("Responses delta events", async () => {
    const context = { provider: "openai", model: "m", origin: "openai" };
    const assemble: Assemble = (events) => assembleOpenAIResponsesStream(events, context);
    const response = { id: "resp_1", object: "response", model: "m", status: "in_progress", output: [] };
    const items = [
      { id: "rs_1", type: "reasoning", summary: [] },
      { id: "msg_1", type: "message", role: "assistant", status: "in_progress", content: [] },
      { id: "fc_1", type: "function_call", call_id: "call_1", name: "f", arguments: "" },
    ];
    const head = [
      { type: "response.created", sequence_number: 0, response },
      ...items.map((item, output_index) => ({
        type: "response.output_item.added",
        sequence_number: output_index + 1,
        output_index,
        item,
      })),
    ].map((event) => sse(JSON.stringify(event), event.type));
    const completed = {
      type: "response.completed",
      sequence_number: 99,
      response: { ...response, status: "completed" },
    };
    const tail = [sse(JSON.stringify(completed), completed.type)];
    const deltaArb = fc
      .tuple(
        fc.constantFrom(
          ["output_text", "content_index"],
          ["reasoning_summary_text", "summary_index"],
          ["function_call_arguments", undefined],
          ["output_text", "summary_index"],
          ["function_call_arguments", "content_index"],
          ["reasoning_summary_text", "content_index"],
          ["reasoning_text", "content_index"],
        ),
        // The message item (1) most often: its parts are where a wrong content index shows.
        fc.constantFrom(0, 1, 1, 1, 2, 5),
        fc.constantFrom(0, 1),
        textArb,
        fc.constantFrom({}, { logprobs: [] }, { logprobs: [{ token: "a" }] }),
        fc.constantFrom({}, { obfuscation: "aZ0+" }),
        fc.constantFrom(3, 1234567890123456),
      )
      .map(([[kind, part], output_index, partIndex, delta, logprobs, obfuscation, sequence_number]) =>
        JSON.stringify({
          type: `response.${kind}.delta`,
          sequence_number,
          item_id: "it\\em",
          output_index,
          ...(part === undefined ? {} : { [part]: partIndex }),
          delta,
          ...logprobs,
          ...obfuscation,
        }),
      );
    await fc.assert(
      fc.asyncProperty(readsArb(deltaArb), fc.boolean(), async (reads, named) => {
        const batches = [
          head,
          ...reads.map((read) =>
            read.map((data) => sse(data, named ? "response.output_text.delta" : undefined)),
          ),
          tail,
        ];
        expect(await outcome(assemble, batches)).toEqual(await outcome(assemble, behindSpace(batches)));
      }),
      { numRuns: 300 },
    );
  });
});
