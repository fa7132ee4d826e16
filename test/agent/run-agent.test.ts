import { describe, expect, it } from "vitest";
import { type AgentEvent, type AgentTool, runAgent } from "../../src/agent/run-agent.ts";
import { toolOutput } from "../../src/agent/tool-output.ts";
import { ProviderError } from "../../src/core/provider-error.ts";
import { FakeProvider } from "../../src/testing.ts";

const add: AgentTool = {
  name: "add",
  parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } },
  execute: (args) => Number(args.a) + Number(args.b),
};
const fail: AgentTool = {
  name: "fail",
  execute: () => {
    throw new Error("disk on fire");
  },
};

describe("runAgent", () => {
  it("runs requested tools in parallel, feeds results back with their ids, and stops when the model does", async () => {
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: AgentTool = {
      name: "slow",
      execute: async (args) => {
        started.push(String(args.n));
        if (started.length === 2) release();
        await gate; // both calls must have started before either finishes: they run in parallel
        return `done ${args.n}`;
      },
    };
    const provider = new FakeProvider({
      script: [
        {
          toolCalls: [
            { id: "c1", name: "slow", arguments: { n: 1 } },
            { id: "c2", name: "slow", arguments: { n: 2 } },
          ],
          usage: { inputTokens: 10, outputTokens: 5 },
        },
        { text: "both done", usage: { inputTokens: 20, outputTokens: 3, reasoningTokens: 0 } },
      ],
    });
    const result = await runAgent({ provider, tools: [slow], messages: [{ role: "user", content: "go" }] });
    expect(result.status).toBe("done");
    expect(result.steps).toBe(2);
    expect(result.usage).toEqual({ inputTokens: 30, outputTokens: 8, reasoningTokens: 0 });
    expect(result.response?.message.content).toBe("both done");
    expect(provider.calls[1]!.messages.at(-1)).toMatchObject({
      role: "tool",
      toolResults: [
        { callId: "c1", content: "done 1", isError: false },
        { callId: "c2", content: "done 2", isError: false },
      ],
    });
  });

  it("passes a toolOutput's parts and error flag on as the result (a plain object still goes as JSON)", async () => {
    const png = "iVBORw0KGgo=";
    const tools: AgentTool[] = [
      { name: "shot", execute: () => toolOutput([{ type: "image", mediaType: "image/png", data: png }]) },
      { name: "soft", execute: () => toolOutput("not found", { isError: true }) },
      { name: "plain", execute: () => ({ content: "x", isError: true }) },
    ];
    const provider = new FakeProvider({
      script: [
        {
          toolCalls: [
            { id: "a", name: "shot", arguments: {} },
            { id: "b", name: "soft", arguments: {} },
            { id: "c", name: "plain", arguments: {} },
          ],
        },
        { text: "ok" },
      ],
    });
    const result = await runAgent({ provider, tools, messages: [{ role: "user", content: "go" }] });
    expect(provider.calls[1]!.messages.at(-1)!.toolResults).toEqual([
      {
        callId: "a",
        name: "shot",
        content: [{ type: "image", mediaType: "image/png", data: png }],
        isError: false,
      },
      { callId: "b", name: "soft", content: "not found", isError: true },
      { callId: "c", name: "plain", content: '{"content":"x","isError":true}', isError: false },
    ]);
    expect(result.status).toBe("done");
  });

  it("turns a tool's exception and an unknown tool into error results the model sees", async () => {
    const provider = new FakeProvider({
      script: [
        {
          toolCalls: [
            { id: "a", name: "fail", arguments: {} },
            { id: "b", name: "nope", arguments: {} },
            { id: "c", name: "add", arguments: { a: 2, b: 3 } },
          ],
        },
        { text: "sorry" },
      ],
    });
    const result = await runAgent({
      provider,
      tools: [add, fail],
      messages: [{ role: "user", content: "x" }],
    });
    expect(result.status).toBe("done");
    expect(provider.calls[1]!.messages.at(-1)!.toolResults).toEqual([
      { callId: "a", name: "fail", content: "disk on fire", isError: true },
      { callId: "b", name: "nope", content: 'Unknown tool "nope"', isError: true },
      { callId: "c", name: "add", content: "5", isError: false },
    ]);
  });

  it("stops at maxSteps", async () => {
    const loop = { toolCalls: [{ id: "x", name: "add", arguments: { a: 1, b: 1 } }] };
    const provider = new FakeProvider({ script: [loop, loop, loop] });
    const result = await runAgent({
      provider,
      tools: [add],
      messages: [{ role: "user", content: "x" }],
      maxSteps: 2,
    });
    expect(result.status).toBe("max-steps");
    expect(result.steps).toBe(2);
    expect(provider.calls).toHaveLength(2);
  });

  it("pauses before the tool batch and resumes by running the pending tools first, losing nothing", async () => {
    const provider = new FakeProvider({
      script: [{ toolCalls: [{ id: "t1", name: "add", arguments: { a: 20, b: 22 } }] }, { text: "42" }],
    });
    let status: unknown = "running";
    const events: AgentEvent[] = [];
    const first = await runAgent({
      provider,
      tools: [add],
      messages: [{ role: "user", content: "20+22?" }],
      // A database row, the shape hosts really store.
      pause: () => ({ id: 7, status }),
      onEvent: (event) => {
        events.push(event);
        if (event.type === "model-response") status = "suspended";
      },
    });
    expect(first.status).toBe("paused");
    expect(events.at(-1)).toEqual({ type: "paused", step: 1, boundary: "tools" });
    expect(first.messages.at(-1)).toMatchObject({ role: "assistant", toolCalls: [{ id: "t1" }] });

    status = "running";
    const resumed = await runAgent({
      provider,
      tools: [add],
      messages: first.messages,
      pause: () => ({ status }),
    });
    expect(resumed.status).toBe("done");
    expect(resumed.response?.message.content).toBe("42");
    expect(provider.calls[1]!.messages.at(-1)).toMatchObject({
      role: "tool",
      toolResults: [{ callId: "t1", content: "42" }],
    });
    expect(provider.calls).toHaveLength(2);
  });

  it("pauses before a model call when the source says so from the start", async () => {
    const provider = new FakeProvider({ script: [{ text: "never" }] });
    const result = await runAgent({
      provider,
      messages: [{ role: "user", content: "x" }],
      pause: () => "paused",
    });
    expect(result.status).toBe("paused");
    expect(provider.calls).toHaveLength(0);
  });

  it("returns aborted (with the history so far) when the signal fires mid-call; other errors are thrown", async () => {
    const controller = new AbortController();
    const provider = new FakeProvider({ script: [{ text: "slow", delayMs: 10_000 }] });
    const pending = runAgent({
      provider,
      messages: [{ role: "user", content: "x" }],
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 5);
    const result = await pending;
    expect(result.status).toBe("aborted");
    expect(result.messages).toHaveLength(1);

    const broken = new FakeProvider({
      script: [
        { error: new ProviderError({ kind: "auth", message: "bad key", provider: "fake", model: "m" }) },
      ],
    });
    await expect(
      runAgent({ provider: broken, messages: [{ role: "user", content: "x" }] }),
    ).rejects.toMatchObject({ kind: "auth" });
  });

  it("reports model stream events as they arrive", async () => {
    const provider = new FakeProvider({ script: [{ text: "hello world", chunkSize: 5 }] });
    const texts: string[] = [];
    await runAgent({
      provider,
      messages: [{ role: "user", content: "x" }],
      onEvent: (event) => {
        if (event.type === "model-event" && event.event.type === "text-delta") texts.push(event.event.text);
      },
    });
    expect(texts).toEqual(["hello", " worl", "d"]);
  });
});

describe("runAgent pause sources", () => {
  it("an aborted status ends the run as aborted, not paused", async () => {
    const provider = new FakeProvider({ script: [{ text: "never" }] });
    const result = await runAgent({
      provider,
      messages: [{ role: "user", content: "x" }],
      pause: () => ({ status: "aborted" }),
    });
    expect(result.status).toBe("aborted");
    expect(provider.calls).toHaveLength(0);
  });
});
