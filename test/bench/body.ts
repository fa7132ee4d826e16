/**
 * Response bodies for the benchmark. Pull-based with `highWaterMark: 0`, like a network body: a chunk is
 * produced only when the consumer reads, so a pull is a read the consumer asked for.
 *
 * Chunks are `subarray` views made at pull time (no copies, no per-run setup on the heap).
 *
 * @module
 */

/** Called on every pull, before the chunk is enqueued; `pull` is 0-based. */
export type PullHook = (pull: number) => void;

/** `bytes` delivered one chunk of `sizes[i]` bytes per read. */
export function chunkedBody(
  bytes: Uint8Array,
  sizes: Uint32Array,
  onPull?: PullHook,
): ReadableStream<Uint8Array> {
  let chunk = 0;
  let offset = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        onPull?.(chunk);
        if (offset >= bytes.length) {
          controller.close();
          return;
        }
        const size = sizes[chunk++] ?? bytes.length - offset;
        controller.enqueue(bytes.subarray(offset, offset + size));
        offset += size;
        if (offset >= bytes.length) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

/** What a {@link heldBody} saw. Times are `performance.now()` milliseconds. */
export interface HeldBodyProbe {
  /** When the first read was requested. */
  firstReadAt: number;
  /** When the second read was requested (`NaN` until then). */
  secondReadAt: number;
  /** When the rest of the body was released (`NaN` until then). */
  releasedAt: number;
  /** Mark the first text event as surfaced; releases the rest of the body. */
  surfaced(): void;
  /** When {@link surfaced} was first called (`NaN` until then). */
  surfacedAt: number;
}

/**
 * A body whose first read delivers `bytes[0, split)` and whose second read is held until the consumer
 * reports the first text event (`probe.surfaced()`) or `holdMs` pass, whichever is first; the rest is then
 * delivered in one chunk. A consumer that buffers past the first event shows up as `surfacedAt >= releasedAt`.
 */
export function heldBody(
  bytes: Uint8Array,
  split: number,
  holdMs: number,
): { body: ReadableStream<Uint8Array>; probe: HeldBodyProbe } {
  let release: (() => void) | undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const probe: HeldBodyProbe = {
    firstReadAt: Number.NaN,
    secondReadAt: Number.NaN,
    releasedAt: Number.NaN,
    surfacedAt: Number.NaN,
    surfaced() {
      if (Number.isNaN(probe.surfacedAt)) probe.surfacedAt = performance.now();
      release?.();
    },
  };
  let pulls = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const pull = pulls++;
        if (pull === 0) {
          probe.firstReadAt = performance.now();
          controller.enqueue(bytes.subarray(0, split));
          return;
        }
        if (pull === 1) {
          probe.secondReadAt = performance.now();
          const timer = setTimeout(() => release?.(), holdMs);
          await released;
          clearTimeout(timer);
          probe.releasedAt = performance.now();
          controller.enqueue(bytes.subarray(split));
          return;
        }
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return { body, probe };
}
