/** readAwsEventStream failures: every malformed frame is a WireError, never garbage output. */
import { describe, expect, it } from "vitest";
import {
  AwsEventStreamDecoder,
  DEFAULT_AWS_MAX_FRAME_BYTES,
  decodeAwsEventFrame,
  frameInfo,
} from "../../src/wire/aws-event-stream.ts";
import { crc32 } from "../../src/wire/crc32.ts";
import {
  byteStream,
  type ChunkSizes,
  concatBytes,
  trackedByteStream,
  trackedChunkStream,
} from "../helpers/byte-stream.ts";
import {
  collect,
  collectUntilError,
  eventFrame,
  expectWireError,
  frame,
  prelude,
  recorded,
  stringHeader,
  thrown,
  walkFrames,
} from "./aws-event-stream.helpers.ts";

describe("readAwsEventStream failures", () => {
  const a = eventFrame("contentBlockDelta", '{"delta":{"text":"a"}}');
  const b = eventFrame("contentBlockDelta", '{"delta":{"text":"b"}}');
  const c = eventFrame("messageStop", '{"stopReason":"end_turn"}');

  it("an empty body is no frames and no error", async () => {
    expect((await collect(byteStream(new Uint8Array(0)))).frames).toEqual([]);
    expect((await collect(trackedChunkStream([new Uint8Array(0)]).stream)).frames).toEqual([]);
  });

  it("a body that ends inside a frame fails with truncated, after the complete frames, at every cut", async () => {
    const body = concatBytes([a, b, c]);
    const lastStart = a.length + b.length;
    for (let cut = lastStart + 1; cut < body.length; cut++) {
      for (const sizes of [undefined, [1], [13]] as (ChunkSizes | undefined)[]) {
        const { frames, error } = await collectUntilError(byteStream(body.slice(0, cut), sizes));
        expect(frames.length).toBe(2);
        expectWireError(error, "truncated", /body ended inside a frame/);
      }
    }
    // A cut at a frame boundary is a clean end (the protocol layer decides whether a terminal event is missing).
    expect((await collect(byteStream(body.slice(0, lastStart), [3]))).frames.length).toBe(2);
  });

  it("a real recorded stream cut anywhere in its last frame is truncated", async () => {
    for (const stream of recorded) {
      const walked = walkFrames(stream.body);
      const last = walked.at(-1)!;
      for (const cut of [1, 11, 12, 13, last.length - 4, last.length - 1]) {
        const end = stream.body.length - last.length + cut;
        const { frames, error } = await collectUntilError(byteStream(stream.body.slice(0, end), [64]));
        expect(frames.length, stream.name).toBe(walked.length - 1);
        expectWireError(error, "truncated");
      }
    }
  });

  it("impossible lengths with a valid prelude CRC are corrupt_frame", () => {
    for (const [total, headersLength, reason] of [
      [0, 0, /impossible frame length 0/],
      [15, 0, /impossible frame length 15/],
      [16, 1, /impossible headers length 1 in a frame of 16/],
      [40, 25, /impossible headers length 25/],
      [0xffffffff, 0, /exceeds the limit/],
    ] as const) {
      const bytes = concatBytes([prelude(total, headersLength), new Uint8Array(40)]);
      expectWireError(
        thrown(() => decodeAwsEventFrame(bytes)),
        "corrupt_frame",
        reason,
      );
      expectWireError(
        thrown(() => new AwsEventStreamDecoder().push(bytes)),
        "corrupt_frame",
        reason,
      );
    }
    // The boundary cases are fine: 16 bytes with no headers, headers filling everything but the CRCs.
    expect(decodeAwsEventFrame(frame(new Uint8Array(0))).payload.length).toBe(0);
    expect(Object.keys(decodeAwsEventFrame(frame(stringHeader("x", "y"))).headers)).toEqual(["x"]);
  });

  it("an oversized frame fails as soon as its prelude arrives, without buffering it", async () => {
    const MB = 1024 * 1024;
    const total = 17 * MB;
    let pulls = 0;
    let delivered = 0;
    let cancelled = false;
    // A body that would deliver the whole 17 MB frame in 64 KB chunks.
    const stream = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          pulls++;
          const chunk = pulls === 1 ? prelude(total, 0) : new Uint8Array(64 * 1024);
          delivered += chunk.length;
          controller.enqueue(chunk);
        },
        cancel() {
          cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    const { frames, error } = await collectUntilError(stream);
    expect(frames).toEqual([]);
    expectWireError(
      error,
      "corrupt_frame",
      new RegExp(`frame length ${total} exceeds the limit of ${16 * MB}`),
    );
    expect(delivered).toBe(12);
    expect(cancelled).toBe(true);
    expect(DEFAULT_AWS_MAX_FRAME_BYTES).toBe(16 * MB);
  });

  it("maxFrameBytes: a frame over the limit fails (after the frames before it), one at the limit passes", async () => {
    const big = eventFrame("contentBlockDelta", JSON.stringify({ text: "x".repeat(5000) }));
    const body = concatBytes([a, big, c]);
    const { frames, error } = await collectUntilError(byteStream(body, [1000]), {
      maxFrameBytes: big.length - 1,
    });
    expect(frames.length).toBe(1);
    expectWireError(error, "corrupt_frame", /exceeds the limit/);
    expect((await collect(byteStream(body, [1000]), { maxFrameBytes: big.length })).frames.length).toBe(3);
  });

  it("an unknown header type is corrupt_frame", () => {
    for (const type of [10, 11, 0x7f, 0xff]) {
      const bad = frame(Uint8Array.from([1, 0x78, type, 0, 0, 0, 0]));
      expectWireError(
        thrown(() => decodeAwsEventFrame(bad)),
        "corrupt_frame",
        new RegExp(`unknown type ${type}`),
      );
    }
  });

  it("a header running past the headers section is corrupt_frame, whatever the type", () => {
    const cases = [
      Uint8Array.from([5, 0x61]), // name longer than the section
      Uint8Array.from([1, 0x61]), // no type byte
      Uint8Array.from([1, 0x61, 2]), // int8 without its byte
      Uint8Array.from([1, 0x61, 3, 0]), // int16 with one byte
      Uint8Array.from([1, 0x61, 4, 0, 0, 0]),
      Uint8Array.from([1, 0x61, 5, 0, 0, 0, 0, 0, 0, 0]),
      Uint8Array.from([1, 0x61, 6, 0]), // bytes: half a length
      Uint8Array.from([1, 0x61, 7, 0, 5, 0x62]), // string: 5 announced, 1 present
      Uint8Array.from([1, 0x61, 8, 0, 0, 0, 0]),
      Uint8Array.from([1, 0x61, 9, ...new Array(15).fill(0)]),
    ];
    for (const headers of cases) {
      // The payload follows: a header must not read into it.
      const bad = frame(headers, "{}");
      expectWireError(
        thrown(() => decodeAwsEventFrame(bad)),
        "corrupt_frame",
        /runs past the headers/,
      );
    }
  });

  it("a frame followed by extra bytes is corrupt for decodeAwsEventFrame; short input is truncated", () => {
    expectWireError(
      thrown(() => decodeAwsEventFrame(concatBytes([a, new Uint8Array(1)]))),
      "corrupt_frame",
    );
    expectWireError(
      thrown(() => decodeAwsEventFrame(a.subarray(0, 5))),
      "truncated",
      /prelude/,
    );
    expectWireError(
      thrown(() => decodeAwsEventFrame(a.subarray(0, a.length - 1))),
      "truncated",
    );
  });

  it("a corrupt frame fails after the frames before it, whatever the chunking", async () => {
    const bad = b.slice();
    bad[bad.length - 10]! ^= 0x20;
    const body = concatBytes([a, c, bad, a]);
    for (const sizes of [undefined, [1], [7], [a.length + c.length + 3]] as (ChunkSizes | undefined)[]) {
      const tracked = trackedByteStream(body, sizes);
      const { frames, error } = await collectUntilError(tracked.stream);
      expect(frames.map((f) => frameInfo(f).eventType)).toEqual(["contentBlockDelta", "messageStop"]);
      expectWireError(error, "corrupt_frame", /message checksum mismatch/);
      expect(tracked.state.cancelled).toBe(tracked.state.closed === false);
    }
  });
});

describe("the messages of framing errors say what was wrong and where the numbers came from", () => {
  const hex = (value: number) => `0x${(value >>> 0).toString(16).padStart(8, "0")}`;
  const u32 = (bytes: Uint8Array, at: number) => new DataView(bytes.buffer, bytes.byteOffset).getUint32(at);
  const message = (bytes: Uint8Array) => {
    const error = thrown(() => decodeAwsEventFrame(bytes));
    return { code: (error as { code?: string }).code, message: (error as Error).message };
  };
  const good = () => eventFrame("contentBlockDelta", '{"delta":{"text":"hi"}}');

  it("checksums: the one the frame carries and the one computed, prelude and message apart", () => {
    const prelude = good();
    prelude[9] = prelude[9]! ^ 0xff;
    expect(message(prelude)).toEqual({
      code: "corrupt_frame",
      message: `AWS event stream: prelude checksum mismatch (expected ${hex(u32(prelude, 8))}, computed ${hex(crc32(prelude.subarray(0, 8)))})`,
    });
    const body = good();
    body[20] = body[20]! ^ 0x01;
    const end = body.length - 4;
    expect(message(body)).toEqual({
      code: "corrupt_frame",
      message: `AWS event stream: message checksum mismatch (expected ${hex(u32(body, end))}, computed ${hex(crc32(body.subarray(0, end)))})`,
    });
  });

  it("a checksum is written with all eight hex digits, leading zeros included", () => {
    const bad = good();
    bad.set([0x00, 0x00, 0x12, 0x34], 8);
    expect(message(bad)).toEqual({
      code: "corrupt_frame",
      message: `AWS event stream: prelude checksum mismatch (expected 0x00001234, computed ${hex(crc32(bad.subarray(0, 8)))})`,
    });
  });

  it("a frame over the limit says so, also when its headers fill it (no payload)", () => {
    // 16 bytes of prelude and checksum, and one 6-byte header: 22 bytes, all of it the prelude announces.
    const full = frame(stringHeader("a", "b"));
    expect(full.length).toBe(22);
    const error = thrown(() => decodeAwsEventFrame(full, { maxFrameBytes: 21 }));
    expect((error as Error).message).toBe("AWS event stream: frame length 22 exceeds the limit of 21 bytes");
    expect(decodeAwsEventFrame(full, { maxFrameBytes: 22 }).headers.a).toBe("b");
  });

  it("headers that run past their section name the header (or say it was the name itself)", () => {
    // A name length of 40 in a 5-byte headers section.
    expect(message(frame(Uint8Array.from([40, 0x61, 0x62, 0x63, 7])))).toEqual({
      code: "corrupt_frame",
      message: "AWS event stream: a header name runs past the headers section",
    });
    // A string value announcing 300 bytes where 3 are left.
    expect(message(frame(Uint8Array.from([1, 0x6b, 7, 0x01, 0x2c, 0x61, 0x62, 0x63])))).toEqual({
      code: "corrupt_frame",
      message: 'AWS event stream: header "k" runs past the headers section',
    });
  });

  it("bytes after one frame, and a body cut in the prelude or in the frame, count the bytes", () => {
    const one = good();
    expect(message(concatBytes([one, Uint8Array.from([1, 2, 3])]))).toEqual({
      code: "corrupt_frame",
      message: `AWS event stream: 3 bytes after a frame of ${one.length} bytes`,
    });
    expect(message(one.subarray(0, 7))).toEqual({
      code: "truncated",
      message: "AWS event stream: body ended inside a frame prelude (7 of 12 bytes)",
    });
    // A whole prelude and nothing after it: the frame's size is known, so the count is of the frame.
    expect(message(one.subarray(0, 12))).toEqual({
      code: "truncated",
      message: `AWS event stream: body ended inside a frame (12 of ${one.length} bytes)`,
    });
    expect(message(one.subarray(0, 30))).toEqual({
      code: "truncated",
      message: `AWS event stream: body ended inside a frame (30 of ${one.length} bytes)`,
    });
  });
});

describe("header names are read right however many there are", () => {
  it("300 different names of one length (more than the decoder's 256 cached ones: some share a slot) each come back as sent", () => {
    const names = Array.from({ length: 300 }, (_, n) => `h-${String(n).padStart(3, "0")}`);
    const decoder = new AwsEventStreamDecoder();
    const frames: ReturnType<typeof decodeAwsEventFrame>[] = [];
    for (const round of [0, 1]) {
      for (const name of names) decoder.push(frame(stringHeader(name, `${name}:${round}`), "{}"), frames);
    }
    decoder.finish();
    expect(frames).toHaveLength(600);
    frames.forEach((decoded, position) => {
      const name = names[position % 300]!;
      expect(Object.keys(decoded.headers)).toEqual([name]);
      expect(decoded.headers[name]).toBe(`${name}:${position < 300 ? 0 : 1}`);
    });
  });

  it("names that are prefixes of one another (some share a cache slot) each come back as sent, never a longer one", () => {
    const bases = Array.from(
      { length: 64 },
      (_, n) => `x-amz-${String(n).padStart(2, "0")}-abcdefghijklmnopqrstuvw`,
    );
    const names = bases.flatMap((base) => Array.from({ length: 32 }, (_, cut) => base.slice(0, 32 - cut)));
    const decoder = new AwsEventStreamDecoder();
    const frames: ReturnType<typeof decodeAwsEventFrame>[] = [];
    for (const name of names) decoder.push(frame(stringHeader(name, "v"), "{}"), frames);
    decoder.finish();
    expect(frames.map((decoded) => Object.keys(decoded.headers)[0])).toEqual(names);
  });

  it("short header text is UTF-8 as a long one is: a byte that starts no character reads as U+FFFD", () => {
    // Header "k", string value of one byte 0x80 (a continuation byte with nothing before it).
    const short = decodeAwsEventFrame(frame(Uint8Array.from([1, 0x6b, 7, 0, 1, 0x80])));
    expect(short.headers.k).toBe("\uFFFD");
    const long = new Uint8Array(40).fill(0x61);
    long[0] = 0x80;
    const decoded = decodeAwsEventFrame(frame(Uint8Array.from([1, 0x6b, 7, 0, 40, ...long])));
    expect(decoded.headers.k).toBe(`\uFFFD${"a".repeat(39)}`);
  });
});
