/**
 * A generated Bedrock ConverseStream body (AWS event-stream binary frames, encoded with
 * `@smithy/eventstream-codec`) and what a correct consumer must assemble from it.
 *
 * Shaped like the real service's stream (test/fixtures/bedrock): every frame has the `:event-type`,
 * `:content-type: application/json` and `:message-type: event` headers and a JSON payload padded with a
 * random-length `p` field; `messageStart`; a reasoning block (`reasoningContent.text` pieces, then one
 * `signature` delta); a text block of many small `text` deltas (one to three tokens); `toolUse` blocks
 * opened by `contentBlockStart` (id, name) whose input JSON arrives in 1–24-character pieces; each block
 * closed by `contentBlockStop`; `messageStop` with the stop reason and `metadata` with the usage.
 *
 * @module
 */
import { EventStreamCodec } from "@smithy/eventstream-codec";
import {
  type ExpectedResult,
  type GeneratedStream,
  pieces,
  randomId,
  randomSignature,
  TOOL_NAMES,
  toolInput,
  words,
} from "./generate.ts";
import { seededRandom } from "./prng.ts";

/** The model id the Bedrock rows call. */
export const BEDROCK_MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";

/** How a ConverseStream body is made up. */
export interface BedrockStreamShape {
  seed: number;
  /** Approximate size of the whole body in bytes. */
  targetBytes: number;
  /** Share of the bytes spent on the reasoning block. */
  reasoningShare: number;
  /** Share of the bytes spent on toolUse blocks. */
  toolShare: number;
  /** Number of toolUse blocks. */
  toolCalls: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** A `@smithy/eventstream-codec` codec (it buffers what it is fed: one per stream). */
export function createEventStreamCodec(): EventStreamCodec {
  return new EventStreamCodec(
    (bytes) => decoder.decode(bytes),
    (text) => encoder.encode(text),
  );
}

/** The codec the generator encodes with. */
const eventStreamCodec = createEventStreamCodec();

const PADDING = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

const INPUT_TOKENS = 2095;
const CACHE_READ_TOKENS = 1024;

/** One event frame: the three headers the service sends, the payload with `padding` characters of `p`. */
function encodeFrame(eventType: string, payload: Record<string, unknown>, padding: number): Uint8Array {
  return eventStreamCodec.encode({
    headers: {
      ":event-type": { type: "string", value: eventType },
      ":content-type": { type: "string", value: "application/json" },
      ":message-type": { type: "string", value: "event" },
    },
    body: encoder.encode(JSON.stringify({ ...payload, p: PADDING.slice(0, padding) })),
  });
}

/** Generates a ConverseStream body of about `shape.targetBytes` bytes, the same for the same shape. */
export function generateBedrockConverseStream(shape: BedrockStreamShape): GeneratedStream {
  const random = seededRandom(shape.seed);
  const frames: Uint8Array[] = [];
  let bytes = 0;
  let firstTextEvent = -1;
  let firstTextEnd = -1;
  const frame = (eventType: string, payload: Record<string, unknown>): Uint8Array =>
    encodeFrame(eventType, payload, random.int(1, PADDING.length));
  const push = (bytesOfFrame: Uint8Array): void => {
    frames.push(bytesOfFrame);
    bytes += bytesOfFrame.length;
  };
  const expected: ExpectedResult = { text: "", thinking: "", signature: "", toolCalls: [] };

  // toolUse blocks first (their frames are rendered with a placeholder index), so the text fills the rest.
  const toolBlocks: ((index: number) => Uint8Array[])[] = [];
  let toolBytes = 0;
  if (shape.toolShare > 0 && shape.toolCalls > 0) {
    const perTool = (shape.targetBytes * shape.toolShare) / shape.toolCalls;
    // Wire bytes per character of input (measured): ~200 bytes of frame around ~12.5-character pieces.
    const perChar = 17;
    for (let call = 0; call < shape.toolCalls; call++) {
      const input = toolInput(random, call, perTool / perChar);
      const tool = {
        id: `tooluse_${randomId(random, 22)}`,
        name: TOOL_NAMES[call % TOOL_NAMES.length]!,
        input,
      };
      expected.toolCalls.push(tool);
      const inputPieces = pieces(random, JSON.stringify(input), 1, 24);
      const paddings = inputPieces.map(() => random.int(1, PADDING.length));
      const startPadding = random.int(1, PADDING.length);
      const stopPadding = random.int(1, PADDING.length);
      const render = (index: number): Uint8Array[] => [
        encodeFrame(
          "contentBlockStart",
          { contentBlockIndex: index, start: { toolUse: { toolUseId: tool.id, name: tool.name } } },
          startPadding,
        ),
        ...inputPieces.map((piece, at) =>
          encodeFrame(
            "contentBlockDelta",
            { contentBlockIndex: index, delta: { toolUse: { input: piece } } },
            paddings[at]!,
          ),
        ),
        encodeFrame("contentBlockStop", { contentBlockIndex: index }, stopPadding),
      ];
      // Size with a one-digit index: the same as the real one (fewer than ten blocks).
      for (const part of render(9)) toolBytes += part.length;
      toolBlocks.push(render);
    }
  }

  push(frame("messageStart", { role: "assistant" }));
  let index = 0;
  if (shape.reasoningShare > 0) {
    const budget = shape.targetBytes * shape.reasoningShare;
    while (bytes < budget) {
      const text = words(random, random.int(5, 60));
      expected.thinking += text;
      push(frame("contentBlockDelta", { contentBlockIndex: index, delta: { reasoningContent: { text } } }));
    }
    expected.signature = randomSignature(random);
    push(
      frame("contentBlockDelta", {
        contentBlockIndex: index,
        delta: { reasoningContent: { signature: expected.signature } },
      }),
    );
    push(frame("contentBlockStop", { contentBlockIndex: index }));
    index++;
  }

  const textBudget = shape.targetBytes - toolBytes - 400;
  do {
    const text = words(random, random.int(1, 3));
    expected.text += text;
    push(frame("contentBlockDelta", { contentBlockIndex: index, delta: { text } }));
    if (firstTextEvent < 0) {
      firstTextEvent = frames.length - 1;
      firstTextEnd = bytes;
    }
  } while (bytes < textBudget);
  push(frame("contentBlockStop", { contentBlockIndex: index }));
  index++;

  for (const render of toolBlocks) {
    for (const part of render(index)) push(part);
    index++;
  }

  push(frame("messageStop", { stopReason: expected.toolCalls.length > 0 ? "tool_use" : "end_turn" }));
  const outputTokens = Math.round(bytes / 40);
  expected.usage = { input: INPUT_TOKENS + CACHE_READ_TOKENS, output: outputTokens };
  push(
    frame("metadata", {
      usage: {
        inputTokens: INPUT_TOKENS,
        outputTokens,
        totalTokens: INPUT_TOKENS + CACHE_READ_TOKENS + outputTokens,
        cacheReadInputTokens: CACHE_READ_TOKENS,
        cacheWriteInputTokens: 0,
      },
      metrics: { latencyMs: 48_213 },
    }),
  );

  const body = new Uint8Array(bytes);
  let offset = 0;
  for (const part of frames) {
    body.set(part, offset);
    offset += part.length;
  }
  return { bytes: body, expected, events: frames.length, firstTextEvent, firstTextEnd };
}
