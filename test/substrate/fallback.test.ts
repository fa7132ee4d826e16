import { describe, expect, it } from "vitest";
import {
  anthropic,
  collectStream,
  ProviderError,
  type StreamEvent,
  ValidationError,
} from "../../src/index.ts";
import { type CooldownStore, type FallbackEvent, fallback, retry } from "../../src/substrate/index.ts";
import { FakeScriptExhaustedError } from "../../src/testing.ts";
import { clock, closable, drain, drainUntilError, failure, fake, HI, textOf } from "./helpers.ts";

describe("fallback: triggers", () => {
  it("an entry without triggers inherits the default: any retryable error falls through", async () => {
    const a = fake("a", { error: failure("overloaded") });
    const b = fake("b", { text: "from b" });
    const response = await fallback([{ provider: a }, { provider: b }]).complete(HI);
    expect(response.message.content).toBe("from b");
    expect(a.calls).toHaveLength(1);
    expect(b.calls).toHaveLength(1);
  });

  it("an entry without triggers inherits explicit defaultTriggers, and only those", async () => {
    const chainOf = (error: ProviderError) =>
      fallback([{ provider: fake("a", { error }) }, { provider: fake("b", { text: "b" }) }], {
        defaultTriggers: ["rate_limit"],
      });
    await expect(chainOf(failure("rate_limit")).complete(HI)).resolves.toMatchObject({
      message: { content: "b" },
    });
    const overloaded = failure("overloaded");
    await expect(chainOf(overloaded).complete(HI)).rejects.toBe(overloaded);
  });

  it("a non-retryable error does not fall through under the default triggers", async () => {
    const bad = failure("bad_request");
    const b = fake("b", { text: "b" });
    await expect(
      fallback([{ provider: fake("a", { error: bad }) }, { provider: b }]).complete(HI),
    ).rejects.toBe(bad);
    expect(b.calls).toHaveLength(0);
  });

  it("'retryable' follows the error's own retryable flag (a 429 whose quota is spent is not)", async () => {
    const spent = failure("rate_limit", { retryable: false, code: "insufficient_quota" });
    const b = fake("b", { text: "b" });
    await expect(
      fallback([{ provider: fake("a", { error: spent }) }, { provider: b }]).complete(HI),
    ).rejects.toBe(spent);
    expect(b.calls).toHaveLength(0);
  });

  it("an explicit list replaces the default; 'any' takes every ProviderError", async () => {
    const auth = failure("auth");
    const listed = fallback([
      { provider: fake("a", { error: auth }), triggers: ["auth"] },
      { provider: fake("b", { text: "b" }) },
    ]);
    expect((await listed.complete(HI)).message.content).toBe("b");
    const notListed = fallback([
      { provider: fake("a", { error: failure("overloaded") }), triggers: ["auth"] },
      { provider: fake("b", { text: "b" }) },
    ]);
    await expect(notListed.complete(HI)).rejects.toMatchObject({ kind: "overloaded" });
    const any = fallback([
      { provider: fake("a", { error: failure("context_length") }), triggers: ["any"] },
      { provider: fake("b", { text: "b" }) },
    ]);
    expect((await any.complete(HI)).message.content).toBe("b");
  });

  it("[] mid-chain is a hard barrier: a three-tier chain stops there, tier 3 is never called", async () => {
    const tier1 = fake("tier1", { error: failure("overloaded") });
    const barrierError = failure("overloaded", {}, "tier2");
    const tier2 = fake("tier2", { error: barrierError });
    const tier3 = fake("tier3", { text: "should never answer" });
    const chain = fallback([{ provider: tier1 }, { provider: tier2, triggers: [] }, { provider: tier3 }]);
    await expect(chain.complete(HI)).rejects.toBe(barrierError);
    expect(tier1.calls).toHaveLength(1);
    expect(tier2.calls).toHaveLength(1);
    expect(tier3.calls).toHaveLength(0);
  });

  it("[] on the first entry: nothing falls through, even an error every default would take", async () => {
    const error = failure("network");
    const b = fake("b", { text: "b" });
    await expect(
      fallback([{ provider: fake("a", { error }), triggers: [] }, { provider: b }]).complete(HI),
    ).rejects.toBe(error);
    expect(b.calls).toHaveLength(0);
  });

  it("the last entry re-raises its own error, even one its triggers match", async () => {
    const last = failure("overloaded", {}, "c");
    const chain = fallback([
      { provider: fake("a", { error: failure("overloaded") }) },
      { provider: fake("b", { error: failure("server") }) },
      { provider: fake("c", { error: last }), triggers: ["any"] },
    ]);
    await expect(chain.complete(HI)).rejects.toBe(last);
  });

  it("an abort never falls through: neither an aborted error nor any error once the signal is aborted", async () => {
    const aborted = failure("aborted");
    const b = fake("b", { text: "b" }, { text: "b" });
    await expect(
      fallback([
        { provider: fake("a", { error: aborted }), triggers: ["any", "aborted"] },
        { provider: b },
      ]).complete(HI),
    ).rejects.toBe(aborted);

    const controller = new AbortController();
    const overloaded = failure("overloaded");
    const a = fake("a", () => {
      controller.abort();
      return { error: overloaded };
    });
    await expect(
      fallback([{ provider: a }, { provider: b }]).complete(HI, undefined, { signal: controller.signal }),
    ).rejects.toBe(overloaded);
    expect(b.calls).toHaveLength(0);
  });

  it("an error that is not a ProviderError (a bug) is raised, never fallen through", async () => {
    const b = fake("b", { text: "b" });
    const chain = fallback([{ provider: fake("a"), triggers: ["any"] }, { provider: b }]);
    await expect(chain.complete(HI)).rejects.toBeInstanceOf(FakeScriptExhaustedError);
    expect(b.calls).toHaveLength(0);
  });

  it("passes messages, tools and options to each entry unchanged", async () => {
    const a = fake("a", { error: failure("timeout") });
    const b = fake("b", { text: "b" });
    const tools = [{ name: "t", parameters: { type: "object", properties: {} } }];
    await fallback([{ provider: a }, { provider: b }]).complete(HI, tools, { maxTokens: 7, sessionId: "s" });
    expect(b.calls[0]).toMatchObject({ messages: a.calls[0]!.messages, tools: [{ name: "t" }] });
    expect(b.calls[0]!.options).toEqual({ maxTokens: 7, sessionId: "s" });
  });
});

describe("fallback: servedBy", () => {
  it("stamps the serving entry and the failures before it, as toJSON data with their index", async () => {
    const first = failure("overloaded", { status: 529, retryAfterMs: 50 }, "a");
    const response = await fallback([
      { provider: fake("a", { error: first }) },
      { provider: fake("b", { text: "b" }) },
    ]).complete(HI);
    expect(response.servedBy).toEqual({
      index: 1,
      provider: "b",
      model: "b-model",
      failures: [{ ...first.toJSON(), index: 0 }],
    });
    // Data, not errors: it survives JSON and rebuilds into a ProviderError.
    const json = JSON.parse(JSON.stringify(response.servedBy));
    expect(ProviderError.fromJSON(json.failures[0]).kind).toBe("overloaded");
  });

  it("a first-entry success has no failures; the response is otherwise the entry's", async () => {
    const response = await fallback([
      { provider: fake("a", { text: "a", usage: { inputTokens: 1, outputTokens: 2 } }) },
    ]).complete(HI);
    expect(response).toMatchObject({
      message: { content: "a" },
      usage: { inputTokens: 1, outputTokens: 2 },
      provider: "a",
      servedBy: { index: 0, provider: "a", model: "a-model", failures: [] },
    });
  });

  it("the streamed done response is stamped the same way", async () => {
    const events = await drain(
      fallback([
        { provider: fake("a", { error: failure("network") }) },
        { provider: fake("b", { text: "b" }) },
      ]).stream(HI),
    );
    const done = events.at(-1);
    expect(done?.type).toBe("done");
    expect(done?.type === "done" && done.response.servedBy).toMatchObject({
      index: 1,
      provider: "b",
      failures: [{ kind: "network", index: 0 }],
    });
  });
});

describe("fallback: streams", () => {
  it("falls through before the first event: the caller sees only the serving entry's events", async () => {
    const a = fake("a", {
      events: [{ type: "usage", usage: { inputTokens: 99 } }],
      failAt: { at: 1, error: failure("overloaded") },
    });
    const b = fake("b", { text: "hello from b", chunkSize: 5, usage: { inputTokens: 3, outputTokens: 4 } });
    const events = await drain(fallback([{ provider: a }, { provider: b }]).stream(HI));
    expect(textOf(events)).toBe("hello from b");
    // a's usage was held back and dropped with a's attempt.
    expect(events.filter((event) => event.type === "usage")).toEqual([
      { type: "usage", usage: { inputTokens: 3, outputTokens: 4 } },
    ]);
  });

  it("usage events before the first content event are held, then released in order with it", async () => {
    const a = fake("a", {
      events: [
        { type: "usage", usage: { inputTokens: 10 } },
        { type: "text-delta", text: "hi" },
        { type: "usage", usage: { inputTokens: 10, outputTokens: 1 } },
      ],
    });
    const events = await drain(fallback([{ provider: a }, { provider: fake("b") }]).stream(HI));
    expect(events.map((event) => event.type)).toEqual(["usage", "text-delta", "usage", "done"]);
  });

  it("does not fall through after the first content event: the error is raised with partialOutput", async () => {
    const a = fake("a", {
      events: [
        { type: "text-delta", text: "Hel" },
        { type: "text-delta", text: "lo" },
      ],
      failAt: { at: 1, error: failure("overloaded") },
    });
    const b = fake("b", { text: "never" });
    const { seen, error } = await drainUntilError(fallback([{ provider: a }, { provider: b }]).stream(HI));
    expect(textOf(seen)).toBe("Hel");
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "overloaded", partialOutput: true });
    expect(b.calls).toHaveLength(0);
  });

  it("a reasoning or tool-call event counts as output too", async () => {
    for (const first of [
      { type: "reasoning-delta", text: "thinking" },
      { type: "tool-call-start", index: 0, id: "c1", name: "t" },
    ] as StreamEvent[]) {
      const a = fake("a", { events: [first], failAt: { at: 1, error: failure("network") } });
      const b = fake("b", { text: "never" });
      const { error } = await drainUntilError(fallback([{ provider: a }, { provider: b }]).stream(HI));
      expect(error).toMatchObject({ kind: "network", partialOutput: true });
      expect(b.calls).toHaveLength(0);
    }
  });

  it("a stream that ends without done is truncated: before output it falls through", async () => {
    const endsEarly = {
      name: "early",
      model: "early-model",
      protocol: "fake",
      complete: () => Promise.reject(new Error("unused")),
      async *stream(): AsyncGenerator<StreamEvent> {
        yield { type: "usage", usage: {} };
      },
    };
    const response = await collectStream(
      fallback([{ provider: endsEarly }, { provider: fake("b", { text: "b" }) }]).stream(HI),
    );
    expect(response.servedBy).toMatchObject({ index: 1, failures: [{ kind: "truncated", index: 0 }] });
  });

  it("a barrier holds in streams too; an abort during a stream is not fallen through", async () => {
    const c = fake("c", { text: "never" });
    const { error } = await drainUntilError(
      fallback([
        { provider: fake("a", { error: failure("overloaded") }) },
        { provider: fake("b", { error: failure("overloaded", {}, "b") }), triggers: [] },
        { provider: c },
      ]).stream(HI),
    );
    expect(error).toMatchObject({ kind: "overloaded", provider: "b" });
    expect(c.calls).toHaveLength(0);

    const controller = new AbortController();
    const a = fake("a", () => {
      controller.abort();
      return { error: failure("network") };
    });
    const b = fake("b", { text: "never" });
    const aborted = await drainUntilError(
      fallback([{ provider: a }, { provider: b }]).stream(HI, undefined, { signal: controller.signal }),
    );
    expect(aborted.error).toMatchObject({ kind: "network" });
    expect(b.calls).toHaveLength(0);
  });

  it("a reader that stops early closes the serving entry's stream", async () => {
    const inner = closable([
      { type: "text-delta", text: "a" },
      { type: "text-delta", text: "b" },
    ]);
    for await (const event of fallback([{ provider: inner }]).stream(HI)) {
      expect(event.type).toBe("text-delta");
      break;
    }
    expect(inner.closed).toBe(true);
  });
});

describe("fallback: cooldown", () => {
  function memoryStore(): CooldownStore & { writes: [string, number][] } {
    const map = new Map<string, number>();
    const writes: [string, number][] = [];
    return {
      writes,
      get: (key) => map.get(key),
      set: (key, until) => {
        writes.push([key, until]);
        map.set(key, until);
      },
    };
  }

  it("a failing member is skipped while cooling, and tried again once the cooldown has passed", async () => {
    const time = clock();
    const store = memoryStore();
    const a = fake("a", { error: failure("overloaded") }, { text: "a is back" });
    const b = fake("b", { text: "b1" }, { text: "b2" });
    const events: FallbackEvent[] = [];
    const chain = fallback([{ provider: a }, { provider: b }], {
      cooldown: { ms: 30_000, store, now: time.now },
      onFallback: (event) => events.push(event),
    });
    expect((await chain.complete(HI)).message.content).toBe("b1");
    expect(store.writes).toEqual([["0:a:a-model", time.now() + 30_000]]);
    // Cooling: a is not called, b answers.
    expect((await chain.complete(HI)).message.content).toBe("b2");
    expect(a.calls).toHaveLength(1);
    time.advance(30_001);
    expect((await chain.complete(HI)).message.content).toBe("a is back");
    expect(events.map((event) => [event.index, event.reason])).toEqual([
      [0, "error"],
      [0, "cooldown"],
    ]);
  });

  it("`after` counts consecutive failures; a success resets the count", async () => {
    const time = clock();
    const store = memoryStore();
    const a = fake(
      "a",
      { error: failure("server") },
      { text: "ok" },
      { error: failure("server") },
      { error: failure("server") },
    );
    const b = fake("b", { text: "b" }, { text: "b" }, { text: "b" }, { text: "b" });
    const chain = fallback([{ provider: a, cooldownKey: "primary" }, { provider: b }], {
      cooldown: { ms: 1000, after: 2, store, now: time.now },
    });
    await chain.complete(HI); // fail 1
    await chain.complete(HI); // success: reset
    await chain.complete(HI); // fail 1
    expect(store.writes).toEqual([]);
    await chain.complete(HI); // fail 2: cools
    expect(store.writes).toEqual([["primary", time.now() + 1000]]);
  });

  it("when every member is cooling, the last entry is still tried", async () => {
    const time = clock();
    const store = memoryStore();
    store.set("0:a:a-model", time.now() + 5000);
    store.set("1:b:b-model", time.now() + 5000);
    const a = fake("a", { text: "a" });
    const b = fake("b", { text: "b" });
    const response = await fallback([{ provider: a }, { provider: b }], {
      cooldown: { ms: 5000, store, now: time.now },
    }).complete(HI);
    expect(response.message.content).toBe("b");
    expect(a.calls).toHaveLength(0);
  });

  it("a barrier is never skipped for cooling (skipping it would fall through it)", async () => {
    const time = clock();
    const store = memoryStore();
    store.set("0:a:a-model", time.now() + 5000);
    const a = fake("a", { text: "a" });
    const c = fake("c", { text: "c" });
    const response = await fallback([{ provider: a, triggers: [] }, { provider: c }], {
      cooldown: { ms: 5000, store, now: time.now },
    }).complete(HI);
    expect(response.message.content).toBe("a");
    expect(c.calls).toHaveLength(0);
  });

  it("errors that do not fall through (bad request) do not cool a member; a broken store is ignored", async () => {
    const store = memoryStore();
    const chain = fallback(
      [{ provider: fake("a", { error: failure("bad_request") }) }, { provider: fake("b") }],
      {
        cooldown: { ms: 5000, store },
      },
    );
    await expect(chain.complete(HI)).rejects.toMatchObject({ kind: "bad_request" });
    expect(store.writes).toEqual([]);

    const broken: CooldownStore = {
      get: () => Promise.reject(new Error("storage down")),
      set: () => Promise.reject(new Error("storage down")),
    };
    const a = fake("a", { error: failure("overloaded") }, { text: "a" });
    const flaky = fallback([{ provider: a }, { provider: fake("b", { text: "b" }) }], {
      cooldown: { ms: 5000, store: broken },
    });
    expect((await flaky.complete(HI)).message.content).toBe("b");
    expect((await flaky.complete(HI)).message.content).toBe("a");
  });

  it("async stores (a Durable Object) work", async () => {
    const map = new Map<string, number>();
    const store: CooldownStore = {
      get: async (key) => map.get(key),
      set: async (key, until) => {
        map.set(key, until);
      },
    };
    const a = fake("a", { error: failure("overloaded") });
    const b = fake("b", { text: "b" }, { text: "b" });
    const chain = fallback([{ provider: a }, { provider: b }], { cooldown: { ms: 60_000, store } });
    await chain.complete(HI);
    await collectStream(chain.stream(HI));
    expect(a.calls).toHaveLength(1);
  });

  it("rejects a cooldown without a positive duration", () => {
    expect(() => fallback([{ provider: fake("a") }], { cooldown: { ms: 0 } })).toThrow(ValidationError);
    expect(() => fallback([{ provider: fake("a") }], { cooldown: { ms: 5, after: 0 } })).toThrow(
      /cooldown.after/,
    );
  });
});

describe("fallback: composition", () => {
  it("nests: a retrying entry inside a chain inside another chain", async () => {
    const flaky = fake("flaky", { error: failure("overloaded") }, { error: failure("overloaded") });
    const inner = fallback([
      { provider: retry(flaky, { attempts: 2, sleep: async () => {} }) },
      { provider: fake("inner-b", { error: failure("server") }) },
    ]);
    const outer = fallback([{ provider: inner }, { provider: fake("outer-b", { text: "outer" }) }]);
    const response = await outer.complete(HI);
    expect(response.message.content).toBe("outer");
    expect(flaky.calls).toHaveLength(2);
    expect(response.servedBy).toMatchObject({
      index: 1,
      provider: "outer-b",
      failures: [{ kind: "server", index: 0 }],
    });
  });

  it("the chain is a Provider: name, model of its first entry, protocol 'fallback'", () => {
    const chain = fallback([{ provider: fake("a") }, { provider: fake("b") }], { name: "main-chain" });
    expect([chain.name, chain.model, chain.protocol]).toEqual(["main-chain", "a-model", "fallback"]);
  });

  it("refuses an empty chain or an entry that is not a provider", () => {
    expect(() => fallback([])).toThrow(ValidationError);
    expect(() => fallback([{ provider: {} as never }])).toThrow(/entries\[0\]\.provider/);
  });

  it("an onFallback hook that throws does not change the outcome", async () => {
    const chain = fallback(
      [{ provider: fake("a", { error: failure("overloaded") }) }, { provider: fake("b", { text: "b" }) }],
      {
        onFallback: () => {
          throw new Error("hook bug");
        },
      },
    );
    expect((await chain.complete(HI)).message.content).toBe("b");
  });

  it("falling through to another model drops the previous model's reasoning (adapter provenance rules)", async () => {
    const bodies: Record<string, unknown>[] = [];
    const fetchStub = (async (_url: RequestInfo | URL, init?: RequestInit) => {
      bodies.push(JSON.parse(String(init?.body)));
      return Response.json({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-6",
        content: [{ type: "text", text: "ok" }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      });
    }) as typeof fetch;
    const thinking = { type: "thinking", thinking: "secret plan", signature: "sig-abc" };
    const history = (model: string) => [
      { role: "user" as const, content: "q" },
      {
        role: "assistant" as const,
        content: "a",
        native: {
          protocol: "anthropic-messages",
          origin: "anthropic",
          model,
          blocks: [thinking, { type: "text", text: "a" }],
        },
      },
      { role: "user" as const, content: "next" },
    ];
    const claude = anthropic({ apiKey: "k-123456789", model: "claude-sonnet-4-6", fetch: fetchStub });
    const chain = fallback([
      { provider: fake("opus", { error: failure("overloaded") }) },
      { provider: claude },
    ]);
    await chain.complete(history("claude-opus-4-6"));
    expect(JSON.stringify(bodies[0])).not.toContain("secret plan");
    // Control: the same history from the serving model keeps its signed thinking.
    await claude.complete(history("claude-sonnet-4-6"));
    expect(JSON.stringify(bodies[1])).toContain("sig-abc");
  });
});

describe("fallback: gaps mutation testing found", () => {
  it("mutation gap 7: a plain Error after output is raised as it is (not `error.with is not a function`)", async () => {
    const boom = new Error("tool runner crashed");
    const a = fake("a", {
      events: [{ type: "text-delta", text: "partial" }],
      failAt: { at: 1, error: boom },
    });
    const b = fake("b", { text: "b" });
    const { seen, error } = await drainUntilError(fallback([{ provider: a }, { provider: b }]).stream(HI));
    expect(textOf(seen)).toBe("partial");
    expect(error).toBe(boom);
    expect(b.calls).toHaveLength(0);
  });

  it("mutation gap 7: the default in-memory cooldown store cools a member, and lets it back after `ms`", async () => {
    const time = clock();
    const a = fake("a", { error: failure("overloaded") }, { text: "a again" });
    const b = fake("b", { text: "b1" }, { text: "b2" });
    const chain = fallback([{ provider: a }, { provider: b }], { cooldown: { ms: 10_000, now: time.now } });
    expect((await chain.complete(HI)).message.content).toBe("b1");
    expect((await chain.complete(HI)).message.content).toBe("b2");
    expect(a.calls).toHaveLength(1);
    time.advance(10_001);
    expect((await chain.complete(HI)).message.content).toBe("a again");
    expect(a.calls).toHaveLength(2);
  });

  it("mutation gap 7: once a member has cooled, its failure count starts again (one failure does not re-cool it)", async () => {
    const time = clock();
    const a = fake(
      "a",
      { error: failure("server") },
      { error: failure("server") },
      { error: failure("server") },
      {
        text: "a recovered",
      },
    );
    const b = fake("b", { text: "b1" }, { text: "b2" }, { text: "b3" }, { text: "b4" });
    const chain = fallback([{ provider: a }, { provider: b }], {
      cooldown: { ms: 1000, after: 2, now: time.now },
    });
    await chain.complete(HI); // a fails (1 of 2)
    await chain.complete(HI); // a fails (2 of 2): cooled
    await chain.complete(HI); // cooling: a skipped
    expect(a.calls).toHaveLength(2);
    time.advance(1001);
    await chain.complete(HI); // a fails once: 1 of 2, not cooled again
    expect(a.calls).toHaveLength(3);
    expect((await chain.complete(HI)).message.content).toBe("a recovered");
    expect(a.calls).toHaveLength(4);
  });

  it("mutation gap 7: usage after the first content goes out in its place, not held back or reordered", async () => {
    const events: StreamEvent[] = [
      { type: "usage", usage: { inputTokens: 3 } },
      { type: "text-delta", text: "one" },
      { type: "usage", usage: { inputTokens: 3, outputTokens: 1 } },
      { type: "text-delta", text: " two" },
      { type: "usage", usage: { inputTokens: 3, outputTokens: 2 } },
    ];
    const a = fake("a", { events });
    const seen = await drain(fallback([{ provider: a }, { provider: fake("b", { text: "b" }) }]).stream(HI));
    expect(seen.map((event) => (event.type === "text-delta" ? event.text : event.type))).toEqual([
      "usage",
      "one",
      "usage",
      " two",
      "usage",
      "done",
    ]);
  });
});

describe("fallback: a bad chain is refused when it is built, naming the field", () => {
  const issues = (build: () => unknown) => {
    try {
      build();
    } catch (error) {
      expect(ValidationError.is(error)).toBe(true);
      return (error as ValidationError).issues;
    }
    throw new Error("expected a ValidationError");
  };
  const one = () => [{ provider: fake("a", { text: "a" }) }];

  it("no entries, or an entry that is not a Provider", () => {
    expect(issues(() => fallback([]))).toEqual([
      { path: "entries", message: "a fallback chain needs at least one entry" },
    ]);
    expect(issues(() => fallback(undefined as never))).toEqual([
      { path: "entries", message: "a fallback chain needs at least one entry" },
    ]);
    expect(issues(() => fallback([...one(), { provider: { complete: () => {} } as never }]))).toEqual([
      { path: "entries[1].provider", message: "must be a Provider" },
    ]);
  });

  it("a cooldown without a positive ms, or with an `after` that is not a positive integer", () => {
    for (const ms of [0, -1, Number.NaN, "30" as never]) {
      expect(issues(() => fallback(one(), { cooldown: { ms } }))).toEqual([
        { path: "cooldown.ms", message: "must be a positive number of milliseconds" },
      ]);
    }
    for (const after of [0, 1.5, -2]) {
      expect(issues(() => fallback(one(), { cooldown: { ms: 1000, after } }))).toEqual([
        { path: "cooldown.after", message: "must be a positive integer" },
      ]);
    }
    expect(() => fallback(one(), { cooldown: { ms: 1000, after: 2 } })).not.toThrow();
  });
});
