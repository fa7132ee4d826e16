// Scenario a: concurrent streams through the gateway, and the same streams straight to the fake upstream
// for the baseline. Every stream has its own prompt; its assembled text must equal the fake upstream's
// reply for that prompt, and it must end with its terminal event (`[DONE]` / `event: done`).
import { replyFor } from "./fake-upstream.mjs";
import { frameJson, percentile, readSse } from "./http.mjs";

/** How each target is called and how its SSE frames are read. */
const TARGETS = {
  direct: {
    label: "direct to fake upstream",
    url: (ctx) => `${ctx.upstream.baseURL}/chat/completions`,
    body: (prompt) => ({ model: "fake", stream: true, messages: [{ role: "user", content: prompt }] }),
    read: readChatFrames,
  },
  chat: {
    label: "gateway `/v1/chat/completions`",
    url: (ctx) => `${ctx.gateway.url}/v1/chat/completions`,
    body: (prompt) => ({ model: "chat", stream: true, messages: [{ role: "user", content: prompt }] }),
    read: readChatFrames,
  },
  neutral: {
    label: "gateway `/v1/stream`",
    url: (ctx) => `${ctx.gateway.url}/v1/stream`,
    body: (prompt) => ({ route: "demo", messages: [{ role: "user", content: prompt }] }),
    read: readNeutralFrames,
  },
};

/** Chat Completions chunks: text from `choices[0].delta.content`, terminal `[DONE]`, errors in-band. */
function readChatFrames(frames) {
  let text = "";
  let terminal = false;
  let errorFrame = false;
  let afterTerminal = 0;
  for (const frame of frames) {
    if (terminal) afterTerminal++;
    if (frame.event === "error") {
      errorFrame = true;
      continue;
    }
    if (frame.data === "[DONE]") {
      terminal = true;
      continue;
    }
    const chunk = frameJson(frame);
    if (chunk?.error) errorFrame = true;
    const content = chunk?.choices?.[0]?.delta?.content;
    if (typeof content === "string") text += content;
  }
  return { text, terminal, errorFrame, afterTerminal };
}

/** Neutral `StreamEvent`s: text from `text-delta` frames, terminal `event: done`, `event: error`. */
function readNeutralFrames(frames) {
  let text = "";
  let terminal = false;
  let errorFrame = false;
  let afterTerminal = 0;
  for (const frame of frames) {
    if (terminal) afterTerminal++;
    if (frame.event === "error") errorFrame = true;
    else if (frame.event === "done") terminal = true;
    else if (frame.event === "text-delta") {
      const event = frameJson(frame);
      if (event?.type === "text-delta" && typeof event.text === "string") text += event.text;
    }
  }
  return { text, terminal, errorFrame, afterTerminal };
}

/**
 * Runs `prompts.length` streams against `target` at once. Answers the batch's figures: completed, errors by
 * kind, mismatches, silent ends, TTFB and total percentiles, and the upstream calls it caused.
 */
export async function runStreamBatch(ctx, targetName, prompts, timeoutMs) {
  const target = TARGETS[targetName];
  const callsBefore = (await ctx.upstream.calls()).length;
  const headers = targetName === "direct" ? {} : { authorization: `Bearer ${ctx.token}` };
  const started = performance.now();
  const results = await Promise.all(
    prompts.map(async (prompt) => {
      const sse = await readSse(target.url(ctx), {
        method: "POST",
        headers,
        body: target.body(prompt),
        timeoutMs,
      });
      const read = target.read(sse.frames);
      return { prompt, sse, ...read, expected: replyFor(prompt) };
    }),
  );
  const wallMs = performance.now() - started;
  const batch = {
    target: targetName,
    label: target.label,
    streams: prompts.length,
    completed: 0,
    httpErrors: 0,
    errorFrames: 0,
    timeouts: 0,
    networkErrors: 0,
    silentNoTerminal: 0,
    mismatches: 0,
    framesAfterTerminal: 0,
    upstreamCalls: 0,
    wallMs,
    ttfb: { p50: undefined, p99: undefined },
    total: { p50: undefined, p99: undefined },
    examples: [],
  };
  const ttfbs = [];
  const totals = [];
  for (const result of results) {
    const { sse } = result;
    let problem;
    if (sse.status !== 0 && sse.status !== 200) {
      batch.httpErrors++;
      problem = `HTTP ${sse.status} ${String(sse.body ?? "").slice(0, 160)}`;
    } else if (sse.error === "timeout") {
      batch.timeouts++;
      problem = "timeout";
    } else if (sse.error) {
      batch.networkErrors++;
      problem = sse.error;
    } else if (result.errorFrame) {
      batch.errorFrames++;
      const frame = sse.frames.find((item) => item.event === "error");
      problem = `error frame ${String(frame?.data ?? "").slice(0, 160)}`;
    } else if (!result.terminal) {
      // The body ended cleanly, 200, no error frame, and no terminal event: it looks like success.
      batch.silentNoTerminal++;
      problem = "ended without its terminal event";
    }
    // Text is compared for every stream that got a body, so a wrong text is seen even beside another error.
    if (sse.status === 200 && (result.terminal || !problem) && result.text !== result.expected) {
      batch.mismatches++;
      problem ??= `text mismatch: got ${JSON.stringify(result.text.slice(0, 60))}…`;
    }
    batch.framesAfterTerminal += result.afterTerminal;
    if (!problem) {
      batch.completed++;
      ttfbs.push(sse.ttfbMs);
      totals.push(sse.totalMs);
    } else if (batch.examples.length < 3) {
      batch.examples.push(`${result.prompt}: ${problem}`);
    }
  }
  batch.ttfb = { p50: percentile(ttfbs, 50), p99: percentile(ttfbs, 99) };
  batch.total = { p50: percentile(totals, 50), p99: percentile(totals, 99) };
  batch.upstreamCalls = (await ctx.upstream.calls()).length - callsBefore;
  return batch;
}

/**
 * Scenario a: for each concurrency, the direct baseline, then `/v1/chat/completions`, then `/v1/stream`,
 * all with the same prompts. `budget.left()` bounds every batch, so the scenario ends in time. Each batch
 * is pushed onto `batches` as it ends, so a run cut short still reports the batches that finished.
 */
export async function streamsScenario(ctx, { concurrencies, budget, batches, onBatch }) {
  for (const concurrency of concurrencies) {
    const prompts = Array.from({ length: concurrency }, (_, index) => `stream ${concurrency}-${index}`);
    for (const target of ["direct", "chat", "neutral"]) {
      const left = budget.left();
      if (left < 1500) {
        batches.push({
          target,
          label: TARGETS[target].label,
          streams: concurrency,
          concurrency,
          skipped: true,
        });
        continue;
      }
      // 15 s per stream, unless the run's time budget has less left: then the batch is cut, and says so.
      const timeoutMs = Math.min(15_000, left);
      const batch = await runStreamBatch(ctx, target, prompts, timeoutMs);
      batch.concurrency = concurrency;
      batch.timeoutMs = timeoutMs;
      batch.cutByBudget = timeoutMs < 15_000 && batch.timeouts > 0;
      batches.push(batch);
      onBatch?.(batch);
    }
  }
  return batches;
}
