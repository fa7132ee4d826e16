// Scenario b: a pause / resume / abort storm on agent tasks. Tasks of the demo workflow (two model calls
// each: a tool call, then the final text) run against the fake upstream, which holds every call 300–800 ms
// so that controls land while calls are in flight. A seeded PRNG picks the controls (the sequence repeats
// run to run; where it lands in a task's life depends on timing). Then every paused task is resumed and each
// must reach a final status. Checked afterwards:
// - double-executed steps: a conversation asked the upstream twice with the same number of messages, or
//   asked again after its final answer;
// - duplicate consecutive status events: two `status` events in a row with the same status;
// - repeated assistant turns: two identical assistant messages next to each other in the history;
import { prng } from "./fake-upstream.mjs";
import { frameJson, readSse, request, sleep } from "./http.mjs";

const FINAL = new Set(["done", "max-steps", "aborted", "failed"]);

/** Control calls by their likelihood: pause and resume mostly, abort now and then (it is final). */
const ACTIONS = [
  { name: "pause", weight: 8 },
  { name: "resume", weight: 8 },
  { name: "abort", weight: 1 },
];

function pick(random, items) {
  let roll = random() * items.reduce((sum, item) => sum + item.weight, 0);
  for (const item of items) {
    roll -= item.weight;
    if (roll < 0) return item;
  }
  return items.at(-1);
}

/** Calls `fn` over `items` with at most `limit` at a time. */
async function eachLimited(items, limit, fn) {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(limit, queue.length) }, async () => {
      while (queue.length > 0) await fn(queue.shift());
    }),
  );
}

export async function tasksScenario(ctx, { count, stormMs, seed, budget, idleTaskId }) {
  const random = prng(seed);
  const auth = { authorization: `Bearer ${ctx.token}` };
  const api = (path, method = "GET", body = undefined, timeoutMs = 4000) =>
    request(`${ctx.gateway.url}${path}`, {
      method,
      headers: auth,
      body,
      timeoutMs: Math.max(1, Math.min(timeoutMs, budget.left())),
    });
  ctx.upstream.configure({ callDelayMs: [300, 800], chunkDelayMs: 1, firstByteDelayMs: 0 });
  // Ids (and so the upstream's per-call delays, derived from them) are the same every run: each run has
  // its own fresh Durable Object storage.
  const run = `s${seed}`;
  const ids = Array.from({ length: count }, (_, index) => `lt-${run}-${index}`);
  const report = {
    tasks: count,
    created: 0,
    createErrors: [],
    controls: { pause: {}, resume: {}, abort: {} },
    controlTimeouts: 0,
    byStatus: {},
    notFinal: [],
    doubleExecuted: 0,
    doubleExamples: [],
    duplicateStatusEvents: 0,
    duplicateStatusTasks: 0,
    duplicateStatusExamples: [],
    repeatedAssistantTurns: 0,
    repeatedAssistantExamples: [],
    eventReadErrors: 0,
    upstreamCalls: 0,
    callsAfterFinal: 0,
    callsPerTask: {},
    extraCallExamples: [],
    settleMs: undefined,
    idleTask: undefined,
  };

  // The idle task for scenario c: created and paused at once, never part of the storm.
  if (idleTaskId) {
    const created = await api("/v1/tasks", "POST", {
      workflow: "demo",
      input: `task ${idleTaskId} stays paused`,
      id: idleTaskId,
    });
    const paused = await api(`/v1/tasks/${idleTaskId}/pause`, "POST");
    report.idleTask = { created: created.status, paused: paused.status };
  }

  const createdResults = await Promise.all(
    ids.map((id) =>
      api("/v1/tasks", "POST", { workflow: "demo", input: `task ${id}: please shout this back`, id }),
    ),
  );
  for (const [index, result] of createdResults.entries()) {
    if (result.status === 201) report.created++;
    else
      report.createErrors.push(
        `${ids[index]}: ${result.status || result.error} ${result.body.slice(0, 120)}`,
      );
  }

  // The storm: a control every 10–40 ms, at most 24 in flight, for `stormMs`.
  const stormEnd = performance.now() + Math.min(stormMs, Math.max(0, budget.left() - 8000));
  const inFlight = new Set();
  const record = (action, result) => {
    const key = result.status === 0 ? result.error : String(result.status);
    if (result.error === "timeout") report.controlTimeouts++;
    report.controls[action][key] = (report.controls[action][key] ?? 0) + 1;
  };
  while (performance.now() < stormEnd) {
    const id = ids[Math.floor(random() * ids.length)];
    const action = pick(random, ACTIONS).name;
    const wait = 10 + Math.floor(random() * 31);
    if (inFlight.size < 24) {
      const call = api(`/v1/tasks/${id}/${action}`, "POST", undefined, 3000).then((result) => {
        record(action, result);
        inFlight.delete(call);
      });
      inFlight.add(call);
    }
    await sleep(wait);
  }
  await Promise.all(inFlight);

  // Settle: resume whatever is paused until every task is final (bounded by the budget).
  const settleStart = performance.now();
  let states = new Map();
  for (;;) {
    const snapshot = await Promise.all(ids.map((id) => api(`/v1/tasks/${id}`, "GET", undefined, 2000)));
    states = new Map(ids.map((id, index) => [id, snapshot[index]]));
    const open = ids.filter((id) => !FINAL.has(states.get(id).json?.status));
    if (open.length === 0 || budget.left() < 4000) break;
    const paused = open.filter((id) => states.get(id).json?.status === "paused");
    await Promise.all(
      paused.map((id) =>
        api(`/v1/tasks/${id}/resume`, "POST", undefined, 2000).then((result) => record("resume", result)),
      ),
    );
    await sleep(300);
  }
  report.settleMs = performance.now() - settleStart;

  for (const id of ids) {
    const state = states.get(id)?.json;
    const status = state?.status ?? `unreadable (${states.get(id)?.status || states.get(id)?.error})`;
    if (FINAL.has(status)) report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
    else report.notFinal.push(`${id}: ${status}`);
  }

  // Histories: two identical assistant messages side by side mean a step's answer was kept twice.
  for (const id of ids) {
    const history = states.get(id)?.json?.history ?? [];
    for (let index = 1; index < history.length; index++) {
      const [previous, message] = [history[index - 1], history[index]];
      if (previous?.role !== "assistant" || message?.role !== "assistant") continue;
      if (assistantTurn(previous) === assistantTurn(message)) {
        report.repeatedAssistantTurns++;
        if (report.repeatedAssistantExamples.length < 3)
          report.repeatedAssistantExamples.push(
            `${id}: messages ${index - 1} and ${index} of ${history.map(roleOf).join(", ")}`,
          );
      }
    }
  }

  // Events: every status event from the start; the stream ends by itself once a task is final.
  await eachLimited(ids, 10, async (id) => {
    if (budget.left() < 1500) return;
    // A task that is not final keeps its stream open: read what is there for a second only.
    const final = FINAL.has(states.get(id)?.json?.status);
    const sse = await readSse(`${ctx.gateway.url}/v1/tasks/${id}/events?after=0`, {
      headers: auth,
      timeoutMs: Math.min(final ? 3000 : 1000, budget.left() - 1000),
    });
    if (sse.error && (final || sse.error !== "timeout")) report.eventReadErrors++;
    const statuses = sse.frames.filter((frame) => frame.event === "status").map((frame) => frameJson(frame));
    let duplicates = 0;
    for (let index = 1; index < statuses.length; index++) {
      if (statuses[index]?.status !== undefined && statuses[index]?.status === statuses[index - 1]?.status)
        duplicates++;
    }
    if (duplicates > 0) {
      report.duplicateStatusEvents += duplicates;
      report.duplicateStatusTasks++;
      if (report.duplicateStatusExamples.length < 3)
        report.duplicateStatusExamples.push(`${id}: ${statuses.map((status) => status?.status).join(" → ")}`);
    }
  });

  // The upstream's call log: the same conversation and message count twice is a step run twice.
  const taskCalls = (await ctx.upstream.calls()).filter((call) =>
    call.conversation.startsWith(`task:lt-${run}-`),
  );
  report.upstreamCalls = taskCalls.length;
  report.callsAfterFinal = taskCalls.filter((call) => call.afterFinal).length;
  const byKey = new Map();
  const byTask = new Map();
  for (const call of taskCalls) {
    byKey.set(call.key, (byKey.get(call.key) ?? 0) + 1);
    const task = call.conversation.replace(/^task:/, "");
    byTask.set(task, [...(byTask.get(task) ?? []), call.messages]);
  }
  // A demo task needs two calls (with 2 and 4 messages): more means a step ran on a history it should not have.
  for (const id of ids) {
    const counts = byTask.get(id) ?? [];
    report.callsPerTask[counts.length] = (report.callsPerTask[counts.length] ?? 0) + 1;
    if (counts.length > 2 && report.extraCallExamples.length < 3)
      report.extraCallExamples.push(
        `${id} (${states.get(id)?.json?.status}): calls with ${counts.join(", ")} messages`,
      );
  }
  for (const [key, times] of byKey) {
    if (times < 2) continue;
    report.doubleExecuted += times - 1;
    if (report.doubleExamples.length < 3)
      report.doubleExamples.push(`${key.replace(/^task:/, "")} ×${times}`);
  }
  // A model call on a conversation that already ended in its final answer runs the finished step again (on
  // a longer history, so its key differs): it counts as double execution too.
  report.doubleExecuted += report.callsAfterFinal;
  return report;
}

/** A history message in short: its role, `+calls` / `+results` when it has tool calls / results. */
function roleOf(message) {
  let text = String(message?.role);
  if (message?.toolCalls?.length) text += "+calls";
  if (message?.toolResults?.length) text += "+results";
  return text;
}

/** An assistant message's content and tool calls (names and arguments), as one comparable string. */
function assistantTurn(message) {
  return JSON.stringify({
    content: message.content,
    toolCalls: (message.toolCalls ?? []).map((call) => [call.name, call.arguments]),
  });
}
