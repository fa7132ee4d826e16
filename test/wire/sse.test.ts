import { describe, expect, it, vi } from "vitest";
import { type ReadSseOptions, readSse, readSseBatches, type SseEvent } from "../../src/wire/sse.ts";
import { WireError } from "../../src/wire/wire-error.ts";
import {
  byteStream,
  type ChunkSizes,
  chunkBytes,
  controlledByteStream,
  splitAt,
  trackedByteStream,
  trackedChunkStream,
} from "../helpers/byte-stream.ts";

const encoder = new TextEncoder();
const bytesOf = (text: string): Uint8Array => encoder.encode(text);

/** Collect every event; fails fast (instead of hanging the run) if the parser never finishes. */
async function collect(stream: ReadableStream<Uint8Array>, options?: ReadSseOptions): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  await withTimeout(
    (async () => {
      for await (const event of readSse(stream, options)) events.push(event);
    })(),
  );
  return events;
}

/** Collect events from `text` delivered in chunks of `sizes` (default: one chunk). */
function parse(text: string, sizes?: ChunkSizes, options?: ReadSseOptions): Promise<SseEvent[]> {
  return collect(byteStream(bytesOf(text), sizes), options);
}

async function withTimeout<T>(promise: Promise<T>, ms = 5_000): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const ev = (data: string, event?: string, id?: string): SseEvent => ({ event, data, id });

/** The same two events in the three line-ending styles. */
const TWO_EVENTS = (eol: string) => `event: greeting${eol}data: hello${eol}${eol}data: world${eol}${eol}`;
const TWO_EVENTS_PARSED = [ev("hello", "greeting"), ev("world")];

describe("readSse line endings", () => {
  it.each([
    ["LF", "\n"],
    ["CRLF", "\r\n"],
    ["CR", "\r"],
  ])("%s: whole, and one byte per chunk", async (_name, eol) => {
    expect(await parse(TWO_EVENTS(eol))).toEqual(TWO_EVENTS_PARSED);
    expect(await parse(TWO_EVENTS(eol), [1])).toEqual(TWO_EVENTS_PARSED);
  });

  it("mixed line endings in one stream", async () => {
    expect(await parse("data: a\r\n\ndata: b\r\rdata: c\n\r\n")).toEqual([ev("a"), ev("b"), ev("c")]);
  });

  it("CRLF split exactly between \\r and \\n is one line ending, not a blank line", async () => {
    const text = "data: a\r\ndata: b\r\n\r\n";
    // If the "\n" that starts the second chunk counted as a blank line, "a" and "b" would be two events.
    const chunks = splitAt(bytesOf(text), [text.indexOf("\r") + 1]);
    expect(new TextDecoder().decode(chunks[0])).toBe("data: a\r");
    expect(await collect(trackedChunkStream(chunks).stream)).toEqual([ev("a\nb")]);
    // Every \r/\n boundary at once.
    const offsets = [...text].flatMap((char, i) => (char === "\r" ? [i + 1] : []));
    expect(await collect(trackedChunkStream(splitAt(bytesOf(text), offsets)).stream)).toEqual([ev("a\nb")]);
  });

  it("a bare CR at the end of a chunk followed by a new field is still a line ending", async () => {
    const text = "data: a\rdata: b\r\r";
    const chunks = splitAt(bytesOf(text), [8]);
    expect(await collect(trackedChunkStream(chunks).stream)).toEqual([ev("a\nb")]);
  });
});

describe("readSse fields", () => {
  it("drops a leading BOM, also when its bytes arrive one at a time", async () => {
    const text = "\uFEFFdata: x\n\n";
    expect(bytesOf(text).subarray(0, 3)).toEqual(new Uint8Array([0xef, 0xbb, 0xbf]));
    expect(await parse(text)).toEqual([ev("x")]);
    expect(await parse(text, [1])).toEqual([ev("x")]);
  });

  it("drops only one BOM: a second one makes the first line an unknown field", async () => {
    // WHATWG: "One leading U+FEFF BYTE ORDER MARK character must be ignored if any are present."
    expect(await parse("\uFEFF\uFEFFdata: x\n\ndata: y\n\n")).toEqual([ev("y")]);
    expect(await parse("\uFEFF\uFEFFdata: x\n\ndata: y\n\n", [1])).toEqual([ev("y")]);
  });

  it("keeps a BOM that is not at the start of the stream", async () => {
    expect(await parse("data: a\uFEFF\n\n")).toEqual([ev("a\uFEFF")]);
  });

  it("passes comments to onComment, without the colon and one leading space, and yields no event", async () => {
    const onComment = vi.fn();
    const events = await parse(": keep-alive\n\n:raw\ndata: x\n\n:  two\n\n", [3], { onComment });
    expect(events).toEqual([ev("x")]);
    expect(onComment.mock.calls).toEqual([["keep-alive"], ["raw"], [" two"]]);
  });

  it("ignores comments when no onComment is given", async () => {
    expect(await parse(": OPENROUTER PROCESSING\n\ndata: x\n\n")).toEqual([ev("x")]);
  });

  it("passes retry: to onRetry without yielding an event, and ignores a bad value", async () => {
    const onRetry = vi.fn();
    expect(await parse("retry: 3000\n\n", undefined, { onRetry })).toEqual([]);
    expect(onRetry.mock.calls).toEqual([[3000]]);
    expect(await parse("retry: soon\ndata: x\n\n", [1], { onRetry })).toEqual([ev("x")]);
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  it("joins multi-line data with \\n, keeping empty lines and all but one leading space", async () => {
    expect(await parse("data: a\ndata:\ndata:b\ndata:  c\n\n")).toEqual([ev("a\n\nb\n c")]);
  });

  it("reads id: and event:, per event (not carried over to the next one)", async () => {
    const events = await parse("id: 7\nevent: custom\ndata: x\n\ndata: y\n\nevent:\ndata: z\n\n");
    expect(events).toEqual([ev("x", "custom", "7"), ev("y"), ev("z")]);
  });

  it("ignores unknown fields and lines without a colon", async () => {
    expect(await parse("foo: bar\nnonsense\ndata: x\n\n")).toEqual([ev("x")]);
  });

  it("yields no event for a block without data:", async () => {
    expect(await parse("event: ping\nid: 1\n\n")).toEqual([]);
  });

  it.each([
    ["no newline at all", "data: a\n\ndata: b"],
    ["one LF", "data: a\n\ndata: b\n"],
    ["one CR", "data: a\n\ndata: b\r"],
    ["one CRLF", "data: a\n\ndata: b\r\n"],
  ])("yields a final event without a trailing blank line (%s)", async (_name, text) => {
    expect(await parse(text)).toEqual([ev("a"), ev("b")]);
    expect(await parse(text, [1])).toEqual([ev("a"), ev("b")]);
  });

  it("decodes multi-byte UTF-8 split byte by byte, and at every offset", async () => {
    const data = 'é € 🙂 {"t":"Ünïcødé"}';
    const text = `event: ünï\ndata: ${data}\n\n`;
    expect(bytesOf(data).length).toBeGreaterThan(data.length);
    expect(await parse(text, [1])).toEqual([ev(data, "ünï")]);
    const bytes = bytesOf(text);
    for (let offset = 1; offset < bytes.length; offset++) {
      expect(await collect(byteStream(bytes, [offset])), `chunks of ${offset}`).toEqual([ev(data, "ünï")]);
    }
  });

  it("replaces an invalid or truncated UTF-8 sequence with U+FFFD instead of failing", async () => {
    const bytes = new Uint8Array([...bytesOf("data: a"), 0xff, ...bytesOf("\n\ndata: b"), 0xe2, 0x82]);
    expect(await collect(byteStream(bytes, [1]))).toEqual([ev("a\uFFFD"), ev("b\uFFFD")]);
  });

  it("yields nothing for an empty body, or one made only of empty chunks", async () => {
    expect(await collect(byteStream(new Uint8Array(0)))).toEqual([]);
    expect(await collect(trackedChunkStream([new Uint8Array(0), new Uint8Array(0)]).stream)).toEqual([]);
    expect(await parse("\n\n\r\n")).toEqual([]);
  });
});

describe("readSse streaming behaviour", () => {
  it("yields the first event before the body has finished", async () => {
    const body = controlledByteStream();
    const events = readSse(body.stream);
    body.push('data: {"n":1}\n\n');
    // The second chunk has not been sent and the body is still open: the event must come out anyway.
    const first = await withTimeout(events.next(), 1_000);
    expect(first).toEqual({ done: false, value: ev('{"n":1}') });
    expect(body.state.closed).toBe(false);

    let secondSettled = false;
    const second = events.next().then((result) => {
      secondSettled = true;
      return result;
    });
    body.push('data: {"n":');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(secondSettled).toBe(false); // half an event is not an event
    body.push("2}\n\n");
    expect(await withTimeout(second, 1_000)).toEqual({ done: false, value: ev('{"n":2}') });
    body.close();
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });

  it("cancels the body when the consumer breaks out of the loop", async () => {
    const text = Array.from({ length: 50 }, (_, i) => `data: ${i}\n\n`).join("");
    const { stream, state } = trackedByteStream(bytesOf(text), [5]);
    const chunkCount = chunkBytes(bytesOf(text), [5]).length;
    const seen: string[] = [];
    for await (const event of readSse(stream)) {
      seen.push(event.data);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual(["0", "1"]);
    expect(state.cancelled).toBe(true);
    expect(state.closed).toBe(false);
    expect(state.pulls).toBeLessThan(chunkCount);
  });

  it("cancels the body when the consumer throws inside the loop", async () => {
    const { stream, state } = trackedByteStream(bytesOf("data: a\n\ndata: b\n\n"), [1]);
    const failure = new Error("consumer failed");
    await expect(
      (async () => {
        for await (const _event of readSse(stream)) throw failure;
      })(),
    ).rejects.toBe(failure);
    expect(state.cancelled).toBe(true);
  });

  it("propagates an error from the body's reader, after the events that arrived before it", async () => {
    const body = controlledByteStream();
    const boom = new Error("connection reset");
    const events: SseEvent[] = [];
    const done = (async () => {
      for await (const event of readSse(body.stream)) {
        events.push(event);
        body.error(boom);
      }
    })();
    body.push("data: a\n\n");
    await expect(withTimeout(done)).rejects.toBe(boom);
    expect(events).toEqual([ev("a")]);
  });

  it("releases the body without cancelling it after a normal end", async () => {
    const { stream, state } = trackedByteStream(bytesOf("data: a\n\n"), [4]);
    expect(await collect(stream)).toEqual([ev("a")]);
    expect(state.closed).toBe(true);
    expect(state.cancelled).toBe(false);
    expect(stream.locked).toBe(false);
  });
});

describe("readSse buffer limit", () => {
  const MB = 1024 * 1024;

  it("fails with buffer_overflow when a 5 MB line never ends, without reading the rest", async () => {
    const body = bytesOf(`data: ${"x".repeat(5 * MB)}`);
    const { stream, state } = trackedByteStream(body, [64 * 1024]);
    const error = await collect(stream, { maxBufferSize: MB }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WireError);
    expect(WireError.is(error)).toBe(true);
    expect((error as WireError).code).toBe("buffer_overflow");
    expect((error as WireError).message).toBe(
      `SSE stream sent more than ${MB} characters without ending a line or an event`,
    );
    expect(state.bytesDelivered).toBeLessThan(2 * MB);
    expect(state.cancelled).toBe(true);
  });

  it("fails with buffer_overflow when an event's data lines never end with a blank line", async () => {
    const line = `data: ${"y".repeat(1000)}\n`;
    const body = bytesOf(line.repeat(3000)); // ~3 MB, no blank line
    await expect(collect(byteStream(body, [32 * 1024]), { maxBufferSize: MB })).rejects.toMatchObject({
      name: "WireError",
      code: "buffer_overflow",
    });
  });

  it("fails with buffer_overflow when the whole oversized body arrives in one chunk", async () => {
    await expect(
      parse(`data: ${"z".repeat(2 * MB)}`, undefined, { maxBufferSize: MB }),
    ).rejects.toMatchObject({
      code: "buffer_overflow",
    });
  });

  it("yields the events completed before the overflow, however the bytes are chunked", async () => {
    const text = `data: a\n\ndata: ${"z".repeat(2 * MB)}`;
    for (const sizes of [undefined, [9], [64 * 1024]]) {
      const events: SseEvent[] = [];
      const run = (async () => {
        for await (const event of readSse(byteStream(bytesOf(text), sizes), { maxBufferSize: MB })) {
          events.push(event);
        }
      })();
      await expect(withTimeout(run), `chunk sizes ${String(sizes)}`).rejects.toMatchObject({
        code: "buffer_overflow",
      });
      expect(events, `chunk sizes ${String(sizes)}`).toEqual([ev("a")]);
    }
  });

  it("discards, without buffering, a huge line that cannot be an SSE field", async () => {
    // Not `data:`/`event:`/`id:`/`retry:`: the parser skips it instead of holding it, so no overflow.
    const body = bytesOf(`${"q".repeat(3 * MB)}\ndata: after\n\n`);
    expect(await collect(byteStream(body, [64 * 1024]), { maxBufferSize: MB })).toEqual([ev("after")]);
  });

  it("accepts an event just under the limit", async () => {
    const data = "w".repeat(1000);
    expect(await parse(`data: ${data}\n\n`, [7], { maxBufferSize: 1100 })).toEqual([ev(data)]);
  });
});

describe("readSseBatches", () => {
  it("yields one non-empty batch per read that completed events, flattening to what readSse yields", async () => {
    const text = "data: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4";
    const bytes = new TextEncoder().encode(text);
    // Reads: "data: 1\n\ndata: 2\n\nda" | "ta: 3\n\n" | "data: 4" (the last event has no blank line and
    // comes out of the final flush).
    const chunks = [bytes.slice(0, 20), bytes.slice(20, 27), bytes.slice(27)];
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    const batches: string[][] = [];
    for await (const batch of readSseBatches(stream)) batches.push(batch.map((event) => event.data));
    expect(batches).toEqual([["1", "2"], ["3"], ["4"]]);
  });

  it("mutation gap 9: the final flush never yields an empty batch (a body ending in a comment, a field, a blank)", async () => {
    for (const text of [
      "data: a\n\n: keep-alive",
      "data: a\n\nretry: 10",
      "data: a\n\n\n",
      ": only a comment\n",
    ]) {
      const batches: number[] = [];
      for await (const batch of readSseBatches(byteStream(bytesOf(text)))) batches.push(batch.length);
      expect(
        batches.every((size) => size > 0),
        JSON.stringify(text),
      ).toBe(true);
      expect(
        batches.reduce((sum, size) => sum + size, 0),
        JSON.stringify(text),
      ).toBe(text.startsWith("data") ? 1 : 0);
    }
  });
});
