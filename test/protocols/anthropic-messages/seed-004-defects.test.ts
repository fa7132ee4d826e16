/**
 * One test per defect that seed 004 (the review of the Python implementation this project grew from) found on the Anthropic path of the
 * Python implementation, each named after it, driven end to end through `anthropic()` with an injected
 * `fetch` (recorded SSE bodies from `test/fixtures/` where they exist, hand-built ones otherwise),
 * plus the review's test-collection defect (test files the runner never collected).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, matchesGlob, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  addUsage,
  anthropic,
  type CallOptions,
  type Message,
  type MessageInput,
  type Response as ModelResponse,
  type StreamEvent,
  type ToolSpecInput,
  ValidationError,
} from "../../../src/index.ts";
import { loadFixture } from "../../helpers/fixtures.ts";

const KEY = "sk-ant-test-key";

interface SentRequest {
  url: string;
  headers: Headers;
  /** The request body exactly as sent. */
  raw: string;
  body: {
    max_tokens: number;
    messages: { role: string; content: Record<string, unknown>[] }[];
    thinking?: { type: string; budget_tokens?: number };
    [field: string]: unknown;
  };
}

/** A fetch that answers each call with the next scripted body (SSE text, or a JSON message) and records the request. */
function scriptedFetch(...replies: (string | object)[]): { fetch: typeof fetch; sent: SentRequest[] } {
  const sent: SentRequest[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const raw = String(init?.body);
    sent.push({ url: String(input), headers: new Headers(init?.headers), raw, body: JSON.parse(raw) });
    const reply = replies[sent.length - 1];
    if (reply === undefined) throw new Error(`unexpected request #${sent.length}`);
    if (typeof reply === "string") {
      return new Response(reply, { headers: { "content-type": "text/event-stream; charset=utf-8" } });
    }
    return new Response(JSON.stringify(reply), { headers: { "content-type": "application/json" } });
  }) as typeof fetch;
  return { fetch: fetchImpl, sent };
}

function sse(events: object[]): string {
  return events
    .map((event) => `event: ${(event as { type: string }).type}\ndata: ${JSON.stringify(event)}\n\n`)
    .join("");
}

/** The JSON of every `data:` line of an SSE body, in order (independent of the code under test). */
function sseData(text: string): Record<string, unknown>[] {
  return text
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
}

async function drain(
  events: AsyncIterable<StreamEvent>,
): Promise<{ events: StreamEvent[]; response: ModelResponse }> {
  const seen: StreamEvent[] = [];
  for await (const event of events) seen.push(event);
  const last = seen.at(-1);
  if (last?.type !== "done") throw new Error("stream ended without done");
  return { events: seen, response: last.response };
}

/** A short, complete reply stream for the turn after a replay. */
const OK_STREAM = sse([
  {
    type: "message_start",
    message: {
      id: "msg_next",
      type: "message",
      role: "assistant",
      model: "m",
      content: [],
      usage: { input_tokens: 5, output_tokens: 1 },
    },
  },
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } },
  { type: "content_block_stop", index: 0 },
  {
    type: "message_delta",
    delta: { stop_reason: "end_turn", stop_sequence: null },
    usage: { output_tokens: 2 },
  },
  { type: "message_stop" },
]);

const OK_JSON = {
  id: "msg_ok",
  type: "message",
  role: "assistant",
  model: "m",
  content: [{ type: "text", text: "ok" }],
  stop_reason: "end_turn",
  stop_sequence: null,
  usage: { input_tokens: 5, output_tokens: 1 },
};

/** The replayable blocks of a response's message (empty when it has none). */
function nativeBlocks(response: ModelResponse): Record<string, unknown>[] {
  return (response.message.native?.blocks ?? []) as Record<string, unknown>[];
}

function textBlocks(request: SentRequest): Record<string, unknown>[] {
  return request.body.messages.flatMap((message) => message.content).filter((block) => block.type === "text");
}

function expectAlternatingRoles(request: SentRequest): void {
  const roles = request.body.messages.map((message) => message.role);
  for (let i = 1; i < roles.length; i++) expect(roles[i], `messages[${i}]`).not.toBe(roles[i - 1]);
}

// ---------------------------------------------------------------------------------------------------

describe("seed 004: history conversion never wedges a session", () => {
  it("seed 004: malformed tool-call JSON in stored history does not wedge the session", async () => {
    // The realistic origin: a max_tokens stop cuts a streamed tool call's input JSON mid-way.
    const truncated = sse([
      {
        type: "message_start",
        message: {
          id: "msg_cut",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [],
          usage: { input_tokens: 20, output_tokens: 1 },
        },
      },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "toolu_cut", name: "book", input: {} },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"restaurant": "Chez Pa' },
      },
      { type: "content_block_stop", index: 0 },
      {
        type: "message_delta",
        delta: { stop_reason: "max_tokens", stop_sequence: null },
        usage: { output_tokens: 64 },
      },
      { type: "message_stop" },
    ]);
    const { fetch, sent } = scriptedFetch(truncated, OK_JSON, OK_JSON, OK_JSON);
    const claude = anthropic({ apiKey: KEY, model: "claude-sonnet-4-5", fetch });
    const first = await drain(claude.stream([{ role: "user", content: "Book a table" }]));
    const recorded = first.response.message;
    expect(recorded.toolCalls[0]).toMatchObject({
      id: "toolu_cut",
      arguments: {},
      argumentsText: '{"restaurant": "Chez Pa',
    });

    // Stored history: the recorded turn, plus calls stored by another adapter with raw argument strings.
    const history = [
      { role: "user", content: "Book a table" },
      recorded,
      {
        role: "tool",
        toolResults: [{ callId: "toolu_cut", content: "booking failed: bad arguments", isError: true }],
      },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "toolu_text", name: "book", arguments: {}, argumentsText: '{"when": tomorrow' },
          { id: "toolu_str", name: "book", arguments: '{"when": "tomor' },
          { id: "toolu_arr", name: "book", arguments: "[1, 2]" },
          { id: "toolu_scalar", name: "book", arguments: '"tonight"' },
        ],
      },
      {
        role: "tool",
        toolResults: ["toolu_text", "toolu_str", "toolu_arr", "toolu_scalar"].map((callId) => ({
          callId,
          content: "x",
        })),
      },
      { role: "user", content: "Try again" },
    ] as MessageInput[];

    // Every later turn re-converts the same record: each must go out, not raise.
    for (let turn = 0; turn < 3; turn++) {
      const response = await claude.complete(history);
      expect(response.message.content).toBe("ok");
    }
    expect(sent).toHaveLength(4);
    for (const request of sent.slice(1)) {
      const uses = request.body.messages
        .flatMap((message) => message.content)
        .filter((block) => block.type === "tool_use");
      expect(uses.map((block) => block.id)).toEqual([
        "toolu_cut",
        "toolu_text",
        "toolu_str",
        "toolu_arr",
        "toolu_scalar",
      ]);
      for (const use of uses) expect(use.input).toEqual({});
      const results = request.body.messages
        .flatMap((message) => message.content)
        .filter((block) => block.type === "tool_result");
      expect(results.map((block) => block.tool_use_id)).toEqual([
        "toolu_cut",
        "toolu_text",
        "toolu_str",
        "toolu_arr",
        "toolu_scalar",
      ]);
      expectAlternatingRoles(request);
    }
  });

  it('seed 004: a tool call missing id or name is dropped, never sent with id ""', async () => {
    const { fetch, sent } = scriptedFetch(OK_JSON);
    const claude = anthropic({ apiKey: KEY, model: "claude-sonnet-4-5", fetch });
    const history = [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: "Running tools.",
        toolCalls: [
          { id: "", name: "search", arguments: { q: "a" } },
          { name: "search", arguments: { q: "b" } },
          { id: "toolu_noname", name: "", arguments: {} },
          { id: "toolu_undefname", arguments: {} },
          { id: "toolu_good", name: "search", arguments: { q: "c" } },
        ],
      },
      {
        role: "tool",
        toolResults: [
          { callId: "", content: "result for the empty id" },
          { callId: "toolu_noname", content: "result for the nameless call" },
          { callId: "toolu_good", content: "good" },
        ],
      },
    ] as MessageInput[];
    const response = await claude.complete(history);
    const [request] = sent;
    expect(request!.raw).not.toMatch(/"id":""/);
    expect(request!.raw).not.toMatch(/"tool_use_id":""/);
    expect(request!.raw).not.toMatch(/"name":""/);
    const blocks = request!.body.messages.flatMap((message) => message.content);
    expect(blocks.filter((block) => block.type === "tool_use")).toEqual([
      { type: "tool_use", id: "toolu_good", name: "search", input: { q: "c" } },
    ]);
    expect(blocks.filter((block) => block.type === "tool_result")).toEqual([
      { type: "tool_result", tool_use_id: "toolu_good", content: "good" },
    ]);
    // The orphaned results are not lost: they travel as text, so the request stays valid.
    const texts = textBlocks(request!).map((block) => String(block.text));
    expect(texts.some((text) => text.includes("result for the empty id"))).toBe(true);
    expect(texts.some((text) => text.includes("result for the nameless call"))).toBe(true);
    // Dropped with a warning, never silently.
    expect(response.warnings?.filter((warning) => /without an id or a name/.test(warning))).toHaveLength(4);
    expectAlternatingRoles(request!);
  });

  it("seed 004: an empty assistant turn is dropped, not sent as an empty text block", async () => {
    const { fetch, sent } = scriptedFetch(OK_JSON, OK_JSON);
    const claude = anthropic({ apiKey: KEY, model: "claude-sonnet-4-5", fetch });
    // finish_reason "length" with no content: an assistant turn with nothing in it.
    const emptyTurn: Message = {
      role: "assistant",
      content: "",
      toolCalls: [],
      toolResults: [],
      synthetic: false,
    };
    await claude.complete([
      { role: "user", content: "Write a poem" },
      emptyTurn,
      { role: "user", content: "Go on" },
    ]);
    // Whitespace only is no safer, and as the final (prefill) turn the API rejects trailing whitespace.
    await claude.complete([
      { role: "user", content: "Write a poem" },
      { role: "assistant", content: " \n\n " },
    ]);
    for (const request of sent) {
      expect(request.raw).not.toMatch(/"text":""/);
      for (const block of textBlocks(request)) expect(String(block.text).trim()).not.toBe("");
      for (const message of request.body.messages) expect(message.content.length).toBeGreaterThan(0);
      expect(request.body.messages.map((message) => message.role)).toEqual(["user"]);
    }
    expect(sent[0]!.body.messages[0]!.content.map((block) => [block.type, block.text])).toEqual([
      ["text", "Write a poem"],
      ["text", "Go on"],
    ]);
    expect(sent[1]!.body.messages[0]!.content.map((block) => block.text)).toEqual(["Write a poem"]);
  });
});

describe("seed 004: signed thinking survives streaming and replays byte for byte", () => {
  it("seed 004: streamed signature_delta survives into native blocks and replays", async () => {
    const fixture = await loadFixture(
      "anthropic/pydantic-ai__test_anthropic_model_thinking_part_stream.yaml",
    );
    const interaction = fixture.interactions[0]!;
    const body = new TextDecoder().decode(interaction.body);
    const data = sseData(body);
    const deltas = data.filter((event) => event.type === "content_block_delta" && event.index === 0);
    const signature = deltas
      .map((event) => event.delta as Record<string, unknown>)
      .filter((delta) => delta.type === "signature_delta")
      .map((delta) => String(delta.signature))
      .join("");
    const thinking = deltas
      .map((event) => event.delta as Record<string, unknown>)
      .filter((delta) => delta.type === "thinking_delta")
      .map((delta) => String(delta.thinking))
      .join("");
    expect(signature.length).toBeGreaterThan(100);
    expect(thinking.length).toBeGreaterThan(0);

    const { fetch, sent } = scriptedFetch(body, OK_STREAM);
    const claude = anthropic({ apiKey: KEY, model: "claude-sonnet-4-0", fetch });
    const options: CallOptions = { thinking: { budgetTokens: 1024 }, maxTokens: 4096, cache: "off" };
    const user: MessageInput = { role: "user", content: "How do I cross the street?" };
    const { events, response } = await drain(claude.stream([user], [], options));

    // The request we sent is the one that was recorded.
    expect(sent[0]!.body).toEqual((interaction.request as { body: unknown }).body);

    const blocks = nativeBlocks(response);
    expect(blocks[0]).toEqual({ type: "thinking", thinking, signature });
    expect(blocks.map((block) => block.type)).toEqual(["thinking", "text"]);
    expect(response.reasoning).toBe(thinking);
    expect(
      events
        .filter((event) => event.type === "reasoning-delta")
        .map((event) => event.text)
        .join(""),
    ).toBe(thinking);

    // Replay: the next request carries the thinking block exactly as signed.
    await drain(claude.stream([user, response.message, { role: "user", content: "Thanks" }], [], options));
    const replay = sent[1]!;
    expect(replay.body.messages[1]!.role).toBe("assistant");
    expect(replay.body.messages[1]!.content[0]).toEqual({ type: "thinking", thinking, signature });
    expect(replay.raw).toContain(JSON.stringify(signature));
    expect(replay.raw).toContain(JSON.stringify(thinking));
  });

  it("seed 004: a signature sent in pieces, a signature-only thinking block and unstripped thinking text all survive, in emission order", async () => {
    const pieces = ["EqQBCkYIBxgCKkB", "//+/z==", "Xy9\u002b"];
    const thinkingText = "\n\n  <think>keep the bytes</think>  ";
    const stream = sse([
      {
        type: "message_start",
        message: {
          id: "msg_sig",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-5",
          content: [],
          usage: { input_tokens: 9, output_tokens: 1 },
        },
      },
      { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "\n\n" } },
      { type: "content_block_stop", index: 0 },
      {
        type: "content_block_start",
        index: 1,
        content_block: { type: "thinking", thinking: "", signature: "" },
      },
      {
        type: "content_block_delta",
        index: 1,
        delta: { type: "thinking_delta", thinking: thinkingText.slice(0, 5) },
      },
      {
        type: "content_block_delta",
        index: 1,
        delta: { type: "thinking_delta", thinking: thinkingText.slice(5) },
      },
      { type: "content_block_delta", index: 1, delta: { type: "thinking_delta", thinking: "" } },
      ...pieces.map((signature) => ({
        type: "content_block_delta",
        index: 1,
        delta: { type: "signature_delta", signature },
      })),
      { type: "content_block_stop", index: 1 },
      {
        type: "content_block_start",
        index: 2,
        content_block: { type: "thinking", thinking: "", signature: "" },
      },
      { type: "content_block_delta", index: 2, delta: { type: "signature_delta", signature: "SIGONLY" } },
      { type: "content_block_stop", index: 2 },
      {
        type: "content_block_start",
        index: 3,
        content_block: { type: "tool_use", id: "toolu_1", name: "lookup", input: {} },
      },
      { type: "content_block_delta", index: 3, delta: { type: "input_json_delta", partial_json: '{"q":' } },
      { type: "content_block_delta", index: 3, delta: { type: "input_json_delta", partial_json: '"x"}' } },
      { type: "content_block_stop", index: 3 },
      {
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: 40 },
      },
      { type: "message_stop" },
    ]);
    const expectedBlocks = [
      { type: "text", text: "\n\n" },
      { type: "thinking", thinking: thinkingText, signature: pieces.join("") },
      { type: "thinking", thinking: "", signature: "SIGONLY" },
      { type: "tool_use", id: "toolu_1", name: "lookup", input: { q: "x" } },
    ];
    const json = {
      ...OK_JSON,
      id: "msg_sig",
      model: "claude-sonnet-4-5",
      content: expectedBlocks,
      stop_reason: "tool_use",
    };
    const { fetch, sent } = scriptedFetch(stream, json, OK_STREAM);
    const claude = anthropic({ apiKey: KEY, model: "claude-sonnet-4-5", fetch });
    const tools: ToolSpecInput[] = [{ name: "lookup", parameters: { type: "object", properties: {} } }];

    const streamed = (await drain(claude.stream([{ role: "user", content: "q" }], tools))).response;
    expect(streamed.message.native?.blocks).toEqual(expectedBlocks);
    // The non-streaming path builds the very same replayable turn.
    const completed = await claude.complete([{ role: "user", content: "q" }], tools);
    expect(completed.message.native).toEqual(streamed.message.native);

    await drain(
      claude.stream(
        [
          { role: "user", content: "q" },
          streamed.message,
          { role: "tool", toolResults: [{ callId: "toolu_1", content: "found" }] },
        ],
        tools,
      ),
    );
    const replayed = sent[2]!.body.messages[1]!;
    // The "\n\n" text block is left out (the API rejects it); everything else verbatim and in order.
    expect(replayed.content).toEqual(expectedBlocks.slice(1));
    expect(sent[2]!.raw).toContain(JSON.stringify(pieces.join("")));
    expect(sent[2]!.raw).toContain(JSON.stringify(thinkingText));
  });

  it("seed 004: streamed redacted_thinking (data on content_block_start, no deltas) survives", async () => {
    const fixture = await loadFixture(
      "anthropic/pydantic-ai__test_anthropic_model_thinking_part_redacted_stream.yaml",
    );
    const interaction = fixture.interactions[0]!;
    const body = new TextDecoder().decode(interaction.body);
    const redacted = sseData(body)
      .filter((event) => event.type === "content_block_start")
      .map((event) => event.content_block as Record<string, unknown>)
      .filter((block) => block.type === "redacted_thinking");
    expect(redacted).toHaveLength(2);
    expect(redacted.every((block) => typeof block.data === "string" && block.data.length > 100)).toBe(true);

    const { fetch, sent } = scriptedFetch(body, OK_STREAM);
    const claude = anthropic({ apiKey: KEY, model: "claude-sonnet-4-5-20250929", fetch });
    const options: CallOptions = { thinking: { budgetTokens: 1024 }, maxTokens: 4096, cache: "off" };
    const recordedRequest = (interaction.request as { body: { messages: MessageInput[] } }).body;
    const userText = String((recordedRequest.messages[0]!.content as unknown as { text: string }[])[0]!.text);
    const user: MessageInput = { role: "user", content: userText };
    const { response } = await drain(claude.stream([user], [], options));
    expect(sent[0]!.body).toEqual(recordedRequest);

    const blocks = nativeBlocks(response);
    expect(blocks.slice(0, 2)).toEqual(
      redacted.map((block) => ({ type: "redacted_thinking", data: block.data })),
    );
    expect(blocks[2]).toMatchObject({ type: "text" });
    expect(response.message.content).toMatch(/^I notice that you've sent what/);
    // Encrypted reasoning has no readable text to show.
    expect(response.reasoning).toBeUndefined();

    await drain(claude.stream([user, response.message, { role: "user", content: "Go on" }], [], options));
    const replay = sent[1]!;
    expect(replay.body.messages[1]!.content.slice(0, 2)).toEqual(
      redacted.map((block) => ({ type: "redacted_thinking", data: block.data })),
    );
    for (const block of redacted) expect(replay.raw).toContain(JSON.stringify(block.data));
  });

  it("seed 004: a streamed thinking + tool turn replays exactly as the non-streaming path does (recorded two-turn exchange)", async () => {
    const fixture = await loadFixture("anthropic/pydantic-ai__test_anthropic_tool_with_thinking.yaml");
    const [turn1, turn2] = fixture.interactions;
    const message1 = turn1!.json as { content: Record<string, unknown>[] } & Record<string, unknown>;
    const recordedReplay = (
      turn2!.request as { body: { messages: { role: string; content: Record<string, unknown>[] }[] } }
    ).body.messages[1]!;
    expect(recordedReplay.content.map((block) => block.type)).toEqual(["thinking", "text", "tool_use"]);

    // The same turn as a stream: thinking in pieces, then its signature_delta; text; tool input.
    const [thinkingBlock, textBlock, toolBlock] = message1.content as [
      { thinking: string; signature: string },
      { text: string },
      { id: string; name: string },
    ];
    const cut = Math.floor(thinkingBlock.thinking.length / 2);
    const stream = sse([
      { type: "message_start", message: { ...message1, content: [], stop_reason: null } },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "thinking", thinking: "", signature: "" },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "thinking_delta", thinking: thinkingBlock.thinking.slice(0, cut) },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "thinking_delta", thinking: thinkingBlock.thinking.slice(cut) },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "signature_delta", signature: thinkingBlock.signature },
      },
      { type: "content_block_stop", index: 0 },
      { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } },
      { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: textBlock.text } },
      { type: "content_block_stop", index: 1 },
      {
        type: "content_block_start",
        index: 2,
        content_block: { type: "tool_use", id: toolBlock.id, name: toolBlock.name, input: {} },
      },
      { type: "content_block_stop", index: 2 },
      {
        type: "message_delta",
        delta: { stop_reason: "tool_use", stop_sequence: null },
        usage: { output_tokens: 155 },
      },
      { type: "message_stop" },
    ]);
    const { fetch, sent } = scriptedFetch(message1, OK_JSON, stream, OK_JSON);
    const claude = anthropic({ apiKey: KEY, model: "claude-sonnet-4-0", fetch });
    const tools: ToolSpecInput[] = [
      {
        name: "get_user_country",
        parameters: { additionalProperties: false, properties: {}, type: "object" },
      },
    ];
    const options: CallOptions = {
      thinking: { budgetTokens: 3000 },
      maxTokens: 4096,
      toolChoice: "auto",
      cache: "off",
    };
    const user: MessageInput = { role: "user", content: "What is the largest city in the user country?" };
    const result = (callId: string): MessageInput => ({
      role: "tool",
      toolResults: [{ callId, content: "Mexico" }],
    });

    const completed = await claude.complete([user], tools, options);
    await claude.complete([user, completed.message, result(toolBlock.id)], tools, options);
    const streamed = (await drain(claude.stream([user], tools, options))).response;
    await claude.complete([user, streamed.message, result(toolBlock.id)], tools, options);

    expect(streamed.message.native).toEqual(completed.message.native);
    // Both replays send what pydantic-ai recorded sending (the assistant turn, byte for byte).
    expect(sent[1]!.body.messages[1]).toEqual(recordedReplay);
    expect(sent[3]!.body.messages[1]).toEqual(recordedReplay);
    expect(sent[3]!.body).toEqual(sent[1]!.body);
    expect(sent[3]!.raw).toContain(JSON.stringify(thinkingBlock.signature));
    expect(sent[3]!.body.messages[2]!.content[0]).toMatchObject({
      type: "tool_result",
      tool_use_id: toolBlock.id,
      content: "Mexico",
    });
  });
});

describe("seed 004: thinking budget and max_tokens", () => {
  it("seed 004: thinking budget never exceeds max_tokens (max_tokens 512 → raised to budget + 1)", async () => {
    const { fetch, sent } = scriptedFetch(OK_JSON, OK_JSON, OK_JSON);
    const claude = anthropic({ apiKey: KEY, model: "claude-sonnet-4-5", fetch });
    const user: MessageInput[] = [{ role: "user", content: "think" }];

    const big = await claude.complete(user, [], { thinking: { budgetTokens: 8192 }, maxTokens: 512 });
    expect(sent[0]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 8192 });
    expect(sent[0]!.body.max_tokens).toBe(8193);
    expect(big.warnings?.some((warning) => /max_tokens 512/.test(warning) && /8193/.test(warning))).toBe(
      true,
    );

    // The Python bug exactly: max(1024, min(budget, max_tokens - 1)) = 1024 > 512. The floor is not
    // negotiable, so max_tokens moves instead.
    await claude.complete(user, [], { thinking: { budgetTokens: 1024 }, maxTokens: 512 });
    expect(sent[1]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect(sent[1]!.body.max_tokens).toBe(1025);

    const small = await claude.complete(user, [], { thinking: { budgetTokens: 300 }, maxTokens: 512 });
    expect(sent[2]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 1024 });
    expect(sent[2]!.body.max_tokens).toBe(1025);
    expect(small.warnings?.some((warning) => /below the API minimum/.test(warning))).toBe(true);

    for (const request of sent) {
      expect(request.body.thinking!.budget_tokens!).toBeLessThan(request.body.max_tokens);
      expect(request.body.thinking!.budget_tokens!).toBeGreaterThanOrEqual(1024);
    }
  });
});

describe("seed 004: usage", () => {
  it("seed 004: streamed usage includes reasoning tokens (output_tokens_details.thinking_tokens)", async () => {
    const fixture = await loadFixture("anthropic/pydantic-ai__test_anthropic_advisor_tool_stream.yaml");
    const body = new TextDecoder().decode(fixture.interactions[0]!.body);
    const delta = sseData(body).find((event) => event.type === "message_delta")!;
    const reported = (delta.usage as { output_tokens_details: { thinking_tokens: number } })
      .output_tokens_details;
    expect(reported.thinking_tokens).toBe(47);

    // The same message, non-streaming: its usage is the whole message's (message_start's, updated by the delta).
    const start = sseData(body).find((event) => event.type === "message_start")!;
    const wholeUsage = { ...(start.message as { usage: object }).usage, ...(delta.usage as object) };
    const { fetch } = scriptedFetch(body, { ...OK_JSON, usage: wholeUsage });
    const claude = anthropic({ apiKey: KEY, model: "claude-sonnet-5", fetch });
    const { events, response } = await drain(claude.stream([{ role: "user", content: "What's 2+2?" }]));
    expect(response.usage.reasoningTokens).toBe(47);
    // message_delta usage overrides message_start's (1128 input, 2 output).
    expect(response.usage.inputTokens).toBe(2411);
    expect(response.usage.outputTokens).toBe(145);
    const usageEvents = events.filter((event) => event.type === "usage");
    expect(usageEvents.at(-1)!.usage.reasoningTokens).toBe(47);
    // The signature-only thinking block of this recording is kept too.
    expect(nativeBlocks(response)[0]).toMatchObject({
      type: "thinking",
      thinking: "",
    });

    // Streaming and non-streaming report the same usage.
    const completed = await claude.complete([{ role: "user", content: "What's 2+2?" }]);
    expect(completed.usage).toEqual(response.usage);
  });

  it("seed 004: reasoning_tokens 0 is kept distinct from not reported", async () => {
    const zero = new TextDecoder().decode(
      (await loadFixture("anthropic/anthropic-sdk-ts__stream-b-fallback.sse")).interactions[0]!.body,
    );
    const absent = new TextDecoder().decode(
      (await loadFixture("anthropic/pydantic-ai__test_anthropic_model_thinking_part_stream.yaml"))
        .interactions[0]!.body,
    );
    expect(zero).toContain('"thinking_tokens":0');
    expect(absent).not.toContain("thinking_tokens");

    const { fetch } = scriptedFetch(
      zero,
      absent,
      {
        ...OK_JSON,
        usage: { input_tokens: 3, output_tokens: 4, output_tokens_details: { thinking_tokens: 0 } },
      },
      { ...OK_JSON, usage: { input_tokens: 3, output_tokens: 4 } },
    );
    const claude = anthropic({ apiKey: KEY, model: "claude-opus-4-8", fetch });
    const user: MessageInput[] = [{ role: "user", content: "hi" }];
    const reportedZero = (await drain(claude.stream(user))).response.usage;
    const notReported = (await drain(claude.stream(user))).response.usage;
    expect(reportedZero.reasoningTokens).toBe(0);
    expect("reasoningTokens" in reportedZero).toBe(true);
    expect(notReported.reasoningTokens).toBeUndefined();
    expect("reasoningTokens" in notReported).toBe(false);

    const jsonZero = (await claude.complete(user)).usage;
    const jsonAbsent = (await claude.complete(user)).usage;
    expect(jsonZero.reasoningTokens).toBe(0);
    expect("reasoningTokens" in jsonAbsent).toBe(false);

    // Adding keeps the distinction: a reported 0 plus "not reported" is a reported 0.
    expect(addUsage(jsonZero, jsonAbsent).reasoningTokens).toBe(0);
    expect("reasoningTokens" in addUsage(jsonAbsent, jsonAbsent)).toBe(false);
  });
});

describe("seed 004: credentials", () => {
  it("seed 004: a missing API key fails loudly up front, never sent as an empty auth header", async () => {
    // The review's Bedrock defect (`api_key or ""` → an empty Bearer header and a misleading 401); the
    // first-party provider's equivalent is an empty x-api-key.
    let calls = 0;
    const fetchImpl = (async () => {
      calls++;
      return new Response(JSON.stringify(OK_JSON));
    }) as typeof fetch;
    for (const apiKey of ["", undefined]) {
      expect(() =>
        anthropic({ apiKey: apiKey as string, model: "claude-sonnet-4-5", fetch: fetchImpl }),
      ).toThrow(ValidationError);
    }
    expect(calls).toBe(0);

    const { fetch, sent } = scriptedFetch(OK_JSON);
    await anthropic({
      apiKey: KEY,
      model: "claude-sonnet-4-5",
      fetch,
      headers: { "x-api-key": "" },
    }).complete([{ role: "user", content: "hi" }]);
    expect(sent[0]!.headers.get("x-api-key")).toBe(KEY);
  });
});

// ---------------------------------------------------------------------------------------------------
// The review's test-collection defect: ~1778 lines of provider tests named provider_*.py never ran.

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const TEST_DIR = join(ROOT, "test");
/** A call that defines a test or a suite: `it("…"`, `test.each(…)("…"`, `describe.skip("…"`. */
const DEFINES_TESTS = /(?<![\w$.])(?:it|test|describe)(?:\.\w+)*(?:\([^()]*\))?\s*\(\s*["'`]/;
const IMPORTS_TEST_API =
  /import\s*\{[^}]*\b(?:it|test|describe)\b[^}]*\}\s*from\s*["'](?:vitest|node:test|bun:test)["']/;

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : filesUnder(path);
    return entry.isFile() ? [relative(ROOT, path).split(sep).join("/")] : [];
  });
}

interface ProjectGlobs {
  name: string;
  include: string[];
  exclude: string[];
}

async function projectGlobs(): Promise<ProjectGlobs[]> {
  type TestConfig = {
    test?: { name?: string; include?: string[]; exclude?: string[]; projects?: unknown[] };
  };
  const main = (await import("../../vitest.config.ts")).default as TestConfig;
  const worker = (await import("../../worker/vitest.config.ts")).default as TestConfig;
  // The packed-package checks run on their own (`npm run test:package`), from their own config.
  const packaged = (await import("../../package/vitest.config.ts")).default as TestConfig;
  const projects = (main.test?.projects ?? []).filter(
    (project): project is TestConfig => typeof project === "object",
  );
  const referenced = (main.test?.projects ?? []).filter((project) => typeof project === "string");
  expect(referenced).toEqual(["test/worker/vitest.config.ts"]);
  return [...projects, worker, packaged].map((project) => ({
    name: project.test?.name ?? "?",
    include: project.test?.include ?? [],
    exclude: project.test?.exclude ?? [],
  }));
}

function collectedBy(file: string, projects: readonly ProjectGlobs[]): string[] {
  return projects
    .filter(
      (project) =>
        project.include.some((glob) => matchesGlob(file, glob)) &&
        !project.exclude.some((glob) => matchesGlob(file, glob)),
    )
    .map((project) => project.name);
}

describe("seed 004: tests the runner does not collect do not exist", () => {
  it("seed 004: every *.test.ts under test/ is matched by a vitest project's include glob", async () => {
    const projects = await projectGlobs();
    expect(projects.map((project) => project.name).sort()).toEqual(["node", "package", "workerd"]);
    const testFiles = filesUnder(TEST_DIR).filter((file) => file.endsWith(".test.ts"));
    expect(testFiles).toContain("test/protocols/anthropic-messages/seed-004-defects.test.ts");
    expect(testFiles.length).toBeGreaterThanOrEqual(10);
    const uncollected = testFiles.filter((file) => collectedBy(file, projects).length === 0);
    expect(uncollected).toEqual([]);
    // Exactly one project runs each file (workerd tests are not also run in Node, and vice versa).
    const twice = testFiles.filter((file) => collectedBy(file, projects).length > 1);
    expect(twice).toEqual([]);
    // The globs really require the suffix: the seed's provider_*.py mistake would not be collected.
    expect(collectedBy("test/protocols/anthropic-messages/provider_anthropic.ts", projects)).toEqual([]);
    expect(collectedBy("test/protocols/anthropic-messages/anthropic.spec.ts", projects)).toEqual([]);
  });

  it("seed 004: no file under test/ defines tests without the .test.ts suffix (helpers excluded)", () => {
    // The detector itself: it must see test definitions and must not see look-alikes.
    for (const sample of [
      'it("works", () => {})',
      "describe(`suite`, () => {})",
      "test.each([1])('n %i', () => {})",
      'it.skip("x")',
    ]) {
      expect(DEFINES_TESTS.test(sample), sample).toBe(true);
    }
    for (const sample of [
      "/x/.test(value)",
      "function describe(error: unknown)",
      "describe(error)",
      "split(`a`)",
    ]) {
      expect(DEFINES_TESTS.test(sample), sample).toBe(false);
    }
    expect(IMPORTS_TEST_API.test('import { describe, expect, it } from "vitest";')).toBe(true);

    const sources = filesUnder(TEST_DIR).filter(
      (file) =>
        /\.(?:[cm]?[jt]s|tsx|jsx)$/.test(file) &&
        !file.endsWith(".test.ts") &&
        !file.endsWith(".d.ts") &&
        !file.startsWith("test/helpers/") &&
        !/(?:^|\/)vitest\.config\.[cm]?[jt]s$/.test(file),
    );
    expect(sources.length).toBeGreaterThan(0);
    const offenders = sources.filter((file) => {
      const text = readFileSync(join(ROOT, file), "utf8");
      return DEFINES_TESTS.test(text) || IMPORTS_TEST_API.test(text);
    });
    expect(offenders).toEqual([]);
  });
});
