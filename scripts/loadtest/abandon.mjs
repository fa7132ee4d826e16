// Scenario c: event streams that clients abandon. Many `GET /v1/tasks/:id/events` streams are opened on an
// idle (paused) task and the connections dropped without reading to the end; then, with no client
// connected, workerd's CPU time is sampled: polling loops left behind by the dropped streams show up as
// CPU burnt by an idle gateway. Then one `?poll=abc` request (a poll interval that is not a number), its
// HTTP status, and whether /health still answers within a second afterwards.
import { readSse, request, sleep } from "./http.mjs";
import { clockTicks, sampleCpu, workerdPids } from "./wrangler-dev.mjs";

export async function abandonScenario(ctx, { taskId, streams, sampleMs, budget }) {
  const auth = { authorization: `Bearer ${ctx.token}` };
  const ticks = clockTicks();
  const pids = workerdPids(ctx.gateway.pid);
  const report = {
    taskId,
    taskStatus: undefined,
    workerdPids: pids,
    clockTicks: ticks,
    baseline: undefined,
    opened: 0,
    framesRead: 0,
    afterAbandon: undefined,
    pollStatus: undefined,
    pollNote: undefined,
    healthAfter: undefined,
    afterPoll: undefined,
  };
  const task = await request(`${ctx.gateway.url}/v1/tasks/${taskId}`, { headers: auth, timeoutMs: 2000 });
  report.taskStatus = task.json?.status ?? (task.status || task.error);

  // Baseline: the idle gateway before any stream is opened (skipped when time is short).
  if (pids.length > 0 && budget.left() > sampleMs + 8000) {
    report.baseline = await sampleCpu(pids, 1500, ticks);
  }

  // Open the streams, let them read the task's first events, then drop every connection.
  const controllers = Array.from({ length: streams }, () => new AbortController());
  const reads = controllers.map((controller) =>
    readSse(`${ctx.gateway.url}/v1/tasks/${taskId}/events?after=0`, {
      headers: auth,
      timeoutMs: 5000,
      signal: controller.signal,
    }),
  );
  await sleep(800);
  for (const controller of controllers) controller.abort();
  for (const result of await Promise.all(reads)) {
    if (result.status === 200) report.opened++;
    report.framesRead += result.frames.length;
  }
  await sleep(300);
  if (pids.length > 0) {
    // Two halves: CPU that fades is clean-up catching up; CPU that stays is a loop left running.
    const half = Math.min(sampleMs, Math.max(1000, budget.left() - 6000)) / 2;
    const first = await sampleCpu(pids, half, ticks);
    const second = await sampleCpu(pids, half, ticks);
    report.afterAbandon = {
      cpuSecondsPer10s: (first.cpuSecondsPer10s + second.cpuSecondsPer10s) / 2,
      sampledSeconds: first.sampledSeconds + second.sampledSeconds,
      halves: [first.cpuSecondsPer10s, second.cpuSecondsPer10s],
    };
  }

  // `?poll=abc`: whatever it answers within 1.5 s; a stream that stays open is dropped then.
  if (budget.left() > 3500) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), 1500);
    const pending = readSse(`${ctx.gateway.url}/v1/tasks/${taskId}/events?poll=abc`, {
      headers: auth,
      timeoutMs: 3000,
      signal: controller.signal,
    });
    const poll = await pending;
    clearTimeout(timer);
    report.pollStatus = poll.status || undefined;
    if (poll.status === 200)
      report.pollNote = `stream stayed open (${poll.frames.length} frames in ${Math.round(poll.totalMs)} ms, then dropped by the client)`;
    else if (poll.status === 0) report.pollNote = `no answer (${poll.error})`;
    else {
      let message = String(poll.body ?? "");
      try {
        message = JSON.parse(message).error?.message ?? message;
      } catch {
        // not JSON: the body as it came
      }
      report.pollNote = message.slice(0, 120);
    }
    const health = await request(`${ctx.gateway.url}/health`, { timeoutMs: 1000 });
    report.healthAfter = { status: health.status, ms: health.ms, error: health.error };
    if (pids.length > 0 && budget.left() > 2500) {
      await sleep(200);
      report.afterPoll = await sampleCpu(pids, Math.min(2000, budget.left() - 500), ticks);
    }
  }
  return report;
}
