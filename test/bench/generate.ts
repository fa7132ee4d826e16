/**
 * A generated Anthropic Messages SSE stream and what a correct consumer must assemble from it.
 *
 * The stream looks like the real API's: `message_start`, a signed thinking block with chunky deltas, a
 * text block with many small deltas (one to three tokens), client `tool_use` blocks whose input JSON
 * arrives in small `input_json_delta` pieces (quotes, backslashes, tabs, newlines and control characters,
 * so the wire carries escapes of escapes), pings, `message_delta` with usage and `message_stop`. Text,
 * thinking and tool input mix ASCII with two-, three- and four-byte UTF-8 (accents, CJK, emoji), so random
 * chunking splits characters across reads.
 *
 * @module
 */
import { type Random, seededRandom } from "./prng.ts";

/** A tool call as the stream defines it. */
export interface ExpectedToolCall {
  id: string;
  name: string;
  /** The parsed input object. */
  input: Record<string, unknown>;
}

/** What assembling the stream must give. */
export interface ExpectedResult {
  text: string;
  thinking: string;
  signature: string;
  toolCalls: ExpectedToolCall[];
}

/** A generated stream. */
export interface GeneratedStream {
  bytes: Uint8Array;
  expected: ExpectedResult;
  /** Number of SSE events (each ends with a blank line). */
  events: number;
  /** 0-based index of the event that carries the first text delta. */
  firstTextEvent: number;
  /** Bytes up to and including the event that carries the first text delta. */
  firstTextEnd: number;
}

/** How the stream is made up. */
export interface StreamShape {
  seed: number;
  /** Approximate size of the whole stream in bytes. */
  targetBytes: number;
  /** Share of the bytes spent on the thinking block (0 = no thinking block). */
  thinkingShare: number;
  /** Share of the bytes spent on tool_use blocks. */
  toolShare: number;
  /** Number of tool_use blocks (when `toolShare > 0`). */
  toolCalls: number;
}

export const MODEL = "claude-sonnet-4-6";

/** Tool names the stream uses (the AI SDK row declares them, so its tool calls parse). */
export const TOOL_NAMES = ["write_file", "run_query", "search_docs"] as const;

const TOKENS = [
  " the",
  " stream",
  " assembler",
  " joins",
  " every",
  " delta",
  " quickly",
  ",",
  ".",
  " and",
  " naïve",
  " café",
  " über",
  " —",
  " “quoted”",
  " 日本語",
  "テキスト",
  " 中文",
  " 한국어",
  " Ελληνικά",
  " 🙂",
  "🚀",
  " 👩‍💻",
  "\n",
  "\n\n",
  ' "x"',
  " back\\slash",
  "\ttab",
  " <b>",
  " &",
  " 1.5",
  " €",
  " ß",
  "ing",
  " function",
  " return",
];

const CODE_LINES = [
  'const greeting = "hello, \\"world\\"";',
  "const path = 'C:\\\\Users\\\\ada\\\\notes.txt';",
  "\tif (a < b && c > d) return { ok: true };",
  "// naïve café — 日本語のコメント 🙂",
  'print(\'tab\\there\', "quote\\"d")',
  "SELECT * FROM t WHERE name = 'Zoë' AND note LIKE '%100\\%%';",
  "\u0001\u0002 control bytes \u001f end",
  "emoji: 🚀👩‍💻🎉 and math: ∑ ∫ ≤ ≥ ≠",
  "",
  "    nested: { list: [1, 2, 3], empty: {} }",
];

function sse(type: string, data: string): string {
  return `event: ${type}\ndata: ${data}\n\n`;
}

const PING = sse("ping", '{"type": "ping"}');

function randomId(random: Random, length: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let id = "";
  for (let i = 0; i < length; i++) id += alphabet[random.int(0, alphabet.length - 1)];
  return id;
}

function randomSignature(random: Random): string {
  const bytes = new Uint8Array(random.int(400, 700));
  for (let i = 0; i < bytes.length; i++) bytes[i] = random.int(0, 255);
  return Buffer.from(bytes).toString("base64");
}

/** Splits text into pieces of `min`..`max` UTF-16 units without cutting a surrogate pair. */
function pieces(random: Random, text: string, min: number, max: number): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + random.int(min, max));
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    out.push(text.slice(start, end));
    start = end;
  }
  return out;
}

function words(random: Random, count: number): string {
  let text = "";
  for (let i = 0; i < count; i++) text += random.pick(TOKENS);
  return text;
}

function toolInput(random: Random, index: number, approxChars: number): Record<string, unknown> {
  const lines: string[] = [];
  let length = 0;
  while (length < approxChars) {
    const line = random.next() < 0.5 ? random.pick(CODE_LINES) : words(random, random.int(3, 12));
    lines.push(line);
    length += line.length + 1;
  }
  return {
    path: `src/módulo-${index}/файл_${index}.ts`,
    content: lines.join("\n"),
    overwrite: index % 2 === 0,
    mode: 420,
    tags: ["α", "β", `tag "${index}"`, "back\\slash"],
    meta: { lines: lines.length, note: 'escapes: " \\ / \b \f \n \r \t — fin', empty: null },
  };
}

/** Generates a stream of about `shape.targetBytes` bytes, the same for the same shape. */
export function generateAnthropicStream(shape: StreamShape): GeneratedStream {
  const random = seededRandom(shape.seed);
  const events: string[] = [];
  let bytes = 0;
  let index = 0;
  let firstTextEvent = -1;
  let firstTextEnd = -1;
  const push = (event: string): void => {
    events.push(event);
    bytes += Buffer.byteLength(event, "utf8");
  };
  const maybePing = (): void => {
    if (random.next() < 1 / 400) push(PING);
  };
  const expected: ExpectedResult = { text: "", thinking: "", signature: "", toolCalls: [] };

  // Tool blocks are built first so the text block can fill the rest of the byte budget exactly.
  const toolEvents: string[][] = [];
  let toolBytes = 0;
  if (shape.toolShare > 0) {
    const perTool = (shape.targetBytes * shape.toolShare) / shape.toolCalls;
    for (let call = 0; call < shape.toolCalls; call++) {
      // The wire spends ~9 bytes per byte of input JSON (event framing around ~12-character pieces).
      const input = toolInput(random, call, perTool / 9.5);
      const tool: ExpectedToolCall = {
        id: `toolu_01${randomId(random, 22)}`,
        name: TOOL_NAMES[call % TOOL_NAMES.length]!,
        input,
      };
      expected.toolCalls.push(tool);
      const block: string[] = [];
      block.push(
        sse(
          "content_block_start",
          JSON.stringify({
            type: "content_block_start",
            index: -1,
            content_block: { type: "tool_use", id: tool.id, name: tool.name, input: {} },
          }),
        ),
      );
      const deltas = ["", ...pieces(random, JSON.stringify(input), 1, 24)];
      for (const partial of deltas) {
        block.push(
          sse(
            "content_block_delta",
            JSON.stringify({
              type: "content_block_delta",
              index: -1,
              delta: { type: "input_json_delta", partial_json: partial },
            }),
          ),
        );
        if (random.next() < 1 / 400) block.push(PING);
      }
      block.push(sse("content_block_stop", JSON.stringify({ type: "content_block_stop", index: -1 })));
      for (const event of block) toolBytes += Buffer.byteLength(event, "utf8");
      toolEvents.push(block);
    }
  }

  push(
    sse(
      "message_start",
      JSON.stringify({
        type: "message_start",
        message: {
          id: `msg_01${randomId(random, 22)}`,
          type: "message",
          role: "assistant",
          model: MODEL,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: {
            input_tokens: 2095,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 1024,
            output_tokens: 1,
          },
        },
      }),
    ),
  );

  if (shape.thinkingShare > 0) {
    push(
      sse(
        "content_block_start",
        JSON.stringify({
          type: "content_block_start",
          index,
          content_block: { type: "thinking", thinking: "", signature: "" },
        }),
      ),
    );
    push(PING);
    const budget = shape.targetBytes * shape.thinkingShare;
    while (bytes < budget) {
      const thinking = words(random, random.int(5, 60));
      expected.thinking += thinking;
      push(
        sse(
          "content_block_delta",
          JSON.stringify({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking } }),
        ),
      );
      maybePing();
    }
    expected.signature = randomSignature(random);
    push(
      sse(
        "content_block_delta",
        JSON.stringify({
          type: "content_block_delta",
          index,
          delta: { type: "signature_delta", signature: expected.signature },
        }),
      ),
    );
    push(sse("content_block_stop", JSON.stringify({ type: "content_block_stop", index })));
    index++;
  }

  push(
    sse(
      "content_block_start",
      JSON.stringify({ type: "content_block_start", index, content_block: { type: "text", text: "" } }),
    ),
  );
  const textBudget = shape.targetBytes - toolBytes - 400;
  do {
    const text = words(random, random.int(1, 3));
    expected.text += text;
    push(
      sse(
        "content_block_delta",
        JSON.stringify({ type: "content_block_delta", index, delta: { type: "text_delta", text } }),
      ),
    );
    if (firstTextEvent < 0) {
      firstTextEvent = events.length - 1;
      firstTextEnd = bytes;
    }
    maybePing();
  } while (bytes < textBudget);
  push(sse("content_block_stop", JSON.stringify({ type: "content_block_stop", index })));
  index++;

  for (const block of toolEvents) {
    // The block index is only known now: the thinking block may or may not precede.
    for (const event of block) push(event.replaceAll('"index":-1', `"index":${index}`));
    index++;
  }

  push(
    sse(
      "message_delta",
      JSON.stringify({
        type: "message_delta",
        delta: { stop_reason: expected.toolCalls.length > 0 ? "tool_use" : "end_turn", stop_sequence: null },
        usage: { output_tokens: Math.round(bytes / 40) },
      }),
    ),
  );
  push(sse("message_stop", JSON.stringify({ type: "message_stop" })));

  const encoded = new TextEncoder().encode(events.join(""));
  if (encoded.length !== bytes) throw new Error("byte count mismatch in the generator");
  return { bytes: encoded, expected, events: events.length, firstTextEvent, firstTextEnd };
}

/** Chunk sizes in 1..`max` from a seeded PRNG, covering `total` bytes. */
export function chunkSizes(seed: number, total: number, max: number): Uint32Array {
  const random = seededRandom(seed);
  const sizes: number[] = [];
  for (let covered = 0; covered < total; ) {
    const size = Math.min(random.int(1, max), total - covered);
    sizes.push(size);
    covered += size;
  }
  return Uint32Array.from(sizes);
}

/** How many chunk boundaries fall inside a multi-byte UTF-8 character. */
export function splitCharacters(bytes: Uint8Array, sizes: Uint32Array): number {
  let count = 0;
  let offset = 0;
  for (const size of sizes) {
    offset += size;
    if (offset < bytes.length && (bytes[offset]! & 0xc0) === 0x80) count++;
  }
  return count;
}
