/**
 * The read loop every stream assembler shares (src/protocols/deliver-batches.ts), driven by a toy
 * assembler: one read's events delivered together and before the next read, the "did content go out" flag
 * as `partialOutput` on the errors a stream raises, and the `truncated` error of a stream cut before its
 * terminal event.
 */
import { describe, expect, it } from "vitest";
import { type Response as ModelResponse, ProviderError, type StreamEvent } from "../../src/index.ts";
import {
  type BatchAssembler,
  deliverBatches,
  eventObject,
  pushText,
} from "../../src/protocols/deliver-batches.ts";

/** Items: "t:<text>" text, "u" usage, "stop" the terminal event, "over" the end of the stream without it, "fail", "boom". */
class ToyAssembler implements BatchAssembler {
  ended = false;
  stopped = false;
  readonly terminal = "the toy's stop";
  readonly context = { provider: "toy", model: "toy-1" };
  text = "";

  step(item: string, out: StreamEvent[]): void {
    if (item.startsWith("t:")) {
      this.text += item.slice(2);
      pushText(out, "text-delta", item.slice(2));
    } else if (item === "u") out.push({ type: "usage", usage: { inputTokens: 1 } });
    else if (item === "stop") this.ended = this.stopped = true;
    else if (item === "over") this.ended = true;
    else if (item === "fail")
      throw new ProviderError({ kind: "overloaded", message: "toy", provider: "toy", model: "toy-1" });
    else if (item === "boom") throw new TypeError("not a ProviderError");
  }

  finish(out: StreamEvent[]): ModelResponse {
    out.push({ type: "reasoning-delta", text: "closing" });
    return {
      message: { role: "assistant", content: this.text, toolCalls: [], toolResults: [], synthetic: false },
      usage: {},
      stopReason: "stop",
      model: "toy-1",
      provider: "toy",
    };
  }
}

/** The batches, recording how many reads were asked for when each event reached the consumer. */
async function run(batches: readonly (string | readonly string[])[]) {
  let reads = 0;
  async function* source() {
    for (const batch of batches) {
      reads++;
      yield batch;
    }
  }
  const assembler = new ToyAssembler();
  const seen: { event: StreamEvent; reads: number }[] = [];
  try {
    for await (const event of deliverBatches(source(), assembler, (item, out) => assembler.step(item, out)))
      seen.push({ event, reads });
  } catch (error) {
    return { seen, error };
  }
  return { seen, error: undefined };
}

describe("deliverBatches", () => {
  it("delivers one read's events together, merged, before the next read; done after the terminal event", async () => {
    const { seen, error } = await run([["u", "t:He", "t:llo"], "t:!", ["stop", "t:ignored"]]);
    expect(error).toBeUndefined();
    expect(seen.map(({ event, reads }) => [event.type, reads])).toEqual([
      ["usage", 1],
      ["text-delta", 1],
      ["text-delta", 2],
      ["reasoning-delta", 3],
      ["done", 3],
    ]);
    expect(seen[1]!.event).toEqual({ type: "text-delta", text: "Hello" });
    expect(seen.at(-1)!.event).toMatchObject({ type: "done", response: { message: { content: "Hello!" } } });
  });

  it("a ProviderError after content is partial, with the content of its own read delivered first", async () => {
    const { seen, error } = await run([["u", "t:a", "fail", "t:never"]]);
    expect(seen.map(({ event }) => event.type)).toEqual(["usage", "text-delta"]);
    expect(error).toMatchObject({ name: "ProviderError", kind: "overloaded", partialOutput: true });
  });

  it("before any content (usage is not content) it is not partial; other errors pass unchanged", async () => {
    expect((await run(["u", "fail"])).error).toMatchObject({ kind: "overloaded", partialOutput: false });
    const { error } = await run(["t:x", "boom"]);
    expect(error).toBeInstanceOf(TypeError);
  });

  it("a stream cut before its terminal event is truncated, partial once content went out", async () => {
    expect((await run(["u"])).error).toMatchObject({
      kind: "truncated",
      message: "toy stream ended before the toy's stop",
      provider: "toy",
      model: "toy-1",
      partialOutput: false,
      retryable: true,
    });
    // The wire said it is over (OpenRouter's [DONE]) without the terminal event: truncated too.
    expect((await run(["t:x", "over", "stop"])).error).toMatchObject({
      kind: "truncated",
      partialOutput: true,
    });
  });
});

describe("pushText and eventObject", () => {
  it("pushText appends to a piece of the same kind that ends out, else starts an event", () => {
    const out: StreamEvent[] = [];
    pushText(out, "text-delta", "a");
    pushText(out, "text-delta", "b");
    pushText(out, "reasoning-delta", "r");
    pushText(out, "text-delta", "c");
    expect(out).toEqual([
      { type: "text-delta", text: "ab" },
      { type: "reasoning-delta", text: "r" },
      { type: "text-delta", text: "c" },
    ]);
  });

  it("eventObject: an object, undefined for other JSON, invalid_response naming the event for non-JSON", () => {
    const source = { provider: "p", model: "m" };
    expect(eventObject('{"type":"ping"}', "ping", source)).toEqual({ type: "ping" });
    expect(eventObject("42", "ping", source)).toBeUndefined();
    expect(eventObject("null", undefined, source)).toBeUndefined();
    let error: unknown;
    try {
      eventObject("{nope", "content_block_delta", source);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({
      kind: "invalid_response",
      message: "p stream sent an event that is not JSON (content_block_delta)",
      upstreamBody: "{nope",
    });
  });
});
