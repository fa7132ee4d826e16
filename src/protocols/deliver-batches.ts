/**
 * The read loop every stream assembler of a batch-reading wire shares (SSE via `readSseBatches`, AWS event
 * streams via `readAwsEventStream`): feed each item of a network read to the state machine, hand over what
 * the read produced in one go, and end with `done` or a `truncated` error.
 *
 * @module
 */
import type { ProviderError } from "../core/provider-error.ts";
import type { Response } from "../core/response.ts";
import type { StreamEvent } from "../core/stream-event.ts";

/** A stream state machine, as {@link deliverBatches} sees it. */
export interface BatchAssembler {
  /** True once the stream's last event arrived: nothing more is read. */
  readonly ended: boolean;
  /** True once a body that ends here is complete (`ended` implies it). */
  readonly stopped: boolean;
  /** The final response. */
  finish(): Response;
  /** The error for a body that ended too early. */
  truncated(): ProviderError;
}

/**
 * Feeds `items` — single ones, or the batch of one network read — to `step`, which applies one to
 * `assembler` and pushes the neutral events it produces onto `out`; yields a batch's events once the batch
 * is through (so `step` can merge the deltas of one read). When `step` throws, the output before it is
 * delivered first. Ends with `done` once the assembler has ended, or when the items run out after it
 * stopped; items that run out before throw its `truncated()` error.
 */
export async function* deliverBatches<T>(
  items: AsyncIterable<T | readonly T[]>,
  assembler: BatchAssembler,
  step: (item: T, out: StreamEvent[]) => void,
): AsyncGenerator<StreamEvent, void, undefined> {
  const out: StreamEvent[] = [];
  for await (const batch of items) {
    for (const item of Array.isArray(batch) ? (batch as readonly T[]) : [batch as T]) {
      try {
        step(item, out);
      } catch (error) {
        // Output produced earlier in this batch has not reached the caller: deliver it, then fail.
        yield* out;
        throw error;
      }
      if (assembler.ended) break;
    }
    yield* out;
    out.length = 0;
    if (assembler.ended) {
      yield { type: "done", response: assembler.finish() };
      return;
    }
  }
  if (!assembler.stopped) throw assembler.truncated();
  yield { type: "done", response: assembler.finish() };
}
