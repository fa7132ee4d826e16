// The load test's report: Markdown tables (ready to paste into the README) of what each scenario measured,
// then the checks that decide the exit code. Works on partial results too (a scenario that did not run, or
// the global deadline firing part way), so a failing run still says how far it got.

const ms = (value) =>
  Number.isFinite(value) ? `${value < 10 ? value.toFixed(1) : Math.round(value)} ms` : "—";
const signed = (value) =>
  Number.isFinite(value) ? `${value >= 0 ? "+" : "−"}${ms(Math.abs(value)).replace(" ms", "")}` : "—";
const cpu = (sample) => {
  if (!sample) return "not sampled";
  const halves = sample.halves
    ? ` (${sample.halves.map((value) => value.toFixed(2)).join(", then ")} over each half)`
    : "";
  return `${sample.cpuSecondsPer10s.toFixed(2)} CPU-s per 10 s over ${sample.sampledSeconds.toFixed(1)} s${halves}`;
};

/** Errors of a stream batch: the total, and what they were. */
function errorsOf(batch) {
  const parts = [
    [batch.httpErrors, "HTTP"],
    [batch.errorFrames, "error frame"],
    [
      batch.timeouts,
      batch.cutByBudget
        ? `cut at ${(batch.timeoutMs / 1000).toFixed(1)} s by the run's time limit`
        : "timeout",
    ],
    [batch.networkErrors, "network"],
    [batch.silentNoTerminal, "no terminal event"],
    [batch.framesAfterTerminal, "frames after the terminal event"],
  ].filter(([count]) => count > 0);
  const total = parts.reduce((sum, [count]) => sum + count, 0);
  return total === 0 ? "0" : `${total} (${parts.map(([count, kind]) => `${count} ${kind}`).join(", ")})`;
}

/** workerd CPU-ms per stream of a batch, with the whole batch's figure. */
function cpuPerStream(batch) {
  if (batch.workerdCpuMsPerStream === undefined) return "not sampled";
  return `${batch.workerdCpuMsPerStream.toFixed(1)} ms (${Math.round(batch.workerdCpuMs)} ms / ${batch.streams})`;
}

function streamsSection(batches) {
  const lines = [
    "### a. Concurrent streams",
    "",
    "Each stream has its own prompt; the fake upstream answers 24–40 words (accents, emoji, JSON escapes) in",
    "deltas of 1–6 code points, 2 ms apart. TTFB is the time to the first body byte. The added columns are",
    "the gateway's figure minus the direct one at the same concurrency (p50 / p99). Concurrency 1 runs its",
    "streams one after another. `/v1/messages` is converted (the fake upstream speaks Chat Completions only).",
    "workerd CPU per stream: utime + stime of the workerd processes under wrangler dev, read before and after",
    "the batch, over its streams (/proc clock ticks of 10 ms; wrangler dev's proxy, a Node process, is not in",
    "it); on a direct row it is what workerd burnt with no gateway traffic.",
    "",
    "| concurrency | streams | path | completed | errors | text mismatches | upstream calls | TTFB p50 | TTFB p99 | total p50 | total p99 | added TTFB | added total | workerd CPU per stream |",
    "|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  const direct = new Map(batches.filter((b) => b.target === "direct").map((b) => [b.concurrency, b]));
  for (const batch of batches) {
    if (batch.skipped) {
      lines.push(
        `| ${batch.concurrency} | ${batch.streams} | ${batch.label} | skipped (out of time) | | | | | | | | | | |`,
      );
      continue;
    }
    const base = batch.target === "direct" ? undefined : direct.get(batch.concurrency);
    const added = (pick) =>
      base && !base.skipped
        ? `${signed(pick(batch).p50 - pick(base).p50)} / ${signed(pick(batch).p99 - pick(base).p99)} ms`
        : "";
    lines.push(
      `| ${batch.concurrency} | ${batch.streams} | ${batch.label} | ${batch.completed} | ${errorsOf(batch)} | ${batch.mismatches} | ${batch.upstreamCalls} | ${ms(batch.ttfb.p50)} | ${ms(batch.ttfb.p99)} | ${ms(batch.total.p50)} | ${ms(batch.total.p99)} | ${added((b) => b.ttfb)} | ${added((b) => b.total)} | ${cpuPerStream(batch)} |`,
    );
  }
  const examples = batches.flatMap((batch) =>
    (batch.examples ?? []).map((example) => `${batch.label} ×${batch.streams}: ${example}`),
  );
  if (examples.length > 0) lines.push("", "First failures:", "", ...examples.map((line) => `- ${line}`));
  return lines;
}

function tasksSection(tasks) {
  const controls = Object.entries(tasks.controls)
    .map(
      ([action, outcomes]) =>
        `${action} ${
          Object.entries(outcomes)
            .map(([status, count]) => `${count}×${status}`)
            .join(" ") || "none"
        }`,
    )
    .join("; ");
  const statuses = ["done", "max-steps", "aborted", "failed"]
    .map((status) => `${status} ${tasks.byStatus[status] ?? 0}`)
    .join(", ");
  const lines = [
    "### b. Pause / resume / abort storm",
    "",
    `${tasks.tasks} demo-workflow tasks; every upstream call held 300–800 ms; random controls for the storm,`,
    "then every paused task resumed until all were final.",
    "",
    "| figure | value |",
    "|---|---|",
    `| tasks created | ${tasks.created} / ${tasks.tasks} |`,
    `| final status | ${statuses}${tasks.notFinal.length > 0 ? `; **not final: ${tasks.notFinal.length}**` : ""} |`,
    `| control calls (count×HTTP status) | ${controls} |`,
    `| time to settle after the storm | ${ms(tasks.settleMs)} |`,
    `| upstream calls for these tasks (tasks by calls made; a demo task needs 2) | ${tasks.upstreamCalls} (${
      Object.entries(tasks.callsPerTask)
        .map(([calls, count]) => `${count}×${calls}`)
        .join(", ") || "none"
    }) |`,
    `| **double-executed steps** (the same conversation and message count requested twice, or a model call on a conversation that already ended in its final answer) | ${tasks.doubleExecuted} |`,
    `| duplicate consecutive status events | ${tasks.duplicateStatusEvents} (in ${tasks.duplicateStatusTasks} tasks) |`,
    `| identical consecutive assistant turns in histories | ${tasks.repeatedAssistantTurns} |`,
    `| event streams that failed to read | ${tasks.eventReadErrors} |`,
  ];
  const examples = [
    ...tasks.createErrors.slice(0, 3).map((line) => `create failed: ${line}`),
    ...tasks.notFinal.slice(0, 3).map((line) => `not final: ${line}`),
    ...tasks.doubleExamples.map((line) => `double-executed: ${line}`),
    ...tasks.extraCallExamples.map((line) => `more calls than steps: ${line}`),
    ...tasks.duplicateStatusExamples.map((line) => `status events: ${line}`),
    ...tasks.repeatedAssistantExamples.map((line) => `repeated assistant turn: ${line}`),
  ];
  if (examples.length > 0) lines.push("", "Examples:", "", ...examples.map((line) => `- ${line}`));
  return lines;
}

function abandonSection(abandon) {
  const health = abandon.healthAfter;
  return [
    "### c. Abandoned event streams",
    "",
    `Event streams opened on a paused task (${abandon.taskStatus}) and dropped by the client; workerd CPU`,
    `(utime+stime of pids ${abandon.workerdPids.join(", ") || "none found"}, CLK_TCK ${abandon.clockTicks}) sampled with no client connected.`,
    "",
    "| figure | value |",
    "|---|---|",
    `| event streams opened, then dropped | ${abandon.opened} (${abandon.framesRead} frames read) |`,
    `| workerd CPU, idle before | ${cpu(abandon.baseline)} |`,
    `| workerd CPU after the streams were dropped | ${cpu(abandon.afterAbandon)} |`,
    `| \`GET /v1/tasks/:id/events?poll=abc\` | ${abandon.pollStatus === undefined ? "no HTTP status" : `HTTP ${abandon.pollStatus}`}${abandon.pollNote ? ` — ${abandon.pollNote}` : ""} |`,
    `| \`/health\` right after (1 s limit) | ${health ? (health.status === 200 ? `200 in ${ms(health.ms)}` : `**${health.status || health.error}**`) : "not tried"} |`,
    `| workerd CPU after the \`poll=abc\` stream was dropped | ${cpu(abandon.afterPoll)} |`,
  ];
}

function leaveSection(leave) {
  const rows = Object.entries(leave).flatMap(([runtime, result]) =>
    Object.entries(result.byPath).map(
      ([path, counts]) =>
        `| ${runtime} | \`${path}\` | ${counts.cancelled} | ${counts.completed} | ${counts.open + counts.missing} |`,
    ),
  );
  return [
    "### d. Clients that leave before the first byte",
    "",
    "The fake upstream holds every answer 1.5 s; each client gives up after 200 ms. A cancelled call is one",
    "whose connection the gateway closed before the upstream answered. workerd tells a Worker that its client",
    "left (the request's signal) only once the response has started: streams start theirs after the",
    "gateway's 1 s hold; a non-streaming call has nothing to send before it is done, so it runs on (bounded",
    "by `timeouts`). Under wrangler dev, its local proxy keeps the connection to workerd open: nothing is",
    "cancelled there, a local-only limitation.",
    "",
    "| runtime | path | upstream call cancelled | ran to completion | not seen / still open |",
    "|---|---|---:|---:|---:|",
    ...rows,
  ];
}

/** Dollars with enough digits for a fraction of a cent. */
const dollars = (value) => (Number.isFinite(value) ? `$${(Math.round(value * 1e6) / 1e6).toFixed(6)}` : "—");

/** `429` counts by code, e.g. `100 rate_limit_exceeded`. */
const codesOf = (part) =>
  Object.entries(part.codes ?? {})
    .map(([code, count]) => `${count} ${code}`)
    .join(", ") || "—";

function keysSection(keys) {
  const { oneKey, manyKeys, budget } = keys;
  const row = (label, part, expected) =>
    part.skipped
      ? `| ${label} | skipped (out of time) | | | | | | |`
      : `| ${label} | ${part.sent} | ${part.admitted} | ${part.refused} (${codesOf(part)}) | ${part.retryAfter} | ${part.other} | ${part.upstreamCalls}${part.upstreamForRefused ? ` (**${part.upstreamForRefused} for refused requests**)` : ""} | ${expected} |`;
  const lines = [
    "### e. Virtual keys under concurrency",
    "",
    "Keys made with the admin API; every request a non-streaming `/v1/chat/completions` with a short prompt",
    "of its own, all of a burst sent at once. Upstream calls are counted in the fake upstream's log by",
    "prompt; a refused request must not appear there.",
    "",
    "| burst | requests | admitted (200) | refused (429) | refusals with `Retry-After` | other | upstream calls | expected |",
    "|---|---:|---:|---|---:|---:|---:|---|",
    row(
      `one key, \`rpm: ${oneKey.rpm}\``,
      oneKey,
      `${oneKey.rpm} admitted, ${oneKey.sent - oneKey.rpm} refused, ${oneKey.rpm} calls`,
    ),
  ];
  if (!manyKeys.skipped) {
    lines.push(
      row(
        `${manyKeys.keys} keys at once, \`rpm: ${manyKeys.rpm}\`, ${manyKeys.perKey} requests each`,
        manyKeys,
        `${manyKeys.rpm} per key (${manyKeys.rpm * manyKeys.keys}), ${manyKeys.rpm * manyKeys.keys} calls; **${manyKeys.exactKeys} / ${manyKeys.keys} keys exact** (admitted ${manyKeys.admittedPerKey[0]}–${manyKeys.admittedPerKey[1]} per key)`,
      ),
    );
  } else lines.push(row("50 keys at once", manyKeys, ""));
  if (!budget.skipped) {
    lines.push(
      row(
        `budget ${dollars(budget.limitUsd)} \`total\`, first burst`,
        budget,
        "spend ≤ budget + one request's cost",
      ),
      row(
        "budget, the same burst again after settling",
        budget.again,
        "all refused (`budget_exceeded`), 0 calls",
      ),
    );
  } else lines.push(row("budget bursts", budget, ""));
  if (oneKey.retryAfterSeconds?.length)
    lines.push(
      "",
      `\`rpm\` refusals: \`Retry-After\` ${oneKey.retryAfterSeconds.join(", ")} s; the key's window after the burst: ${oneKey.windowRequests} requests. Wall time ${ms(oneKey.wallMs)} (one key), ${ms(manyKeys.wallMs)} (${manyKeys.keys ?? 50} keys). Admitted answers whose text differs from the fake model's: ${[oneKey, manyKeys, budget].reduce((sum, part) => sum + (part.textMismatches ?? 0), 0)}.`,
    );
  if (!budget.skipped) {
    const perRequest = (value) =>
      Number.isFinite(value) && budget.actualUsd
        ? ` (${(value / budget.actualUsd).toFixed(2)} requests' worth)`
        : "";
    lines.push(
      "",
      `Budget: the fake model priced at $${budget.prices.input} / $${budget.prices.output} per million input / output tokens (the config's \`prices\`); the fake upstream reports ${budget.reported.inputTokens} input + ${budget.reported.outputTokens} output tokens per call, and every request sets \`max_tokens: ${budget.estimate.outputTokens}\`. Every upstream call of the first burst was held 300 ms, so the burst was admitted or refused while calls were in flight.`,
      "",
      "| figure | value |",
      "|---|---|",
      `| budget | ${dollars(budget.limitUsd)}, period \`total\` (${(budget.limitUsd / budget.estimatedUsd).toFixed(2)} requests at the estimate) |`,
      `| one request at admission (body chars / 4 + \`max_tokens\`) | ${budget.estimate.inputTokens} + ${budget.estimate.outputTokens} tokens = ${dollars(budget.estimatedUsd)} |`,
      `| one request, actual (spend ÷ admitted) | ${dollars(budget.actualUsd)} (expected from the reported usage: ${dollars(budget.expectedUsd)}) |`,
      `| first burst: admitted / refused | ${budget.admitted} / ${budget.refused} of ${budget.sent} (${budget.inFlightRefusals} refused while calls in flight held the rest, \`Retry-After\` 1 s) |`,
      `| spend after the burst settled (\`state.spend.usd\`), still held in flight | ${dollars(budget.spentUsd)}, ${dollars(budget.inFlightUsd)} (settled ${ms(budget.settleMs)} after the last answer${budget.settleTimedOut ? ", **not settled**" : ""}) |`,
      `| **overshoot** (spend − budget, 0 when under) | **${dollars(budget.overshootUsd)}${perRequest(budget.overshootUsd)}**; left unspent ${dollars(budget.limitUsd - budget.spentUsd)}${perRequest(budget.limitUsd - budget.spentUsd)} |`,
      `| \`GET /v1/admin/usage?groupBy=key\` for the key | ${budget.usageStatus === 200 ? `${budget.usageRequests} requests, ${dollars(budget.usageCostUsd)}` : `**HTTP ${budget.usageStatus}: ${budget.usageError}**`} |`,
      `| second burst | ${budget.again.skipped ? "skipped (out of time)" : `${budget.again.admitted} admitted, ${budget.again.refused} refused (${codesOf(budget.again)}), ${budget.again.upstreamCalls} upstream calls`} |`,
    );
  }
  const examples = [
    ...(oneKey.otherExamples ?? []).map((line) => `one key: ${line}`),
    ...(manyKeys.otherExamples ?? []).map((line) => `50 keys: ${line}`),
    ...(manyKeys.wrongKeys ?? []),
    ...(budget.otherExamples ?? []).map((line) => `budget: ${line}`),
    ...(budget.again?.otherExamples ?? []).map((line) => `budget again: ${line}`),
  ];
  if (examples.length > 0) lines.push("", "Examples:", "", ...examples.map((line) => `- ${line}`));
  return lines;
}

/** The whole report as Markdown lines. */
export function renderReport(results) {
  const lines = ["## Load test", "", results.machine, ""];
  if (results.streams) lines.push(...streamsSection(results.streams), "");
  else lines.push("### a. Concurrent streams", "", "not run", "");
  if (results.tasks) lines.push(...tasksSection(results.tasks), "");
  else lines.push("### b. Pause / resume / abort storm", "", "not run", "");
  if (results.abandon) lines.push(...abandonSection(results.abandon), "");
  else lines.push("### c. Abandoned event streams", "", "not run", "");
  if (results.leave) lines.push(...leaveSection(results.leave), "");
  else lines.push("### d. Clients that leave before the first byte", "", "not run", "");
  if (results.keys) lines.push(...keysSection(results.keys), "");
  else lines.push("### e. Virtual keys under concurrency", "", "not run", "");
  lines.push("### Checks", "");
  for (const check of results.checks) lines.push(`- ${check.ok ? "PASS" : "**FAIL**"} ${check.name}`);
  for (const note of results.notes) lines.push(`- ${note}`);
  lines.push(
    "",
    `Finished in ${(results.seconds ?? 0).toFixed(1)} s (limit ${results.limitSeconds ?? 60} s).`,
  );
  return lines.join("\n");
}

/**
 * The checks that decide the exit code: text mismatches, double-executed steps, silent stream ends — and
 * that the scenarios ran in full (a batch skipped or cut for lack of time is a failed run, not a clean one).
 */
export function checksOf(results) {
  const checks = [];
  if (results.streams) {
    const ran = results.streams.filter((batch) => !batch.skipped);
    const mismatches = ran.reduce((sum, batch) => sum + batch.mismatches, 0);
    const silent = ran.reduce((sum, batch) => sum + batch.silentNoTerminal, 0);
    checks.push({ ok: mismatches === 0, name: `stream text mismatches: ${mismatches}` });
    checks.push({
      ok: silent === 0,
      name: `streams that ended cleanly without their terminal event: ${silent}`,
    });
    const short = results.streams.filter((batch) => batch.skipped || batch.cutByBudget).length;
    if (short > 0)
      checks.push({ ok: false, name: `stream batches skipped or cut short for lack of time: ${short}` });
  } else checks.push({ ok: false, name: "streams scenario did not run" });
  if (results.tasks) {
    checks.push({
      ok: results.tasks.doubleExecuted === 0,
      name: `double-executed task steps: ${results.tasks.doubleExecuted}`,
    });
  } else checks.push({ ok: false, name: "task storm scenario did not run" });
  if (results.leave?.workerd) {
    // Under workerd itself, every streaming call must be cancelled (see leaveSection for why not the others).
    const streams = Object.entries(results.leave.workerd.byPath).filter(([path]) => path !== "/v1/complete");
    const sent = streams.reduce(
      (sum, [, counts]) => sum + counts.cancelled + counts.completed + counts.open + counts.missing,
      0,
    );
    const cancelled = streams.reduce((sum, [, counts]) => sum + counts.cancelled, 0);
    checks.push({
      ok: cancelled === sent,
      name: `streaming upstream calls cancelled under workerd when the client left before the first byte: ${cancelled} / ${sent}`,
    });
  } else checks.push({ ok: false, name: "client-leaves scenario did not run" });
  if (results.keys) checks.push(...keyChecks(results.keys));
  else checks.push({ ok: false, name: "virtual-keys scenario did not run" });
  return checks;
}

/** Scenario e's checks: exact `rpm` admission, no refused request upstream, the budget's overshoot. */
function keyChecks({ oneKey, manyKeys, budget }) {
  const checks = [
    {
      ok:
        oneKey.admitted === oneKey.rpm &&
        oneKey.refused === oneKey.sent - oneKey.rpm &&
        oneKey.retryAfter === oneKey.refused &&
        oneKey.upstreamCalls === oneKey.rpm &&
        oneKey.upstreamForRefused === 0,
      name: `${oneKey.sent} concurrent requests on one key with \`rpm: ${oneKey.rpm}\`: ${oneKey.admitted} admitted, ${oneKey.refused} refused with 429 (${oneKey.retryAfter} with \`Retry-After\`), ${oneKey.upstreamCalls} upstream calls`,
    },
  ];
  if (manyKeys.skipped) checks.push({ ok: false, name: "50-keys burst skipped for lack of time" });
  else
    checks.push({
      ok:
        manyKeys.exactKeys === manyKeys.keys &&
        manyKeys.upstreamCalls === manyKeys.keys * manyKeys.rpm &&
        manyKeys.upstreamForRefused === 0,
      name: `${manyKeys.keys} keys with \`rpm: ${manyKeys.rpm}\` at once: ${manyKeys.exactKeys} / ${manyKeys.keys} admitted exactly ${manyKeys.rpm} (refusing the rest with \`Retry-After\`), ${manyKeys.upstreamCalls} / ${manyKeys.keys * manyKeys.rpm} upstream calls`,
    });
  if (budget.skipped) checks.push({ ok: false, name: "budget bursts skipped for lack of time" });
  else {
    checks.push({
      ok:
        budget.other === 0 &&
        !budget.settleTimedOut &&
        Number.isFinite(budget.overshootUsd) &&
        Number.isFinite(budget.actualUsd) &&
        budget.overshootUsd <= budget.actualUsd + 1e-12 &&
        budget.upstreamCalls === budget.admitted &&
        budget.upstreamForRefused === 0,
      name: `budget overshoot under ${budget.sent} concurrent requests: ${dollars(budget.overshootUsd)} ≤ one request's cost ${dollars(budget.actualUsd)} (${budget.admitted} admitted, ${budget.upstreamCalls} upstream calls)`,
    });
    const again = budget.again;
    checks.push(
      again.skipped
        ? { ok: false, name: "second budget burst skipped for lack of time" }
        : {
            ok:
              again.refused === again.sent &&
              again.codes.budget_exceeded === again.sent &&
              again.upstreamCalls === 0,
            name: `the same burst on the spent budget: ${again.codes.budget_exceeded ?? 0} / ${again.sent} refused with \`budget_exceeded\`, ${again.upstreamCalls} upstream calls`,
          },
    );
  }
  return checks;
}
