/**
 * `checkedNativeEvents`: the upstream's events handed out as sent, in order, each only once the protocol's
 * assembler took it — an `error` event a ProviderError thrown after the events before it, a cut stream
 * `truncated` (never a clean end), `partialOutput` once content went out, the final Response to `done`,
 * and a ping before a silence sent before the silence, not with the next event.
 */
import { describe, expect, it } from "vitest";
import { type Response as ModelResponse, ProviderError, type StreamEvent } from "../../src/index.ts";
import { anthropicMessagesProtocol } from "../../src/protocols/anthropic-messages/index.ts";
import {
  checkedNativeEvents,
  type NativeEvent,
  sseNativeEvent,
  typeOfJson,
} from "../../src/providers/native.ts";
import { readSseBatches, type SseEvent } from "../../src/wire/sse.ts";
import { byteStream, controlledByteStream } from "../helpers/byte-stream.ts";
import { anthropicSse, drain, drainFailing, recording, sseEventsOf, textOf } from "./native.helpers.ts";

const CONTEXT = { provider: "anthropic", model: "claude-sonnet-4-5", origin: "anthropic" };
const encoder = new TextEncoder();

/** The native events of an Anthropic SSE body through the real Anthropic assembler. */
function anthropicNative(
  body: ReadableStream<Uint8Array>,
  done: (response: ModelResponse) => void = () => {},
) {
  return checkedNativeEvents(
    anthropicMessagesProtocol.readFrames(body),
    sseNativeEvent,
    (frames) => anthropicMessagesProtocol.assembleStream(frames, CONTEXT),
    (event) => {
      if (event.type === "done") done(event.response);
    },
  );
}

const START = {
  type: "message_start",
  message: {
    id: "msg_01",
    type: "message",
    role: "assistant",
    model: "claude-sonnet-4-5-20250929",
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 1 },
  },
};
const TEXT_EVENTS = [
  START,
  { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } },
  { type: "ping" },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Héllo " } },
  { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "wörld 🌍" } },
  { type: "content_block_stop", index: 0 },
  {
    type: "message_delta",
    delta: { stop_reason: "end_turn", stop_sequence: null },
    usage: { output_tokens: 7 },
  },
  { type: "message_stop" },
];
const OVERLOADED = { type: "error", error: { type: "overloaded_error", message: "Overloaded" } };

describe("checkedNativeEvents over a recorded Anthropic stream", () => {
  const path = "anthropic/pydantic-ai__test_anthropic_model_thinking_part_stream.yaml";

  for (const sizes of [undefined, [1], [7, 113, 2]] as const) {
    it(`the events out are the recording's, byte for byte, in order (reads of ${JSON.stringify(sizes ?? "all")} bytes)`, async () => {
      const body = (await recording(path)).body;
      const expected = sseEventsOf(textOf(body));
      // The recording pads its JSON with spaces: a re-serialised event would not match.
      expect(expected.some((event) => / {2,}\}$/.test(event.data))).toBe(true);
      const responses: ModelResponse[] = [];
      const events = await drain(
        anthropicNative(byteStream(body, sizes), (response) => responses.push(response)),
      );
      expect(events).toEqual(expected);
      // The assembled answer is handed to `done` once: the recording's usage and thinking.
      expect(responses).toHaveLength(1);
      const delta = JSON.parse(expected.find((event) => event.event === "message_delta")!.data) as {
        usage: { output_tokens: number };
      };
      expect(responses[0]!.usage?.outputTokens).toBe(delta.usage.output_tokens);
      const thinking = expected
        .filter((event) => event.event === "content_block_delta")
        .map((event) => JSON.parse(event.data) as { delta: { type: string; thinking?: string } })
        .filter((event) => event.delta.type === "thinking_delta")
        .map((event) => event.delta.thinking)
        .join("");
      expect(thinking.length).toBeGreaterThan(100);
      expect(responses[0]!.reasoning).toBe(thinking);
    });
  }
});

describe("checkedNativeEvents: each event out only once the assembler took it", () => {
  /** SSE frames; an assembler that takes a while over each one and records it once it is through. */
  function slow(events: readonly Record<string, unknown>[], failOn?: string) {
    const processed: string[] = [];
    async function* assemble(frames: AsyncIterable<SseEvent>): AsyncGenerator<StreamEvent, void, undefined> {
      for await (const frame of frames) {
        await new Promise((resolve) => setTimeout(resolve, 2));
        if (frame.event === failOn) {
          throw new ProviderError({
            kind: "server",
            message: "assembler refused",
            provider: "x",
            model: "m",
          });
        }
        processed.push(frame.data);
        if (frame.event === "content_block_delta") yield { type: "text-delta", text: "x" };
      }
      yield {
        type: "done",
        response: { message: { role: "assistant", content: "x", toolCalls: [] } } as never,
      };
    }
    const out = checkedNativeEvents(
      readSseBatches(byteStream(encoder.encode(anthropicSse(events)))),
      sseNativeEvent,
      assemble,
      () => {},
    );
    return { out, processed };
  }

  it("every event has been through the assembler when it comes out", async () => {
    const { out, processed } = slow(TEXT_EVENTS);
    const seen: NativeEvent[] = [];
    for await (const event of out) {
      expect(processed).toContain(event.data);
      seen.push(event);
    }
    expect(seen.map((event) => event.data)).toEqual(TEXT_EVENTS.map((event) => JSON.stringify(event)));
  });

  it("the frame the assembler fails on never comes out; those before it do, then the failure", async () => {
    const { out, processed } = slow(TEXT_EVENTS, "content_block_stop");
    const { events, error } = await drainFailing(out);
    expect(events.map((event) => event.event)).toEqual([
      "message_start",
      "content_block_start",
      "ping",
      "content_block_delta",
      "content_block_delta",
    ]);
    expect(processed).toHaveLength(5);
    expect(error).toMatchObject({ kind: "server", message: "assembler refused", partialOutput: true });
  });
});

describe("checkedNativeEvents: failures", () => {
  it("an upstream error event after content: the events before it, then its ProviderError (partialOutput)", async () => {
    const events = [...TEXT_EVENTS.slice(0, 4), OVERLOADED];
    let done = false;
    const { events: out, error } = await drainFailing(
      anthropicNative(byteStream(encoder.encode(anthropicSse(events)), [5]), () => {
        done = true;
      }),
    );
    expect(out).toEqual(
      events.slice(0, 4).map((event) => ({ event: String(event.type), data: JSON.stringify(event) })),
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({
      kind: "overloaded",
      partialOutput: true,
      message: expect.stringContaining("Overloaded"),
    });
    expect(done).toBe(false);
  });

  it("an upstream error event before any content: partialOutput false", async () => {
    const events = [START, { type: "ping" }, OVERLOADED];
    const { events: out, error } = await drainFailing(
      anthropicNative(byteStream(encoder.encode(anthropicSse(events)))),
    );
    expect(out.map((event) => event.event)).toEqual(["message_start", "ping"]);
    expect(error).toMatchObject({ kind: "overloaded", partialOutput: false });
  });

  it("a stream cut before message_stop is truncated, never a clean end, with every event it sent", async () => {
    for (const cut of [2, 5, TEXT_EVENTS.length - 1]) {
      const events = TEXT_EVENTS.slice(0, cut);
      let done = false;
      const { events: out, error } = await drainFailing(
        anthropicNative(byteStream(encoder.encode(anthropicSse(events))), () => {
          done = true;
        }),
      );
      expect(out.map((event) => event.data)).toEqual(events.map((event) => JSON.stringify(event)));
      expect(error, `cut at ${cut}`).toMatchObject({ kind: "truncated", partialOutput: cut > 3 });
      expect(done).toBe(false);
    }
  });

  it("a body that breaks mid-stream is a ProviderError after the events before it", async () => {
    const body = controlledByteStream();
    body.push(anthropicSse(TEXT_EVENTS.slice(0, 4)));
    const pending = drainFailing(anthropicNative(body.stream));
    await new Promise((resolve) => setTimeout(resolve, 5));
    body.error(new TypeError("connection reset"));
    const { events, error } = await pending;
    expect(events).toHaveLength(4);
    expect(error).toBeDefined();
  });
});

describe("checkedNativeEvents: nothing is held back", () => {
  it("a ping before a silence goes out before the silence, not with the next event", async () => {
    const body = controlledByteStream();
    const iterator = anthropicNative(body.stream)[Symbol.asyncIterator]();
    body.push(anthropicSse([START, { type: "ping" }]));
    const within = <T>(promise: Promise<T>) =>
      Promise.race([promise, new Promise<"held">((resolve) => setTimeout(() => resolve("held"), 200))]);
    const first = await within(iterator.next());
    expect(first).toMatchObject({ value: { event: "message_start" } });
    const second = await within(iterator.next());
    expect(second).toMatchObject({ value: { event: "ping" } });
    // A ping-only stretch: each one out as it arrives.
    for (let index = 0; index < 3; index++) {
      body.push(anthropicSse([{ type: "ping" }]));
      expect(await within(iterator.next())).toMatchObject({ value: { event: "ping" } });
    }
    body.push(anthropicSse(TEXT_EVENTS.slice(1)));
    body.close();
    const rest: NativeEvent[] = [];
    for (;;) {
      const next = await iterator.next();
      if (next.done) break;
      rest.push(next.value);
    }
    expect(rest.map((event) => event.event)).toEqual(TEXT_EVENTS.slice(1).map((event) => event.type));
  });

  it("a consumer that leaves while the upstream is silent is not held until its next frame", async () => {
    const body = controlledByteStream();
    const events = anthropicNative(body.stream);
    // The ping goes out while the assembler waits for the next frame.
    body.push(anthropicSse(TEXT_EVENTS.slice(0, 3)));
    const left = (async () => {
      for await (const event of events) if (event.event === "ping") break;
      return "left";
    })();
    const outcome = await Promise.race([
      left,
      new Promise<"held">((resolve) => setTimeout(() => resolve("held"), 500)),
    ]);
    expect(outcome).toBe("left");
    // The read in flight ends when the body does (the provider aborts the request): nothing is left over.
    body.error(new DOMException("aborted", "AbortError"));
  });

  it("a block's start (no neutral event of its own) goes out before the next read", async () => {
    const body = controlledByteStream();
    const iterator = anthropicNative(body.stream)[Symbol.asyncIterator]();
    body.push(anthropicSse(TEXT_EVENTS.slice(0, 2)));
    await iterator.next();
    const start = await Promise.race([
      iterator.next(),
      new Promise<"held">((resolve) => setTimeout(() => resolve("held"), 200)),
    ]);
    expect(start).toMatchObject({ value: { event: "content_block_start" } });
    await iterator.return?.();
  });
});

describe("typeOfJson: a native event's type", () => {
  it("is the leading type member, else the parsed one, else undefined", () => {
    expect(typeOfJson('{"type":"message_start","message":{"type":"message"}}')).toBe("message_start");
    expect(typeOfJson(' { "type" : "ping" }')).toBe("ping");
    // Not the first member, or written with an escape: read by parsing.
    expect(typeOfJson('{"index":0,"type":"content_block_stop"}')).toBe("content_block_stop");
    expect(typeOfJson('{"type":"a\\u0062c"}')).toBe("abc");
    expect(typeOfJson('{"type":7}')).toBeUndefined();
    expect(typeOfJson("not json")).toBeUndefined();
  });
});
