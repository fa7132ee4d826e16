import { describe, expect, it } from "vitest";
import type { MessageInput } from "../../src/index.ts";
import { cacheImpact, costOf } from "../../src/substrate/index.ts";

const M = 1_000_000;

describe("costOf", () => {
  it("prices input, output and cache reads from the model profile (sonnet 4.6: $3 / $15, reads 0.1×)", () => {
    const cost = costOf(
      { inputTokens: 1000, outputTokens: 200, cachedInputTokens: 50_000 },
      "claude-sonnet-4-6",
    );
    expect(cost).toBeCloseTo((1000 * 3 + 200 * 15 + 50_000 * 0.3) / M, 12);
  });

  it("prices 5-minute writes at 1.25× and 1-hour writes at 2× input", () => {
    const cost = costOf(
      {
        inputTokens: 0,
        outputTokens: 0,
        cacheWriteTokens: 3000,
        cacheWrite5mTokens: 1000,
        cacheWrite1hTokens: 2000,
      },
      "claude-opus-4-6",
    );
    expect(cost).toBeCloseTo((1000 * 6.25 + 2000 * 10) / M, 12);
  });

  it("a total cacheWriteTokens without the TTL split is priced as 5-minute writes", () => {
    expect(
      costOf({ inputTokens: 0, outputTokens: 0, cacheWriteTokens: 10_000 }, "claude-sonnet-4-6"),
    ).toBeCloseTo((10_000 * 3.75) / M, 12);
    // Partly split: the unsplit rest is 5-minute.
    expect(
      costOf(
        { inputTokens: 0, outputTokens: 0, cacheWriteTokens: 3000, cacheWrite1hTokens: 2000 },
        "claude-sonnet-4-6",
      ),
    ).toBeCloseTo((1000 * 3.75 + 2000 * 6) / M, 12);
  });

  it("reasoning tokens are part of output, not added again", () => {
    expect(
      costOf({ inputTokens: 0, outputTokens: 100, reasoningTokens: 80 }, "claude-haiku-4-5"),
    ).toBeCloseTo((100 * 5) / M, 12);
  });

  it("knows dated, dotted and Bedrock ids of a family", () => {
    const usage = { inputTokens: M, outputTokens: 0 };
    expect(costOf(usage, "claude-sonnet-4-5-20250929")).toBe(3);
    expect(costOf(usage, "claude-opus-4.6")).toBe(5);
    expect(costOf(usage, "us.anthropic.claude-haiku-4-5-20251001-v1:0")).toBe(1);
  });

  it("is undefined — never a wrong number — for unknown prices or unreported counts", () => {
    expect(costOf({ inputTokens: 1, outputTokens: 1 }, "gpt-4.1")).toBeUndefined();
    expect(costOf({ inputTokens: 1, outputTokens: 1 }, "claude-9-galaxy")).toBeUndefined();
    expect(costOf({ inputTokens: 1 }, "claude-sonnet-4-6")).toBeUndefined();
    expect(costOf({}, "claude-sonnet-4-6")).toBeUndefined();
  });

  it("takes prices directly; a cache count without its price is unknown, not free", () => {
    const prices = { input: 0.4, output: 1.6, cacheRead: 0.1 };
    expect(costOf({ inputTokens: M, outputTokens: M, cachedInputTokens: M }, prices)).toBeCloseTo(2.1, 12);
    expect(costOf({ inputTokens: 1, outputTokens: 1, cacheWriteTokens: 5 }, prices)).toBeUndefined();
    expect(costOf({ inputTokens: 1, outputTokens: 1, cacheWriteTokens: 0 }, prices)).toBeCloseTo(2e-6, 12);
  });
});

describe("cacheImpact", () => {
  const byLength = { tokensOf: (message: MessageInput) => (message.content ?? "").length };
  const system: MessageInput = { role: "system", content: "s".repeat(1000) };
  const history: MessageInput[] = [
    system,
    { role: "user", content: "u".repeat(100) },
    { role: "assistant", content: "a".repeat(20_000) },
    { role: "user", content: "v".repeat(100) },
    { role: "assistant", content: "b".repeat(20_000) },
  ];

  it("an unchanged history keeps the whole prefix: next call = steady state", () => {
    const impact = cacheImpact(history, history, { model: "claude-sonnet-4-6", ...byLength });
    expect(impact).toMatchObject({ divergeAt: 5, lostTokens: 0, rewriteTokens: 0, breakEvenCalls: 0 });
    expect(impact.nextCallCost).toBe(impact.steadyStateCost);
  });

  it("compaction: where the prefix breaks, what is lost, and when the rewrite pays off", () => {
    const compacted: MessageInput[] = [
      system,
      { role: "user", content: "summary ".repeat(50), synthetic: true },
      { role: "user", content: "v".repeat(100) },
    ];
    const impact = cacheImpact(history, compacted, { model: "claude-sonnet-4-6", ...byLength });
    expect(impact.divergeAt).toBe(1);
    expect(impact.keptTokens).toBe(1000);
    expect(impact.lostTokens).toBe(40_200);
    expect(impact.rewriteTokens).toBe(500);
    expect(impact.beforeTokens).toBe(41_200);
    expect(impact.afterTokens).toBe(1500);
    expect(impact.nextCallCost).toBeCloseTo((1000 * 0.3 + 500 * 3.75) / M, 12);
    expect(impact.steadyStateCost).toBeCloseTo((1500 * 0.3) / M, 12);
    expect(impact.unchangedCost).toBeCloseTo((41_200 * 0.3) / M, 12);
    // The rewrite costs less than a call on the old history: it saves from the start.
    expect(impact.breakEvenCalls).toBe(0);
  });

  it("an edit that makes little smaller needs calls to pay off; one that makes nothing smaller never does", () => {
    const touched = history.map((message, index) =>
      index === 1 ? { ...message, content: "u".repeat(99) } : message,
    );
    const small = cacheImpact(history, touched, { model: "claude-sonnet-4-6", ...byLength });
    expect(small.divergeAt).toBe(1);
    // Rewrite ≈ 40 199 tokens at 3.75 vs reading 41 200 at 0.3; saving 1 token × 0.3 per call.
    const want = (1000 * 0.3 + 40_199 * 3.75 - 41_200 * 0.3) / 0.3;
    expect(Math.abs(small.breakEvenCalls! - want)).toBeLessThanOrEqual(1);
    const appended = cacheImpact(history, [...history, { role: "user", content: "more" }], {
      model: "claude-sonnet-4-6",
      ...byLength,
    });
    expect(appended).toMatchObject({
      divergeAt: 5,
      lostTokens: 0,
      rewriteTokens: 4,
      breakEvenCalls: undefined,
    });
  });

  it("the 1-hour TTL prices the rewrite at 2× input", () => {
    const after = [system, { role: "user" as const, content: "x".repeat(100) }];
    const impact = cacheImpact(history, after, { model: "claude-sonnet-4-6", ttl: "1h", ...byLength });
    expect(impact.nextCallCost).toBeCloseTo((1000 * 0.3 + 100 * 6) / M, 12);
  });

  it("compares messages by a stable serialisation: key order and filled defaults do not matter", () => {
    const a: MessageInput[] = [{ role: "user", content: "hi" }];
    const b = [{ content: "hi", toolCalls: [], role: "user", synthetic: false }] as MessageInput[];
    expect(cacheImpact(a, b).divergeAt).toBe(1);
    expect(cacheImpact(a, [{ role: "user", content: "hi!" }]).divergeAt).toBe(0);
  });

  it("estimates tokens by default and leaves costs undefined without prices", () => {
    const impact = cacheImpact(history, history.slice(0, 2));
    expect(impact.keptTokens).toBeGreaterThan(250);
    expect(impact.lostTokens).toBeGreaterThan(10_000);
    expect(impact).toMatchObject({
      nextCallCost: undefined,
      steadyStateCost: undefined,
      breakEvenCalls: undefined,
    });
    const priced = cacheImpact(history, history.slice(0, 2), {
      prices: { input: 1, output: 1, cacheRead: 0.1, cacheWrite5m: 1.25 },
    });
    expect(priced.nextCallCost).toBeDefined();
  });
});
