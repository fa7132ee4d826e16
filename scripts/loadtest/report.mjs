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

function streamsSection(batches) {
  const lines = [
    "### a. Concurrent streams",
    "",
    "Each stream has its own prompt; the fake upstream answers 24–40 words (accents, emoji, JSON escapes) in",
    "deltas of 1–6 code points, 2 ms apart. TTFB is the time to the first body byte. The added columns are",
    "the gateway's figure minus the direct one at the same concurrency (p50 / p99).",
    "",
    "| streams | path | completed | errors | text mismatches | upstream calls | TTFB p50 | TTFB p99 | total p50 | total p99 | added TTFB | added total |",
    "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  const direct = new Map(batches.filter((b) => b.target === "direct").map((b) => [b.concurrency, b]));
  for (const batch of batches) {
    if (batch.skipped) {
      lines.push(`| ${batch.streams} | ${batch.label} | skipped (out of time) | | | | | | | | | |`);
      continue;
    }
    const base = batch.target === "direct" ? undefined : direct.get(batch.concurrency);
    const added = (pick) =>
      base && !base.skipped
        ? `${signed(pick(batch).p50 - pick(base).p50)} / ${signed(pick(batch).p99 - pick(base).p99)} ms`
        : "";
    lines.push(
      `| ${batch.streams} | ${batch.label} | ${batch.completed} | ${errorsOf(batch)} | ${batch.mismatches} | ${batch.upstreamCalls} | ${ms(batch.ttfb.p50)} | ${ms(batch.ttfb.p99)} | ${ms(batch.total.p50)} | ${ms(batch.total.p99)} | ${added((b) => b.ttfb)} | ${added((b) => b.total)} |`,
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
  lines.push("### Checks", "");
  for (const check of results.checks) lines.push(`- ${check.ok ? "PASS" : "**FAIL**"} ${check.name}`);
  for (const note of results.notes) lines.push(`- ${note}`);
  lines.push("", `Finished in ${(results.seconds ?? 0).toFixed(1)} s (limit 60 s).`);
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
  return checks;
}
