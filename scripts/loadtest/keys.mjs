// Scenario e: virtual keys under concurrency (issue 19). Keys are created with the admin API
// (`ADMIN_TOKENS`), then driven with concurrent non-streaming `/v1/chat/completions` requests; the fake
// upstream's call log (by prompt) says which requests reached it.
//
//   1. one key with `rpm: 100`, 200 requests at once: exactly 100 admitted (200), 100 refused (429 with
//      `Retry-After`), exactly 100 upstream calls;
//   2. 50 keys with `rpm: 4`, each sent 6 requests, all 300 at once: each key admits exactly 4, and the
//      upstream sees exactly 4 calls per key;
//   3. one key with a `total` budget and a priced model (`KEY_PRICES`, the config's `prices` for the fake
//      model): 100 requests at once, each held 300 ms by the upstream so that they are all in flight
//      together; once the usage has settled, the spend against the budget (the overshoot, in dollars and in
//      requests' worth); then the same burst again, which must be refused whole (`budget_exceeded`) without
//      an upstream call.
//
// The fake upstream reports 10 input tokens (per message) and 12 output tokens for every answer; with
// `max_tokens: 12` the gateway's admission estimate (body characters / 4 + `max_tokens`) is never below
// the actual cost, so the design admits no overshoot at all. The prices are output-heavy so that the
// estimate's error on the input (the JSON body's characters / 4 against the 10 tokens reported) is small
// beside a request's cost: the budget is set to 15¼ estimated requests, which admits exactly 15 whatever
// the order in which the calls end, and leaves less than one request's estimate after they are settled.
import { replyFor } from "./fake-upstream.mjs";
import { request, sleep } from "./http.mjs";

/** The fake model's price in the load test's config (`prices.fake`), USD per million tokens. */
export const KEY_PRICES = { input: 1, output: 60 };
/** What the fake upstream reports for one single-message request (see fake-upstream.mjs). */
const REPORTED = { inputTokens: 10, outputTokens: 12 };

const range = (count) => Array.from({ length: count }, (_, index) => index);
const usd = (tokens, price) => (tokens * price) / 1e6;

/** The request body of one chat call: a short prompt, `max_tokens` set. */
const bodyOf = (prompt, maxTokens) => ({
  model: "chat",
  max_tokens: maxTokens,
  messages: [{ role: "user", content: prompt }],
});

/** Counts of a set of answers: admitted, refused (429), with `Retry-After`, by code, other outcomes. */
function tally(answers) {
  const result = {
    sent: answers.length,
    admitted: 0,
    refused: 0,
    retryAfter: 0,
    codes: {},
    other: 0,
    otherExamples: [],
    textMismatches: 0,
  };
  for (const answer of answers) {
    if (answer.status === 200) {
      result.admitted++;
      if (!answer.textOk) result.textMismatches++;
    } else if (answer.status === 429) {
      result.refused++;
      if (answer.retryAfter !== null && answer.retryAfterMs !== null) result.retryAfter++;
      result.codes[answer.code ?? "none"] = (result.codes[answer.code ?? "none"] ?? 0) + 1;
    } else {
      result.other++;
      if (result.otherExamples.length < 3)
        result.otherExamples.push(`${answer.status || answer.error} ${answer.message ?? ""}`.trim());
    }
  }
  return result;
}

/** How many upstream calls the fake upstream saw for each of `prompts` (a Map prompt → count). */
function callsByPrompt(calls, prompts) {
  const wanted = new Map(prompts.map((prompt) => [`prompt:${prompt}`, prompt]));
  const counts = new Map(prompts.map((prompt) => [prompt, 0]));
  for (const call of calls) {
    const prompt = wanted.get(call.conversation);
    if (prompt !== undefined) counts.set(prompt, counts.get(prompt) + 1);
  }
  return counts;
}

/** Upstream calls made for `answers`: in all, and for the requests that were refused (must be 0). */
function upstreamOf(calls, answers) {
  const counts = callsByPrompt(
    calls,
    answers.map((answer) => answer.prompt),
  );
  let total = 0;
  let forRefused = 0;
  for (const answer of answers) {
    const count = counts.get(answer.prompt);
    total += count;
    if (answer.status !== 200) forRefused += count;
  }
  return { total, forRefused };
}

export async function keysScenario(ctx, { budget, rpmBurst = 200, rpm = 100, keys = 50, perKeyRpm = 4 }) {
  const url = ctx.gateway.url;
  const admin = (method, path, body) =>
    request(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ctx.adminToken}` },
      body,
      timeoutMs: Math.min(10_000, Math.max(500, budget.left())),
    });
  const createKey = async (record) => {
    const created = await admin("POST", "/v1/admin/keys", record);
    if (created.status !== 201 || typeof created.json?.key !== "string") {
      throw new Error(
        `POST /v1/admin/keys answered ${created.status || created.error}: ${created.body.slice(0, 200)}`,
      );
    }
    return created.json;
  };
  const chat = async (key, prompt, maxTokens) => {
    const answer = await request(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: bodyOf(prompt, maxTokens),
      timeoutMs: Math.min(15_000, Math.max(500, budget.left())),
    });
    return {
      prompt,
      status: answer.status,
      error: answer.error,
      code: answer.json?.error?.code,
      message: answer.json?.error?.message,
      retryAfter: answer.headers.get("retry-after"),
      retryAfterMs: answer.headers.get("retry-after-ms"),
      textOk: answer.json?.choices?.[0]?.message?.content === replyFor(prompt),
    };
  };
  /** Polls a key until no call holds cost in flight and its spend stopped moving (recorded in the background). */
  const settled = async (id) => {
    const started = performance.now();
    let last;
    while (budget.left() > 1000 && performance.now() - started < 3000) {
      const state = (await admin("GET", `/v1/admin/keys/${id}`)).json?.state;
      const spend = state?.spend;
      if (spend && spend.inFlightUsd === 0 && last !== undefined && spend.usd === last) {
        return { state, ms: performance.now() - started };
      }
      last = spend?.usd;
      await sleep(150);
    }
    return {
      state: (await admin("GET", `/v1/admin/keys/${id}`)).json?.state,
      ms: performance.now() - started,
      timedOut: true,
    };
  };

  ctx.upstream.configure({ firstByteDelayMs: 0, chunkDelayMs: 0, callDelayMs: undefined });
  const report = { oneKey: undefined, manyKeys: undefined, budget: undefined };

  // 1. One key, `rpm` 100, 200 requests at once.
  {
    const key = await createKey({ name: "loadtest rpm", rpm });
    const prompts = range(rpmBurst).map((index) => `keys rpm ${index}`);
    const started = performance.now();
    const answers = await Promise.all(prompts.map((prompt) => chat(key.key, prompt, 16)));
    const wallMs = performance.now() - started;
    const upstream = upstreamOf(await ctx.upstream.calls(), answers);
    const state = (await admin("GET", `/v1/admin/keys/${key.id}`)).json?.state;
    report.oneKey = {
      rpm,
      ...tally(answers),
      upstreamCalls: upstream.total,
      upstreamForRefused: upstream.forRefused,
      windowRequests: state?.window?.requests,
      retryAfterSeconds: [...new Set(answers.filter((a) => a.status === 429).map((a) => a.retryAfter))].slice(
        0,
        3,
      ),
      wallMs,
    };
  }

  // 2. `keys` keys, `rpm` perKeyRpm each, perKeyRpm + 2 requests each, all at once.
  if (budget.left() > 4500) {
    const created = await Promise.all(
      range(keys).map((index) => createKey({ name: `loadtest rpm ${perKeyRpm} #${index}`, rpm: perKeyRpm })),
    );
    const perKey = perKeyRpm + 2;
    const started = performance.now();
    const answersByKey = await Promise.all(
      created.map((key, index) =>
        Promise.all(range(perKey).map((n) => chat(key.key, `keys many ${index} ${n}`, 16))),
      ),
    );
    const wallMs = performance.now() - started;
    const calls = await ctx.upstream.calls();
    const keysResult = answersByKey.map((answers) => ({
      ...tally(answers),
      upstreamCalls: upstreamOf(calls, answers).total,
      upstreamForRefused: upstreamOf(calls, answers).forRefused,
    }));
    const all = tally(answersByKey.flat());
    const exact = keysResult.filter(
      (k) =>
        k.admitted === perKeyRpm &&
        k.refused === perKey - perKeyRpm &&
        k.retryAfter === k.refused &&
        k.upstreamCalls === perKeyRpm,
    ).length;
    report.manyKeys = {
      keys,
      rpm: perKeyRpm,
      perKey,
      ...all,
      upstreamCalls: keysResult.reduce((sum, k) => sum + k.upstreamCalls, 0),
      upstreamForRefused: keysResult.reduce((sum, k) => sum + k.upstreamForRefused, 0),
      exactKeys: exact,
      admittedPerKey: [
        Math.min(...keysResult.map((k) => k.admitted)),
        Math.max(...keysResult.map((k) => k.admitted)),
      ],
      wrongKeys: keysResult
        .map((k, index) => ({ index, ...k }))
        .filter((k) => k.admitted !== perKeyRpm || k.upstreamCalls !== perKeyRpm)
        .slice(0, 3)
        .map((k) => `key #${k.index}: ${k.admitted} admitted, ${k.upstreamCalls} upstream calls`),
      wallMs,
    };
  } else report.manyKeys = { skipped: true };

  // 3. A `total` budget under a burst, then the same burst again once the spend has settled.
  if (budget.left() > 3000) {
    const burst = 100;
    const holds = 15;
    const maxTokens = REPORTED.outputTokens;
    const promptOf = (round, index) => `keys budget ${round} ${String(index).padStart(3, "0")}`;
    // The gateway's estimate: the body's characters / 4 (rounded up) + max_tokens; every prompt has the
    // same length, so every request has the same estimate.
    const estimate = {
      inputTokens: Math.ceil(JSON.stringify(bodyOf(promptOf("a", 0), maxTokens)).length / 4),
      outputTokens: maxTokens,
    };
    const costOf = (tokens) =>
      usd(tokens.inputTokens, KEY_PRICES.input) + usd(tokens.outputTokens, KEY_PRICES.output);
    const estimatedUsd = costOf(estimate);
    const expectedUsd = costOf(REPORTED);
    const limitUsd = Math.round((holds + 0.25) * estimatedUsd * 1e6) / 1e6;
    const key = await createKey({ name: "loadtest budget", budget: { usd: limitUsd, period: "total" } });
    // Every call held 300 ms by the upstream: the whole burst is admitted or refused while calls are in flight.
    ctx.upstream.configure({ firstByteDelayMs: 300 });
    const started = performance.now();
    const first = await Promise.all(
      range(burst).map((index) => chat(key.key, promptOf("a", index), maxTokens)),
    );
    const wallMs = performance.now() - started;
    ctx.upstream.configure({ firstByteDelayMs: 0 });
    const settle = await settled(key.id);
    const spentUsd = settle.state?.spend?.usd;
    const usage = await admin(
      "GET",
      `/v1/admin/usage?groupBy=key&from=${Date.now() - 3_600_000}&to=${Date.now() + 3_600_000}`,
    );
    const usageRow = usage.json?.data?.find((row) => row.key === key.id);
    // The same burst again: the rest of the budget is less than one request's estimate.
    const second =
      budget.left() > 1200
        ? await Promise.all(range(burst).map((index) => chat(key.key, promptOf("b", index), maxTokens)))
        : undefined;
    const calls = await ctx.upstream.calls();
    const firstTally = tally(first);
    const firstUpstream = upstreamOf(calls, first);
    // Refusals while calls were in flight (they held the rest of the budget) or after the spend itself.
    const inFlightRefusals = first.filter(
      (a) => a.status === 429 && /in flight/.test(a.message ?? ""),
    ).length;
    const actualUsd =
      firstTally.admitted > 0 && spentUsd !== undefined ? spentUsd / firstTally.admitted : undefined;
    const overshootUsd = spentUsd === undefined ? undefined : Math.max(0, spentUsd - limitUsd);
    report.budget = {
      burst,
      prices: KEY_PRICES,
      limitUsd,
      estimate,
      estimatedUsd,
      expectedUsd,
      reported: REPORTED,
      ...firstTally,
      inFlightRefusals,
      upstreamCalls: firstUpstream.total,
      upstreamForRefused: firstUpstream.forRefused,
      spentUsd,
      inFlightUsd: settle.state?.spend?.inFlightUsd,
      settleMs: settle.ms,
      settleTimedOut: settle.timedOut === true,
      actualUsd,
      overshootUsd,
      overshootRequests:
        overshootUsd !== undefined && actualUsd
          ? overshootUsd / actualUsd
          : overshootUsd === 0
            ? 0
            : undefined,
      usageRequests: usageRow?.requests,
      usageCostUsd: usageRow?.costUsd,
      usageStatus: usage.status,
      usageError: usage.status === 200 ? undefined : (usage.json?.error?.message ?? usage.error),
      wallMs,
      again: second
        ? { ...tally(second), upstreamCalls: upstreamOf(calls, second).total }
        : { skipped: true },
    };
  } else report.budget = { skipped: true };
  return report;
}
