/**
 * The two stream rules of src/core/stream-guards.ts, on hand-made streams: `requireDone` (a stream ends
 * with `done`, else `truncated`) and `holdUntilContent` (switchable until the first content event, usage
 * held until then, `partialOutput` after).
 */
import { describe, expect, it } from "vitest";
import { ProviderError, type Response, type StreamEvent } from "../../src/index.ts";
import { holdUntilContent, requireDone } from "../../src/protocols/index.ts";
import { drainUntilError as drain } from "../substrate/helpers.ts";

const SOURCE = { provider: "anthropic", model: "claude-sonnet-4-5" };

const RESPONSE: Response = {
  message: { role: "assistant", content: "hi", toolCalls: [], toolResults: [], synthetic: false },
  usage: { inputTokens: 10, outputTokens: 1 },
  stopReason: "stop",
  model: "claude-sonnet-4-5",
  provider: "anthropic",
};

const USAGE: StreamEvent = { type: "usage", usage: { inputTokens: 10 } };
const TEXT: StreamEvent = { type: "text-delta", text: "hi" };
const DONE: StreamEvent = { type: "done", response: RESPONSE };

const overloaded = () =>
  new ProviderError({ kind: "overloaded", message: "Overloaded", provider: "anthropic", model: "m" });

/** A stream of `events`, then `end`: an error thrown, or nothing (it just stops). Records what happened. */
function script(events: readonly StreamEvent[], end?: unknown) {
  const log = { pulled: 0, closed: false };
  async function* stream(): AsyncGenerator<StreamEvent> {
    try {
      for (const event of events) {
        log.pulled++;
        yield event;
      }
      if (end !== undefined) throw end;
    } finally {
      log.closed = true;
    }
  }
  return { stream, log };
}

/** A deferred promise, to hand events to a stream one at a time. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

describe("requireDone", () => {
  it("passes a stream that ends with done through unchanged", async () => {
    const { stream } = script([USAGE, TEXT, DONE]);
    const { seen, error } = await drain(requireDone(stream(), SOURCE));
    expect(error).toBeUndefined();
    expect(seen).toEqual([USAGE, TEXT, DONE]);
  });

  it("stops at done: later events are never pulled, and the source is closed", async () => {
    const { stream, log } = script([TEXT, DONE, { type: "text-delta", text: "late" }]);
    const { seen } = await drain(requireDone(stream(), SOURCE));
    expect(seen).toEqual([TEXT, DONE]);
    expect(log).toEqual({ pulled: 2, closed: true });
  });

  it("a stream that ends without done after content is truncated, partialOutput, naming the source", async () => {
    const { stream } = script([USAGE, TEXT]);
    const { seen, error } = await drain(requireDone(stream(), SOURCE));
    expect(seen).toEqual([USAGE, TEXT]);
    expect(ProviderError.is(error)).toBe(true);
    expect(error).toMatchObject({
      kind: "truncated",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      partialOutput: true,
      retryable: true,
    });
  });

  it("a stream that ends without done after usage only (or nothing) is truncated without partialOutput", async () => {
    for (const events of [[USAGE], []]) {
      const { stream } = script(events);
      const { error } = await drain(requireDone(stream(), SOURCE));
      expect(error).toMatchObject({ kind: "truncated", partialOutput: false, provider: "anthropic" });
    }
  });

  it("the stream's own errors pass through as they are", async () => {
    const failure = overloaded();
    const { stream } = script([TEXT], failure);
    const { error } = await drain(requireDone(stream(), SOURCE));
    expect(error).toBe(failure);
    expect(failure.partialOutput).toBe(false);
  });
});

describe("holdUntilContent", () => {
  it("holds usage before the first content event and releases it, in order, with that event", async () => {
    const later: StreamEvent = { type: "usage", usage: { inputTokens: 10, outputTokens: 1 } };
    const { stream } = script([USAGE, { ...USAGE }, TEXT, later, DONE]);
    const events = await holdUntilContent(stream, SOURCE);
    const { seen, error } = await drain(events);
    expect(error).toBeUndefined();
    expect(seen).toEqual([USAGE, USAGE, TEXT, later, DONE]);
  });

  it("does not resolve while only usage has arrived; resolves with the first content event", async () => {
    const gate = deferred<void>();
    const log = { usageSent: false };
    async function* stream(): AsyncGenerator<StreamEvent> {
      yield USAGE;
      log.usageSent = true;
      await gate.promise;
      yield TEXT;
      yield DONE;
    }
    let resolved = false;
    const opening = holdUntilContent(stream, SOURCE).then((events) => {
      resolved = true;
      return events;
    });
    // Let the usage event be read (it is pulled; the stream then waits at the gate).
    while (!log.usageSent) await Promise.resolve();
    for (let turn = 0; turn < 10; turn++) await Promise.resolve();
    expect(resolved).toBe(false);
    gate.resolve();
    const { seen } = await drain(await opening);
    expect(resolved).toBe(true);
    expect(seen).toEqual([USAGE, TEXT, DONE]);
  });

  it("an error after usage only rejects with the original error: nothing went out, the caller may switch", async () => {
    const failure = overloaded();
    const { stream, log } = script([USAGE], failure);
    const rejected = await holdUntilContent(stream, SOURCE).catch((error: unknown) => error);
    expect(rejected).toBe(failure);
    expect(failure.partialOutput).toBe(false);
    expect(log.closed).toBe(true);
  });

  it("a stream that ends after usage only, without done, rejects as truncated without partialOutput", async () => {
    const { stream } = script([USAGE]);
    const rejected = await holdUntilContent(stream, SOURCE).catch((error: unknown) => error);
    expect(rejected).toMatchObject({
      name: "ProviderError",
      kind: "truncated",
      partialOutput: false,
      provider: "anthropic",
      model: "claude-sonnet-4-5",
    });
  });

  it("an error after content carries partialOutput: true (and keeps its kind); the original is untouched", async () => {
    const failure = overloaded();
    const { stream } = script([USAGE, TEXT], failure);
    const { seen, error } = await drain(await holdUntilContent(stream, SOURCE));
    expect(seen).toEqual([USAGE, TEXT]);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ kind: "overloaded", message: "Overloaded", partialOutput: true });
    expect(failure.partialOutput).toBe(false);
  });

  it("reasoning and tool-call events are content too", async () => {
    for (const first of [
      { type: "reasoning-delta", text: "thinking" },
      { type: "tool-call-start", index: 0, id: "call_1", name: "lookup" },
    ] satisfies StreamEvent[]) {
      const { stream } = script([first], overloaded());
      const { seen, error } = await drain(await holdUntilContent(stream, SOURCE));
      expect(seen).toEqual([first]);
      expect(error).toMatchObject({ kind: "overloaded", partialOutput: true });
    }
  });

  it("a stream that ends without done after content is truncated with partialOutput", async () => {
    const { stream } = script([TEXT]);
    const { seen, error } = await drain(await holdUntilContent(stream, SOURCE));
    expect(seen).toEqual([TEXT]);
    expect(error).toMatchObject({ kind: "truncated", partialOutput: true, provider: "anthropic" });
  });

  it("an error that is not a ProviderError passes unchanged after content", async () => {
    const bug = new TypeError("a bug");
    const { stream } = script([TEXT], bug);
    const { error } = await drain(await holdUntilContent(stream, SOURCE));
    expect(error).toBe(bug);
  });

  it("done without any content resolves: the held usage, then done", async () => {
    const { stream, log } = script([USAGE, DONE]);
    const events = await holdUntilContent(stream, SOURCE);
    const { seen, error } = await drain(events);
    expect(error).toBeUndefined();
    expect(seen).toEqual([USAGE, DONE]);
    expect(log.closed).toBe(true);
  });

  it("an open() that throws at once rejects with its error", async () => {
    const failure = overloaded();
    const rejected = await holdUntilContent(() => {
      throw failure;
    }, SOURCE).catch((error: unknown) => error);
    expect(rejected).toBe(failure);
  });

  it("closing the resolved stream, even before reading it, closes the source", async () => {
    const unread = script([TEXT, { type: "text-delta", text: "more" }, DONE]);
    const events = await holdUntilContent(unread.stream, SOURCE);
    expect(unread.log.closed).toBe(false);
    await events.return?.();
    expect(unread.log).toEqual({ pulled: 1, closed: true });
    expect(await events.next()).toEqual({ done: true, value: undefined });

    const broken = script([TEXT, { type: "text-delta", text: "more" }, DONE]);
    for await (const event of await holdUntilContent(broken.stream, SOURCE)) {
      expect(event).toEqual(TEXT);
      break;
    }
    expect(broken.log).toEqual({ pulled: 1, closed: true });
  });
});
