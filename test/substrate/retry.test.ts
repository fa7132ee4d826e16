import { afterEach, describe, expect, it, vi } from "vitest";
import { collectStream, openaiChat, ProviderError, ValidationError } from "../../src/index.ts";
import { type RetryEvent, rateLimitResetMs, retry } from "../../src/substrate/index.ts";
import { clock, drainUntilError, failure, fake, HI, textOf } from "./helpers.ts";

/** A sleep that advances a fake clock instead of waiting, recording each delay. */
function fakeSleep(time = clock()) {
  const delays: number[] = [];
  return {
    time,
    delays,
    sleep: async (ms: number) => {
      delays.push(ms);
      time.advance(ms);
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("retry: what is retried", () => {
  it("retries retryable errors and returns the first success", async () => {
    const inner = fake(
      "a",
      { error: failure("overloaded") },
      { error: failure("rate_limit") },
      { text: "third time" },
    );
    const { sleep, delays } = fakeSleep();
    const response = await retry(inner, { attempts: 3, sleep, random: () => 0.5 }).complete(HI);
    expect(response.message.content).toBe("third time");
    expect(inner.calls).toHaveLength(3);
    expect(delays).toHaveLength(2);
  });

  it("raises the last error once attempts are spent", async () => {
    const last = failure("server", { message: "third" });
    const inner = fake("a", { error: failure("server") }, { error: failure("server") }, { error: last });
    const { sleep } = fakeSleep();
    await expect(retry(inner, { attempts: 3, sleep }).complete(HI)).rejects.toBe(last);
    expect(inner.calls).toHaveLength(3);
  });

  it("never retries non-retryable kinds, nor a retryable kind the provider marked final", async () => {
    for (const error of [
      failure("bad_request"),
      failure("auth"),
      failure("context_length"),
      failure("not_found"),
      failure("aborted"),
      failure("rate_limit", { retryable: false, code: "insufficient_quota" }),
    ]) {
      const inner = fake("a", { error }, { text: "never" });
      const { sleep, delays } = fakeSleep();
      await expect(retry(inner, { sleep }).complete(HI)).rejects.toBe(error);
      expect(inner.calls).toHaveLength(1);
      expect(delays).toEqual([]);
    }
  });

  it("does not retry errors that are not ProviderErrors (bugs)", async () => {
    const bug = new TypeError("oops");
    const inner = fake("a", { error: bug }, { text: "never" });
    await expect(retry(inner, { sleep: async () => {} }).complete(HI)).rejects.toBe(bug);
    expect(inner.calls).toHaveLength(1);
  });

  it("attempts: 1 never retries", async () => {
    const inner = fake("a", { error: failure("overloaded") }, { text: "never" });
    await expect(retry(inner, { attempts: 1 }).complete(HI)).rejects.toMatchObject({ kind: "overloaded" });
    expect(inner.calls).toHaveLength(1);
  });
});

describe("retry: backoff", () => {
  it("full jitter: attempt n waits random × min(maxDelay, backoff × 2^(n-1))", async () => {
    const inner = fake("a", ...Array.from({ length: 5 }, () => ({ error: failure("overloaded") })), {
      text: "ok",
    });
    const { sleep, delays } = fakeSleep();
    await retry(inner, { attempts: 6, backoff: 100, maxDelay: 1000, sleep, random: () => 0.5 }).complete(HI);
    expect(delays).toEqual([50, 100, 200, 400, 500]);
    const zero = fakeSleep();
    await retry(fake("a", { error: failure("overloaded") }, { text: "ok" }), {
      backoff: 100,
      sleep: zero.sleep,
      random: () => 0,
    }).complete(HI);
    expect(zero.delays).toEqual([0]);
  });

  it("honours retryAfterMs: waits at least that long, whatever the jitter says", async () => {
    const inner = fake("a", { error: failure("rate_limit", { retryAfterMs: 1200 }) }, { text: "ok" });
    const { sleep, delays, time } = fakeSleep();
    const start = time.now();
    await retry(inner, { backoff: 100, sleep, random: () => 0.99 }).complete(HI);
    expect(delays).toEqual([1200]);
    expect(time.now() - start).toBe(1200);
  });

  it("a retryAfterMs longer than maxDelay is not waited out: the error is raised at once", async () => {
    const error = failure("rate_limit", { retryAfterMs: 120_000 });
    const inner = fake("a", { error }, { text: "never" });
    const { sleep, delays } = fakeSleep();
    await expect(retry(inner, { maxDelay: 30_000, sleep }).complete(HI)).rejects.toBe(error);
    expect(delays).toEqual([]);
  });

  it("retry honours retry-after from a real 429 response (fake clock, no real sleeping)", async () => {
    let calls = 0;
    const fetchStub = (async () => {
      calls++;
      if (calls === 1) {
        return Response.json(
          { error: { message: "slow down", type: "rate_limit_exceeded" } },
          { status: 429, headers: { "retry-after": "2" } },
        );
      }
      return Response.json({
        id: "c1",
        object: "chat.completion",
        model: "gpt-4.1",
        choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      });
    }) as typeof fetch;
    const { sleep, delays } = fakeSleep();
    const provider = retry(openaiChat({ apiKey: "k-0123456789", model: "gpt-4.1", fetch: fetchStub }), {
      sleep,
      random: () => 0,
    });
    expect((await provider.complete(HI)).message.content).toBe("ok");
    expect(delays).toEqual([2000]);
  });

  it("maxElapsed: a wait that would end past the budget is not started", async () => {
    const inner = fake(
      "a",
      { error: failure("overloaded") },
      { error: failure("overloaded") },
      { text: "never" },
    );
    const { sleep, delays, time } = fakeSleep();
    await expect(
      retry(inner, { backoff: 1000, maxElapsed: 1500, sleep, random: () => 0.99, now: time.now }).complete(
        HI,
      ),
    ).rejects.toMatchObject({ kind: "overloaded" });
    expect(delays).toEqual([990]);
    expect(inner.calls).toHaveLength(2);
  });

  it("reports each retry to onRetry (and ignores a hook that throws)", async () => {
    const events: RetryEvent[] = [];
    const inner = fake("a", { error: failure("timeout") }, { text: "ok" });
    await retry(inner, {
      sleep: async () => {},
      random: () => 0.5,
      backoff: 10,
      onRetry: (event) => {
        events.push(event);
        throw new Error("hook bug");
      },
    }).complete(HI);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ attempt: 1, delayMs: 5, error: { kind: "timeout" } });
  });

  it("the default sleep uses timers (checked with fake timers)", async () => {
    vi.useFakeTimers();
    const inner = fake("a", { error: failure("overloaded") }, { text: "ok" });
    const pending = retry(inner, { backoff: 1000, random: () => 0.5 }).complete(HI);
    await vi.advanceTimersByTimeAsync(499);
    expect(inner.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).message.content).toBe("ok");
  });
});

describe("retry: aborts", () => {
  it("stops when the signal is aborted after a failure", async () => {
    const controller = new AbortController();
    const inner = fake(
      "a",
      () => {
        controller.abort();
        return { error: failure("overloaded") };
      },
      { text: "never" },
    );
    const { sleep, delays } = fakeSleep();
    await expect(
      retry(inner, { sleep }).complete(HI, undefined, { signal: controller.signal }),
    ).rejects.toMatchObject({
      kind: "overloaded",
    });
    expect(delays).toEqual([]);
    expect(inner.calls).toHaveLength(1);
  });

  it("an abort during the wait ends it at once with an aborted error, even if the sleep ignores the signal", async () => {
    const controller = new AbortController();
    const inner = fake("a", { error: failure("overloaded") }, { text: "never" });
    let slept = false;
    const neverEnds = () => {
      slept = true;
      return new Promise<void>(() => {});
    };
    const pending = retry(inner, { sleep: neverEnds }).complete(HI, undefined, { signal: controller.signal });
    await vi.waitFor(() => expect(slept).toBe(true));
    controller.abort(new Error("user left"));
    const error = await pending.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "aborted", provider: "a", model: "a-model" });
    expect(inner.calls).toHaveLength(1);
  });

  it("the default sleep is cut short by an abort (fake timers: no timer is left waiting)", async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const inner = fake("a", { error: failure("overloaded") }, { text: "never" });
    const pending = retry(inner, { backoff: 60_000, random: () => 0.9 })
      .complete(HI, undefined, { signal: controller.signal })
      .catch((caught: unknown) => caught);
    await vi.advanceTimersByTimeAsync(10);
    controller.abort();
    expect(await pending).toMatchObject({ kind: "aborted" });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("retry: streams", () => {
  it("retries a stream that fails before its first content event; held usage of the failed try is dropped", async () => {
    const inner = fake(
      "a",
      {
        events: [{ type: "usage", usage: { inputTokens: 5 } }],
        failAt: { at: 1, error: failure("overloaded") },
      },
      { text: "second", usage: { inputTokens: 6, outputTokens: 1 } },
    );
    const events: string[] = [];
    const response = await collectStream(retry(inner, { sleep: async () => {} }).stream(HI), {
      onEvent: (event) =>
        events.push(event.type === "usage" ? `usage:${event.usage.inputTokens}` : event.type),
    });
    expect(response.message.content).toBe("second");
    expect(events).toEqual(["text-delta", "usage:6", "done"]);
  });

  it("never retries a stream after its first content event: raises with partialOutput", async () => {
    const inner = fake(
      "a",
      {
        events: [
          { type: "text-delta", text: "Hel" },
          { type: "text-delta", text: "lo" },
        ],
        failAt: { at: 1, error: failure("network") },
      },
      { text: "never" },
    );
    const { sleep, delays } = fakeSleep();
    const { seen, error } = await drainUntilError(retry(inner, { sleep }).stream(HI));
    expect(textOf(seen)).toBe("Hel");
    expect(error).toMatchObject({ kind: "network", partialOutput: true });
    expect(inner.calls).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("a stream ending without done is truncated and retried when nothing went out", async () => {
    let calls = 0;
    const provider = {
      name: "p",
      model: "m",
      protocol: "fake",
      complete: () => Promise.reject(new Error("unused")),
      async *stream() {
        calls++;
        if (calls === 1) return;
        yield* fake("x", { text: "ok" }).stream(HI);
      },
    };
    const response = await collectStream(retry(provider, { sleep: async () => {} }).stream(HI));
    expect(response.message.content).toBe("ok");
    expect(calls).toBe(2);
  });
});

describe("retry: the wrapper", () => {
  it("is transparent: the wrapped provider's name, model and protocol", () => {
    const wrapped = retry(fake("a"));
    expect([wrapped.name, wrapped.model, wrapped.protocol]).toEqual(["a", "a-model", "fake"]);
  });

  it("rejects nonsensical options with a ValidationError naming them", () => {
    expect(() => retry(fake("a"), { attempts: 0 })).toThrow(ValidationError);
    expect(() => retry(fake("a"), { attempts: 1.5 })).toThrow(/attempts/);
    expect(() => retry(fake("a"), { backoff: -1 })).toThrow(/backoff/);
    expect(() => retry(fake("a"), { maxDelay: Number.NaN })).toThrow(/maxDelay/);
  });
});

describe("rateLimitResetMs", () => {
  it("reads OpenAI-style durations", () => {
    const cases: [string, number | undefined][] = [
      ["1s", 1000],
      ["6m0s", 360_000],
      ["20ms", 20],
      ["1h2m3.5s", 3_723_500],
      ["0.5s", 500],
      ["250us", 1],
      ["2", 2000],
      ["soon", undefined],
      ["", undefined],
      ["5x", undefined],
    ];
    for (const [value, want] of cases) {
      expect([value, rateLimitResetMs(new Headers({ "x-ratelimit-reset-requests": value }))]).toEqual([
        value,
        want,
      ]);
    }
  });

  it("takes the spent limit when remaining says which; else the longest reset", () => {
    expect(
      rateLimitResetMs({
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": "20ms",
        "x-ratelimit-remaining-tokens": "9000",
        "x-ratelimit-reset-tokens": "6m0s",
      }),
    ).toBe(20);
    expect(rateLimitResetMs({ "x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s" })).toBe(
      360_000,
    );
    expect(rateLimitResetMs(new Headers({ "X-RateLimit-Reset": "3s" }))).toBe(3000);
  });

  it("is undefined without such headers", () => {
    expect(rateLimitResetMs(new Headers({ "retry-after": "3" }))).toBeUndefined();
    expect(rateLimitResetMs({})).toBeUndefined();
  });
});
