/**
 * A virtual key's limits and usage, in workerd with the real `KeyObject`: `rpm`, `tpm` and budget refusals
 * (429 with `Retry-After`, in each endpoint's dialect, never reaching the upstream), limits changed without
 * a deploy, unpriced models under a budget, and the usage query: totals equal to the sum of the calls made,
 * by key, route and model, a failed call costing the usage it reported before the failure.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { costOf } from "../../src/substrate/cost.ts";
import {
  ANTHROPIC_BASE,
  anthropicEvents,
  anthropicFrames,
  OPENAI_BASE,
  openaiCompletion,
  openaiFrames,
  readSse,
  sseResponse,
  streamBody,
  TOKEN,
  type UpstreamHandler,
  waitFor,
} from "./helpers.ts";
import { keyGateway } from "./key-helpers.ts";

/** Anthropic's usage in `anthropicMessage`, and its cost on claude-sonnet-4-5. */
const CLAUDE_USAGE = { inputTokens: 472, outputTokens: 89, cachedInputTokens: 100, cacheWriteTokens: 0 };
const CLAUDE_COST = costOf(CLAUDE_USAGE, "claude-sonnet-4-5")!;
/** OpenAI's usage in `openaiCompletion` (82 prompt tokens, 64 of them cached). */
const GPT_USAGE = { inputTokens: 18, outputTokens: 17, cachedInputTokens: 64, reasoningTokens: 0 };
const GPT_PRICES = { input: 2.5, output: 10, cacheRead: 1.25 };
const GPT_COST = costOf(GPT_USAGE, GPT_PRICES)!;

/** Routes of their own (so the route and model lines of a usage query hold this file's calls only). */
function routes(tag: string) {
  return {
    routes: {
      [`claude-${tag}`]: {
        protocol: "anthropic",
        model: "claude-sonnet-4-5",
        baseURL: ANTHROPIC_BASE,
        apiKeySecret: "ANTHROPIC_API_KEY",
      },
      [`gpt-${tag}`]: {
        protocol: "openai-chat",
        model: `gpt-4o-${tag}`,
        baseURL: OPENAI_BASE,
        apiKeySecret: "OPENAI_API_KEY",
      },
    },
    prices: { [`gpt-4o-${tag}`]: GPT_PRICES },
  };
}

const messagesBody = (model: string, extra: Record<string, unknown> = {}) => ({
  model,
  max_tokens: 100,
  messages: [{ role: "user", content: "hi" }],
  ...extra,
});

describe("rpm", () => {
  it("refuses the request over the limit with 429 + Retry-After in every endpoint's dialect, upstream untouched", async () => {
    const g = keyGateway();
    const { key } = await g.createKey({ name: "rpm-2", rpm: 2 });
    expect((await g.chat(key)).status).toBe(200);
    expect((await g.chat(key, "claude")).status).toBe(200);
    const calls = g.calls.length;
    const bearer = { authorization: `Bearer ${key}` };

    const chat = await g.chat(key);
    expect(chat.status).toBe(429);
    expect(await chat.json()).toEqual({
      error: {
        message: "rate limit: this key may make 2 requests per minute",
        type: "requests",
        param: null,
        code: "rate_limit_exceeded",
      },
    });
    const wait = Number(chat.headers.get("retry-after"));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    expect(Number(chat.headers.get("retry-after-ms"))).toBeLessThanOrEqual(wait * 1000);

    const refused = [
      await g.call("/v1/messages", {
        json: messagesBody("claude"),
        headers: { authorization: "", "x-api-key": key },
      }),
      await g.call("/v1/messages", {
        json: messagesBody("claude", { stream: true }),
        headers: { authorization: "", "x-api-key": key },
      }),
      await g.call("/v1/responses", { json: { model: "gpt", input: "hi" }, headers: bearer }),
      await g.call("/v1/chat/completions", {
        json: { model: "gpt", stream: true, messages: [{ role: "user", content: "hi" }] },
        headers: bearer,
      }),
      await g.call("/v1/complete", {
        json: { route: "gpt", messages: [{ role: "user", content: "hi" }] },
        headers: bearer,
      }),
      await g.call("/v1/stream", {
        json: { route: "gpt", messages: [{ role: "user", content: "hi" }] },
        headers: bearer,
      }),
    ];
    const bodies = await Promise.all(refused.map((response) => response.json()));
    for (const response of refused) {
      expect(response.status).toBe(429);
      expect(response.headers.get("content-type")).toContain("application/json");
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    expect(bodies[0]).toEqual({
      type: "error",
      error: { type: "rate_limit_error", message: "rate limit: this key may make 2 requests per minute" },
    });
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[2]).toMatchObject({ error: { type: "requests", code: "rate_limit_exceeded" } });
    expect(bodies[3]).toMatchObject({ error: { type: "requests", code: "rate_limit_exceeded" } });
    expect(bodies[4]).toEqual({
      error: {
        kind: "rate_limit",
        code: "rate_limit_exceeded",
        message: "rate limit: this key may make 2 requests per minute",
      },
    });
    expect(bodies[5]).toEqual(bodies[4]);
    expect(g.calls.length).toBe(calls);

    // count_tokens is not a request the limits count: it still answers.
    const count = await g.call("/v1/messages/count_tokens", {
      json: { model: "demo", messages: [{ role: "user", content: "hi" }] },
      headers: bearer,
    });
    expect(count.status).toBe(200);
  });

  it("a patched limit holds on the next request, no deploy", async () => {
    const g = keyGateway();
    const { id, key } = await g.createKey({ name: "rpm-patch", rpm: 1 });
    expect((await g.chat(key)).status).toBe(200);
    expect((await g.chat(key)).status).toBe(429);
    await g.admin(`/v1/admin/keys/${id}`, { method: "PATCH", json: { rpm: 3 } });
    expect((await g.chat(key)).status).toBe(200);
    expect((await g.chat(key)).status).toBe(200);
    expect((await g.chat(key)).status).toBe(429);
    await g.admin(`/v1/admin/keys/${id}`, { method: "PATCH", json: { rpm: null } });
    expect((await g.chat(key)).status).toBe(200);
  });

  it("N concurrent requests on rpm M < N admit exactly M", async () => {
    const g = keyGateway();
    const { key } = await g.createKey({ name: "rpm-burst", rpm: 7 });
    const before = g.calls.length;
    const statuses = await Promise.all(Array.from({ length: 25 }, async () => (await g.chat(key)).status));
    expect(statuses.filter((status) => status === 200)).toHaveLength(7);
    expect(statuses.filter((status) => status === 429)).toHaveLength(18);
    expect(g.calls.length - before).toBe(7);
  });
});

describe("tpm", () => {
  it("counts the estimate at admission, then the reported tokens; refuses with the wait for the window", async () => {
    const tag = `tpm${Date.now()}`;
    const g = keyGateway({ config: routes(tag) });
    const { id, key } = await g.createKey({ name: "tpm-1000", tpm: 1000 });
    const call = (maxTokens: number) =>
      g.call("/v1/messages", {
        json: messagesBody(`claude-${tag}`, { max_tokens: maxTokens }),
        headers: { authorization: "", "x-api-key": key },
      });
    // An estimate over tpm on its own never passes: no Retry-After.
    const never = await call(2000);
    expect(never.status).toBe(429);
    expect(never.headers.get("retry-after")).toBeNull();
    expect(((await never.json()) as { error: { message: string } }).error.message).toContain(
      "lower its max tokens",
    );

    expect((await call(500)).status).toBe(200);
    // Once settled, the window holds what the upstream reported (472 + 100 cached + 89 output), not the
    // estimate.
    const state = await g.settledState(id, (now) => now.window.tokens === 661);
    expect(state.window).toEqual({ requests: 1, tokens: 661 });
    const over = await call(400);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(50);
    expect(await over.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } });
    expect((await call(250)).status).toBe(200);
  });
});

describe("budget", () => {
  it("admits while spend + the estimate fit, then refuses until the UTC day ends; a raised budget admits again", async () => {
    const tag = `budget${Date.now()}`;
    const g = keyGateway({ config: routes(tag) });
    const { id, key } = await g.createKey({ name: "budget", budget: { usd: 0.005, period: "day" } });
    const call = () =>
      g.call("/v1/messages", {
        json: messagesBody(`claude-${tag}`),
        headers: { authorization: "", "x-api-key": key },
      });
    expect((await call()).status).toBe(200);
    await g.settledState(id, (now) => (now.spend?.usd ?? 0) > 0);
    expect((await call()).status).toBe(200);
    await g.settledState(id, (now) => (now.spend?.usd ?? 0) > CLAUDE_COST * 1.5);
    const calls = g.calls.length;
    const refused = await call();
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe("rate_limit_error");
    expect(body.error.message).toContain("budget exceeded: this key may spend $0.005 per UTC day");
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    const wait = Number(refused.headers.get("retry-after"));
    expect(Math.abs(wait - (midnight.getTime() - Date.now()) / 1000)).toBeLessThan(5);
    // The OpenAI dialect's code.
    const chat = await g.chat(key, `claude-${tag}`);
    expect(await chat.json()).toMatchObject({ error: { code: "budget_exceeded" } });
    expect(g.calls.length).toBe(calls);

    // The spend is what the two calls cost; the overshoot is under one call's cost.
    const state = (await (await g.admin(`/v1/admin/keys/${id}`)).json()) as {
      state: { spend: { usd: number; inFlightUsd: number; period: string } };
    };
    expect(state.state.spend.usd).toBeCloseTo(2 * CLAUDE_COST, 12);
    expect(state.state.spend.inFlightUsd).toBe(0);
    expect(state.state.spend.period).toBe(`day:${new Date().toISOString().slice(0, 10)}`);
    expect(state.state.spend.usd - 0.005).toBeLessThan(CLAUDE_COST);

    await g.admin(`/v1/admin/keys/${id}`, { method: "PATCH", json: { budget: { usd: 1, period: "day" } } });
    expect((await call()).status).toBe(200);
  });

  it("a model with no known price is refused under a budget (403 price_unknown); the config's prices price it", async () => {
    const g = keyGateway();
    const { key } = await g.createKey({ name: "unpriced", budget: { usd: 1, period: "month" } });
    const refused = await g.chat(key, "gpt");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      error: { type: "permission_error", code: "price_unknown" },
    });
    const tag = `priced${Date.now()}`;
    const priced = keyGateway({ config: routes(tag) });
    const second = await priced.createKey({ name: "priced", budget: { usd: 1, period: "month" } });
    expect((await priced.chat(second.key, `gpt-${tag}`)).status).toBe(200);
    const line = await priced.settledUsage(second.id, 1);
    // Priced by the member's model id (the upstream answered as gpt-4o-2024-08-06, which has no price).
    expect(line.costUsd).toBeCloseTo(GPT_COST, 12);
  });
});

describe("the usage query", () => {
  it("totals equal the sum of the calls made, by key, route and model", async () => {
    const tag = `usage${Date.now()}`;
    const g = keyGateway({ config: routes(tag) });
    const alice = await g.createKey({ name: "alice" });
    const bob = await g.createKey({ name: "bob" });
    const messages = (key: string, stream = false) =>
      g.call("/v1/messages", {
        json: messagesBody(`claude-${tag}`, stream ? { stream: true } : {}),
        headers: { authorization: "", "x-api-key": key },
      });
    expect((await messages(alice.key)).status).toBe(200);
    await readSse(await messages(alice.key, true));
    expect((await g.chat(alice.key, `gpt-${tag}`)).status).toBe(200);
    expect((await g.chat(bob.key, `gpt-${tag}`)).status).toBe(200);
    expect((await g.chat(bob.key, `gpt-${tag}`)).status).toBe(200);
    // A GATEWAY_TOKENS call is recorded too, under GATEWAY_TOKENS.
    expect((await g.chat(TOKEN, `gpt-${tag}`)).status).toBe(200);

    const a = await g.settledUsage(alice.id, 3);
    const b = await g.settledUsage(bob.id, 2);
    expect(a).toMatchObject({
      name: "alice",
      requests: 3,
      errors: 0,
      inputTokens: 2 * 472 + 18,
      outputTokens: 2 * 89 + 17,
      cacheReadTokens: 2 * 100 + 64,
      cacheWriteTokens: 0,
      unpriced: 0,
      unreported: 0,
    });
    expect(a.costUsd).toBeCloseTo(2 * CLAUDE_COST + GPT_COST, 12);
    expect(b).toMatchObject({
      name: "bob",
      requests: 2,
      inputTokens: 36,
      outputTokens: 34,
      cacheReadTokens: 128,
    });
    expect(b.costUsd).toBeCloseTo(2 * GPT_COST, 12);

    const byRoute = await waitFor(async () => {
      const answer = await g.usage("?groupBy=route");
      const gpt = answer.data.find((line) => line.route === `gpt-${tag}`);
      return gpt && gpt.requests >= 4 ? answer : undefined;
    });
    const claudeLine = byRoute.data.find((line) => line.route === `claude-${tag}`)!;
    const gptLine = byRoute.data.find((line) => line.route === `gpt-${tag}`)!;
    expect(claudeLine).toMatchObject({ requests: 2, inputTokens: 944, outputTokens: 178 });
    expect(gptLine).toMatchObject({ requests: 4, inputTokens: 72, outputTokens: 68 });
    expect(gptLine.costUsd).toBeCloseTo(4 * GPT_COST, 12);
    // The total is the sum of the lines.
    const sum = byRoute.data.reduce((total, line) => total + line.requests, 0);
    expect(byRoute.total.requests).toBe(sum);

    const byModel = await g.usage("?groupBy=model");
    // Recorded under the model that answered.
    expect(
      byModel.data.find((line) => line.model === "claude-sonnet-4-5-20250929")?.requests,
    ).toBeGreaterThanOrEqual(2);
    expect(byModel.data.find((line) => line.model === "gpt-4o-2024-08-06")?.requests).toBeGreaterThanOrEqual(
      4,
    );

    // A range that ends before the calls holds none of them.
    const before = await g.usage(
      `?groupBy=route&to=${Date.now() - 2 * 3_600_000}&from=${Date.now() - 4 * 3_600_000}`,
    );
    expect(before.data.find((line) => line.route === `gpt-${tag}`)).toBeUndefined();
  });

  it("a failed call costs the usage it reported before the failure, nothing more", async () => {
    const tag = `failed${Date.now()}`;
    // message_start (472 in, 100 cached, 2 out) and one delta, then the connection breaks.
    const cut: UpstreamHandler = () =>
      sseResponse(streamBody(anthropicFrames(anthropicEvents(["Hel", "lo"]).slice(0, 4)), { end: "error" }));
    const g = keyGateway({ config: routes(tag), streamHoldMs: 0 }, cut);
    const { id, key } = await g.createKey({ name: "cut" });
    // Passed through natively (/v1/messages on an Anthropic route) and converted (/v1/chat/completions).
    const native = await g.call("/v1/messages", {
      json: messagesBody(`claude-${tag}`, { stream: true }),
      headers: { authorization: "", "x-api-key": key },
    });
    await native.text();
    const converted = await g.call("/v1/chat/completions", {
      json: { model: `claude-${tag}`, stream: true, messages: [{ role: "user", content: "hi" }] },
      headers: { authorization: `Bearer ${key}` },
    });
    await converted.text();
    const line = await g.settledUsage(id, 2);
    expect(line).toMatchObject({
      requests: 2,
      errors: 2,
      inputTokens: 944,
      cacheReadTokens: 200,
      outputTokens: 4,
    });
    const billed = costOf(
      { inputTokens: 472, cachedInputTokens: 100, outputTokens: 2 },
      "claude-sonnet-4-5",
    )!;
    expect(line.costUsd).toBeCloseTo(2 * billed, 12);
  });

  it("names each bad query parameter", async () => {
    const g = keyGateway();
    const response = await g.admin("/v1/admin/usage?groupBy=team&from=yesterday");
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { issues: { path: string }[] } };
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(["from", "groupBy"]);
    expect((await g.admin("/v1/admin/usage?from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z")).status).toBe(
      400,
    );
  });
});

describe("limits that cannot be slipped", () => {
  it("a stream cut after output went out (its final usage never came) is charged at least its estimate", async () => {
    const tag = `cutcharge${Date.now()}`;
    // OpenAI-style: usage only at the end; here the stream breaks after the content, before it.
    const cut: UpstreamHandler = () =>
      sseResponse(streamBody(openaiFrames(`gpt-4o-${tag}`, ["a", "b", "c"]).slice(0, 4), { end: "error" }));
    const g = keyGateway({ config: routes(tag), streamHoldMs: 0 }, cut);
    const { id, key } = await g.createKey({
      name: "cut-charge",
      budget: { usd: 10, period: "day" },
      tpm: 1_000_000,
    });
    const body = {
      model: `gpt-${tag}`,
      stream: true,
      max_tokens: 10_000,
      messages: [{ role: "user", content: "hi" }],
    };
    const response = await g.call("/v1/chat/completions", {
      json: body,
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await response.text()).toContain('"error"');
    const state = await g.settledState(id, (now) => (now.spend?.usd ?? 0) > 0);
    // The estimate: the body's characters / 4 plus 10 000 output tokens, at the config's prices.
    const estimateTokens = Math.ceil(JSON.stringify(body).length / 4) + 10_000;
    expect(state.window.tokens).toBe(estimateTokens);
    expect(state.spend!.usd).toBeCloseTo(
      costOf({ inputTokens: estimateTokens - 10_000, outputTokens: 10_000 }, GPT_PRICES)!,
      12,
    );
    expect(state.spend!.inFlightUsd).toBe(0);
    // The usage line says what the upstream reported: nothing (unreported), never a guess.
    const line = await g.settledUsage(id, 1);
    expect(line).toMatchObject({ requests: 1, errors: 1, unreported: 1, costUsd: 0 });
  });

  it("Chat Completions' max_completion_tokens counts even beside a small max_tokens", async () => {
    const g = keyGateway();
    const { key } = await g.createKey({ name: "both-limits", tpm: 500 });
    const response = await g.call("/v1/chat/completions", {
      json: {
        model: "gpt",
        max_tokens: 1,
        max_completion_tokens: 100_000,
        messages: [{ role: "user", content: "hi" }],
      },
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(429);
    expect(g.calls).toHaveLength(0);
  });

  it("a config price without cache prices counts cache reads at the input price, never as free", async () => {
    const tag = `nocache${Date.now()}`;
    const config = routes(tag);
    config.prices = { [`gpt-4o-${tag}`]: { input: 2.5, output: 10 } as typeof GPT_PRICES };
    const g = keyGateway({ config });
    const { id, key } = await g.createKey({ name: "no-cache-price", budget: { usd: 1, period: "day" } });
    expect((await g.chat(key, `gpt-${tag}`)).status).toBe(200);
    const line = await g.settledUsage(id, 1);
    expect(line.unpriced).toBe(0);
    expect(line.costUsd).toBeCloseTo(costOf(GPT_USAGE, { input: 2.5, output: 10, cacheRead: 2.5 })!, 12);
    const state = await g.settledState(id, (now) => (now.spend?.usd ?? 0) > 0);
    expect(state.spend!.usd).toBeCloseTo(line.costUsd, 12);
  });

  it("a failover is settled once, when its last call ended: both calls' tokens and cost", async () => {
    const tag = `failover${Date.now()}`;
    let first = true;
    const handler: UpstreamHandler = () => {
      if (first) {
        first = false;
        return Response.json({ error: { message: "overloaded", type: "server_error" } }, { status: 503 });
      }
      return Response.json(openaiCompletion(`gpt-4o-${tag}`, "from b"));
    };
    const config = {
      routes: {
        [`pool-${tag}`]: {
          pool: [
            {
              protocol: "openai-chat",
              endpoint: "vllm",
              model: `gpt-4o-${tag}`,
              baseURL: "http://member-a.test/v1",
            },
            {
              protocol: "openai-chat",
              endpoint: "vllm",
              model: `gpt-4o-${tag}`,
              baseURL: "http://member-b.test/v1",
            },
          ],
        },
      },
      prices: { [`gpt-4o-${tag}`]: GPT_PRICES },
    };
    const g = keyGateway({ config }, handler);
    const { id, key } = await g.createKey({ name: "failover", budget: { usd: 1, period: "day" } });
    const response = await g.chat(key, `pool-${tag}`);
    expect(response.status).toBe(200);
    expect(g.calls).toHaveLength(2);
    const line = await g.settledUsage(id, 2);
    expect(line).toMatchObject({ requests: 2, errors: 1 });
    const state = await g.settledState(id, (now) => (now.spend?.usd ?? 0) > 0);
    expect(state.window).toEqual({ requests: 1, tokens: 82 + 17 });
    expect(state.spend!.usd).toBeCloseTo(GPT_COST, 12);
    expect(state.spend!.inFlightUsd).toBe(0);
  });

  it("a request refused after admission (a 400, no upstream call) releases what it held", async () => {
    const g = keyGateway();
    const { id, key } = await g.createKey({ name: "released", tpm: 200_000, rpm: 100 });
    // /v1/messages converts the body for a gpt route after admission, and refuses the block it cannot send.
    const response = await g.call("/v1/messages", {
      json: {
        model: "gpt",
        max_tokens: 100_000,
        messages: [{ role: "user", content: [{ type: "container_upload", file_id: "file_1" }] }],
      },
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(400);
    expect(g.calls).toHaveLength(0);
    const state = await g.settledState(id, (now) => now.window.tokens === 0);
    expect(state.window).toEqual({ requests: 1, tokens: 0 });
  });

  it("a token that only looks like a key stores nothing", async () => {
    const g = keyGateway();
    const id = "0123456789abcdef";
    const response = await g.chat(`sk-mw-${id}-${"x".repeat(43)}`);
    expect(response.status).toBe(401);
    const stub = env.KEYS.get(env.KEYS.idFromName(id));
    const tables = await runInDurableObject(stub, (_object, state) =>
      state.storage.sql.exec("SELECT name FROM sqlite_master WHERE type = 'table'").toArray(),
    );
    expect(tables).toEqual([]);
  });

  it("a key sees only its own sessions", async () => {
    const g = keyGateway();
    const alice = await g.createKey({ name: "alice-sessions" });
    const bob = await g.createKey({ name: "bob-sessions" });
    const session = `s-${Date.now()}`;
    const pinned = await g.call("/v1/chat/completions", {
      json: { model: "pool", messages: [{ role: "user", content: "hi" }] },
      headers: { authorization: `Bearer ${alice.key}`, "x-session-id": session },
    });
    expect(pinned.status).toBe(200);
    const mine = await g.call(`/v1/sessions/${session}`, {
      headers: { authorization: `Bearer ${alice.key}` },
    });
    expect(mine.status).toBe(200);
    const theirs = await g.call(`/v1/sessions/${session}`, {
      headers: { authorization: `Bearer ${bob.key}` },
    });
    expect(theirs.status).toBe(404);
    const cleared = await g.call(`/v1/sessions/${session}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${bob.key}` },
    });
    expect(cleared.status).toBe(404);
    expect(
      (await g.call(`/v1/sessions/${session}`, { headers: { authorization: `Bearer ${alice.key}` } })).status,
    ).toBe(200);
  });
});
