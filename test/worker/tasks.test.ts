/**
 * Agent tasks in the TaskObject Durable Object of the deployed Worker (its TASKS binding, through
 * `exports.default.fetch`), on the `demo` workflow: one model call per alarm, history persisted after each
 * step; pause at the next boundary, resume from the stored history, abort for good, an evicted object that
 * carries on, and the resumable event stream.
 *
 * Alarms are held (see `holdAlarms` in helpers.ts) so each step runs when the test says, via
 * `runDurableObjectAlarm`.
 */
import { evictDurableObject, runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Provider } from "../../src/core/provider.ts";
import { ProviderError } from "../../src/core/provider-error.ts";
import { demoProvider, demoWorkflow } from "../../src/worker/demo.ts";
import type { TaskEvent, TaskState } from "../../src/worker/task-object.ts";
import {
  api,
  control,
  holdAlarms,
  parseSse,
  readSse,
  runAlarm,
  type SseFrame,
  stubOf,
  useRuntime,
  waitFor,
} from "./helpers.ts";

const INPUT = "hello there";

async function start(id: string, input: string = INPUT): Promise<TaskState> {
  const response = await api("/v1/tasks", { json: { workflow: "demo", input, id } });
  expect(response.status).toBe(201);
  return (await response.json()) as TaskState;
}

async function task(id: string): Promise<TaskState> {
  const response = await api(`/v1/tasks/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as TaskState;
}

async function events(id: string, after?: number): Promise<TaskEvent[]> {
  const response = await api(
    `/v1/tasks/${id}/events`,
    after === undefined ? {} : { headers: { "last-event-id": String(after) } },
  );
  expect(response.status).toBe(200);
  return framesToEvents(await readSse(response));
}

function framesToEvents(frames: readonly SseFrame[]): TaskEvent[] {
  return frames.map((frame) => ({
    id: Number(frame.id),
    type: frame.event!,
    data: JSON.parse(frame.data) as unknown,
  }));
}

type Message = {
  role: string;
  content?: string;
  toolCalls?: { id: string }[];
  toolResults?: { callId: string }[];
};

/**
 * The whole demo conversation, each step exactly once: system, user, the model's tool call, the tool's
 * result, the closing answer.
 */
function expectCompleteHistory(state: TaskState, input: string = INPUT) {
  const history = state.history as Message[];
  expect(history.map((message) => message.role)).toEqual([
    "system",
    "user",
    "assistant",
    "tool",
    "assistant",
  ]);
  expect(history[0]).toMatchObject({ content: demoWorkflow.system });
  expect(history[1]).toMatchObject({ content: input });
  expect(history[2]).toMatchObject({
    content: "Let me use shout.",
    toolCalls: [{ name: "shout", arguments: { text: input } }],
  });
  const callId = history[2]!.toolCalls![0]!.id;
  expect(history[3]).toMatchObject({
    toolResults: [{ callId, name: "shout", content: input.toUpperCase(), isError: false }],
  });
  expect(history[4]).toMatchObject({ content: `Done. The tool said: ${input.toUpperCase()}`, toolCalls: [] });
  const calls = history.flatMap((message) => message.toolCalls ?? []).filter((call) => call.id === callId);
  const results = history
    .flatMap((message) => message.toolResults ?? [])
    .filter((result) => result.callId === callId);
  expect(calls).toHaveLength(1);
  expect(results).toHaveLength(1);
  expect(state).toMatchObject({ status: "done", steps: 2, usage: { outputTokens: 24 } });
}

/** Step events carry step numbers: every step must be reported exactly once. */
async function expectStepsReportedOnce(id: string) {
  const all = await events(id);
  expect(
    all.filter((event) => event.type === "step").map((event) => (event.data as { step: number }).step),
  ).toEqual([1, 2]);
  expect(all.filter((event) => event.type === "tool-results")).toHaveLength(1);
}

describe("tasks on the demo workflow", () => {
  it("start, then one step per alarm, to done with the full history", async () => {
    const id = "task-run";
    const stub = stubOf(id);
    await holdAlarms(stub);
    const started = await start(id);
    expect(started).toMatchObject({ id, workflow: "demo", status: "running", steps: 0, usage: {} });
    expect(started.history).toEqual([
      { role: "system", content: demoWorkflow.system },
      { role: "user", content: INPUT },
    ]);
    // Still nothing run: the alarm is held.
    expect((await task(id)).steps).toBe(0);

    expect(await runAlarm(stub)).toBe(true);
    const first = await task(id);
    expect(first).toMatchObject({ status: "running", steps: 1, usage: { outputTokens: 12 } });
    expect((first.history as Message[]).map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
    ]);

    expect(await runAlarm(stub)).toBe(true);
    expectCompleteHistory(await task(id));
    // Done: no further alarm.
    expect(await runAlarm(stub)).toBe(false);
    await expectStepsReportedOnce(id);
  });

  it("runs to the end on its own when nobody holds the alarms", async () => {
    const id = "task-free";
    await start(id, "free run");
    const done = await waitFor(async () => {
      const state = await task(id);
      return state.status === "done" ? state : undefined;
    });
    expectCompleteHistory(done, "free run");
  });

  it("paused right after start: the alarm makes no progress; resumed, it completes with nothing lost", async () => {
    const id = "task-pause-early";
    const stub = stubOf(id);
    await holdAlarms(stub);
    await start(id);
    const paused = await control(id, "pause");
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({ status: "paused", steps: 0 });
    // Pausing twice is harmless.
    expect((await control(id, "pause")).status).toBe(200);

    expect(await runAlarm(stub)).toBe(true);
    const still = await task(id);
    expect(still).toMatchObject({ status: "paused", steps: 0 });
    expect(still.history).toHaveLength(2);
    expect(await runAlarm(stub)).toBe(false);

    const resumed = await control(id, "resume");
    expect(resumed.status).toBe(200);
    expect(await resumed.json()).toMatchObject({ status: "running", steps: 0 });
    expect(await runAlarm(stub)).toBe(true);
    expect(await runAlarm(stub)).toBe(true);
    expectCompleteHistory(await task(id));
    await expectStepsReportedOnce(id);
    const statuses = (await events(id)).filter((event) => event.type === "status").map((event) => event.data);
    expect(statuses).toMatchObject([
      { status: "running" },
      { status: "paused" },
      { status: "running" },
      { status: "done" },
    ]);
  });

  it("a pause arriving while the model call is in flight stops at the next boundary (before the tools)", async () => {
    const id = "task-pause-in-flight";
    const stub = stubOf(id);
    await holdAlarms(stub);
    // The gate is polled with timers inside the object: a promise resolved from the test's context would
    // run the object's continuation in the wrong I/O context.
    const inner = demoProvider();
    let released = false;
    let modelCalls = 0;
    const gated: Provider = {
      ...inner,
      async *stream(messages, tools, options) {
        modelCalls++;
        while (!released) await new Promise((resolve) => setTimeout(resolve, 2));
        yield* inner.stream(messages, tools, options);
      },
    };
    await useRuntime(id, {
      workflow: (name) => (name === "demo" ? demoWorkflow : undefined),
      provider: () => gated,
    });
    await start(id);

    const step = runAlarm(stub);
    await waitFor(() => modelCalls === 1);
    const paused = await control(id, "pause");
    expect(paused.status).toBe(200);
    expect(await paused.json()).toMatchObject({ status: "paused", steps: 0 });
    released = true;
    expect(await step).toBe(true);

    // The model call that was in flight is kept; the tool batch after it did not run.
    const state = await task(id);
    expect(state).toMatchObject({ status: "paused", steps: 1 });
    expect((state.history as Message[]).map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
    ]);
    expect(await runAlarm(stub)).toBe(false);

    expect((await control(id, "resume")).status).toBe(200);
    // The resumed step runs the pending tool call first, then the next model call.
    expect(await runAlarm(stub)).toBe(true);
    expectCompleteHistory(await task(id));
    expect(modelCalls).toBe(2);
    await expectStepsReportedOnce(id);
  });

  it("a tool that pauses its own task through the API: the task stops after that tool batch", async () => {
    const id = "task-pause-from-tool";
    const stub = stubOf(id);
    await holdAlarms(stub);
    const pauseReplies: unknown[] = [];
    const shout = demoWorkflow.tools![0]!;
    await useRuntime(id, {
      workflow: (name) =>
        name === "demo"
          ? {
              ...demoWorkflow,
              tools: [
                {
                  ...shout,
                  async execute(args, context) {
                    const response = await control(id, "pause");
                    pauseReplies.push({ status: response.status, body: await response.json() });
                    return shout.execute(args, context);
                  },
                },
              ],
            }
          : undefined,
      provider: () => demoProvider(),
    });
    await start(id);

    expect(await runAlarm(stub)).toBe(true);
    expect(pauseReplies).toMatchObject([{ status: 200, body: { status: "paused" } }]);
    const state = await task(id);
    expect(state).toMatchObject({ status: "paused", steps: 1 });
    expect((state.history as Message[]).map((message) => message.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
    ]);
    expect(await runAlarm(stub)).toBe(false);
    expect((await task(id)).steps).toBe(1);

    expect((await control(id, "resume")).status).toBe(200);
    expect(await runAlarm(stub)).toBe(true);
    expectCompleteHistory(await task(id));
    expect(pauseReplies).toHaveLength(1);
  });

  it("abort is final: resume and pause answer 409, the alarm makes no progress", async () => {
    const id = "task-abort";
    const stub = stubOf(id);
    await holdAlarms(stub);
    await start(id);
    expect(await runAlarm(stub)).toBe(true);
    const aborted = await control(id, "abort");
    expect(aborted.status).toBe(200);
    expect(await aborted.json()).toMatchObject({ status: "aborted", steps: 1 });

    for (const action of ["resume", "pause"] as const) {
      const response = await control(id, action);
      expect(response.status, action).toBe(409);
      expect(await response.json()).toMatchObject({ error: { kind: "conflict" } });
    }
    // The next step was already scheduled: it runs and does nothing.
    expect(await runAlarm(stub)).toBe(true);
    expect(await task(id)).toMatchObject({ status: "aborted", steps: 1 });
    expect(await runAlarm(stub)).toBe(false);
    // Aborting again is harmless; starting the same id again is a conflict.
    expect((await control(id, "abort")).status).toBe(200);
    const again = await api("/v1/tasks", { json: { workflow: "demo", input: INPUT, id } });
    expect(again.status).toBe(409);
    expect((await events(id)).at(-1)).toMatchObject({ type: "status", data: { status: "aborted" } });
  });

  it("a paused task can be aborted", async () => {
    const id = "task-abort-paused";
    const stub = stubOf(id);
    await holdAlarms(stub);
    await start(id);
    expect((await control(id, "pause")).status).toBe(200);
    expect((await control(id, "abort")).status).toBe(200);
    expect((await control(id, "resume")).status).toBe(409);
    expect(await runAlarm(stub)).toBe(true);
    expect(await task(id)).toMatchObject({ status: "aborted", steps: 0 });
  });

  it("concurrent pause and resume requests are serialised: every status change is a real transition", async () => {
    const id = "task-concurrent";
    const stub = stubOf(id);
    await holdAlarms(stub);
    await start(id);
    const actions = ["pause", "resume", "pause", "resume", "pause", "pause", "resume", "pause"] as const;
    const replies = await Promise.all(actions.map((action) => control(id, action)));
    for (const reply of replies) expect([200, 409]).toContain(reply.status);

    // The task is not final, so its SSE would stay open: read the stored events over RPC.
    const stored = (
      await (
        stub as unknown as { events(after: number): Promise<{ value: { events: TaskEvent[] } }> }
      ).events(0)
    ).value.events;
    const statuses = stored
      .filter((event) => event.type === "status")
      .map((event) => (event.data as { status: string }).status);
    expect(statuses[0]).toBe("running");
    for (let index = 1; index < statuses.length; index++)
      expect(statuses[index]).not.toBe(statuses[index - 1]);
    expect((await task(id)).status).toBe(statuses.at(-1));
    // Whatever the order was, the task finishes intact.
    if (statuses.at(-1) === "paused") expect((await control(id, "resume")).status).toBe(200);
    while (await runAlarm(stub)) {}
    expectCompleteHistory(await task(id));
  });

  it("an evicted object carries on from its stored history", async () => {
    const id = "task-evicted";
    const stub = stubOf(id);
    await holdAlarms(stub);
    await start(id);
    expect(await runAlarm(stub)).toBe(true);
    const before = await task(id);
    expect(before.steps).toBe(1);

    await evictDurableObject(stub);
    expect(await task(id)).toEqual(before);
    // The new instance is not held: its pending alarm is run directly.
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const done = await task(id);
    expectCompleteHistory(done);
    expect(done.history.slice(0, 4)).toEqual(before.history);
    await expectStepsReportedOnce(id);
  });

  it("paused, evicted, resumed: the task completes on its own alarms with nothing lost", async () => {
    const id = "task-evicted-paused";
    const stub = stubOf(id);
    await holdAlarms(stub);
    await start(id);
    expect(await runAlarm(stub)).toBe(true);
    expect((await control(id, "pause")).status).toBe(200);
    await evictDurableObject(stub);
    expect(await task(id)).toMatchObject({ status: "paused", steps: 1 });
    expect((await control(id, "resume")).status).toBe(200);
    const done = await waitFor(async () => {
      const state = await task(id);
      return state.status === "done" ? state : undefined;
    });
    expectCompleteHistory(done);
    await expectStepsReportedOnce(id);
  });

  it("a retryable provider failure is tried again on a later alarm, the history untouched", async () => {
    const id = "task-retry";
    const stub = stubOf(id);
    await holdAlarms(stub);
    const inner = demoProvider();
    let modelCalls = 0;
    await useRuntime(id, {
      workflow: (name) => (name === "demo" ? demoWorkflow : undefined),
      provider: () => ({
        ...inner,
        async *stream(messages, tools, options) {
          modelCalls++;
          if (modelCalls === 1)
            throw new ProviderError({
              kind: "overloaded",
              message: "anthropic 529: Overloaded",
              status: 529,
              retryAfterMs: 0,
              provider: "anthropic",
              model: "claude-sonnet-4-5",
            });
          yield* inner.stream(messages, tools, options);
        },
      }),
    });
    await start(id);
    expect(await runAlarm(stub)).toBe(true);
    const after = await task(id);
    expect(after).toMatchObject({ status: "running", steps: 0 });
    expect(after.history).toHaveLength(2);
    expect(await runAlarm(stub)).toBe(true);
    expect(await runAlarm(stub)).toBe(true);
    expectCompleteHistory(await task(id));
    const all = await events(id);
    expect(all.filter((event) => event.type === "retry")).toMatchObject([
      { data: { error: { kind: "overloaded", status: 529 } } },
    ]);
  });

  it("a non-retryable provider failure ends the task as failed, with the error", async () => {
    const id = "task-failed";
    const stub = stubOf(id);
    await holdAlarms(stub);
    await useRuntime(id, {
      workflow: (name) => (name === "demo" ? demoWorkflow : undefined),
      provider: () => ({
        ...demoProvider(),
        // biome-ignore lint/correctness/useYield: fails before its first event
        async *stream() {
          throw new ProviderError({
            kind: "context_length",
            message: "prompt is too long",
            status: 400,
            provider: "anthropic",
            model: "claude-sonnet-4-5",
          });
        },
      }),
    });
    await start(id);
    expect(await runAlarm(stub)).toBe(true);
    const state = await task(id);
    expect(state).toMatchObject({
      status: "failed",
      steps: 0,
      error: { kind: "context_length", status: 400 },
    });
    expect(state.history).toHaveLength(2);
    expect(await runAlarm(stub)).toBe(false);
    expect((await control(id, "resume")).status).toBe(409);
    expect((await events(id)).at(-1)).toMatchObject({ type: "status", data: { status: "failed" } });
  });

  it("unknown tasks: 404 on every task route", async () => {
    for (const [method, path] of [
      ["GET", "/v1/tasks/no-such-task"],
      ["GET", "/v1/tasks/no-such-task/events"],
      ["POST", "/v1/tasks/no-such-task/pause"],
      ["POST", "/v1/tasks/no-such-task/resume"],
      ["POST", "/v1/tasks/no-such-task/abort"],
    ] as const) {
      const response = await api(path, { method });
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ error: { kind: "not_found" } });
    }
  });
});

describe("GET /v1/tasks/:id/events", () => {
  it("replays every event of a finished task, then resumes after Last-Event-ID", async () => {
    const id = "task-events-replay";
    await start(id);
    await waitFor(async () => (await task(id)).status === "done");
    const all = await events(id);
    expect(all.map((event) => event.id)).toEqual(all.map((_, index) => index + 1));
    expect(all.map((event) => event.type)).toEqual(["status", "step", "tool-results", "step", "status"]);
    expect(all[0]!.data).toEqual({ status: "running" });
    expect(all[1]!.data).toMatchObject({ step: 1, text: "Let me use shout.", stopReason: "tool-calls" });
    expect(all[4]!.data).toMatchObject({ status: "done", steps: 2 });

    expect(await events(id, 2)).toEqual(all.slice(2));
    expect(await events(id, all.length)).toEqual([]);
    const byQuery = await api(`/v1/tasks/${id}/events?after=3`);
    expect(framesToEvents(await readSse(byQuery))).toEqual(all.slice(3));
  });

  it("follows a running task live; a client that reconnects with Last-Event-ID misses nothing", async () => {
    const id = "task-events-live";
    const stub = stubOf(id);
    await holdAlarms(stub);
    await start(id);

    // First connection: read until the first frame, then drop it.
    const first = await api(`/v1/tasks/${id}/events?poll=20`);
    expect(first.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const reader = first.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    await reader.cancel();
    const seen = framesToEvents(parseSse(text.slice(0, text.lastIndexOf("\n\n") + 2)));
    expect(seen[0]).toMatchObject({ id: 1, type: "status", data: { status: "running" } });

    // The task moves on while nobody is connected, and after the reconnect.
    expect(await runAlarm(stub)).toBe(true);
    const second = await api(`/v1/tasks/${id}/events?poll=20`, {
      headers: { "last-event-id": String(seen.at(-1)!.id) },
    });
    const rest = second.text();
    expect(await runAlarm(stub)).toBe(true);
    const resumed = framesToEvents(parseSse(await rest));
    // The stream closed by itself once the task was final; together the two connections saw everything once.
    expect([...seen, ...resumed]).toEqual(await events(id));
    expect(resumed.at(-1)).toMatchObject({ type: "status", data: { status: "done" } });
  });
});
