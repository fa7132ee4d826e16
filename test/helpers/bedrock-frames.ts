/**
 * A test-only AWS event-stream encoder: Bedrock response bodies built frame by frame, with correct CRCs —
 * ConverseStream events, InvokeModelWithResponseStream `chunk` frames (base64 `bytes`, `p` padding) and
 * exception frames. No Node API: the runtime cases (Deno, Bun, workerd) use it too.
 *
 * @module
 */
import { crc32 } from "../../src/wire/crc32.ts";

const encoder = new TextEncoder();

/** One frame with string headers (type 7) and `payload`. */
export function encodeFrame(headers: Record<string, string>, payload: Uint8Array | string): Uint8Array {
  const headerBytes: number[] = [];
  for (const [name, value] of Object.entries(headers)) {
    const n = encoder.encode(name);
    const v = encoder.encode(value);
    headerBytes.push(n.length, ...n, 7, v.length >> 8, v.length & 0xff, ...v);
  }
  const body = typeof payload === "string" ? encoder.encode(payload) : payload;
  const total = 16 + headerBytes.length + body.length;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, total);
  view.setUint32(4, headerBytes.length);
  view.setUint32(8, crc32(out.subarray(0, 8)));
  out.set(headerBytes, 12);
  out.set(body, 12 + headerBytes.length);
  view.setUint32(total - 4, crc32(out.subarray(0, total - 4)));
  return out;
}

/** Bedrock's `p` padding: a run of the alphabet whose length varies with `seed`. */
export function padding(seed: number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  return alphabet.slice(0, 1 + (Math.abs(seed * 7919) % alphabet.length));
}

/** A ConverseStream event frame: `:event-type` and the JSON payload (with `p` padding). */
export function converseEventFrame(
  eventType: string,
  payload: Record<string, unknown>,
  seed = 0,
): Uint8Array {
  return encodeFrame(
    { ":event-type": eventType, ":content-type": "application/json", ":message-type": "event" },
    JSON.stringify({ ...payload, p: padding(seed) }),
  );
}

/** ConverseStream frames from decoded events written as `{ [eventType]: payload }` (vercel's chunks.txt). */
export function converseFrames(events: readonly Record<string, unknown>[]): Uint8Array {
  return concat(
    events.map((event, index) => {
      const [eventType, payload] = Object.entries(event)[0]!;
      return converseEventFrame(eventType, payload as Record<string, unknown>, index);
    }),
  );
}

/** An InvokeModelWithResponseStream `chunk` frame carrying `event` (JSON) as base64 `bytes`. */
export function chunkFrame(event: unknown, seed = 0): Uint8Array {
  const json = typeof event === "string" ? event : JSON.stringify(event);
  return encodeFrame(
    { ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" },
    JSON.stringify({ bytes: bytesToBase64(encoder.encode(json)), p: padding(seed) }),
  );
}

/** InvokeModelWithResponseStream frames for a list of Anthropic events. */
export function invokeFrames(events: readonly unknown[]): Uint8Array {
  return concat(events.map((event, index) => chunkFrame(event, index)));
}

/** A modeled exception frame (`:message-type: exception`). */
export function exceptionFrame(exceptionType: string, message: string): Uint8Array {
  return encodeFrame(
    { ":exception-type": exceptionType, ":content-type": "application/json", ":message-type": "exception" },
    JSON.stringify({ message }),
  );
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Bytes → base64 (test side, written independently of src/). */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * A body delivering `bytes` in pieces of cycling odd sizes (`sizes`), each read one macrotask apart, so
 * preludes, headers, payloads and CRCs are split everywhere.
 */
export function oddChunkBody(
  bytes: Uint8Array,
  sizes: readonly number[] = [1, 3, 7, 13, 29, 61, 2],
): ReadableStream<Uint8Array> {
  let offset = 0;
  let turn = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (offset >= bytes.length) {
          controller.close();
          return;
        }
        const size = sizes[turn++ % sizes.length]!;
        controller.enqueue(bytes.slice(offset, offset + size));
        offset += size;
      },
    },
    { highWaterMark: 0 },
  );
}
