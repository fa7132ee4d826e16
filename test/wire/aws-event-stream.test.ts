import { describe, expect, it } from "vitest";
import {
  type AwsEventFrame,
  AwsEventStreamDecoder,
  type AwsEventStreamOptions,
  type AwsHeaderValue,
  DEFAULT_AWS_MAX_FRAME_BYTES,
  decodeAwsEventFrame,
  frameInfo,
  readAwsEventStream,
} from "../../src/wire/aws-event-stream.ts";
import { crc32 } from "../../src/wire/crc32.ts";
import { WireError } from "../../src/wire/wire-error.ts";
import {
  byteStream,
  type ChunkSizes,
  concatBytes,
  controlledByteStream,
  trackedByteStream,
  trackedChunkStream,
} from "../helpers/byte-stream.ts";
import {
  type EventStreamVector,
  type EventStreamVectorHeader,
  type EventStreamVectorMessage,
  type Fixture,
  loadAllFixtures,
} from "../helpers/fixtures.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytesOf = (text: string): Uint8Array => encoder.encode(text);
const base64 = (text: string): Uint8Array => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

// ---------------------------------------------------------------------------------------------------
// A minimal frame builder (string headers, or raw header bytes), for hand-made cases.

function stringHeader(name: string, value: string): Uint8Array {
  const n = bytesOf(name);
  const v = bytesOf(value);
  return Uint8Array.from([n.length, ...n, 7, v.length >> 8, v.length & 0xff, ...v]);
}

/** A frame with correct lengths and CRCs around `headers` and `payload`. */
function frame(headers: Uint8Array | Uint8Array[], payload: Uint8Array | string = ""): Uint8Array {
  const h = Array.isArray(headers) ? concatBytes(headers) : headers;
  const p = typeof payload === "string" ? bytesOf(payload) : payload;
  const total = 16 + h.length + p.length;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, h.length);
  view.setUint32(8, crc32(out.subarray(0, 8)));
  out.set(h, 12);
  out.set(p, 12 + h.length);
  view.setUint32(total - 4, crc32(out.subarray(0, total - 4)));
  return out;
}

/** An event frame as Bedrock sends them. */
function eventFrame(eventType: string, payload: string): Uint8Array {
  return frame(
    [
      stringHeader(":event-type", eventType),
      stringHeader(":content-type", "application/json"),
      stringHeader(":message-type", "event"),
    ],
    payload,
  );
}

/** A prelude announcing `total` and `headersLength`, with a correct prelude CRC. */
function prelude(total: number, headersLength: number): Uint8Array {
  const out = new Uint8Array(12);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headersLength);
  view.setUint32(8, crc32(out.subarray(0, 8)));
  return out;
}

// ---------------------------------------------------------------------------------------------------

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

/** Every frame of a body, and the batches they came in. */
async function collect(
  stream: ReadableStream<Uint8Array>,
  options?: AwsEventStreamOptions,
): Promise<{ frames: AwsEventFrame[]; batches: number }> {
  const frames: AwsEventFrame[] = [];
  let batches = 0;
  await withTimeout(
    (async () => {
      for await (const batch of readAwsEventStream(stream, options)) {
        expect(batch.length).toBeGreaterThan(0);
        batches++;
        frames.push(...batch);
      }
    })(),
  );
  return { frames, batches };
}

/** The frames decoded before the failure, and the failure. */
async function collectUntilError(
  stream: ReadableStream<Uint8Array>,
  options?: AwsEventStreamOptions,
): Promise<{ frames: AwsEventFrame[]; error: unknown }> {
  const frames: AwsEventFrame[] = [];
  try {
    await withTimeout(
      (async () => {
        for await (const batch of readAwsEventStream(stream, options)) frames.push(...batch);
      })(),
    );
  } catch (error) {
    return { frames, error };
  }
  return { frames, error: undefined };
}

function expectWireError(error: unknown, code: WireError["code"], message?: RegExp): void {
  expect(error).toBeInstanceOf(WireError);
  expect((error as WireError).code).toBe(code);
  if (message) expect((error as WireError).message).toMatch(message);
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

// ---------------------------------------------------------------------------------------------------
// AWS's own codec test vectors (aws-sdk-go).

const bedrockFixtures: Fixture[] = await loadAllFixtures("bedrock");
const vectors: EventStreamVector[] = [];
const seenVectors = new Set<string>();
for (const fixture of bedrockFixtures) {
  const vector = fixture.vector;
  if (vector && !seenVectors.has(`${vector.polarity}/${vector.name}`)) {
    seenVectors.add(`${vector.polarity}/${vector.name}`);
    vectors.push(vector);
  }
}
const positives = vectors.filter((v) => v.polarity === "positive");
const negatives = vectors.filter((v) => v.polarity === "negative");

function uuidOf(bytes: Uint8Array): string {
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The value a header of the vector must decode to, from its type code and Go's JSON rendering. */
function expectedValue(header: EventStreamVectorHeader): AwsHeaderValue {
  const value = header.value;
  switch (header.type) {
    case 0:
      return true;
    case 1:
      return false;
    case 2:
    case 3:
    case 4:
      return value as number;
    case 5:
      return BigInt(value as number);
    case 6:
      return base64(value as string);
    case 7:
      return decoder.decode(base64(value as string));
    case 8:
      return new Date(value as number);
    case 9:
      return { uuid: uuidOf(base64(value as string)) };
    default:
      throw new Error(`vector header type ${header.type}`);
  }
}

/** The JavaScript type a wire type must decode to. */
function jsTypeOf(value: AwsHeaderValue): string {
  if (value instanceof Uint8Array) return "bytes";
  if (value instanceof Date) return "date";
  if (typeof value === "object") return "uuid";
  return typeof value;
}
const JS_TYPE_BY_WIRE_TYPE = [
  "boolean",
  "boolean",
  "number",
  "number",
  "number",
  "bigint",
  "bytes",
  "string",
  "date",
  "uuid",
];

describe("AWS event-stream codec test vectors (aws-sdk-go)", () => {
  it("has all of them: 5 positive, 4 negative", () => {
    expect(positives.map((v) => v.name).sort()).toEqual([
      "all_headers",
      "empty_message",
      "int32_header",
      "payload_no_headers",
      "payload_one_str_header",
    ]);
    expect(negatives.map((v) => v.name).sort()).toEqual([
      "corrupted_header_len",
      "corrupted_headers",
      "corrupted_length",
      "corrupted_payload",
    ]);
  });

  it("all_headers covers every header type 0-9", () => {
    const all = positives.find((v) => v.name === "all_headers")!;
    const message = (all.expected as { message: { headers: EventStreamVectorHeader[] } }).message;
    expect(new Set(message.headers.map((h) => h.type))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
  });

  describe.each(positives.map((v) => [v.name, v] as const))("positive %s", (_name, vector) => {
    const expected = (vector.expected as { message: EventStreamVectorMessage }).message;

    it("decodes to exactly the expected headers (name, type, value, order) and payload", () => {
      const decoded = decodeAwsEventFrame(vector.encoded);
      expect(Object.keys(decoded.headers)).toEqual(expected.headers.map((h) => h.name));
      for (const header of expected.headers) {
        const value = decoded.headers[header.name]!;
        expect(jsTypeOf(value), header.name).toBe(JS_TYPE_BY_WIRE_TYPE[header.type]);
        expect(value, header.name).toEqual(expectedValue(header));
      }
      expect(decoded.payload).toEqual(base64(expected.payload));
    });

    it("has the expected lengths and CRCs (our crc32 agrees with Go's)", () => {
      const bytes = vector.encoded;
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      expect(bytes.length).toBe(expected.total_length);
      expect(view.getUint32(0)).toBe(expected.total_length);
      expect(view.getUint32(4)).toBe(expected.headers_length);
      expect(crc32(bytes.subarray(0, 8))).toBe(expected.prelude_crc >>> 0);
      expect(crc32(bytes.subarray(0, bytes.length - 4))).toBe(expected.message_crc >>> 0);
    });

    it("decodes the same through the stream reader, whole and one byte at a time", async () => {
      const whole = decodeAwsEventFrame(vector.encoded);
      for (const sizes of [undefined, [1], [5, 2, 11]] as (ChunkSizes | undefined)[]) {
        const { frames } = await collect(byteStream(vector.encoded, sizes));
        expect(frames).toEqual([whole]);
      }
    });
  });

  describe.each(negatives.map((v) => [v.name, v] as const))("negative %s", (_name, vector) => {
    const reason = (vector.expected as { error: string }).error;

    it("fails with corrupt_frame and the expected reason", () => {
      expect(["Prelude checksum mismatch", "Message checksum mismatch"]).toContain(reason);
      const error = thrown(() => decodeAwsEventFrame(vector.encoded));
      expectWireError(error, "corrupt_frame", new RegExp(reason, "i"));
    });

    it("fails the same way through the stream reader, whole and one byte at a time, with no frame", async () => {
      for (const sizes of [undefined, [1], [7]] as (ChunkSizes | undefined)[]) {
        const tracked = trackedByteStream(vector.encoded, sizes);
        const { frames, error } = await collectUntilError(tracked.stream);
        expect(frames).toEqual([]);
        expectWireError(error, "corrupt_frame", new RegExp(reason, "i"));
        // A prelude failure is caught after 12 bytes, before the (wrong) length is waited for.
        if (/prelude/i.test(reason) && sizes !== undefined) {
          expect(tracked.state.bytesDelivered).toBeLessThanOrEqual(12 + 6);
        }
      }
    });
  });
});

// ---------------------------------------------------------------------------------------------------
// Every real recorded Bedrock stream.

interface RecordedStream {
  name: string;
  body: Uint8Array;
}
const recorded: RecordedStream[] = [];
for (const fixture of bedrockFixtures) {
  if (fixture.format === "eventstream-vector") continue;
  for (const interaction of fixture.interactions) {
    if (interaction.bodyKind === "eventstream") {
      recorded.push({ name: `${fixture.path}#${interaction.index}`, body: interaction.body });
    }
  }
}

/** Frame boundaries found by walking the total-length fields: an oracle that shares no code with the decoder. */
function walkFrames(body: Uint8Array): Uint8Array[] {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const out: Uint8Array[] = [];
  for (let at = 0; at < body.length; at += view.getUint32(at)) {
    out.push(body.subarray(at, at + view.getUint32(at)));
  }
  return out;
}

const CONVERSE_EVENTS = new Set([
  "messageStart",
  "contentBlockStart",
  "contentBlockDelta",
  "contentBlockStop",
  "messageStop",
  "metadata",
]);

describe("every real recorded Bedrock stream", () => {
  it("finds exactly the 8 recorded event-stream bodies", () => {
    expect(recorded.map((r) => r.name)).toEqual([
      "bedrock/openllmetry__test_anthropic_3_completion_streaming.yaml#0",
      "bedrock/openllmetry__test_anthropic_converse_stream_with_tool_use.yaml#0",
      "bedrock/openllmetry__test_nova_invoke_stream.yaml#0",
      "bedrock/pydantic-ai__test_bedrock_model_code_execution_tool_stream.yaml#0",
      "bedrock/pydantic-ai__test_bedrock_model_iter_stream.yaml#0",
      "bedrock/pydantic-ai__test_bedrock_model_iter_stream.yaml#1",
      "bedrock/pydantic-ai__test_bedrock_model_thinking_part_redacted_stream.yaml#0",
      "bedrock/pydantic-ai__test_bedrock_model_thinking_part_stream.yaml#0",
    ]);
  });

  it.each(recorded.map((r) => [r.name, r] as const))(
    "%s decodes completely: CRCs valid, event headers, JSON payloads",
    async (name, stream: RecordedStream) => {
      const walked = walkFrames(stream.body);
      const { frames, batches } = await collect(byteStream(stream.body));
      expect(batches).toBe(1);
      expect(frames.length).toBe(walked.length);
      const invoke = name.includes("_invoke_") || name.includes("completion_streaming");
      for (const [i, decoded] of frames.entries()) {
        // Whole-frame decoding agrees with the streaming one (and verifies both CRCs again).
        expect(decodeAwsEventFrame(walked[i]!)).toEqual(decoded);
        const info = frameInfo(decoded);
        expect(info.messageType).toBe("event");
        expect(info.contentType).toBe("application/json");
        expect(info.exceptionType).toBeUndefined();
        expect(Object.keys(decoded.headers).sort()).toEqual([
          ":content-type",
          ":event-type",
          ":message-type",
        ]);
        if (invoke) expect(info.eventType).toBe("chunk");
        else expect(CONVERSE_EVENTS.has(info.eventType!), info.eventType).toBe(true);
        const payload = JSON.parse(decoder.decode(decoded.payload)) as Record<string, unknown>;
        expect(typeof payload).toBe("object");
        if (invoke) {
          // InvokeModelWithResponseStream: the model's own event JSON, base64 in `bytes`.
          expect(JSON.parse(decoder.decode(base64(payload.bytes as string)))).toBeTypeOf("object");
        }
      }
    },
  );

  it("frame counts match the recordings' descriptions (README)", async () => {
    const count = async (suffix: string) =>
      (await collect(byteStream(recorded.find((r) => r.name.endsWith(suffix))!.body))).frames.length;
    expect(await count("test_anthropic_3_completion_streaming.yaml#0")).toBe(23);
    expect(await count("test_nova_invoke_stream.yaml#0")).toBe(115);
  });

  it("Anthropic on InvokeModelWithResponseStream: the base64 bytes are the Anthropic event sequence", async () => {
    const stream = recorded.find((r) => r.name.includes("anthropic_3_completion_streaming"))!;
    const { frames } = await collect(byteStream(stream.body, [97]));
    const types = frames.map(
      (f) =>
        (
          JSON.parse(
            decoder.decode(base64((JSON.parse(decoder.decode(f.payload)) as { bytes: string }).bytes)),
          ) as { type: string }
        ).type,
    );
    expect(types[0]).toBe("message_start");
    expect(types.at(-1)).toBe("message_stop");
  });
});

// ---------------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------------

describe("readAwsEventStream streaming behaviour", () => {
  const frames = Array.from({ length: 30 }, (_, i) => eventFrame("contentBlockDelta", `{"i":${i}}`));
  const body = concatBytes(frames);

  it("yields the first frame before the body has finished", async () => {
    const controlled = controlledByteStream();
    const iterator = readAwsEventStream(controlled.stream);
    controlled.push(frames[0]!);
    const first = await withTimeout(iterator.next(), 1_000);
    expect(first.done).toBe(false);
    expect(decoder.decode((first.value as AwsEventFrame[])[0]!.payload)).toBe('{"i":0}');
    expect(controlled.state.closed).toBe(false);

    let secondSettled = false;
    const second = iterator.next().then((result) => {
      secondSettled = true;
      return result;
    });
    controlled.push(frames[1]!.subarray(0, 20));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(secondSettled).toBe(false); // part of a frame is not a frame
    controlled.push(frames[1]!.subarray(20));
    const next = await withTimeout(second, 1_000);
    expect(decoder.decode((next.value as AwsEventFrame[])[0]!.payload)).toBe('{"i":1}');
    controlled.close();
    expect(await iterator.next()).toEqual({ done: true, value: undefined });
  });

  it("yields one batch per read: every frame a read completes, never an empty batch", async () => {
    const chunks = [
      concatBytes([frames[0]!, frames[1]!, frames[2]!]), // three whole frames
      frames[3]!.subarray(0, 5), // half a prelude: no batch
      frames[3]!.subarray(5, 30), // still unfinished: no batch
      concatBytes([frames[3]!.subarray(30), frames[4]!.subarray(0, 1)]), // completes one
      new Uint8Array(0),
      frames[4]!.subarray(1),
    ];
    const sizes: number[] = [];
    for await (const batch of readAwsEventStream(trackedChunkStream(chunks).stream)) sizes.push(batch.length);
    expect(sizes).toEqual([3, 1, 1]);
  });

  it("cancels the body when the consumer breaks out of the loop", async () => {
    const { stream, state } = trackedByteStream(body, [50]);
    let seen = 0;
    for await (const batch of readAwsEventStream(stream)) {
      seen += batch.length;
      if (seen >= 2) break;
    }
    expect(state.cancelled).toBe(true);
    expect(state.closed).toBe(false);
    expect(state.bytesDelivered).toBeLessThan(body.length);
  });

  it("cancels the body when the consumer throws inside the loop", async () => {
    const { stream, state } = trackedByteStream(body, [1]);
    const failure = new Error("consumer failed");
    await expect(
      (async () => {
        for await (const _batch of readAwsEventStream(stream)) throw failure;
      })(),
    ).rejects.toBe(failure);
    expect(state.cancelled).toBe(true);
  });

  it("propagates an error from the body's reader, after the frames that arrived before it", async () => {
    const controlled = controlledByteStream();
    const boom = new Error("connection reset");
    const seen: AwsEventFrame[] = [];
    const done = (async () => {
      for await (const batch of readAwsEventStream(controlled.stream)) {
        seen.push(...batch);
        controlled.error(boom);
      }
    })();
    controlled.push(concatBytes([frames[0]!, frames[1]!.subarray(0, 3)]));
    await expect(withTimeout(done)).rejects.toBe(boom);
    expect(seen.length).toBe(1);
  });

  it("releases the body without cancelling it after a normal end", async () => {
    const { stream, state } = trackedByteStream(body, [64]);
    expect((await collect(stream)).frames.length).toBe(30);
    expect(state.closed).toBe(true);
    expect(state.cancelled).toBe(false);
    expect(stream.locked).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------

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
