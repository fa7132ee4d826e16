import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AwsEventFrame,
  AwsEventStreamDecoder,
  type AwsHeaderValue,
  decodeAwsEventFrame,
  readAwsEventStream,
} from "../../src/wire/aws-event-stream.ts";
import { crc32 } from "../../src/wire/crc32.ts";
import { WireError } from "../../src/wire/wire-error.ts";
import { byteStream, concatBytes, splitAt, trackedChunkStream } from "../helpers/byte-stream.ts";
import { loadAllFixtures } from "../helpers/fixtures.ts";

// ---------------------------------------------------------------------------------------------------
// Helpers

async function collect(stream: ReadableStream<Uint8Array>): Promise<AwsEventFrame[]> {
  const frames: AwsEventFrame[] = [];
  for await (const batch of readAwsEventStream(stream)) {
    for (const frame of batch) frames.push(frame);
  }
  return frames;
}

async function collectUntilError(
  stream: ReadableStream<Uint8Array>,
): Promise<{ frames: AwsEventFrame[]; error: unknown }> {
  const frames: AwsEventFrame[] = [];
  try {
    for await (const batch of readAwsEventStream(stream)) {
      for (const frame of batch) frames.push(frame);
    }
  } catch (error) {
    return { frames, error };
  }
  return { frames, error: undefined };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Cheap field-by-field comparison for scalar headers; anything else (or a difference) goes to `toEqual`. */
function sameFrame(a: AwsEventFrame, b: AwsEventFrame): boolean {
  const keys = Object.keys(a.headers);
  if (keys.length !== Object.keys(b.headers).length) return false;
  for (const key of keys) {
    const value = a.headers[key];
    if (typeof value === "object" || value !== b.headers[key]) return false;
  }
  return sameBytes(a.payload, b.payload);
}

function expectSameFrames(actual: AwsEventFrame[], expected: AwsEventFrame[], message?: string): void {
  const same =
    actual.length === expected.length && actual.every((frame, i) => sameFrame(frame, expected[i]!));
  if (!same) expect(actual, message).toEqual(expected);
}

function expectCorrupt(error: unknown, message?: string): void {
  expect(error, message).toBeInstanceOf(WireError);
  expect((error as WireError).code, message).toBe("corrupt_frame");
}

/**
 * Where a property cuts a body: cycled small chunk sizes (1-byte chunks included) inside a window of up to
 * {@link WINDOW} bytes placed anywhere in the body, plus up to 40 random cut points anywhere.
 */
interface Split {
  sizes: readonly number[];
  windowAt: number;
  fractions: number[];
}
const WINDOW = 4096;

const splitArb: fc.Arbitrary<Split> = fc.record({
  sizes: fc.oneof(
    fc.constant([1]),
    fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }),
    fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 6 }),
    fc.array(fc.integer({ min: 100, max: 3000 }), { minLength: 1, maxLength: 4 }),
  ),
  windowAt: fc.double({ min: 0, max: 1, noNaN: true }),
  fractions: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 40 }),
});

function cut(bytes: Uint8Array, split: Split): Uint8Array[] {
  const offsets = split.fractions.map((f) => Math.floor(f * bytes.length));
  const start = Math.floor(split.windowAt * Math.max(0, bytes.length - WINDOW));
  const end = Math.min(bytes.length, start + WINDOW);
  for (let offset = start, i = 0; offset < end; i++) {
    offsets.push(offset);
    offset += split.sizes[i % split.sizes.length]!;
  }
  return splitAt(bytes, offsets);
}

// ---------------------------------------------------------------------------------------------------
// The recorded streams, and their frames decoded from the whole body.

interface Recorded {
  name: string;
  body: Uint8Array;
  /**
   * The frames of one read of the whole body, computed in the test that compares with them (not at import:
   * a mutation-testing run would see the decoder as run at load time and credit no test with it).
   */
  frames(): Promise<AwsEventFrame[]>;
  /** Byte offset where each frame starts, plus the body length at the end. */
  starts: number[];
}

const recorded: Recorded[] = [];
for (const fixture of await loadAllFixtures("bedrock")) {
  if (fixture.format === "eventstream-vector") continue;
  for (const interaction of fixture.interactions) {
    if (interaction.bodyKind !== "eventstream") continue;
    const body = interaction.body;
    const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
    const starts: number[] = [];
    for (let at = 0; at < body.length; at += view.getUint32(at)) starts.push(at);
    starts.push(body.length);
    recorded.push({
      name: `${fixture.path}#${interaction.index}`,
      body,
      frames: () => collect(byteStream(body)),
      starts,
    });
  }
}

describe("any split of a real recorded stream gives the same frames", () => {
  it("has the 8 recorded streams, every frame accounted for", async () => {
    expect(recorded.length).toBe(8);
    let total = 0;
    for (const stream of recorded) {
      const frames = await stream.frames();
      expect(frames.length, stream.name).toBe(stream.starts.length - 1);
      total += frames.length;
    }
    expect(total).toBe(253);
  });

  it("one byte at a time, every stream from start to end", async () => {
    for (const stream of recorded) {
      expectSameFrames(await collect(byteStream(stream.body, [1])), await stream.frames(), stream.name);
    }
  });

  it("400 random (stream, split) pairs through readAwsEventStream", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...recorded), splitArb, async (stream, split) => {
        const chunks = cut(stream.body, split);
        expect(sameBytes(concatBytes(chunks), stream.body)).toBe(true);
        expectSameFrames(
          await collect(trackedChunkStream(chunks).stream),
          await stream.frames(),
          stream.name,
        );
      }),
      { numRuns: 400 },
    );
  });

  it("1000 random (stream, split) pairs through the synchronous decoder", async () => {
    const expected = new Map<Recorded, AwsEventFrame[]>();
    for (const stream of recorded) expected.set(stream, await stream.frames());
    fc.assert(
      fc.property(fc.constantFrom(...recorded), splitArb, (stream, split) => {
        const decoder = new AwsEventStreamDecoder();
        const frames: AwsEventFrame[] = [];
        for (const chunk of cut(stream.body, split)) decoder.push(chunk, frames);
        decoder.finish();
        expectSameFrames(frames, expected.get(stream)!, stream.name);
      }),
      { numRuns: 1000 },
    );
  });

  it("every cut point of one stream, two chunks each", async () => {
    const stream = recorded.reduce((a, b) => (a.body.length <= b.body.length ? a : b));
    for (let offset = 0; offset <= stream.body.length; offset++) {
      const decoder = new AwsEventStreamDecoder();
      const frames = decoder.push(stream.body.subarray(0, offset));
      decoder.push(stream.body.subarray(offset), frames);
      decoder.finish();
      expectSameFrames(frames, await stream.frames(), `${stream.name} cut at ${offset}`);
    }
  });
});

// ---------------------------------------------------------------------------------------------------
// Any single flipped byte is detected.

const MASKS = [0x01, 0x80, 0xff, 0x5a];

function flipped(bytes: Uint8Array, position: number, mask: number): Uint8Array {
  const out = bytes.slice();
  out[position]! ^= mask;
  return out;
}

describe("any single flipped byte in a frame is detected", () => {
  // The three smallest real frames, and AWS's all_headers vector (every header type).
  const frameBytes: Uint8Array[] = [];
  for (const stream of recorded) {
    for (let i = 0; i + 1 < stream.starts.length; i++) {
      frameBytes.push(stream.body.subarray(stream.starts[i]!, stream.starts[i + 1]!));
    }
  }
  const smallest = [...frameBytes].sort((a, b) => a.length - b.length).slice(0, 3);

  it("every byte position × 4 masks of the smallest real frames and the all_headers vector", async () => {
    const vectors = await loadAllFixtures("bedrock/aws-eventstream-test-vectors/encoded/positive");
    const allHeaders = vectors.find((v) => v.vector?.name === "all_headers")!.vector!.encoded;
    let cases = 0;
    for (const bytes of [...smallest, allHeaders]) {
      expect(() => decodeAwsEventFrame(bytes)).not.toThrow();
      for (let position = 0; position < bytes.length; position++) {
        for (const mask of MASKS) {
          const bad = flipped(bytes, position, mask);
          let error: unknown;
          try {
            decodeAwsEventFrame(bad);
          } catch (e) {
            error = e;
          }
          expectCorrupt(error, `byte ${position} ^ ${mask}`);
          // Streamed between good frames, one byte at a time: the good frame before, then the error.
          const decoder = new AwsEventStreamDecoder();
          const out: AwsEventFrame[] = [];
          try {
            for (const byte of concatBytes([smallest[0]!, bad, smallest[0]!])) {
              decoder.push(Uint8Array.of(byte), out);
            }
            decoder.finish();
          } catch (e) {
            error = e;
          }
          expectCorrupt(error, `streamed: byte ${position} ^ ${mask}`);
          expect(out.length).toBe(1);
          cases++;
        }
      }
    }
    console.info(`flipped-byte cases checked exhaustively: ${cases}`);
    expect(cases).toBeGreaterThan(1000);
  });

  it("every byte position of a small frame through readAwsEventStream, one byte per read", async () => {
    const bytes = smallest[0]!;
    for (let position = 0; position < bytes.length; position++) {
      const { frames, error } = await collectUntilError(byteStream(flipped(bytes, position, 0x10), [1]));
      expect(frames).toEqual([]);
      expectCorrupt(error, `byte ${position}`);
    }
  });

  it("300 random positions and masks in whole real streams, randomly split: the frames before, then corrupt_frame", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...recorded),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        fc.integer({ min: 1, max: 255 }),
        splitArb,
        async (stream, where, mask, split) => {
          const position = Math.floor(where * stream.body.length);
          const index = stream.starts.findIndex(
            (start, i) => position < stream.starts[i + 1]! && position >= start,
          );
          const { frames, error } = await collectUntilError(
            trackedChunkStream(cut(flipped(stream.body, position, mask), split)).stream,
          );
          expectCorrupt(error, `${stream.name} byte ${position} ^ ${mask}`);
          expectSameFrames(frames, (await stream.frames()).slice(0, index), stream.name);
        },
      ),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------
// Round trip through a test-only encoder: arbitrary frames with every header type.

interface HeaderSpec {
  name: string;
  type: number;
  value: AwsHeaderValue;
}
interface FrameSpec {
  headers: HeaderSpec[];
  payload: Uint8Array;
}

const utf8 = new TextEncoder();

function hexBytes(uuid: string): number[] {
  const hex = uuid.replace(/-/g, "");
  return Array.from({ length: 16 }, (_, i) => Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16));
}

function int64Bytes(value: bigint): number[] {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigInt64(0, value);
  return [...new Uint8Array(view.buffer)];
}

/** The event-stream encoding of one message, written from the format description (not from the decoder). */
function encode(spec: FrameSpec): Uint8Array {
  const h: number[] = [];
  for (const { name, type, value } of spec.headers) {
    const n = utf8.encode(name);
    h.push(n.length, ...n, type);
    switch (type) {
      case 0:
      case 1:
        break;
      case 2:
        h.push((value as number) & 0xff);
        break;
      case 3:
        h.push(((value as number) >> 8) & 0xff, (value as number) & 0xff);
        break;
      case 4: {
        const v = value as number;
        h.push((v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff);
        break;
      }
      case 5:
        h.push(...int64Bytes(value as bigint));
        break;
      case 6:
      case 7: {
        const bytes = type === 6 ? (value as Uint8Array) : utf8.encode(value as string);
        h.push(bytes.length >> 8, bytes.length & 0xff, ...bytes);
        break;
      }
      case 8:
        h.push(...int64Bytes(BigInt((value as Date).getTime())));
        break;
      case 9:
        h.push(...hexBytes((value as { uuid: string }).uuid));
        break;
    }
  }
  const total = 16 + h.length + spec.payload.length;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, h.length);
  view.setUint32(8, crc32(out.subarray(0, 8)));
  out.set(h, 12);
  out.set(spec.payload, 12 + h.length);
  view.setUint32(total - 4, crc32(out.subarray(0, total - 4)));
  return out;
}

const byteLength = (text: string): number => utf8.encode(text).length;

const nameArb = fc.oneof(
  { weight: 5, arbitrary: fc.string({ unit: "binary", maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme-ascii", minLength: 200, maxLength: 255 }) },
  { weight: 1, arbitrary: fc.constantFrom(":event-type", ":message-type", ":content-type", "__proto__") },
);

const uuidArb = fc
  .uint8Array({ minLength: 16, maxLength: 16 })
  .map((b) => [...b].map((x) => x.toString(16).padStart(2, "0")).join(""))
  .map((h) => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`);

const typedValueArb: fc.Arbitrary<{ type: number; value: AwsHeaderValue }> = fc.oneof(
  fc.constant({ type: 0, value: true }),
  fc.constant({ type: 1, value: false }),
  fc.integer({ min: -128, max: 127 }).map((value) => ({ type: 2, value })),
  fc.integer({ min: -32768, max: 32767 }).map((value) => ({ type: 3, value })),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }).map((value) => ({ type: 4, value })),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((value) => ({ type: 5, value })),
  fc
    .oneof(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ minLength: 1000, maxLength: 5000 }))
    .map((value) => ({ type: 6, value })),
  fc
    .oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.string({ unit: "binary", maxLength: 2000 }))
    .filter((s) => byteLength(s) <= 65535)
    .map((value) => ({ type: 7, value })),
  fc.integer({ min: -8.64e15, max: 8.64e15 }).map((ms) => ({ type: 8, value: new Date(ms) })),
  uuidArb.map((uuid) => ({ type: 9, value: { uuid } })),
);

const frameArb: fc.Arbitrary<FrameSpec> = fc.record({
  headers: fc.uniqueArray(
    fc
      .record({ name: nameArb.filter((n) => byteLength(n) <= 255), typed: typedValueArb })
      .map(({ name, typed }) => ({ name, ...typed })),
    { selector: (h) => h.name, maxLength: 12 },
  ),
  payload: fc.oneof(
    { weight: 4, arbitrary: fc.uint8Array({ maxLength: 200 }) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 4000, maxLength: 20000 }) },
  ),
});

function sameValue(a: AwsHeaderValue | undefined, b: AwsHeaderValue | undefined): boolean {
  if (a instanceof Uint8Array) return b instanceof Uint8Array && sameBytes(a, b);
  if (a instanceof Date) return b instanceof Date && a.getTime() === b.getTime();
  if (typeof a === "object")
    return typeof b === "object" && !(b instanceof Uint8Array) && !(b instanceof Date) && a.uuid === b.uuid;
  return a === b;
}

/** Exact equality (header order, value types, bytes) without `toEqual` on big arrays; `toEqual` only for the diff. */
function expectFrames(actual: AwsEventFrame[], expected: AwsEventFrame[]): void {
  const same =
    actual.length === expected.length &&
    actual.every((frame, i) => {
      const other = expected[i]!;
      const keys = Object.keys(frame.headers);
      const otherKeys = Object.keys(other.headers);
      return (
        keys.length === otherKeys.length &&
        keys.every((key, k) => key === otherKeys[k] && sameValue(frame.headers[key], other.headers[key])) &&
        sameBytes(frame.payload, other.payload)
      );
    });
  if (!same) expect(actual).toEqual(expected);
}

function expectedFrame(spec: FrameSpec): AwsEventFrame {
  const headers: Record<string, AwsHeaderValue> = Object.create(null);
  for (const header of spec.headers) headers[header.name] = header.value;
  return { headers, payload: spec.payload };
}

describe("round trip: encode arbitrary frames, split at random, decode", () => {
  it("covers every header type", () => {
    const types = new Set<number>();
    for (const typed of fc.sample(typedValueArb, 500)) types.add(typed.type);
    expect([...types].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("decodes to exactly the frames encoded (readAwsEventStream and decodeAwsEventFrame)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(frameArb, { minLength: 1, maxLength: 5 }), splitArb, async (specs, split) => {
        const encoded = specs.map(encode);
        const expected = specs.map(expectedFrame);
        expectFrames(
          encoded.map((bytes) => decodeAwsEventFrame(bytes)),
          expected,
        );
        const body = concatBytes(encoded);
        expectFrames(await collect(trackedChunkStream(cut(body, split)).stream), expected);
      }),
      { numRuns: 300 },
    );
  });
});
