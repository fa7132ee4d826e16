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
  /** Token usage the stream reports, where checked: all input tokens (cached included) and output tokens. */
  usage?: { input: number; output: number };
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

export function randomId(random: Random, length: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let id = "";
  for (let i = 0; i < length; i++) id += alphabet[random.int(0, alphabet.length - 1)];
  return id;
}

export function randomSignature(random: Random): string {
  const bytes = new Uint8Array(random.int(400, 700));
  for (let i = 0; i < bytes.length; i++) bytes[i] = random.int(0, 255);
  return Buffer.from(bytes).toString("base64");
}

/** Splits text into pieces of `min`..`max` UTF-16 units without cutting a surrogate pair. */
export function pieces(random: Random, text: string, min: number, max: number): string[] {
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

export function words(random: Random, count: number): string {
  let text = "";
  for (let i = 0; i < count; i++) text += random.pick(TOKENS);
  return text;
}

export function toolInput(random: Random, index: number, approxChars: number): Record<string, unknown> {
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

// ---------------------------------------------------------------------------------------------------------
// OpenAI Chat Completions

/** The model the Chat Completions stream names (a DeepSeek-style server: it streams `reasoning_content`). */
export const OPENAI_CHAT_MODEL = "deepseek-reasoner";

/** How a Chat Completions stream is made up. */
export interface OpenAIChatStreamShape {
  seed: number;
  /** Approximate size of the whole stream in bytes. */
  targetBytes: number;
  /** Share of the bytes spent on `reasoning_content` chunks. */
  reasoningShare: number;
  /** Share of the bytes spent on `tool_calls` chunks. */
  toolShare: number;
  /** Number of tool calls; their argument pieces arrive interleaved by `index`. */
  toolCalls: number;
}

/**
 * Generates a Chat Completions SSE stream (`data:` lines only, as the API sends them) of about
 * `shape.targetBytes` bytes, the same for the same shape: a role chunk, `delta.reasoning_content` chunks
 * (DeepSeek, vLLM, xAI), many small `delta.content` chunks, then the tool calls — each opened by a chunk
 * with its `id`, `type` and `function.name`, its `function.arguments` following in 1–24-character pieces,
 * the calls' pieces interleaved at random by `index` — a `finish_reason` chunk, a usage chunk with
 * `choices: []` (`stream_options.include_usage`) and `data: [DONE]`. `expected.thinking` is the joined
 * `reasoning_content`; there is no signature.
 */
export function generateOpenAIChatStream(shape: OpenAIChatStreamShape): GeneratedStream {
  const random = seededRandom(shape.seed);
  const events: string[] = [];
  let bytes = 0;
  let firstTextEvent = -1;
  let firstTextEnd = -1;
  const push = (event: string): void => {
    events.push(event);
    bytes += Buffer.byteLength(event, "utf8");
  };
  const expected: ExpectedResult = { text: "", thinking: "", signature: "", toolCalls: [] };
  const id = `chatcmpl-${randomId(random, 29)}`;
  const fingerprint = `fp_${randomId(random, 10).toLowerCase()}`;
  const created = 1_775_000_000;
  // Chunk envelope: the fields every chunk repeats, in the API's order.
  const chunk = (choices: unknown[], extra?: Record<string, unknown>): string =>
    `data: ${JSON.stringify({
      id,
      object: "chat.completion.chunk",
      created,
      model: OPENAI_CHAT_MODEL,
      system_fingerprint: fingerprint,
      choices,
      ...extra,
    })}\n\n`;
  const deltaChunk = (delta: Record<string, unknown>, finishReason: string | null = null): string =>
    chunk([{ index: 0, delta, logprobs: null, finish_reason: finishReason }]);

  // Tool calls are built first so the content chunks can fill the rest of the byte budget exactly.
  const toolChunks: string[] = [];
  let toolBytes = 0;
  if (shape.toolShare > 0 && shape.toolCalls > 0) {
    const perTool = (shape.targetBytes * shape.toolShare) / shape.toolCalls;
    // Wire bytes per character of arguments: the chunk envelope around ~12.5-character pieces.
    const envelope = Buffer.byteLength(
      deltaChunk({ tool_calls: [{ index: 0, function: { arguments: "" } }] }),
    );
    const perChar = (envelope + 14) / 12.5;
    const queues: string[][] = [];
    for (let call = 0; call < shape.toolCalls; call++) {
      const input = toolInput(random, call, perTool / perChar);
      const tool: ExpectedToolCall = {
        id: `call_${randomId(random, 24)}`,
        name: TOOL_NAMES[call % TOOL_NAMES.length]!,
        input,
      };
      expected.toolCalls.push(tool);
      const queue = [
        deltaChunk({
          tool_calls: [
            { index: call, id: tool.id, type: "function", function: { name: tool.name, arguments: "" } },
          ],
        }),
      ];
      for (const piece of pieces(random, JSON.stringify(input), 1, 24)) {
        queue.push(deltaChunk({ tool_calls: [{ index: call, function: { arguments: piece } }] }));
      }
      queues.push(queue);
    }
    // Every call is opened in order; after that the next chunk comes from a random call with pieces left.
    const cursors = queues.map(() => 0);
    for (let call = 0; call < queues.length; call++) {
      toolChunks.push(queues[call]![0]!);
      cursors[call] = 1;
    }
    for (;;) {
      const open = queues.map((_, call) => call).filter((call) => cursors[call]! < queues[call]!.length);
      if (open.length === 0) break;
      // Runs of 1–8 pieces from one call, then possibly another: interleaved, not alternating strictly.
      const call = random.pick(open);
      for (let run = random.int(1, 8); run > 0 && cursors[call]! < queues[call]!.length; run--) {
        toolChunks.push(queues[call]![cursors[call]!++]!);
      }
    }
    for (const event of toolChunks) toolBytes += Buffer.byteLength(event, "utf8");
  }

  push(deltaChunk({ role: "assistant", content: "", reasoning_content: "" }));

  if (shape.reasoningShare > 0) {
    const budget = shape.targetBytes * shape.reasoningShare;
    while (bytes < budget) {
      const reasoning = words(random, random.int(1, 4));
      expected.thinking += reasoning;
      push(deltaChunk({ reasoning_content: reasoning }));
    }
  }

  const tail = 600;
  const textBudget = shape.targetBytes - toolBytes - tail;
  do {
    const text = words(random, random.int(1, 3));
    expected.text += text;
    push(deltaChunk({ content: text }));
    if (firstTextEvent < 0) {
      firstTextEvent = events.length - 1;
      firstTextEnd = bytes;
    }
  } while (bytes < textBudget);

  for (const event of toolChunks) push(event);
  push(deltaChunk({}, expected.toolCalls.length > 0 ? "tool_calls" : "stop"));
  const completionTokens = Math.round(bytes / 40);
  const reasoningTokens = Math.round(Buffer.byteLength(expected.thinking) / 4);
  push(
    chunk([], {
      usage: {
        prompt_tokens: 2095,
        completion_tokens: completionTokens,
        total_tokens: 2095 + completionTokens,
        prompt_tokens_details: { cached_tokens: 1024 },
        completion_tokens_details: { reasoning_tokens: reasoningTokens },
      },
    }),
  );
  push("data: [DONE]\n\n");

  const encoded = new TextEncoder().encode(events.join(""));
  if (encoded.length !== bytes) throw new Error("byte count mismatch in the generator");
  return { bytes: encoded, expected, events: events.length, firstTextEvent, firstTextEnd };
}
