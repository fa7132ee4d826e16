/**
 * Compaction in `runAgent` (`compaction()` from `modelwire/compaction`), on scripted providers with known
 * prices: the threshold, where the history is cut (tool calls with their results, the last assistant turn
 * with its native blocks), the `synthetic` summary, the cost figures of every report and the choice they
 * make; Anthropic's token count; the provider-side strategy on a recorded Anthropic compaction.
 */
import { describe, expect, it } from "vitest";
import { type AgentEvent, runAgent } from "../../src/agent/run-agent.ts";
import { compaction } from "../../src/compaction/index.ts";
import { contentText } from "../../src/core/content.ts";
import { type MessageInput, normalizeMessages } from "../../src/core/message.ts";
import { anthropic } from "../../src/providers/anthropic.ts";
import { FakeProvider } from "../../src/testing.ts";
import { loadFixture } from "../helpers/fixtures.ts";

/** Sonnet's prices and Haiku 4.5's, per million tokens. */
const SONNET = { input: 3, output: 15, cacheRead: 0.3, cacheWrite5m: 3.75 };
const HAIKU = { input: 1, output: 5 };

/** A message's tokens in these tests: one per character of its text and of its tool results. */
function tokensOf(message: MessageInput): number {
  const results = (message.toolResults ?? []).reduce(
    (sum, result) => sum + contentText(result.content).length,
    0,
  );
  return contentText(message.content).length + results;
}
const countTokens = (messages: readonly MessageInput[]) => messages.reduce((n, m) => n + tokensOf(m), 0);

const NATIVE = {
  protocol: "anthropic-messages",
  origin: "anthropic",
  model: "claude-sonnet-4-6",
  blocks: [
    { type: "thinking", thinking: "Third file next.", signature: "EpoBCkYICxgCKkD+sig==" },
    { type: "text", text: "c".repeat(1000) },
    { type: "tool_use", id: "c3", name: "read", input: { file: "c" } },
  ],
};

/** 25,100 tokens: system 100, user 1,000, then three tool turns of 1,000 + 10,000, 1,000 + 10,000, 1,000 + 1,000. */
const HISTORY: MessageInput[] = [
  { role: "system", content: "s".repeat(100) },
  { role: "user", content: "u".repeat(1000) },
  {
    role: "assistant",
    content: "a".repeat(1000),
    toolCalls: [{ id: "c1", name: "read", arguments: { file: "a" } }],
  },
  { role: "tool", toolResults: [{ callId: "c1", name: "read", content: "r".repeat(10_000) }] },
  {
    role: "assistant",
    content: "b".repeat(1000),
    toolCalls: [{ id: "c2", name: "read", arguments: { file: "b" } }],
  },
  { role: "tool", toolResults: [{ callId: "c2", name: "read", content: "q".repeat(10_000) }] },
  {
    role: "assistant",
    content: "c".repeat(1000),
    toolCalls: [{ id: "c3", name: "read", arguments: { file: "c" } }],
    native: NATIVE,
  },
  { role: "tool", toolResults: [{ callId: "c3", name: "read", content: "t".repeat(1000) }] },
];

/** The summary the fake summarizer writes: 400 characters; with its 61-character header and a blank line, 463 tokens. */
const SUMMARY_TEXT = "S".repeat(400);

function summarizer(): FakeProvider {
  return new FakeProvider({
    model: "claude-haiku-4-5",
    script: [{ text: SUMMARY_TEXT, usage: { inputTokens: 12_000, outputTokens: 100 } }],
  });
}

describe("compaction in runAgent", () => {
  it("over the threshold: system + summary (synthetic) + the last turns verbatim, with the figures of cacheImpact", async () => {
    const agent = new FakeProvider({
      model: "claude-sonnet-4-6",
      script: [{ text: "All three files read." }],
    });
    const writer = summarizer();
    const events: AgentEvent[] = [];
    const result = await runAgent({
      provider: agent,
      messages: HISTORY,
      compaction: compaction({
        threshold: 20_000,
        keepTurns: 2,
        summarizer: writer,
        countTokens,
        tokensOf,
        prices: SONNET,
        summarizerPrices: HAIKU,
      }),
      onEvent: (event) => events.push(event),
    });
    expect(result.status).toBe("done");

    // What the model was sent: the system prompt, the summary, the last two turns as they were.
    const sent = agent.calls[0]!.messages;
    expect(sent).toHaveLength(6);
    expect(sent[0]).toStrictEqual(normalizeMessages([HISTORY[0]!])[0]);
    expect(sent[1]).toMatchObject({ role: "user", synthetic: true });
    expect(sent[1]!.content).toBe(
      `[Summary of the earlier conversation, written by the harness]\n\n${SUMMARY_TEXT}`,
    );
    expect(sent.slice(2)).toStrictEqual(normalizeMessages(HISTORY.slice(4)));
    // The last assistant turn keeps its signed thinking byte for byte.
    expect(JSON.stringify(sent[4]!.native)).toBe(JSON.stringify(NATIVE));
    // The stored history is the compacted one plus the answer.
    expect(result.messages).toHaveLength(7);
    expect(result.messages.slice(2, 6)).toStrictEqual(HISTORY.slice(4));

    // The summarizer got the replaced turns (user, the first tool call and its result) as a transcript.
    const asked = writer.calls[0]!;
    expect(asked.options.maxTokens).toBe(2048);
    expect(asked.messages[0]!.role).toBe("system");
    const transcript = String(asked.messages[1]!.content);
    expect(transcript).toContain('[tool call read {"file":"a"}]');
    expect(transcript).toContain("[tool result read] rrrr");
    expect(transcript).not.toContain("bbbb");

    const report = result.compactions[0]!;
    expect(result.compactions).toHaveLength(1);
    expect(events.filter((event) => event.type === "compaction")).toStrictEqual([
      { type: "compaction", step: 1, report },
    ]);
    expect(report).toMatchObject({
      strategy: "summary",
      reason: "fit",
      counted: "custom",
      limit: 20_000,
      tokensBefore: 25_100,
      // 100 + 463 + 13,000
      tokensAfter: 13_563,
      tokensReclaimed: 11_537,
      messagesReplaced: 3,
      divergeAt: 1,
      rewriteTokens: 13_463,
      // Every call after the first pays back 0.0034611 of the 0.04298625 extra: 13 calls.
      breakEvenCalls: 13,
      horizon: 5,
      summaryUsage: { inputTokens: 12_000, outputTokens: 100 },
    });
    // 13,463 tokens written at 3.75/M.
    expect(report.cacheRewriteCost).toBeCloseTo(0.05048625, 12);
    // + the 100-token system prompt read at 0.3/M.
    expect(report.nextCallCost).toBeCloseTo(0.05051625, 12);
    expect(report.steadyStateCost).toBeCloseTo(0.0040689, 12);
    expect(report.unchangedCost).toBeCloseTo(0.00753, 12);
    // 12,000 in at 1/M + 100 out at 5/M.
    expect(report.summaryCost).toBeCloseTo(0.0125, 12);
    // 0.0125 + 0.05051625 + 4 × 0.0040689 against 5 × 0.00753: over five calls compacting costs more,
    // and it happened because the request did not fit.
    expect(report.costIfCompacted).toBeCloseTo(0.07929185, 12);
    expect(report.costIfKept).toBeCloseTo(0.03765, 12);
  });

  it("under the threshold: compacts only when the modelled cost over the horizon is lower (17 calls: no; 18: yes)", async () => {
    const run = async (horizon: number) => {
      const agent = new FakeProvider({ script: [{ text: "ok" }] });
      const writer = summarizer();
      const result = await runAgent({
        provider: agent,
        messages: HISTORY,
        compaction: compaction({
          threshold: 1_000_000,
          keepTurns: 2,
          summarizer: writer,
          summaryMaxTokens: 500,
          countTokens,
          tokensOf,
          prices: SONNET,
          summarizerPrices: HAIKU,
          horizon,
        }),
      });
      return { result, writer, agent };
    };
    // Planned with a 500-token summary: 0.0145 (summary) + 0.050655 (next call) + (K − 1) × 0.00408,
    // against K × 0.00753 — lower from K = 18 on.
    const seventeen = await run(17);
    expect(seventeen.result.compactions).toEqual([]);
    expect(seventeen.writer.calls).toHaveLength(0);
    expect(seventeen.agent.calls[0]!.messages).toHaveLength(8);

    const eighteen = await run(18);
    expect(eighteen.writer.calls).toHaveLength(1);
    expect(eighteen.writer.calls[0]!.options.maxTokens).toBe(500);
    expect(eighteen.agent.calls[0]!.messages).toHaveLength(6);
    const report = eighteen.result.compactions[0]!;
    expect(report).toMatchObject({ reason: "cost", horizon: 18, tokensBefore: 25_100, tokensAfter: 13_563 });
    // With the real summary: 0.0125 + 0.05051625 + 17 × 0.0040689, against 18 × 0.00753.
    expect(report.costIfCompacted).toBeCloseTo(0.13218755, 12);
    expect(report.costIfKept).toBeCloseTo(0.13554, 12);

    // Without prices there is nothing to compare: no cost-driven compaction.
    const unpriced = await runAgent({
      provider: new FakeProvider({ script: [{ text: "ok" }] }),
      messages: HISTORY,
      compaction: compaction({ threshold: 1_000_000, keepTurns: 2, summarizer: summarizer(), horizon: 100 }),
    });
    expect(unpriced.compactions).toEqual([]);
  });

  it("never cuts a tool call from its result, even when the result comes after a later user message", async () => {
    const history: MessageInput[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "start" },
      { role: "assistant", toolCalls: [{ id: "x", name: "read" }] },
      { role: "tool", toolResults: [{ callId: "x", content: "x done" }] },
      {
        role: "assistant",
        toolCalls: [
          { id: "p", name: "read" },
          { id: "q", name: "read" },
        ],
      },
      { role: "tool", toolResults: [{ callId: "p", content: "p done" }] },
      { role: "user", content: "a note" },
      { role: "user", toolResults: [{ callId: "q", content: "q done" }] },
      { role: "assistant", content: "thinking it over" },
      { role: "user", content: "go on" },
    ];
    const agent = new FakeProvider({ script: [{ text: "ok" }] });
    const writer = new FakeProvider({ script: [{ text: "earlier: x was read" }] });
    const result = await runAgent({
      provider: agent,
      messages: history,
      // keepTurns 3 would cut at "a note": q's call is before it, its result after.
      compaction: compaction({ threshold: 10, keepTurns: 3, summarizer: writer }),
    });
    const sent = agent.calls[0]!.messages;
    expect(sent.map((message) => message.synthetic)).toEqual([
      false,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(normalizeMessages(history.slice(4))).toStrictEqual(sent.slice(2));
    expect(result.compactions[0]).toMatchObject({ counted: "estimate", messagesReplaced: 3, reason: "fit" });
    // The estimate: JSON length / 4 of each message.
    const estimate = history.reduce((n, m) => n + Math.ceil(JSON.stringify(m).length / 4), 0);
    expect(result.compactions[0]!.tokensBefore).toBe(estimate);
  });

  it("keeps the last assistant turn even when the last turns are user messages", async () => {
    const history: MessageInput[] = [
      { role: "user", content: "one" },
      { role: "assistant", content: "answer", native: { ...NATIVE, blocks: [NATIVE.blocks[0]] } },
      { role: "user", content: "two" },
      { role: "user", content: "three" },
    ];
    const agent = new FakeProvider({ script: [{ text: "ok" }] });
    await runAgent({
      provider: agent,
      messages: history,
      compaction: compaction({
        threshold: 5,
        keepTurns: 1,
        summarizer: new FakeProvider({ script: [{ text: "one" }] }),
      }),
    });
    const sent = agent.calls[0]!.messages;
    expect(sent.map((message) => message.content)).toEqual([
      expect.stringContaining("one"),
      "answer",
      "two",
      "three",
    ]);
    expect(sent[1]!.native?.blocks).toStrictEqual([NATIVE.blocks[0]]);
  });

  it("nothing to replace, or under the threshold without cost awareness: the history goes as it is", async () => {
    const agent = new FakeProvider({ script: [{ text: "ok" }, { text: "ok" }] });
    const writer = new FakeProvider();
    const policy = compaction({ threshold: 2, keepTurns: 4, summarizer: writer });
    const short = await runAgent({
      provider: agent,
      messages: [{ role: "user", content: "hi" }],
      compaction: policy,
    });
    expect(short.compactions).toEqual([]);
    const calm = await runAgent({
      provider: agent,
      messages: HISTORY,
      compaction: compaction({ threshold: 1_000_000, costAware: false, prices: SONNET, horizon: 1000 }),
    });
    expect(calm.compactions).toEqual([]);
    expect(writer.calls).toHaveLength(0);
  });

  it("a stored history that is not what the types say is compacted without throwing", async () => {
    const broken = [
      { role: "system", content: "sys" },
      { role: "user", content: { odd: true } },
      { role: "assistant", toolCalls: "not a list", content: [{ type: "text", text: "half" }, null] },
      { role: "tool", toolResults: [null, { callId: "z", content: 7 }] },
      { role: "assistant", content: "last" },
    ] as unknown as MessageInput[];
    const writer = new FakeProvider({ script: [{ text: "summary" }] });
    const compacted = await compaction({ threshold: 2, keepTurns: 1, summarizer: writer }).prepare({
      messages: broken,
      tools: [],
      provider: new FakeProvider(),
      signal: undefined,
    });
    expect(compacted?.messages).toHaveLength(3);
    expect(compacted?.report.messagesReplaced).toBe(3);
    expect(String(writer.calls[0]!.messages[1]!.content)).toContain('user: {"odd":true}');
  });

  it("bad settings are refused, naming the field", () => {
    expect(() => compaction({ threshold: 0 })).toThrow(/threshold/);
    expect(() => compaction({ keepTurns: 0 })).toThrow(/keepTurns/);
    expect(() => compaction({ horizon: 1.5 })).toThrow(/horizon/);
    expect(() => compaction({ contextWindow: -1 })).toThrow(/contextWindow/);
  });

  it("a fractional threshold needs a context window: the model's built-in one, or the option", async () => {
    const policy = compaction({ threshold: 0.5 });
    await expect(
      policy.prepare({ messages: HISTORY, tools: [], provider: new FakeProvider(), signal: undefined }),
    ).rejects.toThrow(
      /contextWindow: required: a fractional threshold needs the context window of "fake-model"/,
    );
    // Claude Sonnet 4.6: a 1,000,000-token window, so half of it is the limit and 25,100 tokens fit.
    const claude = new FakeProvider({ model: "claude-sonnet-4-6" });
    expect(
      await compaction({ threshold: 0.5, costAware: false }).prepare({
        messages: HISTORY,
        tools: [],
        provider: claude,
        signal: undefined,
      }),
    ).toBeUndefined();
  });
});

describe("compaction: Anthropic", () => {
  it("counts with Anthropic's count_tokens (counted: provider), before and after", async () => {
    const requests: { url: string; body: Record<string, unknown> }[] = [];
    const counts = [190_000, 21_000];
    const claude = anthropic({
      apiKey: "sk-ant-test",
      model: "claude-sonnet-4-6",
      fetch: async (input, init) => {
        requests.push({
          url: String(input),
          body: JSON.parse(String(init?.body)) as Record<string, unknown>,
        });
        return Response.json({ input_tokens: counts.shift() });
      },
    });
    const policy = compaction({ contextWindow: 200_000, keepTurns: 2, summarizer: summarizer() });
    const compacted = await policy.prepare({
      messages: HISTORY,
      tools: [],
      provider: claude,
      signal: undefined,
    });
    expect(compacted?.report).toMatchObject({
      counted: "provider",
      limit: 160_000,
      tokensBefore: 190_000,
      tokensAfter: 21_000,
      tokensReclaimed: 169_000,
      reason: "fit",
    });
    expect(requests.map((request) => request.url)).toEqual([
      "https://api.anthropic.com/v1/messages/count_tokens",
      "https://api.anthropic.com/v1/messages/count_tokens",
    ]);
    expect(requests[0]!.body).toMatchObject({
      model: "claude-sonnet-4-6",
      system: [{ type: "text", text: "s".repeat(100) }],
    });
    expect(requests[0]!.body).not.toHaveProperty("max_tokens");
    expect((requests[0]!.body.messages as unknown[]).length).toBe(7);
    // The replayed turn is in the count as it is sent: its signed thinking block first.
    expect((requests[0]!.body.messages as { content: unknown[] }[])[5]!.content[0]).toStrictEqual(
      NATIVE.blocks[0],
    );
  });

  it("provider-side compaction on recorded traffic: the request's context_management, the compaction block replayed", async () => {
    const fixture = await loadFixture(
      "anthropic/pydantic-ai__test_anthropic_compaction_usage_with_cache_streaming.yaml",
    );
    const recorded = fixture.interactions[0]!;
    const recordedBody = recorded.request!.body as {
      context_management: { edits: { type: string }[] };
      messages: { role: string; content: { text: string }[] }[];
      system: { text: string }[];
    };
    const sent: { headers: Headers; body: Record<string, unknown> }[] = [];
    const claude = anthropic({
      apiKey: "sk-ant-test",
      model: "claude-sonnet-4-6",
      contextManagement: recordedBody.context_management,
      fetch: async (_input, init) => {
        sent.push({
          headers: new Headers(init?.headers),
          body: JSON.parse(String(init?.body)) as Record<string, unknown>,
        });
        return new Response(recorded.body as Uint8Array<ArrayBuffer>, {
          headers: { "content-type": "text/event-stream" },
        });
      },
    });
    const history: MessageInput[] = [
      { role: "system", content: recordedBody.system[0]!.text },
      { role: "user", content: recordedBody.messages[0]!.content[0]!.text },
    ];
    // The recording's own figures: 55,196 tokens in before (100 + 55,096 read from cache).
    const policy = compaction({ strategy: "provider", countTokens: () => 55_196 });
    const first = await runAgent({ provider: claude, messages: history, compaction: policy });
    expect(sent[0]!.body.context_management).toStrictEqual({
      edits: [{ trigger: { type: "input_tokens", value: 50_000 }, type: "compact_20260112" }],
    });
    expect(sent[0]!.headers.get("anthropic-beta")).toBe("compact-2026-01-12");
    expect(first.status).toBe("done");
    const answer = first.messages[2]!;
    expect(answer.content).toBe("Hello! 👋");
    const block = answer.native!.blocks[0] as { type: string; content: string };
    expect(block.type).toBe("compaction");
    expect(block.content).toMatch(/^The user provided a very long context/);
    // The history is left alone (the provider compacted); the report has the recording's figures.
    expect(first.messages.slice(0, 2)).toStrictEqual(history);
    const report = first.compactions[0]!;
    expect(report).toMatchObject({
      strategy: "provider",
      reason: "provider",
      counted: "custom",
      tokensBefore: 55_196,
    });
    expect(report.tokensReclaimed).toBe(55_196 - report.tokensAfter);
    expect(report.tokensAfter).toBe(181);
    // Sonnet 4.6's built-in prices: 181 tokens written at 3.75/M; 55,196 read at 0.3/M had it not compacted.
    expect(report.cacheRewriteCost).toBeCloseTo(0.00067875, 12);
    expect(report.unchangedCost).toBeCloseTo(0.0165588, 12);

    // The next call replays the compaction block byte for byte, before the answer's text.
    await runAgent({
      provider: claude,
      messages: [...first.messages, { role: "user", content: "And now?" }],
      compaction: policy,
    });
    const replayed = (sent[1]!.body.messages as { role: string; content: unknown[] }[])[1]!;
    expect(replayed.role).toBe("assistant");
    expect(JSON.stringify(replayed.content[0])).toBe(JSON.stringify(block));
    expect(replayed.content[1]).toMatchObject({ type: "text", text: "Hello! 👋" });
  });

  it("contextManagement is checked, naming the field; clearing edits get their own beta flag", async () => {
    expect(() =>
      anthropic({
        apiKey: "k",
        model: "claude-sonnet-4-6",
        contextManagement: { edits: [{} as { type: string }] },
      }),
    ).toThrow(/contextManagement\.edits: a list of edits, each with its type/);
    const headers: Headers[] = [];
    const claude = anthropic({
      apiKey: "k",
      model: "claude-sonnet-4-6",
      betas: ["interleaved-thinking-2025-05-14"],
      contextManagement: { edits: [{ type: "clear_tool_uses_20250919" }] },
      fetch: async (_input, init) => {
        headers.push(new Headers(init?.headers));
        return Response.json({
          id: "msg_1",
          type: "message",
          role: "assistant",
          model: "claude-sonnet-4-6",
          content: [{ type: "text", text: "ok" }],
          stop_reason: "end_turn",
          usage: { input_tokens: 5, output_tokens: 1 },
        });
      },
    });
    await claude.complete([{ role: "user", content: "hi" }]);
    expect(headers[0]!.get("anthropic-beta")).toBe(
      "interleaved-thinking-2025-05-14,context-management-2025-06-27",
    );
  });
});
