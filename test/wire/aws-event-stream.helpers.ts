/**
 * Shared by the AWS event-stream decoder tests: frame builders, the aws-sdk-go vectors and the recorded Bedrock bodies.
 */
import { expect } from "vitest";
import {
  type AwsEventFrame,
  type AwsEventStreamOptions,
  type AwsHeaderValue,
  readAwsEventStream,
} from "../../src/wire/aws-event-stream.ts";
import { crc32 } from "../../src/wire/crc32.ts";
import { WireError } from "../../src/wire/wire-error.ts";
import { concatBytes } from "../helpers/byte-stream.ts";
import {
  type EventStreamVector,
  type EventStreamVectorHeader,
  type Fixture,
  loadAllFixtures,
} from "../helpers/fixtures.ts";

export const encoder = new TextEncoder();
export const decoder = new TextDecoder();
export const bytesOf = (text: string): Uint8Array => encoder.encode(text);
export const base64 = (text: string): Uint8Array => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

// ---------------------------------------------------------------------------------------------------
// A minimal frame builder (string headers, or raw header bytes), for hand-made cases.

export function stringHeader(name: string, value: string): Uint8Array {
  const n = bytesOf(name);
  const v = bytesOf(value);
  return Uint8Array.from([n.length, ...n, 7, v.length >> 8, v.length & 0xff, ...v]);
}

/** A frame with correct lengths and CRCs around `headers` and `payload`. */
export function frame(headers: Uint8Array | Uint8Array[], payload: Uint8Array | string = ""): Uint8Array {
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
export function eventFrame(eventType: string, payload: string): Uint8Array {
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
export function prelude(total: number, headersLength: number): Uint8Array {
  const out = new Uint8Array(12);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headersLength);
  view.setUint32(8, crc32(out.subarray(0, 8)));
  return out;
}

// ---------------------------------------------------------------------------------------------------

export async function withTimeout<T>(promise: Promise<T>, ms = 5_000): Promise<T> {
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
export async function collect(
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
export async function collectUntilError(
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

export function expectWireError(error: unknown, code: WireError["code"], message?: RegExp): void {
  expect(error).toBeInstanceOf(WireError);
  expect((error as WireError).code).toBe(code);
  if (message) expect((error as WireError).message).toMatch(message);
}

export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

// ---------------------------------------------------------------------------------------------------
// AWS's own codec test vectors (aws-sdk-go).

export const bedrockFixtures: Fixture[] = await loadAllFixtures("bedrock");
export const vectors: EventStreamVector[] = [];
export const seenVectors = new Set<string>();
for (const fixture of bedrockFixtures) {
  const vector = fixture.vector;
  if (vector && !seenVectors.has(`${vector.polarity}/${vector.name}`)) {
    seenVectors.add(`${vector.polarity}/${vector.name}`);
    vectors.push(vector);
  }
}
export const positives = vectors.filter((v) => v.polarity === "positive");
export const negatives = vectors.filter((v) => v.polarity === "negative");

export function uuidOf(bytes: Uint8Array): string {
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The value a header of the vector must decode to, from its type code and Go's JSON rendering. */
export function expectedValue(header: EventStreamVectorHeader): AwsHeaderValue {
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
export function jsTypeOf(value: AwsHeaderValue): string {
  if (value instanceof Uint8Array) return "bytes";
  if (value instanceof Date) return "date";
  if (typeof value === "object") return "uuid";
  return typeof value;
}
export const JS_TYPE_BY_WIRE_TYPE = [
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

// ---------------------------------------------------------------------------------------------------
// Every real recorded Bedrock stream.

export interface RecordedStream {
  name: string;
  body: Uint8Array;
}
export const recorded: RecordedStream[] = [];
for (const fixture of bedrockFixtures) {
  if (fixture.format === "eventstream-vector") continue;
  for (const interaction of fixture.interactions) {
    if (interaction.bodyKind === "eventstream") {
      recorded.push({ name: `${fixture.path}#${interaction.index}`, body: interaction.body });
    }
  }
}

/** Frame boundaries found by walking the total-length fields: an oracle that shares no code with the decoder. */
export function walkFrames(body: Uint8Array): Uint8Array[] {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const out: Uint8Array[] = [];
  for (let at = 0; at < body.length; at += view.getUint32(at)) {
    out.push(body.subarray(at, at + view.getUint32(at)));
  }
  return out;
}

export const CONVERSE_EVENTS = new Set([
  "messageStart",
  "contentBlockStart",
  "contentBlockDelta",
  "contentBlockStop",
  "messageStop",
  "metadata",
]);

// ---------------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------------
