/**
 * How a key's limits are counted (`src/worker/keys/limits.ts`), as pure decisions: the sliding window of
 * `rpm` and `tpm` and when a refused request may retry, the budget with calls in flight, the UTC periods;
 * the request estimate (`estimate.ts`) and the usage sums (`usage-rows.ts`).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_OUTPUT_TOKENS,
  estimateRequest,
  INLINE_MEDIA_TOKENS,
} from "../../src/worker/keys/estimate.ts";
import {
  budgetRefusal,
  IN_FLIGHT_RETRY_MS,
  periodEnd,
  periodKey,
  rateRefusal,
  type WindowEntry,
} from "../../src/worker/keys/limits.ts";
import { groupUsage, totalsOf, windowTokensOf } from "../../src/worker/keys/usage-rows.ts";

const NOW = Date.UTC(2026, 11, 2, 10, 30, 0);

describe("rpm", () => {
  it("admits while fewer than rpm are in the window; the refusal waits for the entry that frees a place", () => {
    const window: WindowEntry[] = [
      { at: NOW - 50_000, tokens: 1 },
      { at: NOW - 20_000, tokens: 1 },
      { at: NOW - 5_000, tokens: 1 },
    ];
    expect(rateRefusal({ rpm: 4 }, window, 1, NOW)).toBeUndefined();
    expect(rateRefusal({ rpm: 3 }, window, 1, NOW)).toEqual({
      status: 429,
      code: "rate_limit_exceeded",
      message: "rate limit: this key may make 3 requests per minute",
      retryAfterMs: 10_000,
    });
    // With rpm 2, two entries must leave: the second oldest frees the place.
    expect(rateRefusal({ rpm: 2 }, window, 1, NOW)?.retryAfterMs).toBe(40_000);
    expect(rateRefusal({ rpm: 1 }, window, 1, NOW)?.retryAfterMs).toBe(55_000);
  });

  it("replayed one by one, N requests against rpm M admit exactly min(N, M) (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 0, max: 120 }), (rpm, n) => {
        const window: WindowEntry[] = [];
        let admitted = 0;
        for (let index = 0; index < n; index++) {
          if (rateRefusal({ rpm }, window, 1, NOW) === undefined) {
            window.push({ at: NOW, tokens: 1 });
            admitted++;
          }
        }
        expect(admitted).toBe(Math.min(n, rpm));
      }),
    );
  });
});

describe("tpm", () => {
  const window: WindowEntry[] = [
    { at: NOW - 40_000, tokens: 600 },
    { at: NOW - 30_000, tokens: 300 },
    { at: NOW - 10_000, tokens: 100 },
  ];

  it("admits while the window's tokens plus the estimate fit", () => {
    expect(rateRefusal({ tpm: 1100 }, window, 100, NOW)).toBeUndefined();
    expect(rateRefusal({ tpm: 1100 }, window, 101, NOW)).toMatchObject({
      status: 429,
      code: "rate_limit_exceeded",
      retryAfterMs: 20_000,
    });
  });

  it("waits until enough of the oldest entries left the window", () => {
    // 1000 used, tpm 1000: 500 asked needs the 600 gone (NOW - 40 s + 60 s); 900 needs the 300 gone too,
    // 1000 all three.
    expect(rateRefusal({ tpm: 1000 }, window, 500, NOW)?.retryAfterMs).toBe(20_000);
    expect(rateRefusal({ tpm: 1000 }, window, 900, NOW)?.retryAfterMs).toBe(30_000);
    expect(rateRefusal({ tpm: 1000 }, window, 1000, NOW)?.retryAfterMs).toBe(50_000);
  });

  it("a request whose estimate alone is over tpm never passes: no Retry-After, and the message says so", () => {
    const refusal = rateRefusal({ tpm: 1000 }, [], 1001, NOW);
    expect(refusal?.retryAfterMs).toBeUndefined();
    expect(refusal?.message).toContain("lower its max tokens");
  });

  it("rpm is checked before tpm", () => {
    expect(rateRefusal({ rpm: 3, tpm: 1 }, window, 5, NOW)?.message).toContain("requests per minute");
  });
});

describe("budget", () => {
  const day = { usd: 1, period: "day" as const };

  it("admits while spend + in flight + this estimate fit", () => {
    expect(budgetRefusal(day, 0.5, 0.25, 0.25, NOW)).toBeUndefined();
  });

  it("spent: 429 budget_exceeded, retry when the UTC day ends", () => {
    const refusal = budgetRefusal(day, 1, 0, 0.01, NOW);
    expect(refusal).toMatchObject({ status: 429, code: "budget_exceeded" });
    expect(refusal?.message).toBe("budget exceeded: this key may spend $1 per UTC day, and has spent $1");
    expect(refusal?.retryAfterMs).toBe(Date.UTC(2026, 11, 3) - NOW);
  });

  it("the estimate over what is left: says how much is left", () => {
    expect(budgetRefusal(day, 0.9, 0, 0.2, NOW)?.message).toContain(
      "$0.1 of the key's $1 per UTC day is left",
    );
  });

  it("a request whose estimate alone is over the whole budget: no Retry-After, lower its max tokens", () => {
    const refusal = budgetRefusal(day, 0, 0, 1.5, NOW);
    expect(refusal).toMatchObject({ code: "budget_exceeded" });
    expect(refusal?.retryAfterMs).toBeUndefined();
    expect(refusal?.message).toContain("lower its max tokens");
  });

  it("only calls in flight in the way: retry shortly", () => {
    const refusal = budgetRefusal(day, 0.5, 0.4, 0.2, NOW);
    expect(refusal).toMatchObject({ code: "budget_exceeded", retryAfterMs: IN_FLIGHT_RETRY_MS });
  });

  it("a total budget spent never comes back: no Retry-After", () => {
    expect(budgetRefusal({ usd: 1, period: "total" }, 2, 0, 0, NOW)?.retryAfterMs).toBeUndefined();
  });

  it("an unknown price is refused (403 price_unknown), never counted as free", () => {
    expect(budgetRefusal(day, 0, 0, undefined, NOW)).toMatchObject({ status: 403, code: "price_unknown" });
  });

  it("the periods are UTC days, UTC calendar months, or everything", () => {
    expect(periodKey("day", NOW)).toBe("day:2026-12-02");
    expect(periodKey("month", NOW)).toBe("month:2026-12");
    expect(periodKey("total", NOW)).toBe("total");
    expect(periodEnd("month", NOW)).toBe(Date.UTC(2027, 0, 1));
    expect(periodEnd("day", Date.UTC(2026, 11, 31, 23, 59))).toBe(Date.UTC(2027, 0, 1));
    expect(periodEnd("total", NOW)).toBeUndefined();
  });

  it("under any order of arrivals, admitted reservations never exceed the budget (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 0.3, noNaN: true }), { maxLength: 60 }), (costs) => {
        let reserved = 0;
        for (const cost of costs)
          if (budgetRefusal(day, 0, reserved, cost, NOW) === undefined) reserved += cost;
        expect(reserved).toBeLessThanOrEqual(day.usd + 1e-12);
      }),
    );
  });
});

describe("the estimate of a request", () => {
  it("characters / 4 plus the output limit of any dialect (default when none)", () => {
    const body = { model: "m", messages: [{ role: "user", content: "x".repeat(400) }], max_tokens: 50 };
    const text = JSON.stringify(body);
    expect(estimateRequest(text, body)).toEqual({
      inputTokens: Math.ceil(text.length / 4),
      outputTokens: 50,
    });
    expect(estimateRequest("{}", { max_output_tokens: 7 }).outputTokens).toBe(7);
    expect(estimateRequest("{}", { max_completion_tokens: 9 }).outputTokens).toBe(9);
    expect(estimateRequest("{}", { options: { maxTokens: 11 } }).outputTokens).toBe(11);
    expect(estimateRequest("{}", { max_tokens: -1 }).outputTokens).toBe(DEFAULT_OUTPUT_TOKENS);
    // Several limits: the largest (Chat Completions sends max_completion_tokens over max_tokens).
    expect(estimateRequest("{}", { max_tokens: 1, max_completion_tokens: 900 }).outputTokens).toBe(900);
  });

  it("inline media counts as one image, not as its base64 length", () => {
    const data = "QUJD".repeat(100_000);
    const text = JSON.stringify({ image: data, text: "hi" });
    const estimate = estimateRequest(text, {});
    expect(estimate.inputTokens).toBe(Math.ceil((text.length - data.length) / 4) + INLINE_MEDIA_TOKENS);
  });
});

describe("usage sums", () => {
  it("tell unreported and unpriced calls apart from zero", () => {
    expect(totalsOf({ route: "r", model: "m", failed: true })).toMatchObject({
      requests: 1,
      errors: 1,
      unreported: 1,
      unpriced: 0,
    });
    expect(
      totalsOf({ route: "r", model: "m", failed: false, usage: { inputTokens: 0, outputTokens: 0 } }),
    ).toMatchObject({ unreported: 0, unpriced: 1, costUsd: 0 });
    expect(
      totalsOf({
        route: "r",
        model: "m",
        failed: false,
        usage: {
          inputTokens: 10,
          outputTokens: 5,
          cachedInputTokens: 100,
          cacheWriteTokens: 7,
          reasoningTokens: 2,
        },
        cost: 0.5,
      }),
    ).toMatchObject({
      inputTokens: 10,
      outputTokens: 5,
      cacheReadTokens: 100,
      cacheWriteTokens: 7,
      reasoningTokens: 2,
      costUsd: 0.5,
      unpriced: 0,
    });
    expect(
      windowTokensOf({ inputTokens: 10, outputTokens: 5, cachedInputTokens: 100, cacheWriteTokens: 7 }),
    ).toBe(122);
    expect(windowTokensOf(undefined)).toBe(0);
  });

  it("group by key, route or model; the total is the sum of the rows", () => {
    const row = (key: string, route: string, model: string, requests: number, costUsd: number) => ({
      ...totalsOf({
        route,
        model,
        failed: false,
        usage: { inputTokens: requests, outputTokens: 1 },
        cost: costUsd,
      }),
      requests,
      hour: 0,
      key,
      route,
      model,
    });
    const rows = [
      row("a", "claude", "m1", 2, 0.1),
      row("b", "claude", "m1", 3, 0.3),
      row("a", "gpt", "m2", 1, 0),
    ];
    const names = new Map([["a", "alice"]]);
    const byKey = groupUsage(rows, "key", names);
    expect(byKey.data.map((line) => [line.key, line.name, line.requests])).toEqual([
      ["b", undefined, 3],
      ["a", "alice", 3],
    ]);
    expect(byKey.total.requests).toBe(6);
    expect(byKey.total.costUsd).toBeCloseTo(0.4, 12);
    const byRoute = groupUsage(rows, "route", names);
    expect(byRoute.data.map((line) => [line.route, line.requests])).toEqual([
      ["claude", 5],
      ["gpt", 1],
    ]);
    expect(groupUsage(rows, "model", names).data.map((line) => line.model)).toEqual(["m1", "m2"]);
  });
});
