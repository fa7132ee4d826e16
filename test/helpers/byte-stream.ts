/**
 * Byte streams for tests: the same bytes delivered in chosen chunks, so framing code can be checked at
 * every chunk boundary (a CRLF split between `\r` and `\n`, a UTF-8 character split mid-sequence, an
 * event-stream prelude split mid-integer).
 *
 * All streams here are pull-based with `highWaterMark: 0`: a chunk is produced only when the consumer
 * reads, so `state.pulls` counts the consumer's reads and a consumer that stops early leaves the rest of
 * the body unread (as with a real network body).
 *
 * @module
 */

/**
 * How to cut bytes into chunks.
 *
 * - `number`: every chunk has this size (the last one may be shorter).
 * - `number[]`: chunk sizes, cycled until the bytes run out (`[1]` is one byte at a time).
 * - `(index) => number`: the size of chunk `index` (0-based).
 *
 * A size of `0` yields an empty chunk, which real bodies can deliver too.
 */
export type ChunkSizes = number | readonly number[] | ((index: number) => number);

/** What a {@link trackedByteStream} or {@link controlledByteStream} has seen its consumer do. */
export interface ByteStreamState {
  /** True once the consumer cancelled the stream (e.g. `reader.cancel()` after breaking out of a loop). */
  cancelled: boolean;
  /** The reason passed to `cancel()`, if any. */
  cancelReason: unknown;
  /** How many times the stream was asked for a chunk (reads that reached the source). */
  pulls: number;
  /** How many chunks were delivered. */
  chunksDelivered: number;
  /** How many bytes were delivered. */
  bytesDelivered: number;
  /** True once the stream closed normally (all bytes delivered). */
  closed: boolean;
}

/** A stream plus the record of what its consumer did with it. */
export interface TrackedByteStream {
  stream: ReadableStream<Uint8Array>;
  state: ByteStreamState;
}

/** A stream whose chunks the test pushes one by one; see {@link controlledByteStream}. */
export interface ControlledByteStream extends TrackedByteStream {
  /** Queue a chunk (copied). A string is encoded as UTF-8. */
  push(chunk: Uint8Array | string): void;
  /** End the body normally. */
  close(): void;
  /** Fail the body: the consumer's pending or next read rejects with `error`. */
  error(error: unknown): void;
}

const MAX_CONSECUTIVE_EMPTY_CHUNKS = 10_000;

function newState(): ByteStreamState {
  return {
    cancelled: false,
    cancelReason: undefined,
    pulls: 0,
    chunksDelivered: 0,
    bytesDelivered: 0,
    closed: false,
  };
}

function sizeAt(sizes: ChunkSizes, index: number): number {
  let size: number | undefined;
  if (typeof sizes === "number") size = sizes;
  else if (typeof sizes === "function") size = sizes(index);
  else {
    if (sizes.length === 0) throw new RangeError("chunk sizes must not be empty");
    size = sizes[index % sizes.length];
  }
  if (size === undefined || !Number.isInteger(size) || size < 0) {
    throw new RangeError(`chunk size must be a non-negative integer, got ${String(size)} for chunk ${index}`);
  }
  return size;
}

/**
 * Cut `bytes` into chunks of the given sizes (cycled). The chunks are copies; concatenated they equal
 * `bytes`. An empty input gives no chunks.
 *
 * @example chunkBytes(bytes, [1]) // one byte per chunk
 */
export function chunkBytes(bytes: Uint8Array, sizes: ChunkSizes): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let offset = 0;
  let emptyRun = 0;
  for (let index = 0; offset < bytes.length; index++) {
    const size = sizeAt(sizes, index);
    if (size === 0) {
      emptyRun++;
      if (emptyRun > MAX_CONSECUTIVE_EMPTY_CHUNKS) {
        throw new RangeError(`more than ${MAX_CONSECUTIVE_EMPTY_CHUNKS} empty chunks in a row`);
      }
    } else {
      emptyRun = 0;
    }
    chunks.push(bytes.slice(offset, offset + size));
    offset += size;
  }
  return chunks;
}

/**
 * Cut `bytes` at the given offsets (in any order). Offsets must lie in `0..bytes.length`; a repeated
 * offset, or `0` / `bytes.length`, yields an empty chunk there. Concatenated, the chunks equal `bytes`.
 *
 * @example splitAt(encode("a\r\nb"), [2]) // ["a\r", "\nb"]
 */
export function splitAt(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const sorted = [...offsets].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const offset of sorted) {
    if (!Number.isInteger(offset) || offset < 0 || offset > bytes.length) {
      throw new RangeError(`split offset ${offset} is outside 0..${bytes.length}`);
    }
    chunks.push(bytes.slice(start, offset));
    start = offset;
  }
  chunks.push(bytes.slice(start));
  return chunks;
}

/** Concatenate byte chunks into one array. */
export function concatBytes(chunks: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** Read a byte stream to the end and concatenate its chunks. */
export async function readAllBytes(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return concatBytes(chunks);
}

/**
 * A stream that delivers exactly the given chunks, one per read, and records what the consumer did.
 * Chunks are copied on delivery, so a consumer that mutates them cannot corrupt the next run.
 */
export function trackedChunkStream(chunks: readonly Uint8Array[]): TrackedByteStream {
  const state = newState();
  let next = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        state.pulls++;
        const chunk = chunks[next++];
        if (chunk === undefined) {
          state.closed = true;
          controller.close();
          return;
        }
        state.chunksDelivered++;
        state.bytesDelivered += chunk.length;
        controller.enqueue(chunk.slice());
      },
      cancel(reason) {
        state.cancelled = true;
        state.cancelReason = reason;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

/**
 * `bytes` delivered in chunks of `chunkSizes` (default: everything in one chunk), with a record of what
 * the consumer did (`state.cancelled`, `state.pulls`, ...).
 */
export function trackedByteStream(bytes: Uint8Array, chunkSizes?: ChunkSizes): TrackedByteStream {
  const chunks = chunkSizes === undefined ? (bytes.length > 0 ? [bytes] : []) : chunkBytes(bytes, chunkSizes);
  return trackedChunkStream(chunks);
}

/**
 * `bytes` delivered in chunks of `chunkSizes` (cycled; default: everything in one chunk).
 *
 * @example byteStream(encoder.encode("data: x\r\n\r\n"), [1]) // one byte per read
 */
export function byteStream(bytes: Uint8Array, chunkSizes?: ChunkSizes): ReadableStream<Uint8Array> {
  return trackedByteStream(bytes, chunkSizes).stream;
}

/** `bytes` cut at `offsets` (see {@link splitAt}) and delivered one piece per read. */
export function byteStreamSplitAt(bytes: Uint8Array, offsets: readonly number[]): ReadableStream<Uint8Array> {
  return trackedChunkStream(splitAt(bytes, offsets)).stream;
}

/**
 * A stream fed by the test: nothing arrives until `push()`, and the body stays open until `close()` or
 * `error()`. Use it to prove that a parser yields before the body ends, or to fail the body mid-stream.
 */
export function controlledByteStream(): ControlledByteStream {
  const state = newState();
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      pull() {
        state.pulls++;
      },
      cancel(reason) {
        state.cancelled = true;
        state.cancelReason = reason;
      },
    },
    { highWaterMark: 0 },
  );
  return {
    stream,
    state,
    push(chunk) {
      const bytes = typeof chunk === "string" ? encoder.encode(chunk) : chunk.slice();
      state.chunksDelivered++;
      state.bytesDelivered += bytes.length;
      controller.enqueue(bytes);
    },
    close() {
      state.closed = true;
      controller.close();
    },
    error(error) {
      controller.error(error);
    },
  };
}
