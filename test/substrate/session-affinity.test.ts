import { describe, expect, it, vi } from "vitest";
import { openaiChat, ValidationError } from "../../src/index.ts";
import {
  affinityPool,
  type PinStore,
  providerAffinity,
  type SessionAffinityResolver,
} from "../../src/substrate/index.ts";
import { HI } from "./helpers.ts";

const OPENAI_OK = {
  id: "c1",
  object: "chat.completion",
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
};

function recordingFetch() {
  const requests: { url: string; headers: Headers }[] = [];
  const fetchStub = (async (input: RequestInfo | URL, init?: RequestInit) => {
    requests.push({ url: String(input), headers: new Headers(init?.headers) });
    return Response.json(OPENAI_OK);
  }) as typeof fetch;
  return { fetch: fetchStub, requests };
}

function keys(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `session-${index}`);
}

describe("session-affinity resolver", () => {
  it("is evaluated per call, so task-derived affinity follows the current task", async () => {
    let currentTask = "task-1";
    const byTask: SessionAffinityResolver = () => ({ key: currentTask, headers: { "x-task": currentTask } });
    const { fetch, requests } = recordingFetch();
    const provider = openaiChat({ model: "m", endpoint: "vllm", fetch, affinity: providerAffinity(byTask) });
    await provider.complete(HI);
    currentTask = "task-2";
    await provider.complete(HI);
    expect(requests.map((request) => request.headers.get("x-task"))).toEqual(["task-1", "task-2"]);
  });

  it("a resolver returning a static value declares static affinity: it survives session changes", async () => {
    const fixed = { key: "static", headers: { "x-affinity": "replica-3" }, query: { shard: "3" } };
    const { fetch, requests } = recordingFetch();
    const provider = openaiChat({
      model: "m",
      endpoint: "vllm",
      fetch,
      affinity: providerAffinity(() => fixed),
    });
    await provider.complete(HI, undefined, { sessionId: "a" });
    await provider.complete(HI, undefined, { sessionId: "b" });
    for (const request of requests) {
      expect(request.headers.get("x-affinity")).toBe("replica-3");
      expect(new URL(request.url).searchParams.get("shard")).toBe("3");
    }
  });

  it("providerAffinity drops the key and passes undefined through", () => {
    const adapted = providerAffinity((call) =>
      call.sessionId ? { key: call.sessionId, headers: { "x-s": call.sessionId } } : undefined,
    );
    expect(adapted({ sessionId: "s1", model: "m" })).toEqual({ headers: { "x-s": "s1" } });
    expect(adapted({ sessionId: undefined, model: "m" })).toBeUndefined();
  });
});

describe("affinityPool", () => {
  it("a session sticks to one member, by a stable hash (a fresh pool agrees)", async () => {
    const members = ["a", "b", "c", "d"];
    const first = affinityPool(members);
    const again = affinityPool(members);
    for (const key of keys(50)) {
      const member = await first.memberFor(key);
      expect(await first.memberFor(key)).toBe(member);
      expect(await again.memberFor(key)).toBe(member);
    }
  });

  it("spreads sessions by weight", async () => {
    const pool = affinityPool(["heavy", "light-1", "light-2"], {
      weights: [2, 1, 1],
      pin: { get: () => undefined, set: () => {} },
    });
    const counts = new Map<string, number>();
    for (const key of keys(8000)) {
      const member = await pool.memberFor(key);
      counts.set(member, (counts.get(member) ?? 0) + 1);
    }
    expect(counts.get("heavy")! / 8000).toBeCloseTo(0.5, 1);
    expect(counts.get("light-1")! / 8000).toBeCloseTo(0.25, 1);
    expect(counts.get("light-2")! / 8000).toBeCloseTo(0.25, 1);
  });

  it("a member of weight 0 gets no new sessions", async () => {
    const pool = affinityPool(["a", "b"], { weights: [0, 1] });
    for (const key of keys(200)) expect(await pool.memberFor(key)).toBe("b");
  });

  it("adding a member moves only sessions that now go to it (rendezvous hashing)", async () => {
    const noPins: PinStore = { get: () => undefined, set: () => {} };
    const before = affinityPool(["a", "b", "c"], { pin: noPins });
    const after = affinityPool(["a", "b", "c", "d"], { pin: noPins });
    let moved = 0;
    for (const key of keys(2000)) {
      const was = await before.memberFor(key);
      const now = await after.memberFor(key);
      if (was !== now) {
        moved++;
        expect(now).toBe("d");
      }
    }
    expect(moved / 2000).toBeGreaterThan(0.15);
    expect(moved / 2000).toBeLessThan(0.35);
  });

  it("honours a pin the host stored, and pins sessions on first sight", async () => {
    const pins = new Map<string, string>([["s1", "c"]]);
    const set = vi.fn((key: string, id: string) => void pins.set(key, id));
    const pool = affinityPool(["a", "b", "c"], { pin: { get: (key) => pins.get(key), set } });
    expect(await pool.memberFor("s1")).toBe("c");
    expect(set).not.toHaveBeenCalled();
    const member = await pool.memberFor("s2");
    expect(set).toHaveBeenCalledWith("s2", member);
  });

  it("re-pins only on failover: weight changes leave pinned sessions where they are", async () => {
    const pins = new Map<string, string>();
    const store: PinStore = { get: (key) => pins.get(key), set: (key, id) => void pins.set(key, id) };
    const original = affinityPool(["a", "b", "c"], { pin: store });
    const placed = new Map<string, string>();
    for (const key of keys(100)) placed.set(key, await original.memberFor(key));
    const reweighted = affinityPool(["a", "b", "c"], { pin: store, weights: [10, 0.1, 0.1] });
    for (const key of keys(100)) expect(await reweighted.memberFor(key)).toBe(placed.get(key));
  });

  it("failover moves the session off the failed member, and it stays on the new one", async () => {
    const pool = affinityPool(["a", "b", "c"]);
    const first = await pool.memberFor("s");
    const second = await pool.failover("s", first);
    expect(second).not.toBe(first);
    expect(await pool.memberFor("s")).toBe(second);
    // A failover reported for a member the session already left (a concurrent call) keeps the new pin.
    expect(await pool.failover("s", first)).toBe(second);
    // Repeated failovers walk the pool before coming back.
    const third = await pool.failover("s", second);
    expect(new Set([first, second, third]).size).toBe(3);
  });

  it("works with an async pin store (a Durable Object)", async () => {
    const pins = new Map<string, string>();
    const pool = affinityPool(["a", "b"], {
      pin: { get: async (key) => pins.get(key), set: async (key, id) => void pins.set(key, id) },
    });
    const member = await pool.memberFor("s");
    expect(pins.get("s")).toBe(member);
    const moved = await pool.failover("s", member);
    expect(pins.get("s")).toBe(moved);
  });

  it("a broken store degrades to the hash", async () => {
    const pool = affinityPool(["a", "b"], {
      pin: { get: () => Promise.reject(new Error("down")), set: () => Promise.reject(new Error("down")) },
    });
    const stable = affinityPool(["a", "b"], { pin: { get: () => undefined, set: () => {} } });
    expect(await pool.memberFor("s")).toBe(await stable.memberFor("s"));
  });

  it("pool.resolver feeds a provider's affinity, per call, following failovers", async () => {
    const pool = affinityPool(["replica-a", "replica-b"]);
    const { fetch, requests } = recordingFetch();
    const provider = openaiChat({
      model: "m",
      endpoint: "vllm",
      fetch,
      affinity: providerAffinity(pool.resolver((replica) => ({ headers: { "x-replica": replica } }))),
    });
    await provider.complete(HI, undefined, { sessionId: "s1" });
    await provider.complete(HI, undefined, { sessionId: "s1" });
    const first = requests[0]!.headers.get("x-replica")!;
    expect(requests[1]!.headers.get("x-replica")).toBe(first);
    await pool.failover("s1", first);
    await provider.complete(HI, undefined, { sessionId: "s1" });
    expect(requests[2]!.headers.get("x-replica")).not.toBe(first);
    await provider.complete(HI);
    expect(requests[3]!.headers.get("x-replica")).toBeNull();
  });

  it("resolver gives the session key with the target; a custom key function", () => {
    const pool = affinityPool([{ id: "r1" }, { id: "r2" }]);
    const resolve = pool.resolver(
      (member) => ({ query: { replica: member.id } }),
      (call) => `${call.model}:${call.sessionId}`,
    );
    const affinity = resolve({ sessionId: "s", model: "m" });
    expect(affinity?.key).toBe("m:s");
    expect(["r1", "r2"]).toContain(affinity?.query?.replica);
  });

  it("refuses an empty pool, bad weights and duplicate member ids", () => {
    expect(() => affinityPool([])).toThrow(ValidationError);
    expect(() => affinityPool(["a"], { weights: [-1] })).toThrow(/weights\[0\]/);
    expect(() => affinityPool(["a", "b"], { weights: [1] })).toThrow(/weights/);
    expect(() => affinityPool(["a", "a"])).toThrow(/distinct/);
    expect(() => affinityPool([{}, {}], { memberId: () => "same" })).toThrow(/distinct/);
  });
});
