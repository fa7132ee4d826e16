import { describe, expect, it } from "vitest";
import { collectStream, ProviderError, type StreamEvent } from "../../src/index.ts";
import { FakeProvider, FakeScriptExhaustedError } from "../../src/testing.ts";

async function drain(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const seen: StreamEvent[] = [];
  for await (const event of events) seen.push(event);
  return seen;
}

describe("FakeProvider", () => {
  it("answers in scripted order, across complete() and stream()", async () => {
    const fake = new FakeProvider({ script: [{ text: "one" }, { text: "two" }, { text: "three" }] });
    expect((await fake.complete([{ role: "user", content: "a" }])).message.content).toBe("one");
    const streamed = await collectStream(fake.stream([{ role: "user", content: "b" }]));
    expect(streamed.message.content).toBe("two");
    expect((await fake.complete([{ role: "user", content: "c" }])).message.content).toBe("three");
    expect(fake.remaining).toBe(0);
  });

  it("records every call: method, normalised messages, tools and options", async () => {
    const fake = new FakeProvider({ script: [{ text: "ok" }, { text: "ok" }] });
    const history = [{ role: "user" as const, content: "hi" }];
    await fake.complete(history, [{ name: "lookup", parameters: { type: "object", properties: {} } }], {
      maxTokens: 50,
      sessionId: "s1",
    });
    history.push({ role: "user", content: "mutated later" });
    await collectStream(fake.stream([{ role: "system", content: "be brief" }]));

    expect(fake.calls).toHaveLength(2);
    expect(fake.calls[0]).toMatchObject({
      method: "complete",
      messages: [{ role: "user", content: "hi", toolCalls: [], toolResults: [], synthetic: false }],
      tools: [{ name: "lookup" }],
      options: { maxTokens: 50, sessionId: "s1" },
    });
    // The record is a copy: mutating the caller's array afterwards does not rewrite it.
    expect(fake.calls[0]!.messages).toHaveLength(1);
    expect(fake.calls[1]).toMatchObject({
      method: "stream",
      messages: [{ role: "system", content: "be brief" }],
    });
  });

  it("fails clearly when the script runs out, naming the call", async () => {
    const fake = new FakeProvider({ script: [{ text: "only" }] });
    await fake.complete([{ role: "user", content: "1" }]);
    const error = await fake.complete([{ role: "user", content: "2" }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FakeScriptExhaustedError);
    expect(String((error as Error).message)).toMatch(/call #2 \(complete\).*only 1 step/);
    // Streams fail the same way, on first iteration.
    await expect(drain(fake.stream([]))).rejects.toBeInstanceOf(FakeScriptExhaustedError);
  });

  it("streams scripted events and throws the injected error mid-way, after the earlier events", async () => {
    const overloaded = new ProviderError({
      kind: "overloaded",
      message: "Overloaded",
      provider: "fake",
      model: "m",
    });
    const fake = new FakeProvider({
      script: [
        {
          events: [
            { type: "text-delta", text: "Hel" },
            { type: "text-delta", text: "lo" },
            { type: "text-delta", text: " never" },
          ],
          failAt: { at: 2, error: overloaded },
        },
      ],
    });
    const seen: StreamEvent[] = [];
    let caught: unknown;
    try {
      for await (const event of fake.stream([{ role: "user", content: "hi" }])) seen.push(event);
    } catch (error) {
      caught = error;
    }
    expect(seen).toEqual([
      { type: "text-delta", text: "Hel" },
      { type: "text-delta", text: "lo" },
    ]);
    expect(caught).toBe(overloaded);
  });

  it("complete() of a scripted stream with an injected error rejects with that error", async () => {
    const boom = new ProviderError({ kind: "server", message: "boom", provider: "fake", model: "m" });
    const fake = new FakeProvider({
      script: [{ events: [{ type: "text-delta", text: "x" }], failAt: { at: 1, error: boom } }],
    });
    await expect(fake.complete([])).rejects.toBe(boom);
  });

  it("a scripted failure throws before any output", async () => {
    const auth = new ProviderError({ kind: "auth", message: "bad key", provider: "fake", model: "m" });
    const fake = new FakeProvider({ script: [{ error: auth }, { error: auth }] });
    await expect(fake.complete([])).rejects.toBe(auth);
    await expect(drain(fake.stream([]))).rejects.toBe(auth);
  });

  it("stream() ends with the same response complete() returns for the same reply", async () => {
    const reply = {
      text: "Let me check. 🙂",
      reasoning: "The user wants weather.",
      toolCalls: [{ id: "call_1", name: "weather", arguments: { city: "Oslo" } }],
      usage: { inputTokens: 10, outputTokens: 5, reasoningTokens: 0 },
      chunkSize: 3,
    };
    const a = new FakeProvider({ script: [reply] });
    const b = new FakeProvider({ script: [reply] });
    const complete = await a.complete([{ role: "user", content: "?" }]);
    const events = await drain(b.stream([{ role: "user", content: "?" }]));
    const done = events.at(-1);
    expect(done?.type).toBe("done");
    expect(done?.type === "done" && done.response).toEqual(complete);
    expect(complete.stopReason).toBe("tool-calls");
    expect(complete.usage.reasoningTokens).toBe(0);
    // chunkSize splits on code points: the emoji is never cut in half.
    const texts = events.flatMap((event) => (event.type === "text-delta" ? [event.text] : []));
    expect(texts.join("")).toBe(reply.text);
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.every((text) => !/[\uD800-\uDBFF]$/.test(text))).toBe(true);
    expect(events.map((event) => event.type)).toEqual([
      "reasoning-delta",
      ...texts.map(() => "text-delta"),
      "tool-call-start",
      "tool-call-delta",
      "tool-call-end",
      "usage",
      "done",
    ]);
  });

  it("builds the done response from scripted events when the script has none", async () => {
    const fake = new FakeProvider({
      script: [
        {
          events: [
            { type: "text-delta", text: "a" },
            { type: "tool-call-start", index: 0, id: "t1", name: "f" },
            { type: "tool-call-delta", index: 0, id: "t1", argumentsDelta: '{"x":' },
            { type: "tool-call-delta", index: 0, id: "t1", argumentsDelta: "1}" },
            { type: "usage", usage: { inputTokens: 3 } },
          ],
        },
      ],
    });
    const response = await collectStream(fake.stream([]));
    expect(response.message).toMatchObject({
      role: "assistant",
      content: "a",
      toolCalls: [{ id: "t1", name: "f", arguments: { x: 1 }, argumentsText: '{"x":1}' }],
    });
    expect(response.usage).toEqual({ inputTokens: 3 });
    expect(response.stopReason).toBe("tool-calls");
  });

  it("computes a step from the call when the step is a function", async () => {
    const fake = new FakeProvider({
      script: [(call) => ({ text: `you said ${call.messages.at(-1)?.content}` })],
    });
    expect((await fake.complete([{ role: "user", content: "ping" }])).message.content).toBe("you said ping");
  });

  it("honours an abort signal during a delay, as a ProviderError of kind aborted", async () => {
    const fake = new FakeProvider({ script: [{ text: "slow", delayMs: 10_000 }] });
    const controller = new AbortController();
    const pending = fake.complete([], undefined, { signal: controller.signal });
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(ProviderError.is(error) && error.kind).toBe("aborted");
    expect((error as ProviderError).retryable).toBe(false);
  });

  it("delivers delayed stream events one at a time", async () => {
    const fake = new FakeProvider({
      script: [
        {
          events: [
            { type: "text-delta", text: "a" },
            { type: "text-delta", text: "b" },
          ],
          delayMs: 5,
        },
      ],
    });
    const iterator = fake.stream([])[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.value).toEqual({ type: "text-delta", text: "a" });
    await iterator.return?.();
  });
});
