/**
 * Stream → history → next request, on every recorded Anthropic message that has thinking, redacted_thinking
 * or tool_use blocks: the assistant turn must go back to the same model and endpoint exactly as it came
 * (blocks verbatim, same order, signatures byte for byte, whitespace-only text left out), and to any other
 * model or endpoint without its reasoning — dropped, never turned into text.
 */
import { describe, expect, it } from "vitest";
import {
  type AssistantMessage,
  anthropic,
  type Message,
  type MessageInput,
  type Response as ModelResponse,
} from "../../../src/index.ts";
import { byteStream } from "../../helpers/byte-stream.ts";
import { listFixtures, loadFixture } from "../../helpers/fixtures.ts";

const MODEL = "claude-sonnet-4-5";
const OTHER_MODEL = "claude-other";
const decoder = new TextDecoder();
const encoder = new TextEncoder();

type Json = Record<string, unknown>;

interface RecordedMessage {
  name: string;
  bytes: Uint8Array;
  /** The JSON of each `data:` line, parsed without src/. */
  wire: Json[];
}

// ---------------------------------------------------------------------------------------------------
// Every Anthropic SSE interaction, one entry per message (chunks.txt files concatenate several).

function lineTexts(body: Uint8Array): { start: number; text: string }[] {
  const out: { start: number; text: string }[] = [];
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf(0x0a, start);
    if (end === -1) end = body.length;
    out.push({ start, text: decoder.decode(body.subarray(start, end)).replace(/\r$/, "") });
    start = end + 1;
  }
  return out;
}

function dataJson(text: string): Json | undefined {
  return text.startsWith("data:")
    ? (JSON.parse(text.slice(text.startsWith("data: ") ? 6 : 5)) as Json)
    : undefined;
}

/** Cuts a body at the start of every event block holding a `message_start`. */
function splitMessages(body: Uint8Array): Uint8Array[] {
  const cuts: number[] = [];
  let blockStart = 0;
  for (const line of lineTexts(body)) {
    if (line.text === "") {
      blockStart = -1;
      continue;
    }
    if (blockStart === -1) blockStart = line.start;
    if (dataJson(line.text)?.type === "message_start" && cuts.at(-1) !== blockStart) cuts.push(blockStart);
  }
  if (cuts[0] !== 0) cuts.unshift(0);
  return cuts.map((cut, index) => body.slice(cut, cuts[index + 1] ?? body.length));
}

async function loadRecordedMessages(): Promise<RecordedMessage[]> {
  const out: RecordedMessage[] = [];
  for (const info of listFixtures("anthropic")) {
    for (const interaction of (await loadFixture(info.path)).interactions) {
      if (interaction.bodyKind !== "sse") continue;
      splitMessages(interaction.body).forEach((bytes, message) => {
        const wire = lineTexts(bytes).flatMap((line): Json[] => {
          const json = dataJson(line.text);
          return json === undefined ? [] : [json];
        });
        out.push({ name: `${info.path}#${interaction.index}/${message}`, bytes, wire });
      });
    }
  }
  return out;
}

const ALL = await loadRecordedMessages();

/** Block types the wire sent for a message: content_block_start blocks and blocks inside message_start. */
function wireBlockTypes(message: RecordedMessage): string[] {
  return message.wire.flatMap((event): string[] => {
    if (event.type === "content_block_start") return [String((event.content_block as Json).type)];
    if (event.type === "message_start")
      return (((event.message as Json).content ?? []) as Json[]).map((block) => String(block.type));
    return [];
  });
}

const REPLAYED_TYPES = new Set(["thinking", "redacted_thinking", "tool_use"]);
const CASES = ALL.filter((message) => wireBlockTypes(message).some((type) => REPLAYED_TYPES.has(type)));

/** Thinking signatures and redacted data as the wire sent them, by block index. */
function wireSecrets(wire: readonly Json[]): Map<number, { signature?: string; data?: string }> {
  const out = new Map<number, { signature?: string; data?: string }>();
  for (const event of wire) {
    const index = event.index as number;
    if (event.type === "content_block_start") {
      const block = event.content_block as Json;
      if (block.type === "thinking") out.set(index, { signature: String(block.signature ?? "") });
      if (block.type === "redacted_thinking") out.set(index, { data: String(block.data) });
    }
    const delta = event.delta as Json | undefined;
    if (event.type === "content_block_delta" && delta?.type === "signature_delta") {
      const entry = out.get(index)!;
      entry.signature = (entry.signature ?? "") + String(delta.signature);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------

function sseResponse(bytes: Uint8Array): Response {
  return new Response(byteStream(bytes, [3, 41, 8]), { headers: { "content-type": "text/event-stream" } });
}

async function streamDone(
  model: string,
  history: readonly MessageInput[],
  bytes: Uint8Array,
): Promise<{ response: ModelResponse; body: Json }> {
  let body: Json | undefined;
  const provider = anthropic({
    apiKey: "test-key",
    model,
    fetch: async (_url, init) => {
      body = JSON.parse(String(init?.body)) as Json;
      return sseResponse(bytes);
    },
  });
  let response: ModelResponse | undefined;
  for await (const event of provider.stream(history)) if (event.type === "done") response = event.response;
  if (!response || !body) throw new Error("stream ended without a done event");
  return { response, body };
}

/** A small real response for the second call: what it says does not matter, only the request does. */
const NEXT = ALL.find((message) =>
  message.name.includes("test_request_stream_fallback_for_high_max_tokens"),
)!;

/** The recorded message as our stream() returns it. */
async function firstTurn(message: RecordedMessage): Promise<AssistantMessage> {
  return (await streamDone(MODEL, [{ role: "user", content: "hi" }], message.bytes)).response.message;
}

/** user, the assistant message, results for its tool calls, and a user follow-up. */
function historyWith(assistant: MessageInput, toolCalls: Message["toolCalls"]): MessageInput[] {
  const history: MessageInput[] = [{ role: "user", content: "hi" }, assistant];
  if (toolCalls.length > 0) {
    history.push({
      role: "tool",
      toolResults: toolCalls.map((call) => ({ callId: call.id, content: `result of ${call.name}` })),
    });
  }
  history.push({ role: "user", content: "Go on." });
  return history;
}

function isBlankText(block: Json): boolean {
  return block.type === "text" && typeof block.text === "string" && block.text.trim() === "";
}

function allBlocks(body: Json): Json[] {
  return (body.messages as { content: Json[] }[]).flatMap((turn) => turn.content);
}

/**
 * A request whose history came from another model or endpoint: no reasoning blocks at all, and no
 * thinking text, signature or redacted data anywhere in it (never demoted to text); the turn is rebuilt
 * from the message's text and tool calls.
 */
function expectReasoningDropped(
  body: Json,
  message: AssistantMessage,
  warnings: readonly string[] | undefined,
): void {
  const blocks = message.native!.blocks as Json[];
  const types = allBlocks(body).map((block) => block.type);
  expect(types).not.toContain("thinking");
  expect(types).not.toContain("redacted_thinking");
  const serialized = JSON.stringify(body);
  const texts = allBlocks(body).flatMap((block) => (block.type === "text" ? [String(block.text)] : []));
  for (const block of blocks) {
    if (block.type === "thinking") {
      const thinking = String(block.thinking).trim();
      if (thinking !== "") {
        for (const text of texts) expect(text).not.toContain(thinking);
        expect(serialized).not.toContain(JSON.stringify(thinking).slice(1, -1));
      }
      expect(serialized).not.toContain(String(block.signature));
    }
    if (block.type === "redacted_thinking") expect(serialized).not.toContain(String(block.data));
  }
  if (blocks.some((block) => block.type === "thinking" || block.type === "redacted_thinking")) {
    expect(warnings?.some((warning) => warning.includes("dropped"))).toBe(true);
  }
  // Rebuilt from the neutral fields: the text, then the tool calls.
  const assistants = (body.messages as { role: string; content: Json[] }[]).filter(
    (t) => t.role === "assistant",
  );
  expect(assistants).toHaveLength(1);
  const rebuilt: Json[] = [];
  if (message.content.trim() !== "") rebuilt.push({ type: "text", text: message.content });
  for (const call of message.toolCalls) {
    rebuilt.push({ type: "tool_use", id: call.id, name: call.name, input: call.arguments });
  }
  expect(assistants[0]!.content).toStrictEqual(rebuilt);
}

describe("Anthropic replay round trip: stream → history → next request", () => {
  it("finds the recorded messages with thinking, redacted_thinking or tool_use blocks", () => {
    expect(ALL.length).toBe(41);
    // 12 single-message streams, programmatic tool calling's 14 tool_use messages, bm25's first two.
    expect(CASES.length).toBe(29);
    expect(CASES.filter((m) => wireBlockTypes(m).includes("thinking")).length).toBe(7);
    expect(CASES.filter((m) => wireBlockTypes(m).includes("redacted_thinking")).length).toBe(1);
  });

  for (const message of CASES) {
    describe(message.name, () => {
      it("same model and endpoint: native blocks replayed verbatim, in order, whitespace-only text left out", async () => {
        const first = await firstTurn(message);
        const native = first.native!;
        const blocks = native.blocks as Json[];
        expect(native).toMatchObject({ protocol: "anthropic-messages", origin: "anthropic", model: MODEL });
        const before = blocks.map((block) => JSON.stringify(block));

        const { body, response } = await streamDone(MODEL, historyWith(first, first.toolCalls), NEXT.bytes);
        const turns = body.messages as { role: string; content: Json[] }[];
        expect(turns.map((turn) => turn.role)).toEqual(["user", "assistant", "user"]);
        const sent = turns[1]!.content;
        const kept = blocks.filter((block) => !isBlankText(block));
        expect(sent.map((block) => JSON.stringify(block))).toEqual(
          kept.map((block) => JSON.stringify(block)),
        );

        // Byte for byte against the wire too, not only against our own blocks.
        const secrets = wireSecrets(message.wire);
        const sentReasoning = sent.filter((b) => b.type === "thinking" || b.type === "redacted_thinking");
        expect(sentReasoning).toHaveLength(secrets.size);
        [...secrets.values()].forEach((secret, position) => {
          const block = sentReasoning[position]!;
          if (secret.data !== undefined) expect(block.data).toBe(secret.data);
          else expect(block.signature).toBe(secret.signature);
        });

        // Tool results answer the tool calls, in order, before the follow-up text.
        expect(turns[2]!.content.map((block) => block.type === "tool_result" && block.tool_use_id)).toEqual([
          ...first.toolCalls.map((call) => call.id),
          false,
        ]);
        expect(response.warnings).toBeUndefined();
        // Sending did not touch the history (cache marks go on copies).
        expect(blocks.map((block) => JSON.stringify(block))).toEqual(before);
      });

      it("a different model: reasoning dropped, never demoted to text", async () => {
        const first = await firstTurn(message);
        const { body, response } = await streamDone(
          OTHER_MODEL,
          historyWith(first, first.toolCalls),
          NEXT.bytes,
        );
        expectReasoningDropped(body, first, response.warnings);
      });

      it("the same model through another endpoint (origin bedrock): reasoning dropped", async () => {
        const first = await firstTurn(message);
        const moved: Message = { ...first, native: { ...first.native!, origin: "bedrock" } };
        const { body, response } = await streamDone(MODEL, historyWith(moved, first.toolCalls), NEXT.bytes);
        expectReasoningDropped(body, first, response.warnings);
      });
    });
  }
});

describe("Anthropic replay round trip: a whitespace-only text block before thinking", () => {
  // Adaptive-thinking models can open with a "\n\n" text block before the thinking block (fixtures README).
  // No recording in the shared set has one, so a real thinking stream gets one: a text block "\n\n" at
  // index 0, every other block moved up by one.
  const source = CASES.find((m) => m.name.includes("test_anthropic_model_thinking_part_stream"))!;
  const shifted = source.wire.flatMap((event): Json[] => {
    const moved = typeof event.index === "number" ? { ...event, index: event.index + 1 } : event;
    if (event.type !== "message_start") return [moved];
    return [
      event,
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "\n\n" } },
      { type: "content_block_stop", index: 0 },
    ];
  });
  const bytes = encoder.encode(
    shifted.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join(""),
  );

  it("no recorded message has a whitespace-only text block (so this case is built from a real one)", () => {
    const blank = ALL.flatMap((message) => {
      const texts = new Map<number, string>();
      for (const event of message.wire) {
        const index = event.index as number;
        if (event.type === "content_block_start" && (event.content_block as Json).type === "text")
          texts.set(index, String((event.content_block as Json).text));
        const delta = event.delta as Json | undefined;
        if (delta?.type === "text_delta") texts.set(index, (texts.get(index) ?? "") + String(delta.text));
      }
      return [...texts.values()].filter((text) => text.trim() === "").map(() => message.name);
    });
    expect(blank).toEqual([]);
  });

  it("is kept in native.blocks, left out of the replayed turn, and the thinking after it goes verbatim", async () => {
    const { response } = await streamDone(MODEL, [{ role: "user", content: "hi" }], bytes);
    const first = response.message;
    const blocks = first.native!.blocks as Json[];
    expect(blocks.map((block) => block.type)).toEqual(["text", "thinking", "text"]);
    expect(blocks[0]).toStrictEqual({ type: "text", text: "\n\n" });

    const { body } = await streamDone(MODEL, historyWith(first, []), NEXT.bytes);
    const sent = (body.messages as { content: Json[] }[])[1]!.content;
    expect(sent.map((block) => JSON.stringify(block))).toEqual(blocks.slice(1).map((b) => JSON.stringify(b)));
    expect(sent[0]!.signature).toBe(wireSecrets(source.wire).get(0)!.signature);

    const other = await streamDone(OTHER_MODEL, historyWith(first, []), NEXT.bytes);
    expectReasoningDropped(other.body, first, other.response.warnings);
  });
});
