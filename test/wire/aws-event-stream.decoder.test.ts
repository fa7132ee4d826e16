/** AwsEventStreamDecoder and frameInfo. */
import { describe, expect, it } from "vitest";
import {
  type AwsEventFrame,
  AwsEventStreamDecoder,
  decodeAwsEventFrame,
  frameInfo,
} from "../../src/wire/aws-event-stream.ts";
import { concatBytes } from "../helpers/byte-stream.ts";
import {
  bytesOf,
  decoder,
  eventFrame,
  expectWireError,
  frame,
  stringHeader,
  thrown,
} from "./aws-event-stream.helpers.ts";

describe("AwsEventStreamDecoder", () => {
  const a = eventFrame("contentBlockDelta", '{"n":1}');
  const b = eventFrame("contentBlockDelta", '{"n":2}');

  it("push returns the frames a chunk completes; finish after a whole frame is clean", () => {
    const d = new AwsEventStreamDecoder();
    expect(d.push(a.subarray(0, 7))).toEqual([]);
    expect(d.pendingBytes).toBe(7);
    expect(d.push(a.subarray(7, 30))).toEqual([]);
    expect(d.pendingBytes).toBe(30);
    const out = d.push(concatBytes([a.subarray(30), b]));
    expect(out.map((f) => decoder.decode(f.payload))).toEqual(['{"n":1}', '{"n":2}']);
    expect(d.pendingBytes).toBe(0);
    expect(() => d.finish()).not.toThrow();
  });

  it("appends to the array it is given, which keeps the good frames when a later one is corrupt", () => {
    const bad = b.slice();
    bad[20]! ^= 1;
    const d = new AwsEventStreamDecoder();
    const into: AwsEventFrame[] = [];
    expectWireError(
      thrown(() => d.push(concatBytes([a, bad]), into)),
      "corrupt_frame",
      /message checksum mismatch/,
    );
    expect(into.length).toBe(1);
    // It stays failed.
    expectWireError(
      thrown(() => d.push(a)),
      "corrupt_frame",
      /message checksum mismatch/,
    );
    expectWireError(
      thrown(() => d.finish()),
      "corrupt_frame",
    );
  });

  it("finish inside a frame or a prelude is truncated, and stays so", () => {
    const d = new AwsEventStreamDecoder();
    d.push(a.subarray(0, 5));
    expectWireError(
      thrown(() => d.finish()),
      "truncated",
      /prelude \(5 of 12 bytes\)/,
    );
    expectWireError(
      thrown(() => d.finish()),
      "truncated",
    );
    const e = new AwsEventStreamDecoder();
    e.push(a.subarray(0, 20));
    expectWireError(
      thrown(() => e.finish()),
      "truncated",
      new RegExp(`20 of ${a.length} bytes`),
    );
  });

  it("after finish() found the body cut, every later push and finish throws that same error", () => {
    const d = new AwsEventStreamDecoder();
    d.push(a.subarray(0, 5));
    const first = thrown(() => d.finish());
    expectWireError(first, "truncated", /prelude \(5 of 12 bytes\)/);
    expect(thrown(() => d.push(a))).toBe(first);
    expect(thrown(() => d.finish())).toBe(first);
  });

  it("keeps no view of the caller's chunk: payloads and byte headers survive the chunk being overwritten", () => {
    const bytesHeader = Uint8Array.from([3, 0x62, 0x75, 0x66, 6, 0, 3, 1, 2, 3]); // "buf": bytes [1,2,3]
    const whole = frame(bytesHeader, "payload!");
    for (const split of [whole.length, 9, 25]) {
      const d = new AwsEventStreamDecoder();
      const first = whole.slice(0, split);
      const rest = whole.slice(split);
      const out = [...d.push(first), ...d.push(rest)];
      first.fill(0);
      rest.fill(0);
      expect(out.length).toBe(1);
      expect(decoder.decode(out[0]!.payload)).toBe("payload!");
      expect(out[0]!.headers.buf).toEqual(Uint8Array.from([1, 2, 3]));
    }
  });

  it("header records have no prototype: __proto__ is an ordinary header", () => {
    const decoded = decodeAwsEventFrame(
      frame([stringHeader("__proto__", "x"), stringHeader("constructor", "y")]),
    );
    expect(Object.getPrototypeOf(decoded.headers)).toBe(null);
    expect(Object.entries(decoded.headers)).toEqual([
      ["__proto__", "x"],
      ["constructor", "y"],
    ]);
  });

  it("a repeated header name keeps the last value", () => {
    const decoded = decodeAwsEventFrame(frame([stringHeader("k", "first"), stringHeader("k", "second")]));
    expect(decoded.headers).toEqual({ k: "second" });
  });

  it("decodes non-ASCII names and long values (the TextDecoder path)", () => {
    const long = "é".repeat(40) + "x".repeat(100);
    const decoded = decodeAwsEventFrame(frame([stringHeader("naïve", "ü"), stringHeader("long", long)]));
    expect(decoded.headers).toEqual({ naïve: "ü", long });
  });
});

describe("frameInfo", () => {
  it("reads the well-known headers, undefined when absent or not a string", () => {
    const exception = decodeAwsEventFrame(
      frame(
        [
          stringHeader(":exception-type", "throttlingException"),
          stringHeader(":content-type", "application/json"),
          stringHeader(":message-type", "exception"),
        ],
        '{"message":"Too many requests"}',
      ),
    );
    expect(frameInfo(exception)).toEqual({
      messageType: "exception",
      eventType: undefined,
      exceptionType: "throttlingException",
      contentType: "application/json",
      errorCode: undefined,
      errorMessage: undefined,
    });
    const error = decodeAwsEventFrame(
      frame([
        stringHeader(":message-type", "error"),
        stringHeader(":error-code", "InternalFailure"),
        stringHeader(":error-message", "boom"),
      ]),
    );
    expect(frameInfo(error)).toMatchObject({
      messageType: "error",
      errorCode: "InternalFailure",
      errorMessage: "boom",
    });
    // `:event-type` as an int32 (as in the all_headers vector, without the colon) is not a string.
    const intType = decodeAwsEventFrame(
      frame(Uint8Array.from([11, ...bytesOf(":event-type"), 4, 0, 0, 0, 1])),
    );
    expect(frameInfo(intType).eventType).toBeUndefined();
  });
});
