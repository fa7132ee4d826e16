/**
 * Conformance of `anthropic().stream()` / `complete()` against the official SDK (`@anthropic-ai/sdk`), on every
 * recorded Anthropic SSE response in the shared fixtures (each concatenated message separately).
 *
 * For each recorded message the exact bytes go, in random-size chunks, through our provider (injected
 * `fetch`) and through `new Anthropic(...).messages.stream(...).finalMessage()`. The SDK's final message is
 * the reference; where it is known to be wrong or to differ by design, the difference is asserted exactly
 * (see `expectedFromSdk`). The events we yield are checked against an order rebuilt independently from the
 * raw wire events, and `complete()` on the SDK's final message JSON must equal the stream's `done` response.
 */
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import {
  anthropic,
  type Response as ModelResponse,
  ProviderError,
  type StopReason,
  type StreamEvent,
  type ToolCall,
  type Usage,
} from "../../../src/index.ts";
import { isContentEvent, isRetryableKind } from "../../../src/protocols/index.ts";
import { byteStream, type ChunkSizes, concatBytes } from "../../helpers/byte-stream.ts";
import { listFixtures, loadFixture } from "../../helpers/fixtures.ts";

const MODEL = "claude-sonnet-4-5";
const HISTORY = [{ role: "user" as const, content: "hi" }];
const decoder = new TextDecoder();
const encoder = new TextEncoder();

// ---------------------------------------------------------------------------------------------------
// Fixtures: every Anthropic SSE interaction, split into one byte range per message.

type Json = Record<string, unknown>;

interface RecordedMessage {
  /** `<fixture path>#<interaction>/<message>` */
  name: string;
  path: string;
  /** The exact bytes of this message's events (a slice of the recorded body). */
  bytes: Uint8Array;
  /** The JSON of each `data:` line, parsed here without any src/ code. */
  wire: Json[];
  /** True when the body was rebuilt from vercel's chunks.txt lines (no `event:` lines). */
  decoded: boolean;
}

/** Byte offsets of the lines of `body` (LF-terminated; a trailing CR is not part of the line text). */
function lines(body: Uint8Array): { start: number; end: number; text: string }[] {
  const out: { start: number; end: number; text: string }[] = [];
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf(0x0a, start);
    if (end === -1) end = body.length;
    out.push({ start, end, text: decoder.decode(body.subarray(start, end)).replace(/\r$/, "") });
    start = end + 1;
  }
  return out;
}

/** Start offsets of the SSE event blocks of `body` (a block starts after a blank line). */
function eventBlockStarts(body: Uint8Array): number[] {
  const starts: number[] = [];
  let atBlockStart = true;
  for (const line of lines(body)) {
    if (line.text === "") {
      atBlockStart = true;
      continue;
    }
    if (atBlockStart) starts.push(line.start);
    atBlockStart = false;
  }
  return starts;
}

function dataJson(lineText: string): Json | undefined {
  if (!lineText.startsWith("data:")) return undefined;
  const value = lineText.slice(lineText.startsWith("data: ") ? 6 : 5);
  return JSON.parse(value) as Json;
}

function wireEvents(bytes: Uint8Array): Json[] {
  return lines(bytes).flatMap((line) => {
    const json = dataJson(line.text);
    return json === undefined ? [] : [json];
  });
}

/** Cuts a body at every event block holding a `message_start` (several chunks.txt files concatenate responses). */
function splitMessages(body: Uint8Array): Uint8Array[] {
  const cuts: number[] = [];
  for (const start of eventBlockStarts(body)) {
    const block = lines(body.subarray(start)).map((line) => line.text);
    const blockLines = block.slice(0, block.indexOf("") === -1 ? block.length : block.indexOf(""));
    if (blockLines.some((text) => dataJson(text)?.type === "message_start")) cuts.push(start);
  }
  if (cuts[0] !== 0) cuts.unshift(0);
  return cuts.map((cut, index) => body.slice(cut, cuts[index + 1] ?? body.length));
}

async function loadRecordedMessages(): Promise<{ messages: RecordedMessage[]; skipped: string[] }> {
  const messages: RecordedMessage[] = [];
  const skipped: string[] = [];
  for (const info of listFixtures("anthropic")) {
    const fixture = await loadFixture(info.path);
    for (const interaction of fixture.interactions) {
      if (interaction.bodyKind !== "sse") {
        skipped.push(`${info.path}#${interaction.index} (${interaction.bodyKind})`);
        continue;
      }
      const parts = splitMessages(interaction.body);
      // Nothing lost or reordered by the split.
      expect(concatBytes(parts)).toEqual(interaction.body);
      parts.forEach((bytes, message) => {
        messages.push({
          name: `${info.path}#${interaction.index}/${message}`,
          path: info.path,
          bytes,
          wire: wireEvents(bytes),
          decoded: interaction.decoded,
        });
      });
    }
  }
  return { messages, skipped };
}

const { messages: RECORDED, skipped: SKIPPED } = await loadRecordedMessages();

function recorded(pathPart: string, index = 0): RecordedMessage {
  const found = RECORDED.filter((message) => message.path.includes(pathPart));
  const message = found[index];
  if (!message) throw new Error(`no recorded message ${pathPart}[${index}]`);
  return message;
}

// ---------------------------------------------------------------------------------------------------
// Running our provider and the SDK on the same bytes.

/** Deterministic random chunk sizes (1..64 bytes) seeded from the message name. */
function randomChunkSizes(seedText: string): ChunkSizes {
  let seed = 2166136261;
  for (let i = 0; i < seedText.length; i++) seed = Math.imul(seed ^ seedText.charCodeAt(i), 16777619);
  const sizes: number[] = [];
  for (let i = 0; i < 257; i++) {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    sizes.push(1 + ((((t ^ (t >>> 14)) >>> 0) % 64) | 0));
  }
  return sizes;
}

function sseResponse(bytes: Uint8Array, sizes: ChunkSizes): Response {
  return new Response(byteStream(bytes, sizes), { headers: { "content-type": "text/event-stream" } });
}

interface OurRun {
  events: StreamEvent[];
  error?: unknown;
}

async function runOurs(bytes: Uint8Array, sizes: ChunkSizes): Promise<OurRun> {
  const provider = anthropic({
    apiKey: "test-key",
    model: MODEL,
    fetch: async () => sseResponse(bytes, sizes),
  });
  const events: StreamEvent[] = [];
  try {
    for await (const event of provider.stream(HISTORY)) events.push(event);
  } catch (error) {
    return { events, error };
  }
  return { events };
}

function doneOf(run: OurRun): ModelResponse {
  if (run.error !== undefined) throw run.error;
  const last = run.events.at(-1);
  if (last?.type !== "done") throw new Error("stream ended without a done event");
  return last.response;
}

/**
 * The SDK reads only events that have an `event:` field (core/streaming.ts: `if (sse.event === null)
 * continue`). vercel's chunks.txt kept only the `data:` payloads; Anthropic always sends `event: <type>`,
 * so the SDK gets that framing back. Raw recordings go to the SDK byte for byte.
 */
function sdkBytes(message: RecordedMessage): Uint8Array {
  if (!message.decoded) return message.bytes;
  return encoder.encode(
    lines(message.bytes)
      .filter((line) => line.text.startsWith("data:"))
      .map((line) => `event: ${String(dataJson(line.text)?.type)}\n${line.text}\n\n`)
      .join(""),
  );
}

interface SdkRun {
  /** `finalMessage()` as JSON: the SDK's lazy `input` getters and hidden `__json_buf` / `parsed_output` gone. */
  message: Json;
  texts: string[];
  thinkings: string[];
}

function sdkClient(fetchImpl: () => Promise<Response>): Anthropic {
  return new Anthropic({ apiKey: "test-key", maxRetries: 0, fetch: fetchImpl as unknown as typeof fetch });
}

async function runSdk(bytes: Uint8Array, sizes: ChunkSizes): Promise<SdkRun> {
  const client = sdkClient(async () => sseResponse(bytes, sizes));
  const stream = client.messages.stream({ model: MODEL, max_tokens: 1024, messages: HISTORY });
  const texts: string[] = [];
  const thinkings: string[] = [];
  stream.on("text", (delta) => texts.push(delta));
  stream.on("thinking", (delta) => thinkings.push(delta));
  const final = await stream.finalMessage();
  return { message: JSON.parse(JSON.stringify(final)) as Json, texts, thinkings };
}

interface Conformance {
  ours: OurRun;
  done: ModelResponse;
  sdk: SdkRun;
  expected: Expected;
}

/**
 * Each recording's run, shared by the tests that read it — except under mutation testing (the Stryker
 * runner defines `__stryker__`), whose per-test coverage would credit only the test that filled the cache.
 */
const cache = "__stryker__" in globalThis ? undefined : new Map<string, Promise<Conformance>>();

function conformance(message: RecordedMessage): Promise<Conformance> {
  let result = cache?.get(message.name);
  if (!result) {
    const sizes = randomChunkSizes(message.name);
    result = (async () => {
      const [ours, sdk] = await Promise.all([
        runOurs(message.bytes, sizes),
        runSdk(sdkBytes(message), sizes),
      ]);
      const done = doneOf(ours);
      return { ours, done, sdk, expected: expectedFromSdk(sdk.message, message.wire) };
    })();
    cache?.set(message.name, result);
  }
  return result;
}

// ---------------------------------------------------------------------------------------------------
// What our output must be, from the SDK's final message and the raw wire events.

/** Per content block index: what the wire sent, reconstructed without src/ or the SDK. */
interface WireBlock {
  start: Json;
  inputJson: string;
  inputDeltas: number;
  signatures: string[];
  /** The `content` of each `compaction_delta`, in order. */
  compactions: unknown[];
}

function wireBlocks(wire: readonly Json[]): Map<number, WireBlock> {
  const blocks = new Map<number, WireBlock>();
  for (const event of wire) {
    const index = event.index as number;
    if (event.type === "content_block_start") {
      blocks.set(index, {
        start: event.content_block as Json,
        inputJson: "",
        inputDeltas: 0,
        signatures: [],
        compactions: [],
      });
    } else if (event.type === "content_block_delta") {
      const block = blocks.get(index)!;
      const delta = event.delta as Json;
      if (delta.type === "input_json_delta") {
        block.inputJson += String(delta.partial_json);
        block.inputDeltas++;
      }
      if (delta.type === "signature_delta") block.signatures.push(String(delta.signature));
      if (delta.type === "compaction_delta") block.compactions.push(delta.content);
    }
  }
  return blocks;
}

function parsesAsObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** Block types whose `input_json_delta` the SDK accumulates (lib/MessageStream.ts `tracksToolInput`). */
const SDK_TRACKED_INPUT = new Set(["tool_use", "server_tool_use"]);

interface Expected {
  blocks: Json[];
  toolCalls: ToolCall[];
  /** Where our blocks legitimately differ from the SDK's (each one asserted in `expectedFromSdk`). */
  differences: string[];
  /** Positions of tool blocks whose streamed input JSON was cut off (the SDK partial-parses those). */
  truncated: number[];
}

/**
 * Our expected `native.blocks` and tool calls: the SDK's content, corrected where the SDK is known to
 * differ. Each correction first asserts what the SDK produced, so a changed SDK shows up here.
 */
function expectedFromSdk(sdkMessage: Json, wire: readonly Json[]): Expected {
  const sdkContent = sdkMessage.content as Json[];
  const fromStart = ((wire.find((event) => event.type === "message_start")?.message as Json | undefined)
    ?.content ?? []) as Json[];
  const byIndex = wireBlocks(wire);
  const differences: string[] = [];
  const malformed = new Map<Json, string>();
  const truncated: number[] = [];
  const blocks = sdkContent.map((sdkBlock, position) => {
    // The SDK starts its snapshot from message_start's content, then pushes one block per content_block_start.
    const wireBlock = byIndex.get(position - fromStart.length);
    if (!wireBlock) return sdkBlock;
    const type = String(sdkBlock.type);
    if ("input" in wireBlock.start && wireBlock.inputDeltas > 0 && !SDK_TRACKED_INPUT.has(type)) {
      // The SDK drops input_json_delta for block types other than tool_use / server_tool_use (here
      // mcp_tool_use), keeping content_block_start's `{}`. The API streams mcp_tool_use input the same way
      // and its final message carries the whole input, so we are right to join and parse the deltas.
      expect(sdkBlock.input).toStrictEqual(wireBlock.start.input);
      differences.push(`${type} input: SDK keeps content_block_start's input`);
      return { ...sdkBlock, input: JSON.parse(wireBlock.inputJson) as unknown };
    }
    const inputText = wireBlock.inputJson;
    if (SDK_TRACKED_INPUT.has(type) && inputText.trim() !== "" && !parsesAsObject(inputText)) {
      // Truncated tool input (a max_tokens stop): the SDK partial-parses the JSON into a best-effort
      // object; we keep `{}` as the block input and the raw text in the tool call's `argumentsText`, so
      // nothing is guessed and nothing is lost.
      expect(typeof sdkBlock.input).toBe("object");
      expect(Object.keys(sdkBlock.input as Json).length).toBeGreaterThan(0);
      differences.push(`${type} input: SDK partial-parses truncated JSON`);
      truncated.push(position);
      const corrected = { ...sdkBlock, input: {} };
      if (type === "tool_use") malformed.set(corrected, inputText);
      return corrected;
    }
    if (type === "thinking" && wireBlock.signatures.length > 1) {
      // The SDK REPLACES the signature on each signature_delta; we append, so a signature sent in
      // pieces survives whole. Real traffic sends one signature_delta per block, where both agree.
      expect(sdkBlock.signature).toBe(wireBlock.signatures.at(-1));
      differences.push("thinking signature: SDK keeps only the last signature_delta");
      return {
        ...sdkBlock,
        signature: String(wireBlock.start.signature ?? "") + wireBlock.signatures.join(""),
      };
    }
    if (type === "compaction" && wireBlock.compactions.length > 0) {
      // The SDK's MessageStream has no case for compaction_delta and keeps content_block_start's
      // `content: null` (its BetaMessageStream does take the delta); the whole answer carries the summary,
      // so we are right to keep it (one delta, which the rule of mergeUnknownDelta appends onto null).
      expect(sdkBlock.content).toStrictEqual(wireBlock.start.content);
      differences.push("compaction content: SDK drops compaction_delta");
      return { ...sdkBlock, content: wireBlock.compactions.join("") };
    }
    return sdkBlock;
  });
  const toolCalls = blocks.flatMap((block): ToolCall[] => {
    if (block.type !== "tool_use") return [];
    const call: ToolCall = {
      id: String(block.id),
      name: String(block.name),
      arguments: block.input as ToolCall["arguments"],
    };
    const raw = malformed.get(block);
    if (raw !== undefined) call.argumentsText = raw;
    return [call];
  });
  return { blocks, toolCalls, differences, truncated };
}

/** `stop_reason` → neutral, per the Messages API docs (written out here, not taken from src/). */
const STOP_REASONS: Record<string, StopReason> = {
  end_turn: "stop",
  stop_sequence: "stop",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  tool_use: "tool-calls",
  refusal: "content-filter",
  pause_turn: "pause",
};

/** The SDK's `usage` → neutral usage; `undefined` where the SDK's field is absent or null. */
/** The `iterations` of the last usage the wire sent (message_delta, else message_start), if any. */
function wireIterations(wire: readonly Json[]): Json[] | undefined {
  for (const event of [...wire].reverse()) {
    const usage = (event.usage ?? (event.message as Json | undefined)?.usage) as Json | undefined;
    if (Array.isArray(usage?.iterations)) return usage.iterations as Json[];
  }
  return undefined;
}

function usageFromSdk(usage: Json): Usage {
  const count = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);
  // A server-side compaction step's counts are billed beside the top level's (the message iterations).
  const steps = (Array.isArray(usage.iterations) ? (usage.iterations as Json[]) : []).filter(
    (item) => item?.type === "compaction",
  );
  if (steps.length > 0) {
    const add = (field: string) => {
      const values = [usage[field], ...steps.map((item) => item[field])].filter((v) => typeof v === "number");
      return values.length === 0 ? undefined : (values as number[]).reduce((a, b) => a + b, 0);
    };
    const split = (field: string) => {
      const values = [
        (usage.cache_creation as Json | undefined)?.[field],
        ...steps.map((item) => (item.cache_creation as Json | undefined)?.[field]),
      ].filter((v) => typeof v === "number");
      return values.length === 0 ? undefined : (values as number[]).reduce((a, b) => a + b, 0);
    };
    usage = {
      ...usage,
      input_tokens: add("input_tokens"),
      output_tokens: add("output_tokens"),
      cache_read_input_tokens: add("cache_read_input_tokens"),
      cache_creation_input_tokens: add("cache_creation_input_tokens"),
      cache_creation: {
        ephemeral_5m_input_tokens: split("ephemeral_5m_input_tokens"),
        ephemeral_1h_input_tokens: split("ephemeral_1h_input_tokens"),
      },
    };
  }
  const cacheCreation = (usage.cache_creation ?? undefined) as Json | undefined;
  const details = (usage.output_tokens_details ?? undefined) as Json | undefined;
  const mapped: Usage = {
    inputTokens: count(usage.input_tokens),
    outputTokens: count(usage.output_tokens),
    cachedInputTokens: count(usage.cache_read_input_tokens),
    cacheWriteTokens: count(usage.cache_creation_input_tokens),
    cacheWrite5mTokens: count(cacheCreation?.ephemeral_5m_input_tokens),
    cacheWrite1hTokens: count(cacheCreation?.ephemeral_1h_input_tokens),
    reasoningTokens: count(details?.thinking_tokens),
  };
  // A 5m/1h split that does not add up to the cache-write total (a message_delta raised the total without
  // a new split; seen in the code-execution recording) is reported by us as "not reported", not as wrong numbers.
  if (
    mapped.cacheWriteTokens !== undefined &&
    (mapped.cacheWrite5mTokens ?? 0) + (mapped.cacheWrite1hTokens ?? 0) !== mapped.cacheWriteTokens
  ) {
    mapped.cacheWrite5mTokens = undefined;
    mapped.cacheWrite1hTokens = undefined;
  }
  // Our Usage leaves unreported fields out instead of holding `undefined`.
  for (const key of Object.keys(mapped) as (keyof Usage)[]) if (mapped[key] === undefined) delete mapped[key];
  return mapped;
}

/** Content and usage events in the order the wire sent them, derived from the raw events alone. */
function expectedEventOrder(wire: readonly Json[]): unknown[] {
  const out: unknown[] = [];
  const toolPosition = new Map<number, number>();
  const toolIds = new Map<number, string>();
  let tools = 0;
  const startBlock = (block: Json): number | undefined => {
    if (block.type === "text" && block.text) out.push({ type: "text-delta", text: block.text });
    if (block.type === "thinking" && block.thinking)
      out.push({ type: "reasoning-delta", text: block.thinking });
    if (block.type !== "tool_use") return undefined;
    const position = tools++;
    out.push({ type: "tool-call-start", index: position, id: block.id, name: block.name });
    return position;
  };
  for (const event of wire) {
    const index = event.index as number;
    switch (event.type) {
      case "message_start": {
        out.push({ type: "usage" });
        // Blocks that arrive whole inside message_start (programmatic tool calling) have no stop event.
        for (const block of ((event.message as Json).content ?? []) as Json[]) {
          const position = startBlock(block);
          if (position !== undefined) out.push({ type: "tool-call-end", index: position });
        }
        break;
      }
      case "content_block_start": {
        const block = event.content_block as Json;
        const position = startBlock(block);
        if (position !== undefined) {
          toolPosition.set(index, position);
          toolIds.set(index, String(block.id));
        }
        break;
      }
      case "content_block_delta": {
        const delta = event.delta as Json;
        if (delta.type === "text_delta" && delta.text) out.push({ type: "text-delta", text: delta.text });
        if (delta.type === "thinking_delta" && delta.thinking)
          out.push({ type: "reasoning-delta", text: delta.thinking });
        const position = toolPosition.get(index);
        if (delta.type === "input_json_delta" && delta.partial_json && position !== undefined) {
          out.push({
            type: "tool-call-delta",
            index: position,
            id: toolIds.get(index),
            argumentsDelta: delta.partial_json,
          });
        }
        break;
      }
      case "content_block_stop": {
        const position = toolPosition.get(index);
        if (position !== undefined) out.push({ type: "tool-call-end", index: position });
        toolPosition.delete(index);
        break;
      }
      case "message_delta":
        if (event.usage) out.push({ type: "usage" });
        break;
      case "message_stop":
        // A max_tokens stop can end the message with a tool block never stopped: the call still ends.
        for (const position of toolPosition.values()) out.push({ type: "tool-call-end", index: position });
        break;
    }
  }
  out.push({ type: "done" });
  return out;
}

/** Our events in the comparable shape of {@link expectedEventOrder} (payloads checked elsewhere dropped). */
function comparableEvents(events: readonly StreamEvent[], wholeTools: ReadonlySet<number>): unknown[] {
  return events.flatMap((event): unknown[] => {
    switch (event.type) {
      case "usage":
      case "done":
        return [{ type: event.type }];
      case "tool-call-end":
        return [{ type: event.type, index: event.index }];
      case "tool-call-delta":
        // A tool call that arrived whole (in message_start) may or may not be echoed as one delta.
        return wholeTools.has(event.index) ? [] : [event];
      default:
        return [event];
    }
  });
}

// ---------------------------------------------------------------------------------------------------

describe("Anthropic conformance: recorded streams", () => {
  it("covers every recorded Anthropic SSE message", () => {
    // 15 raw SSE bodies + 10 chunks.txt files holding 26 messages (programmatic tool calling: 15, bm25: 3).
    expect(RECORDED.length).toBe(41);
    // The only non-SSE interactions are pydantic-ai's non-streaming JSON responses, and one download
    // (the text document the client fetched before sending it inline).
    expect(SKIPPED).toEqual([
      "anthropic/pydantic-ai__test_anthropic_opus_46_adaptive_thinking_accepts_tool_output_provider_specific_.yaml#0 (json)",
      "anthropic/pydantic-ai__test_anthropic_prompted_output.yaml#0 (json)",
      "anthropic/pydantic-ai__test_anthropic_prompted_output.yaml#1 (json)",
      "anthropic/pydantic-ai__test_anthropic_tool_output.yaml#0 (json)",
      "anthropic/pydantic-ai__test_anthropic_tool_output.yaml#1 (json)",
      "anthropic/pydantic-ai__test_anthropic_tool_with_thinking.yaml#0 (json)",
      "anthropic/pydantic-ai__test_anthropic_tool_with_thinking.yaml#1 (json)",
      "anthropic/pydantic-ai__test_document_binary_content_input.yaml#0 (json)",
      "anthropic/pydantic-ai__test_image_url_input.yaml#0 (json)",
      "anthropic/pydantic-ai__test_image_url_input_invalid_mime_type.yaml#0 (json)",
      "anthropic/pydantic-ai__test_multiple_parallel_tool_calls.yaml#0 (json)",
      "anthropic/pydantic-ai__test_multiple_parallel_tool_calls.yaml#1 (json)",
      "anthropic/pydantic-ai__test_text_document_url_input.yaml#0 (text)",
      "anthropic/pydantic-ai__test_text_document_url_input.yaml#1 (json)",
    ]);
    for (const message of RECORDED) {
      expect(message.wire[0]?.type, message.name).toBe("message_start");
      expect(
        message.wire.filter((event) => event.type === "message_start"),
        message.name,
      ).toHaveLength(1);
      expect(message.wire.at(-1)?.type, message.name).toBe("message_stop");
    }
    // Every file under anthropic/ contributed.
    const files = new Set([...RECORDED.map((m) => m.path), ...SKIPPED.map((s) => s.split("#")[0])]);
    expect(files.size).toBe(listFixtures("anthropic").length);
  });

  it("differs from the SDK's final message in exactly these documented places", async () => {
    const differences: string[] = [];
    for (const message of RECORDED) {
      const { expected } = await conformance(message);
      for (const difference of expected.differences) differences.push(`${message.name}: ${difference}`);
    }
    expect(differences).toEqual([
      "anthropic/anthropic-sdk-ts__incomplete_partial_json_response.txt#0/0: tool_use input: SDK partial-parses truncated JSON",
      "anthropic/pydantic-ai__test_anthropic_compaction_usage_with_cache_streaming.yaml#0/0: compaction content: SDK drops compaction_delta",
      "anthropic/pydantic-ai__test_anthropic_mcp_servers_stream.yaml#0/0: mcp_tool_use input: SDK keeps content_block_start's input",
    ]);
  });

  for (const message of RECORDED) {
    describe(message.name, () => {
      it("native.blocks deep-equal the SDK's finalMessage().content (documented differences asserted)", async () => {
        const { done, expected } = await conformance(message);
        expect(done.message.native?.blocks).toStrictEqual(expected.blocks);
        // Signatures and redacted data byte for byte against the wire itself, not only against the SDK.
        const byIndex = wireBlocks(message.wire);
        const blocks = done.message.native!.blocks as Json[];
        for (const [index, wireBlock] of byIndex) {
          const block = blocks[index]!;
          if (wireBlock.start.type === "thinking") {
            expect(block.signature).toBe(
              String(wireBlock.start.signature ?? "") + wireBlock.signatures.join(""),
            );
          }
          if (wireBlock.start.type === "redacted_thinking") expect(block.data).toBe(wireBlock.start.data);
          // Fields keep the order content_block_start gave them, so a replayed block serialises as it came
          // (the SDK moves `input` last when it rebuilds a tool block; key order is not semantic for the API).
          const startKeys = Object.keys(wireBlock.start);
          expect(Object.keys(block).slice(0, startKeys.length)).toEqual(startKeys);
        }
        expect(done.message.native).toMatchObject({
          protocol: "anthropic-messages",
          origin: "anthropic",
          model: MODEL,
        });
      });

      it("text, reasoning and tool calls match the SDK's message", async () => {
        const { done, sdk, expected } = await conformance(message);
        const content = sdk.message.content as Json[];
        const text = content.flatMap((b) => (b.type === "text" ? [String(b.text)] : [])).join("");
        const reasoning = content
          .flatMap((b) => (b.type === "thinking" ? [String(b.thinking)] : []))
          .join("");
        expect(done.message.role).toBe("assistant");
        expect(done.message.content).toBe(text);
        expect(done.reasoning).toBe(reasoning === "" ? undefined : reasoning);
        expect(done.message.toolCalls).toStrictEqual(expected.toolCalls);
        expect(done.message.toolResults).toEqual([]);
        expect(done.warnings).toBeUndefined();
      });

      it("stop reason, id and model match the SDK's", async () => {
        const { done, sdk } = await conformance(message);
        const raw = sdk.message.stop_reason as string | null;
        expect(done.rawStopReason).toBe(raw ?? undefined);
        expect(done.stopReason).toBe(raw === null ? "stop" : (STOP_REASONS[raw] ?? "other"));
        expect(done.id).toBe(sdk.message.id);
        expect(done.model).toBe(sdk.message.model);
        expect(done.provider).toBe("anthropic");
      });

      it("usage maps from the SDK's usage", async () => {
        const { done, ours, sdk } = await conformance(message);
        // The SDK's usage leaves out `iterations`: a server-side compaction step is billed too (the raw
        // wire's compaction iterations are added, as the mapping does).
        expect(done.usage).toStrictEqual(
          usageFromSdk({ ...(sdk.message.usage as Json), iterations: wireIterations(message.wire) }),
        );
        const usageEvents = ours.events.filter((event) => event.type === "usage");
        expect(usageEvents.at(-1)?.usage).toStrictEqual(done.usage);
      });

      it("streamed events agree with the final response, in wire order", async () => {
        const { done, ours, sdk } = await conformance(message);
        const { events } = ours;
        expect(events.filter((event) => event.type === "done")).toHaveLength(1);
        expect(events.at(-1)?.type).toBe("done");

        const texts = events.flatMap((e) => (e.type === "text-delta" ? [e.text] : []));
        expect(texts.join("")).toBe(done.message.content);
        expect(texts.join("")).toBe(sdk.texts.join(""));
        const thinking = events.flatMap((e) => (e.type === "reasoning-delta" ? [e.text] : []));
        expect(thinking.join("")).toBe(done.reasoning ?? "");
        expect(thinking.join("")).toBe(sdk.thinkings.join(""));

        // Tool-call events: start, deltas, end per call; they rebuild exactly the final tool calls.
        const calls = done.message.toolCalls;
        const starts = events.filter((e) => e.type === "tool-call-start");
        expect(starts.map((e) => e.index)).toEqual(calls.map((_, index) => index));
        calls.forEach((call, index) => {
          const positions = events.flatMap((e, at) =>
            (e.type === "tool-call-start" || e.type === "tool-call-delta" || e.type === "tool-call-end") &&
            e.index === index
              ? [at]
              : [],
          );
          const own = positions.map((at) => events[at]!);
          expect(own[0]).toStrictEqual({ type: "tool-call-start", index, id: call.id, name: call.name });
          expect(own.at(-1)).toStrictEqual({ type: "tool-call-end", index, toolCall: call });
          const deltas = own.slice(1, -1);
          for (const delta of deltas) expect(delta).toMatchObject({ type: "tool-call-delta", id: call.id });
          const joined = deltas.map((d) => (d.type === "tool-call-delta" ? d.argumentsDelta : "")).join("");
          if (call.argumentsText !== undefined) expect(joined).toBe(call.argumentsText);
          else if (deltas.length > 0)
            expect(JSON.parse(joined === "" ? "{}" : joined)).toStrictEqual(call.arguments);
        });

        // The order of everything, rebuilt from the raw wire events.
        const startContent = ((message.wire[0]!.message as Json).content ?? []) as Json[];
        const wholeTools = new Set(
          startContent.filter((b) => b.type === "tool_use").map((_, position) => position),
        );
        expect(comparableEvents(events, wholeTools)).toStrictEqual(expectedEventOrder(message.wire));
      });

      it("complete() on the same message (the SDK's final JSON) equals stream()'s done response", async () => {
        const { done, expected, sdk } = await conformance(message);
        // What the non-streaming API returns for this message: the SDK's final message, with the SDK's
        // own accumulation slips corrected (see expectedFromSdk), except truncated tool input, where the
        // SDK's partial parse is kept as the stand-in for the (unrecorded) non-streaming body.
        const body = structuredClone(sdk.message);
        // What the API's JSON holds and the SDK's accumulation drops: the usage's iterations.
        const iterations = wireIterations(message.wire);
        if (iterations) (body.usage as Json).iterations = iterations;
        const sdkContent = sdk.message.content as Json[];
        body.content = expected.blocks.map((block, position) =>
          expected.truncated.includes(position) ? sdkContent[position] : block,
        );
        let requestBody: Json | undefined;
        const provider = anthropic({
          apiKey: "test-key",
          model: MODEL,
          fetch: async (_url, init) => {
            requestBody = JSON.parse(String(init?.body)) as Json;
            return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
          },
        });
        const completed = await provider.complete(HISTORY);
        expect(requestBody?.stream).toBeUndefined();
        expect(completed.warnings).toBeUndefined();
        expect(done.warnings).toBeUndefined();

        if (expected.truncated.length === 0) {
          expect(completed).toStrictEqual(done);
          return;
        }
        // Truncated tool input: the stream keeps `{}` plus the raw text; complete() gets whatever object the
        // body holds (here the SDK's partial parse) and has no text to keep. Everything else is equal.
        const truncatedIds = new Set(expected.truncated.map((position) => String(sdkContent[position]!.id)));
        for (const position of expected.truncated) {
          const streamed = done.message.native!.blocks[position] as Json;
          const whole = completed.message.native!.blocks[position] as Json;
          expect(streamed.input).toStrictEqual({});
          expect(whole.input).toStrictEqual(sdkContent[position]!.input);
        }
        done.message.toolCalls.forEach((call, index) => {
          if (!truncatedIds.has(call.id)) return;
          const sdkBlock = sdkContent.find((block) => block.id === call.id)!;
          expect(call.arguments).toStrictEqual({});
          expect(call.argumentsText).toBe(expected.toolCalls[index]!.argumentsText);
          expect(completed.message.toolCalls[index]).toStrictEqual({
            id: call.id,
            name: call.name,
            arguments: sdkBlock.input,
          });
        });
        const withoutTruncatedInput = (response: ModelResponse): ModelResponse => {
          const copy = structuredClone(response);
          copy.message.toolCalls = copy.message.toolCalls.map((call) =>
            truncatedIds.has(call.id) ? { id: call.id, name: call.name, arguments: {} } : call,
          );
          copy.message.native!.blocks = (copy.message.native!.blocks as Json[]).map((block, position) =>
            expected.truncated.includes(position) ? { ...block, input: {} } : block,
          );
          return copy;
        };
        expect(withoutTruncatedInput(completed)).toStrictEqual(withoutTruncatedInput(done));
      });
    });
  }
});

// ---------------------------------------------------------------------------------------------------

/** The recorded events of a message re-framed as SSE (`event:` + `data:`), for synthetic variations. */
function reframe(events: readonly Json[]): Uint8Array {
  return encoder.encode(
    events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join(""),
  );
}

describe("Anthropic conformance: a signature sent in several signature_delta events", () => {
  it("we append the pieces; the SDK keeps only the last one", async () => {
    const message = recorded("pydantic-ai__test_anthropic_model_thinking_part_stream");
    const events = message.wire.flatMap((event): Json[] => {
      const delta = event.delta as Json | undefined;
      if (delta?.type !== "signature_delta") return [event];
      const signature = String(delta.signature);
      const cut = Math.floor(signature.length / 3);
      return [
        { ...event, delta: { type: "signature_delta", signature: signature.slice(0, cut) } },
        { ...event, delta: { type: "signature_delta", signature: signature.slice(cut) } },
      ];
    });
    const whole = wireBlocks(message.wire).get(0)!.signatures.join("");
    expect(whole.length).toBeGreaterThan(100);
    const bytes = reframe(events);
    const done = doneOf(await runOurs(bytes, [17]));
    const sdk = await runSdk(bytes, [17]);
    expect((done.message.native!.blocks[0] as Json).signature).toBe(whole);
    expect((sdk.message.content as Json[])[0]!.signature).toBe(whole.slice(Math.floor(whole.length / 3)));
  });
});

describe("Anthropic conformance: streams cut before message_stop", () => {
  const cases = [
    recorded("pydantic-ai__test_anthropic_model_thinking_part_stream"),
    recorded("openllmetry__test_anthropic_tools_streaming_legacy"),
    recorded("vercel-ai__anthropic-tool-no-args"),
  ];
  for (const message of cases) {
    it(`${message.name}: every cut throws a ProviderError, never done`, async () => {
      const full = await runOurs(message.bytes, [23]);
      doneOf(full);
      const starts = eventBlockStarts(message.bytes);
      const stopBlock = starts.at(-1)!;
      // The cut must fall before message_stop's JSON is complete (a final event without its blank line is
      // still an event, so a cut after its closing brace is a whole stream).
      const stopJsonEnd = lines(message.bytes.subarray(stopBlock))
        .filter((line) => line.text.startsWith("data:"))
        .map((line) => stopBlock + line.start + encoder.encode(line.text.trimEnd()).length)[0]!;
      const cuts = new Map<number, "boundary" | "mid-event">();
      starts.forEach((start, position) => {
        cuts.set(start, "boundary");
        const end = starts[position + 1] ?? stopJsonEnd;
        for (const offset of [start + 1, start + 7, Math.floor((start + end) / 2), end - 3, end - 2]) {
          if (offset > start && offset < Math.min(end, stopJsonEnd) && !cuts.has(offset))
            cuts.set(offset, "mid-event");
        }
      });
      cuts.set(0, "boundary");
      expect(cuts.size).toBeGreaterThan(20);
      let sawPartial = 0;
      let sawNoOutput = 0;
      for (const [cut, kind] of cuts) {
        const run = await runOurs(message.bytes.slice(0, cut), [5, 1, 13]);
        const where = `${message.name} cut at ${cut} (${kind})`;
        expect(
          run.events.some((event) => event.type === "done"),
          where,
        ).toBe(false);
        expect(run.error, where).toBeInstanceOf(ProviderError);
        const error = run.error as ProviderError;
        if (kind === "boundary") expect(error.kind, where).toBe("truncated");
        else expect(["truncated", "invalid_response"], where).toContain(error.kind);
        expect(error.provider).toBe("anthropic");
        expect(error.retryable, where).toBe(isRetryableKind(error.kind));
        // Whatever was yielded is exactly the start of the uncut stream, nothing invented.
        expect(run.events, where).toStrictEqual(full.events.slice(0, run.events.length));
        const produced = run.events.some(isContentEvent);
        expect(error.partialOutput, where).toBe(produced);
        if (produced) sawPartial++;
        else sawNoOutput++;
      }
      expect(sawPartial).toBeGreaterThan(0);
      expect(sawNoOutput).toBeGreaterThan(0);
    });
  }

  it("a cut right before message_stop, after text was yielded: truncated with partialOutput", async () => {
    const message = recorded("pydantic-ai__test_anthropic_model_thinking_part_stream");
    const run = await runOurs(message.bytes.slice(0, eventBlockStarts(message.bytes).at(-1)), [64]);
    expect(run.events.some((event) => event.type === "text-delta")).toBe(true);
    expect(run.error).toBeInstanceOf(ProviderError);
    expect(run.error).toMatchObject({ kind: "truncated", partialOutput: true, retryable: true });
  });
});

describe("Anthropic conformance: a mid-stream error event", () => {
  // The documented example (Streaming Messages → Error events), spacing as in the docs.
  const ERROR_EVENT =
    'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n';

  /** The recorded bytes up to (not including) the event block after the `count`-th event matching `when`. */
  function prefixAfter(message: RecordedMessage, count: number, when: (event: Json) => boolean): Uint8Array {
    const starts = eventBlockStarts(message.bytes);
    let seen = 0;
    for (const [position, start] of starts.entries()) {
      const block = wireEvents(message.bytes.subarray(start, starts[position + 1] ?? message.bytes.length));
      if (block.some(when) && ++seen === count) return message.bytes.slice(0, starts[position + 1]);
    }
    throw new Error("not enough matching events");
  }

  const isTextDelta = (event: Json) => (event.delta as Json | undefined)?.type === "text_delta";
  const cases = [
    { message: recorded("pydantic-ai__test_anthropic_model_thinking_part_stream"), framing: "raw SSE" },
    { message: recorded("vercel-ai__anthropic-combined-context-editing"), framing: "data-only (chunks.txt)" },
  ];
  for (const { message, framing } of cases) {
    it(`after real text deltas (${framing}): overloaded, retryable, partial, earlier events yielded`, async () => {
      const prefix = prefixAfter(message, 5, isTextDelta);
      const full = await runOurs(message.bytes, [29]);
      const run = await runOurs(concatBytes([prefix, encoder.encode(ERROR_EVENT)]), [29]);
      const before = await runOurs(prefix, [29]);
      expect(run.events.filter((e) => e.type === "text-delta")).toHaveLength(5);
      expect(run.events).toStrictEqual(before.events);
      expect(run.events).toStrictEqual(full.events.slice(0, run.events.length));
      expect(run.events.some((event) => event.type === "done")).toBe(false);
      expect(run.error).toBeInstanceOf(ProviderError);
      const error = run.error as ProviderError;
      expect(error).toMatchObject({
        kind: "overloaded",
        retryable: true,
        partialOutput: true,
        code: "overloaded_error",
        provider: "anthropic",
        model: MODEL,
      });
      expect(error.message).toContain("Overloaded");

      // The SDK fails the same way.
      const client = sdkClient(async () =>
        sseResponse(
          concatBytes([sdkBytes({ ...message, bytes: prefix }), encoder.encode(ERROR_EVENT)]),
          [29],
        ),
      );
      const failure = await client.messages
        .stream({ model: MODEL, max_tokens: 1024, messages: HISTORY })
        .finalMessage()
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(failure).toBeInstanceOf(Anthropic.APIError);
      expect((failure as InstanceType<typeof Anthropic.APIError>).type).toBe("overloaded_error");
    });
  }

  it("right after message_start: overloaded, retryable, no partial output", async () => {
    const message = recorded("pydantic-ai__test_anthropic_model_thinking_part_stream");
    const prefix = prefixAfter(message, 1, (event) => event.type === "message_start");
    const run = await runOurs(concatBytes([prefix, encoder.encode(ERROR_EVENT)]), [7]);
    expect(run.events.map((event) => event.type)).toEqual(["usage"]);
    expect(run.error).toBeInstanceOf(ProviderError);
    expect(run.error).toMatchObject({ kind: "overloaded", retryable: true, partialOutput: false });
  });
});
