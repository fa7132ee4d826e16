// Scenario a: concurrent streams through the gateway, and the same streams straight to the fake upstream
// for the baseline. Every stream has its own prompt; its assembled text must equal the fake upstream's
// reply for that prompt, and it must end with its terminal event (`[DONE]` / `event: done` /
// `message_stop`). The workerd processes' CPU time (utime + stime from /proc, as scenario c samples it) is
// read before and after each batch: CPU-ms per stream is the difference over the batch's streams. It
// counts everything workerd did meanwhile (the gateway's own work, its Durable Object and fetch plumbing);
// wrangler dev's local proxy is a Node process and is not in it. The direct batches say what workerd burns
// with no gateway traffic at all (the background).
import { replyFor } from "./fake-upstream.mjs";
import { frameJson, percentile, readSse } from "./http.mjs";
import { clockTicks, cpuTicks, workerdPids } from "./wrangler-dev.mjs";

let ticksPerSecond;
/** /proc clock ticks per second, asked once. */
const tickRate = () => {
  ticksPerSecond ??= clockTicks();
  return ticksPerSecond;
};

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
  // The fake upstream speaks Chat Completions only, so `/v1/messages` on this route is converted (Anthropic
  // request → neutral → Chat Completions, and the stream back), not passed through.
  messages: {
    label: "gateway `/v1/messages` (converted)",
    url: (ctx) => `${ctx.gateway.url}/v1/messages`,
    body: (prompt) => ({
      model: "chat",
      max_tokens: 1024,
      stream: true,
      messages: [{ role: "user", content: prompt }],
    }),
    read: readMessagesFrames,
  },
};

/** The targets in the order each concurrency runs them: the direct baseline first. */
const ORDER = ["direct", "chat", "neutral", "messages"];

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

/** Anthropic Messages events: text from `text_delta`s, terminal `message_stop`, `event: error`. */
function readMessagesFrames(frames) {
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
    const event = frameJson(frame);
    if (event?.type === "error") errorFrame = true;
    else if (event?.type === "message_stop") terminal = true;
    else if (event?.type === "content_block_delta" && event.delta?.type === "text_delta")
      text += event.delta.text;
  }
  return { text, terminal, errorFrame, afterTerminal };
}

/**
 * Runs `prompts.length` streams against `target`, `concurrency` at a time (all at once by default). Answers the batch's figures: completed, errors by
 * kind, mismatches, silent ends, TTFB and total percentiles, and the upstream calls it caused.
 */
export async function runStreamBatch(ctx, targetName, prompts, timeoutMs, concurrency = prompts.length) {
  const target = TARGETS[targetName];
  const callsBefore = (await ctx.upstream.calls()).length;
  const headers = targetName === "direct" ? {} : { authorization: `Bearer ${ctx.token}` };
  const pids = ctx.gateway?.pid ? workerdPids(ctx.gateway.pid) : [];
  const ticksBefore = cpuTicks(pids);
  const started = performance.now();
  const one = async (prompt) => {
    const sse = await readSse(target.url(ctx), {
      method: "POST",
      headers,
      body: target.body(prompt),
      timeoutMs,
    });
    const read = target.read(sse.frames);
    return { prompt, sse, ...read, expected: replyFor(prompt) };
  };
  // `concurrency` lanes, each taking the next prompt when its stream ends.
  const results = new Array(prompts.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, prompts.length) }, async () => {
      while (next < prompts.length) {
        const at = next++;
        results[at] = await one(prompts[at]);
      }
    }),
  );
  const wallMs = performance.now() - started;
  const ticks = tickRate();
  const cpuMs = pids.length > 0 ? ((cpuTicks(pids) - ticksBefore) / ticks) * 1000 : undefined;
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
    concurrency,
    workerdCpuMs: cpuMs,
    workerdCpuMsPerStream: cpuMs === undefined ? undefined : cpuMs / prompts.length,
    cpuTickMs: 1000 / ticks,
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
 * Streams run at concurrency 1: one after another, so its percentiles and CPU figure rest on more than one
 * stream (and one stream's CPU is about one /proc clock tick, 10 ms).
 */
export const SERIAL_STREAMS = 8;

/**
 * Scenario a: for each concurrency, the direct baseline, then `/v1/chat/completions`, `/v1/stream` and
 * `/v1/messages`, all with the same prompts. Concurrency 1 runs {@link SERIAL_STREAMS} streams one at a
 * time; concurrency n runs n at once. `budget.left()` bounds every batch, so the scenario ends in time.
 * Each batch is pushed onto `batches` as it ends, so a run cut short still reports the batches that
 * finished.
 */
export async function streamsScenario(ctx, { concurrencies, budget, batches, onBatch }) {
  for (const concurrency of concurrencies) {
    const count = concurrency === 1 ? SERIAL_STREAMS : concurrency;
    const prompts = Array.from({ length: count }, (_, index) => `stream ${concurrency}-${index}`);
    for (const target of ORDER) {
      const left = budget.left();
      if (left < 1500) {
        batches.push({
          target,
          label: TARGETS[target].label,
          streams: count,
          concurrency,
          skipped: true,
        });
        continue;
      }
      // 15 s per stream, unless the run's time budget has less left: then the batch is cut, and says so.
      const timeoutMs = Math.min(15_000, left);
      const batch = await runStreamBatch(ctx, target, prompts, timeoutMs, concurrency);
      batch.timeoutMs = timeoutMs;
      batch.cutByBudget = timeoutMs < 15_000 && batch.timeouts > 0;
      batches.push(batch);
      onBatch?.(batch);
    }
  }
  return batches;
}
