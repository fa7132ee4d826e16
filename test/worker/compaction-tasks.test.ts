/**
 * A task whose workflow compacts (`Workflow.compaction`), in the TaskObject Durable Object: the step that
 * compacts replaces the stored history with the compacted one in its transaction and logs a `compaction`
 * event with the figures; a pause, an eviction (a restarted object) and a resume carry on from the
 * compacted history, which is never compacted or summarised again by the same step.
 */
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Workflow } from "../../src/agent/workflow.ts";
import { compaction } from "../../src/compaction/index.ts";
import { FakeProvider } from "../../src/core/fake-provider.ts";
import type { MessageInput } from "../../src/core/message.ts";
import { demoWorkflow } from "../../src/worker/demo.ts";
import type { TaskEvent, TaskRuntime, TaskState } from "../../src/worker/task-object.ts";
import { api, control, holdAlarms, readSse, runAlarm, stubOf, useRuntime, waitFor } from "./helpers.ts";

async function task(id: string): Promise<TaskState> {
  const response = await api(`/v1/tasks/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as TaskState;
}

async function events(id: string): Promise<TaskEvent[]> {
  const response = await api(`/v1/tasks/${id}/events`);
  return (await readSse(response)).map((frame) => ({
    id: Number(frame.id),
    type: frame.event!,
    data: JSON.parse(frame.data) as unknown,
  }));
}

/** 1,000 tokens a message the model or the user wrote, 100 a summary. */
const countTokens = (messages: readonly MessageInput[]) =>
  messages.reduce((sum, message) => sum + (message.synthetic ? 100 : 1000), 0);

function setup() {
  const call = (id: string) => ({ toolCalls: [{ id, name: "shout", arguments: { text: id } }] });
  const agent = new FakeProvider({ script: [call("c1"), call("c2"), call("c3"), { text: "All shouted." }] });
  const writer = new FakeProvider({
    script: [
      { text: "The user asked for shouting; c1 was shouted.", usage: { inputTokens: 40, outputTokens: 12 } },
    ],
  });
  const workflow: Workflow = {
    ...demoWorkflow,
    maxSteps: 8,
    // Over 5,500 tokens: six messages (6,000) are; system + summary + four (5,100) are not.
    compaction: compaction({ threshold: 5_500, keepTurns: 1, summarizer: writer, countTokens }),
  };
  const runtime: TaskRuntime = {
    workflow: (name) => (name === "demo" ? workflow : undefined),
    provider: () => agent,
  };
  return { agent, writer, runtime };
}

describe("tasks with compaction", () => {
  it("compacts at the threshold, stores the compacted history, and resumes from it after a pause and a restart", async () => {
    const id = "task-compact";
    const stub = stubOf(id);
    const { agent, writer, runtime } = setup();
    await useRuntime(id, runtime);
    await holdAlarms(stub);
    const started = await api("/v1/tasks", { json: { workflow: "demo", input: "shout three times", id } });
    expect(started.status).toBe(201);

    // Steps 1 and 2: under the threshold (2,000 then 4,000 tokens).
    expect(await runAlarm(stub)).toBe(true);
    expect(await runAlarm(stub)).toBe(true);
    expect((await task(id)).history).toHaveLength(6);
    expect(writer.calls).toHaveLength(0);

    // Step 3: 6,000 tokens — the system prompt stays, the user turn and the first tool turn become the
    // summary, the second tool turn stays verbatim; then the model's third call and its result.
    expect(await runAlarm(stub)).toBe(true);
    expect(writer.calls).toHaveLength(1);
    const compacted = await task(id);
    expect(compacted).toMatchObject({ status: "running", steps: 3 });
    const history = compacted.history as (MessageInput & { content: string })[];
    expect(history.map((message) => [message.role, message.synthetic ?? false])).toEqual([
      ["system", false],
      ["user", true],
      ["assistant", false],
      ["tool", false],
      ["assistant", false],
      ["tool", false],
    ]);
    expect(history[1]!.content).toContain("The user asked for shouting; c1 was shouted.");
    expect(history[2]!.toolCalls).toMatchObject([{ id: "c2" }]);
    expect(history[3]!.toolResults).toMatchObject([{ callId: "c2", content: "C2" }]);
    expect(history[5]!.toolResults).toMatchObject([{ callId: "c3", content: "C3" }]);
    // The model's third call was sent the compacted history.
    expect(agent.calls[2]!.messages.map((message) => message.synthetic)).toEqual([false, true, false, false]);

    // Paused, the object restarted (evicted: a new instance, its state from SQLite), resumed.
    expect((await control(id, "pause")).status).toBe(200);
    await evictDurableObject(stub);
    expect((await task(id)).history).toEqual(compacted.history);
    await useRuntime(id, runtime);
    await holdAlarms(stub);
    expect((await control(id, "resume")).status).toBe(200);
    expect(await runAlarm(stub)).toBe(true);

    // Step 4 went from the stored compacted history (5,100 tokens: no second compaction).
    expect(agent.calls[3]!.messages).toHaveLength(6);
    expect(agent.calls[3]!.messages[1]!.synthetic).toBe(true);
    expect(writer.calls).toHaveLength(1);
    const done = await task(id);
    expect(done).toMatchObject({ status: "done", steps: 4 });
    expect(done.history).toHaveLength(7);
    expect(done.history.slice(0, 6)).toEqual(compacted.history);
    expect(done.history[6]).toMatchObject({ role: "assistant", content: "All shouted." });
    const all = await events(id);
    expect(
      all.filter((event) => event.type === "step").map((event) => (event.data as { step: number }).step),
    ).toEqual([1, 2, 3, 4]);
    const logged = all.filter((event) => event.type === "compaction");
    expect(logged).toHaveLength(1);
    expect(logged[0]!.data).toMatchObject({
      strategy: "summary",
      reason: "fit",
      counted: "custom",
      limit: 5_500,
      tokensBefore: 6_000,
      tokensAfter: 3_100,
      tokensReclaimed: 2_900,
      messagesReplaced: 3,
      divergeAt: 1,
      summaryUsage: { inputTokens: 40, outputTokens: 12 },
    });
  });

  it("an abort during the summary call keeps nothing of the step: the stored history is not compacted", async () => {
    const id = "task-compact-abort";
    const stub = stubOf(id);
    const { runtime } = setup();
    let summaryCalls = 0;
    let released = false;
    const slowWriter = new FakeProvider({
      script: [
        async () => {
          summaryCalls++;
          // Polled with timers inside the object (see tasks.test.ts): the abort lands while this waits.
          while (!released) await new Promise((resolve) => setTimeout(resolve, 2));
          return { text: "too late" };
        },
      ],
    });
    const workflow: Workflow = {
      ...runtime.workflow("demo")!,
      compaction: compaction({ threshold: 1_500, keepTurns: 1, summarizer: slowWriter, countTokens }),
    };
    await useRuntime(id, { ...runtime, workflow: (name) => (name === "demo" ? workflow : undefined) });
    await holdAlarms(stub);
    await api("/v1/tasks", { json: { workflow: "demo", input: "go", id } });
    expect(await runAlarm(stub)).toBe(true);
    const before = await task(id);
    expect(before.history).toHaveLength(4);
    const step = runAlarm(stub);
    await waitFor(() => summaryCalls === 1);
    expect((await control(id, "abort")).status).toBe(200);
    released = true;
    await step;
    expect(summaryCalls).toBe(1);
    const after = await task(id);
    expect(after.status).toBe("aborted");
    expect(after.history).toEqual(before.history);
    expect((await events(id)).some((event) => event.type === "compaction")).toBe(false);
  });
});
