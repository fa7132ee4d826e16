/**
 * AWS event stream (`application/vnd.amazon.eventstream`) from a byte stream: the binary framing of
 * Bedrock's ConverseStream and InvokeModelWithResponseStream responses.
 *
 * A message (frame) is, big-endian throughout:
 *
 * ```text
 * total length u32 | headers length u32 | prelude CRC u32 (of the 8 bytes before it)
 * headers          | payload            | message CRC u32 (of every byte before it)
 * ```
 *
 * and a header is `name length u8 | name (UTF-8) | type u8 | value`, the value shaped by the type:
 * 0 true and 1 false (no bytes), 2 int8, 3 int16, 4 int32, 5 int64, 6 bytes and 7 string (u16 length
 * first), 8 timestamp (int64 milliseconds since the epoch), 9 UUID (16 bytes).
 *
 * Both checksums are verified before a frame is handed out: a corrupted frame is an error, never output.
 * Only the unfinished frame is held between reads, and its lengths are checked as soon as its 12-byte
 * prelude has arrived, so an impossible or oversized frame fails before its bytes are buffered.
 *
 * @see https://smithy.io/2.0/aws/amazon-eventstream.html
 * @module
 */
import { crc32 } from "./crc32.ts";
import { WireError } from "./wire-error.ts";

/**
 * A header value, by wire type: booleans (0, 1); `number` for int8, int16 and int32 (2, 3, 4); `bigint`
 * for int64 (5); `Uint8Array` for bytes (6); `string` (7); `Date` for timestamps (8); `{ uuid }` with the
 * UUID in lower-case 8-4-4-4-12 form (9).
 */
export type AwsHeaderValue = boolean | number | bigint | string | Uint8Array | Date | { uuid: string };

/** One decoded message: its headers (by name; a repeated name keeps the last value) and its payload. */
export interface AwsEventFrame {
  /** A prototype-less record, so a header named `__proto__` is just a header. */
  headers: Record<string, AwsHeaderValue>;
  /**
   * The payload bytes. Never a view of the caller's chunk, so they can be kept; but a view of a buffer
   * the decoder copied the frames of one read into, which it keeps alive: `slice()` a small payload
   * that is kept for long.
   */
  payload: Uint8Array;
}

/** The well-known headers of a frame, each `undefined` when absent or not a string. */
export interface AwsFrameInfo {
  /** `:message-type`: `event`, `exception` (a modeled error) or `error` (an unmodeled one). */
  messageType: string | undefined;
  /** `:event-type` of an event, e.g. `contentBlockDelta` or `chunk`. */
  eventType: string | undefined;
  /** `:exception-type` of an exception, e.g. `throttlingException`. */
  exceptionType: string | undefined;
  /** `:content-type` of the payload, e.g. `application/json`. */
  contentType: string | undefined;
  /** `:error-code` of an `error` message. */
  errorCode: string | undefined;
  /** `:error-message` of an `error` message. */
  errorMessage: string | undefined;
}

/** Options for {@link readAwsEventStream} and {@link AwsEventStreamDecoder}. */
export interface AwsEventStreamOptions {
  /**
   * Largest frame accepted, in bytes (total length). A prelude announcing more fails with a `WireError`
   * (`corrupt_frame`) before anything of the frame is buffered. Default 16 MiB, the limit of the format.
   */
  maxFrameBytes?: number;
}

/** Default for {@link AwsEventStreamOptions.maxFrameBytes}. */
export const DEFAULT_AWS_MAX_FRAME_BYTES = 16 * 1024 * 1024;

const PRELUDE_BYTES = 12;
/** Prelude plus message CRC: a frame with no headers and no payload. */
const MIN_FRAME_BYTES = 16;

/**
 * The well-known headers of a frame (see {@link AwsFrameInfo}).
 *
 * @example
 * ```ts
 * const { messageType, eventType } = frameInfo(frame);
 * if (messageType === "event" && eventType === "contentBlockDelta") handle(JSON.parse(text(frame.payload)));
 * ```
 */
export function frameInfo(frame: AwsEventFrame): AwsFrameInfo {
  const headers = frame.headers;
  return {
    messageType: stringHeader(headers[":message-type"]),
    eventType: stringHeader(headers[":event-type"]),
    exceptionType: stringHeader(headers[":exception-type"]),
    contentType: stringHeader(headers[":content-type"]),
    errorCode: stringHeader(headers[":error-code"]),
    errorMessage: stringHeader(headers[":error-message"]),
  };
}

function stringHeader(value: AwsHeaderValue | undefined): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/**
 * Decode one whole message: `bytes` must hold exactly one frame.
 *
 * @throws WireError `corrupt_frame` for a checksum mismatch, impossible lengths, an unknown header type
 *   or bytes after the frame; `truncated` when `bytes` ends before the frame does
 */
export function decodeAwsEventFrame(bytes: Uint8Array, options: AwsEventStreamOptions = {}): AwsEventFrame {
  if (bytes.length < PRELUDE_BYTES) throw truncated(bytes.length, undefined);
  const total = checkPrelude(bytes, 0, options.maxFrameBytes ?? DEFAULT_AWS_MAX_FRAME_BYTES);
  if (bytes.length < total) throw truncated(bytes.length, total);
  if (bytes.length > total) {
    throw new WireError(
      "corrupt_frame",
      `AWS event stream: ${bytes.length - total} bytes after a frame of ${total} bytes`,
    );
  }
  // Validated, then copied once: the frame's payload and byte headers view the copy, not the caller's bytes.
  return decodeFrame(copyOf(bytes, 0, total), 0, total);
}

/**
 * Incremental, synchronous decoder: push the body's chunks in order, get back the frames each one
 * completes; call {@link AwsEventStreamDecoder.finish} when the body ends. {@link readAwsEventStream}
 * is this decoder on a `ReadableStream`.
 *
 * A frame may be split across any chunk boundaries. Each byte is copied once: the frames that lie whole
 * in a chunk into one buffer per `push`, a frame split across chunks into a buffer of its announced size
 * (allocated when its prelude has been checked, so at most `maxFrameBytes`).
 * Frames are views of those copies, so the decoder keeps no reference to a chunk after `push` returns
 * and the caller may reuse it.
 *
 * After an error the decoder stays failed: every later `push` or `finish` throws the same error.
 */
export class AwsEventStreamDecoder {
  readonly maxFrameBytes: number;
  /** The first bytes of a prelude split across chunks. */
  #prelude = new Uint8Array(PRELUDE_BYTES);
  #preludeFilled = 0;
  /** The frame being assembled (its announced size) once its prelude has been checked. */
  #frame: Uint8Array | undefined;
  #frameFilled = 0;
  #failure: unknown;
  #failed = false;

  constructor(options: AwsEventStreamOptions = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_AWS_MAX_FRAME_BYTES;
  }

  /** Bytes held for the unfinished frame (0 between frames). */
  get pendingBytes(): number {
    return this.#frame === undefined ? this.#preludeFilled : this.#frameFilled;
  }

  /**
   * Decode what `chunk` completes. Frames are appended to `into` (a new array when omitted), which is
   * returned. When a frame is corrupt this throws a `WireError`, and `into` still holds the frames the
   * same chunk completed before it, so a caller that passes its own array loses no good frame.
   */
  push(chunk: Uint8Array, into: AwsEventFrame[] = []): AwsEventFrame[] {
    if (this.#failed) throw this.#failure;
    try {
      this.#push(chunk, into);
    } catch (error) {
      this.#failed = true;
      this.#failure = error;
      throw error;
    }
    return into;
  }

  /**
   * The body ended. Throws a `WireError` (`truncated`) if it ended inside a frame.
   */
  finish(): void {
    if (this.#failed) throw this.#failure;
    const frame = this.#frame;
    if (frame === undefined && this.#preludeFilled === 0) return;
    this.#failed = true;
    this.#failure = truncated(this.pendingBytes, frame?.length);
    throw this.#failure;
  }

  #push(chunk: Uint8Array, into: AwsEventFrame[]): void {
    const length = chunk.length;
    let offset = 0;
    while (offset < length) {
      const frame = this.#frame;
      if (frame !== undefined) {
        // Continue the frame being assembled.
        const take = Math.min(frame.length - this.#frameFilled, length - offset);
        frame.set(chunk.subarray(offset, offset + take), this.#frameFilled);
        this.#frameFilled += take;
        offset += take;
        if (this.#frameFilled === frame.length) {
          this.#frame = undefined;
          this.#frameFilled = 0;
          into.push(decodeFrame(frame, 0, frame.length));
        }
      } else if (this.#preludeFilled > 0 || length - offset < PRELUDE_BYTES) {
        // A prelude split across chunks: gather its 12 bytes first.
        const take = Math.min(PRELUDE_BYTES - this.#preludeFilled, length - offset);
        this.#prelude.set(chunk.subarray(offset, offset + take), this.#preludeFilled);
        this.#preludeFilled += take;
        offset += take;
        if (this.#preludeFilled === PRELUDE_BYTES) {
          const total = checkPrelude(this.#prelude, 0, this.maxFrameBytes);
          const assembled = new Uint8Array(total);
          assembled.set(this.#prelude);
          this.#frame = assembled;
          this.#frameFilled = PRELUDE_BYTES;
          this.#preludeFilled = 0;
        }
      } else {
        // The run of frames that lie whole in this chunk (stopping at a bad prelude): copied once, then
        // decoded in place. One copy per read instead of one per payload: allocating a buffer per frame
        // costs more than copying the bytes.
        let end = offset;
        for (let total = 0; length - end >= PRELUDE_BYTES; end += total) {
          total = frameLength(chunk, end, this.maxFrameBytes);
          if (total < 0 || length - end < total) break;
        }
        if (end > offset) {
          const run = copyOf(chunk, offset, end);
          for (let at = 0; at < run.length; ) {
            const total = u32(run, at);
            into.push(decodeFrame(run, at, total));
            at += total;
          }
          offset = end;
        } else {
          // A frame that continues in later chunks (or a bad prelude, which throws here).
          const total = checkPrelude(chunk, offset, this.maxFrameBytes);
          const assembled = new Uint8Array(total);
          assembled.set(chunk.subarray(offset));
          this.#frame = assembled;
          this.#frameFilled = length - offset;
          offset = length;
        }
      }
    }
  }
}

/**
 * AWS event-stream frames from a response body, a read at a time: each batch holds the frames completed
 * by one read of the body (never empty), so a consumer pays one async step per network read, not per
 * frame (the same contract as `readSseBatches`).
 *
 * - Frames may be split across any chunk boundary; only the unfinished frame is held.
 * - Both CRCs are verified; a mismatch, impossible lengths, a frame larger than `maxFrameBytes` or an
 *   unknown header type fails with a `WireError` (`corrupt_frame`), after the frames before it have been
 *   yielded. A body that ends inside a frame fails with `truncated`.
 * - Breaking out of the loop (or an error) cancels the body, which cancels the underlying fetch.
 *
 * @example
 * ```ts
 * for await (const frames of readAwsEventStream(response.body!)) {
 *   for (const frame of frames) {
 *     const { messageType, eventType } = frameInfo(frame);
 *     console.log(messageType, eventType, new TextDecoder().decode(frame.payload));
 *   }
 * }
 * ```
 */
export async function* readAwsEventStream(
  body: ReadableStream<Uint8Array>,
  options: AwsEventStreamOptions = {},
): AsyncGenerator<AwsEventFrame[], void, undefined> {
  const decoder = new AwsEventStreamDecoder(options);
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const batch: AwsEventFrame[] = [];
      let failed = false;
      let failure: unknown;
      try {
        decoder.push(value, batch);
      } catch (error) {
        failed = true;
        failure = error;
      }
      // The frames completed before a corrupt one first, so the outcome does not depend on chunking.
      if (batch.length > 0) yield batch;
      if (failed) throw failure;
    }
    finished = true;
    decoder.finish();
  } finally {
    if (finished) {
      reader.releaseLock();
    } else {
      // The consumer stopped early or something threw: cancel the body so the connection is released.
      await reader.cancel().catch(() => {});
    }
  }
}

// ---------------------------------------------------------------------------------------------------

/** A plain `Uint8Array` copy of `bytes[start, end)` (`slice` on a Node `Buffer` would be a view). */
function copyOf(bytes: Uint8Array, start: number, end: number): Uint8Array {
  const out = new Uint8Array(end - start);
  out.set(bytes.subarray(start, end));
  return out;
}

function u32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;
}

function u16(bytes: Uint8Array, at: number): number {
  return (bytes[at]! << 8) | bytes[at + 1]!;
}

function hex32(value: number): string {
  return `0x${value.toString(16).padStart(8, "0")}`;
}

function corrupt(message: string): WireError {
  return new WireError("corrupt_frame", `AWS event stream: ${message}`);
}

function truncated(received: number, total: number | undefined): WireError {
  return new WireError(
    "truncated",
    total === undefined
      ? `AWS event stream: body ended inside a frame prelude (${received} of ${PRELUDE_BYTES} bytes)`
      : `AWS event stream: body ended inside a frame (${received} of ${total} bytes)`,
  );
}

/**
 * The total length announced by the prelude at `at` (12 bytes present), or -1 when the prelude is bad
 * (checksum, impossible lengths, over the limit); {@link checkPrelude} says why.
 */
function frameLength(bytes: Uint8Array, at: number, maxFrameBytes: number): number {
  const total = u32(bytes, at);
  const headersLength = u32(bytes, at + 4);
  return crc32(bytes.subarray(at, at + 8)) !== u32(bytes, at + 8) ||
    total < MIN_FRAME_BYTES ||
    headersLength > total - MIN_FRAME_BYTES ||
    total > maxFrameBytes
    ? -1
    : total;
}

/** Verify the prelude at `at` (12 bytes present) and return the frame's total length. */
function checkPrelude(bytes: Uint8Array, at: number, maxFrameBytes: number): number {
  const total = frameLength(bytes, at, maxFrameBytes);
  if (total >= 0) return total;
  const announced = u32(bytes, at);
  const headersLength = u32(bytes, at + 4);
  const expected = u32(bytes, at + 8);
  const actual = crc32(bytes.subarray(at, at + 8));
  if (actual !== expected) {
    throw corrupt(`prelude checksum mismatch (expected ${hex32(expected)}, computed ${hex32(actual)})`);
  }
  if (announced < MIN_FRAME_BYTES) throw corrupt(`impossible frame length ${announced} (less than 16)`);
  if (headersLength > announced - MIN_FRAME_BYTES) {
    throw corrupt(`impossible headers length ${headersLength} in a frame of ${announced} bytes`);
  }
  throw corrupt(`frame length ${announced} exceeds the limit of ${maxFrameBytes} bytes`);
}

/**
 * Decode the frame at `bytes[at, at + total)` whose prelude has been checked. `bytes` must be the
 * decoder's own: the payload and type-6 header values are views of it.
 */
function decodeFrame(bytes: Uint8Array, at: number, total: number): AwsEventFrame {
  const end = at + total - 4;
  const expected = u32(bytes, end);
  const actual = crc32(bytes.subarray(at, end));
  if (actual !== expected) {
    throw corrupt(`message checksum mismatch (expected ${hex32(expected)}, computed ${hex32(actual)})`);
  }
  const headersEnd = at + PRELUDE_BYTES + u32(bytes, at + 4);
  return {
    headers: decodeHeaders(bytes, at + PRELUDE_BYTES, headersEnd),
    payload: bytes.subarray(headersEnd, end),
  };
}

const utf8 = new TextDecoder();

/**
 * Recently decoded short strings, by their bytes: header names and most values (`:event-type`,
 * `application/json`, `contentBlockDelta`) repeat in every frame, and returning the same string skips
 * decoding it and re-hashing it as a property key.
 */
const CACHE_SLOTS = 256;
// Stryker disable next-line ArrayDeclaration: equivalent: an empty array and one of 256 empty slots read the same (undefined).
const cachedBytes: (Uint8Array | undefined)[] = new Array(CACHE_SLOTS);
// Stryker disable next-line ArrayDeclaration: equivalent, as the line before.
const cachedTexts: string[] = new Array(CACHE_SLOTS);

/** UTF-8 text of `bytes[start, end)`. */
function text(bytes: Uint8Array, start: number, end: number): string {
  const length = end - start;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent: the cap only keeps long values out of the cache; both paths decode the same text.
  if (length > 32) return utf8.decode(bytes.subarray(start, end));
  // Stryker disable next-line ConditionalExpression: equivalent: the loop below gives "" for no bytes too.
  if (length === 0) return "";
  // Stryker disable all: equivalent: any slot function is correct (a hit is checked byte for byte below); the hash only spreads names over the slots.
  const slot =
    (length +
      bytes[start]! * 3 +
      bytes[start + (length >> 2)]! * 5 +
      bytes[start + (length >> 1)]! * 7 +
      bytes[end - 1]! * 11) &
    (CACHE_SLOTS - 1);
  // Stryker restore all
  const cached = cachedBytes[slot];
  if (cached !== undefined && cached.length === length) {
    let i = 0;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,UpdateOperator: equivalent: each of these either stops the loop early, which turns a hit into a miss (the text is then decoded again: speed only), or runs it to the end of `cached`, an exact copy, where the next byte differs anyway.
    while (i < length && cached[i] === bytes[start + i]) i++;
    // Stryker disable next-line ConditionalExpression: equivalent: a miss decodes the same text again (speed only).
    if (i === length) return cachedTexts[slot]!;
  }
  let out = "";
  for (let i = start; i < end; i++) {
    const byte = bytes[i]!;
    if (byte >= 0x80) {
      out = utf8.decode(bytes.subarray(start, end));
      break;
    }
    out += String.fromCharCode(byte);
  }
  // Stryker disable next-line MethodExpression: equivalent: the whole buffer is never as long as a name, so the slot just never hits (speed and memory only).
  cachedBytes[slot] = bytes.slice(start, end);
  cachedTexts[slot] = out;
  return out;
}

/** Value sizes of the fixed-size header types; -1: a u16 length comes first (bytes, string). */
const VALUE_SIZES = [0, 0, 1, 2, 4, 8, -1, -1, 8, 16];

function decodeHeaders(bytes: Uint8Array, start: number, end: number): Record<string, AwsHeaderValue> {
  const headers: Record<string, AwsHeaderValue> = Object.create(null);
  let at = start;
  while (at < end) {
    const nameEnd = at + 1 + bytes[at]!;
    // The name and the type byte must fit.
    if (nameEnd >= end) throw corrupt("a header name runs past the headers section");
    const name = text(bytes, at + 1, nameEnd);
    const type = bytes[nameEnd]!;
    at = nameEnd + 1;
    const fixed = VALUE_SIZES[type];
    if (fixed === undefined) throw corrupt(`unknown type ${type} of header ${JSON.stringify(name)}`);
    let size = fixed;
    // A u16 length first. Read even where it runs past the section (the payload and the checksum follow it
    // in `bytes`): the header then runs past the section whatever the length says.
    if (size < 0) size = 2 + u16(bytes, at);
    if (at + size > end) throw corrupt(`header ${JSON.stringify(name)} runs past the headers section`);
    let value: AwsHeaderValue;
    switch (type) {
      case 0:
      case 1:
        value = type === 0;
        break;
      case 2:
        value = (bytes[at]! << 24) >> 24;
        break;
      case 3:
        value = (u16(bytes, at) << 16) >> 16;
        break;
      case 4:
        value = u32(bytes, at) | 0;
        break;
      case 5:
        value = BigInt(u32(bytes, at) | 0) * 4294967296n + BigInt(u32(bytes, at + 4));
        break;
      case 6:
        value = bytes.subarray(at + 2, at + size);
        break;
      case 7:
        value = text(bytes, at + 2, at + size);
        break;
      case 8:
        // Milliseconds since the epoch; exact as a double for every representable Date.
        value = new Date((u32(bytes, at) | 0) * 4294967296 + u32(bytes, at + 4));
        break;
      default:
        value = { uuid: uuid(bytes, at) };
    }
    at += size;
    headers[name] = value;
  }
  return headers;
}

function uuid(bytes: Uint8Array, at: number): string {
  let hex = "";
  for (let i = at; i < at + 16; i++) hex += (bytes[i]! + 0x100).toString(16).slice(1);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
