/**
 * Seed 004 (the review of the Python implementation this project grew from): every defect it found in the
 * substrate, as a test named after it.
 */
import { readdirSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { openaiChat } from "../../src/index.ts";
import * as substrate from "../../src/substrate/index.ts";
import {
  checkPause,
  createProvider,
  fallback,
  isStopStatus,
  protocolOf,
  providerAffinity,
  type SessionAffinityResolver,
} from "../../src/substrate/index.ts";
import { failure, fake, HI, HOST_HOOKS } from "./helpers.ts";

describe("seed 004: fallback triggers — unset inherits, () is a hard barrier", () => {
  it("seed 004: the triggers=() barrier is not normalised away — [] mid-chain stops a three-tier chain", async () => {
    const tier3 = fake("tier3", { text: "silently fell through" });
    const chain = fallback([
      { provider: fake("tier1", { error: failure("overloaded") }) },
      { provider: fake("tier2", { error: failure("overloaded", {}, "tier2") }), triggers: [] },
      { provider: tier3 },
    ]);
    await expect(chain.complete(HI)).rejects.toMatchObject({ provider: "tier2" });
    expect(tier3.calls).toHaveLength(0);
  });

  it("seed 004: default triggers apply to unconfigured entries (triggers unset)", async () => {
    const chain = fallback(
      [{ provider: fake("a", { error: failure("auth") }) }, { provider: fake("b", { text: "b" }) }],
      { defaultTriggers: ["auth"] },
    );
    expect((await chain.complete(HI)).servedBy?.index).toBe(1);
  });

  it("seed 004: default triggers do not apply to an entry configured with [] (the other side of unset vs empty)", async () => {
    const b = fake("b", { text: "b" });
    const chain = fallback(
      [{ provider: fake("a", { error: failure("auth") }), triggers: [] }, { provider: b }],
      {
        defaultTriggers: ["auth"],
      },
    );
    await expect(chain.complete(HI)).rejects.toMatchObject({ kind: "auth" });
    expect(b.calls).toHaveLength(0);
  });

  it("seed 004: with_provider_stamp — a one-entry chain stamps its response and re-raises its error", async () => {
    const ok = await fallback([{ provider: fake("only", { text: "x" }) }]).complete(HI);
    expect(ok.servedBy).toEqual({ index: 0, provider: "only", model: "only-model", failures: [] });
    const error = failure("overloaded");
    await expect(fallback([{ provider: fake("only", { error }) }]).complete(HI)).rejects.toBe(error);
  });
});

describe("seed 004: pause checks", () => {
  it("seed 004: mapping-shaped pause rows pause ({ status: 'suspended' }, a Map), with a log line", async () => {
    const logger = { warn: vi.fn(), info: vi.fn() };
    expect(isStopStatus({ id: 1, status: "suspended" }, { logger })).toBe(true);
    expect(isStopStatus(new Map([["status", "aborted"]]), { logger })).toBe(true);
    expect(await checkPause({ status: "suspended" }, { logger })).toEqual({
      stop: true,
      status: "suspended",
    });
    expect(logger.info).toHaveBeenCalledTimes(1);
  });

  it("seed 004: a status-less dict does not crash the fail-open check — running, with a log line", async () => {
    const logger = { warn: vi.fn(), info: vi.fn() };
    expect(() => isStopStatus({}, { logger })).not.toThrow();
    expect(isStopStatus({}, { logger })).toBe(false);
    expect(await checkPause({ id: 3 }, { logger })).toEqual({ stop: false, status: undefined });
    expect(logger.warn).toHaveBeenCalledTimes(3);
  });

  it("seed 004: a string enum status needs no conversion", () => {
    const TaskStatus = { Paused: "paused", Running: "running" } as const;
    expect(isStopStatus(TaskStatus.Paused)).toBe(true);
    expect(isStopStatus({ status: TaskStatus.Running })).toBe(false);
  });
});

describe("seed 004: protocol selection", () => {
  it("seed 004: the protocol typo warning is not dead code — anthropc warns with the closest name", () => {
    const warn = vi.fn();
    expect(protocolOf("anthropc", { warn })).toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('did you mean "anthropic"?'));
  });

  it("seed 004: a typo does not become more silent after normalisation — createProvider refuses it, never the default", () => {
    const warn = vi.fn();
    expect(() =>
      createProvider({ protocol: "anthropc", model: "claude-sonnet-4-6", apiKey: "k-123456" }, { warn }),
    ).toThrow(/^protocol: unknown protocol "anthropc"; did you mean "anthropic"\?/);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("seed 004: an absent or empty protocol is the documented default and stays quiet", () => {
    const warn = vi.fn();
    expect(protocolOf(undefined, { warn })).toBe("openai-chat");
    expect(protocolOf("", { warn })).toBe("openai-chat");
    expect(warn).not.toHaveBeenCalled();
  });
});

describe("seed 004: session affinity", () => {
  it("seed 004: task-derived affinity is evaluated per call, not frozen into defaults at construction", async () => {
    let task = "task-A";
    const headers: (string | null)[] = [];
    const fetchStub = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      headers.push(new Headers(init?.headers).get("x-session-scope"));
      return Response.json({
        id: "c",
        object: "chat.completion",
        model: "m",
        choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      });
    }) as typeof fetch;
    const scope: SessionAffinityResolver = () => ({ key: task, headers: { "x-session-scope": task } });
    const provider = openaiChat({
      model: "m",
      endpoint: "vllm",
      fetch: fetchStub,
      affinity: providerAffinity(scope),
    });
    await provider.complete(HI);
    task = "task-B";
    await provider.complete(HI);
    expect(headers).toEqual(["task-A", "task-B"]);
  });

  it("seed 004: static openai affinity survives scope changes (a resolver returning a constant)", async () => {
    const headers: (string | null)[] = [];
    const fetchStub = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      headers.push(new Headers(init?.headers).get("x-affinity"));
      return Response.json({
        id: "c",
        object: "chat.completion",
        model: "m",
        choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
      });
    }) as typeof fetch;
    const fixed = { key: "static", headers: { "x-affinity": "pinned" } };
    const provider = openaiChat({
      model: "m",
      endpoint: "vllm",
      fetch: fetchStub,
      affinity: providerAffinity(() => fixed),
    });
    await provider.complete(HI, undefined, { sessionId: "one" });
    await provider.complete(HI, undefined, { sessionId: "two" });
    expect(headers).toEqual(["pinned", "pinned"]);
  });
});

describe("seed 004: facade reachability", () => {
  it("seed 004: every hook a host configures is exported from the substrate entry", () => {
    // rateLimitResetMs too: retry() reads it, though the package publishes it under modelwire/protocols.
    for (const name of [...HOST_HOOKS, "rateLimitResetMs"]) {
      expect([name, typeof (substrate as Record<string, unknown>)[name]]).toEqual([name, "function"]);
    }
  });

  it("seed 004: no public substrate module exports a value the substrate entry leaves out", async () => {
    const internal = new Set(["aborted-error.ts", "closest-name.ts", "chain-failures.ts", "index.ts"]);
    const directory = new URL("../../src/substrate/", import.meta.url);
    const entry = substrate as Record<string, unknown>;
    let checked = 0;
    for (const file of readdirSync(directory).filter((name) => name.endsWith(".ts"))) {
      if (internal.has(file)) continue;
      const exported = (await import(new URL(file, directory).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(exported)) {
        expect([file, name, entry[name]]).toEqual([file, name, value]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(14);
  });
});
