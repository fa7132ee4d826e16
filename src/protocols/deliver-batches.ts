/**
 * The read loop every stream assembler shares (SSE via `readSseBatches`, AWS event streams via
 * `readAwsEventStream`): feed each item of a network read to the state machine, hand over what the read
 * produced in one go, and end with `done` or a `truncated` error. It is also the one place that knows
 * whether content went out (`isContentEvent`), and so the one place that sets `partialOutput` on the
 * errors a stream raises and builds the `truncated` error of a stream cut before its terminal event. When
 * that terminal event has arrived is each protocol's own rule (`ended` / `stopped`).
 *
 * @module
 */
import { markPartialOutput, ProviderError } from "../core/provider-error.ts";
import type { Response } from "../core/response.ts";
import { isContentEvent, type StreamEvent } from "../core/stream-event.ts";
import type { StreamSource } from "../core/stream-guards.ts";

/** A stream state machine, as {@link deliverBatches} sees it. */
export interface BatchAssembler {
  /** True once nothing more is read: the wire's last event arrived, or it said the stream is over. */
  readonly ended: boolean;
  /** True once the answer is complete: a stream that ends now gives `done` (`ended` without it: truncated). */
  readonly stopped: boolean;
  /** The event a complete stream has sent (`message_stop`), as the `truncated` error names it. */
  readonly terminal: string;
  /** Who produced the stream, for the `truncated` error. */
  readonly context: StreamSource;
  /** The final response; the events that close the answer (tool calls still open) go onto `out` first. */
  finish(out: StreamEvent[]): Response;
}

/**
 * Feeds `items` — single ones, or the batch of one network read — to `step`, which applies one to
 * `assembler` and pushes the neutral events it produces onto `out`; yields a batch's events once the batch
 * is through (so `step` can merge the deltas of one read, see {@link pushText}), never holding them for a
 * later read. When `step` throws, the output before it is delivered first, and a `ProviderError` it throws
 * after content went out gets `partialOutput: true`. Ends with `done` once the assembler has ended (or the
 * items ran out) with its answer complete; otherwise throws the `truncated` error.
 */
export async function* deliverBatches<T>(
  items: AsyncIterable<T | readonly T[]>,
  assembler: BatchAssembler,
  step: (item: T, out: StreamEvent[]) => void,
): AsyncGenerator<StreamEvent, void, undefined> {
  const out: StreamEvent[] = [];
  let sent = false;
  for await (const batch of items) {
    let failed = false;
    let error: unknown;
    for (const item of Array.isArray(batch) ? (batch as readonly T[]) : [batch as T]) {
      try {
        step(item, out);
      } catch (caught) {
        // Output produced earlier in this batch has not reached the caller: it is delivered first.
        failed = true;
        error = caught;
        break;
      }
      if (assembler.ended) break;
    }
    for (const event of out) {
      sent ||= isContentEvent(event);
      yield event;
    }
    out.length = 0;
    if (failed) throw markPartialOutput(error, sent);
    if (assembler.ended) break;
  }
  if (!assembler.stopped) {
    throw new ProviderError({
      kind: "truncated",
      message: `${assembler.context.provider} stream ended before ${assembler.terminal}`,
      provider: assembler.context.provider,
      model: assembler.context.model,
      partialOutput: sent,
    });
  }
  const response = assembler.finish(out);
  yield* out;
  yield { type: "done", response };
}

/**
 * Pushes a piece of text or reasoning onto `out` — appended to the last event instead when that is a piece
 * of the same kind, from the same network read — so one read gives one delta per run of a kind.
 */
export function pushText(out: StreamEvent[], type: "text-delta" | "reasoning-delta", text: string): void {
  const last = out[out.length - 1];
  if (last !== undefined && last.type === type) last.text += text;
  else out.push({ type, text });
}

/**
 * The JSON object an event carries (`data`: an SSE event's data, an event-stream frame's payload text);
 * `undefined` for JSON that is not an object, which assemblers skip. Data that is not JSON is an
 * `invalid_response` `ProviderError` naming the event (`name`).
 */
export function eventObject<E extends object>(
  data: string,
  name: string | undefined,
  context: StreamSource,
): E | undefined {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (cause) {
    throw new ProviderError({
      kind: "invalid_response",
      message: `${context.provider} stream sent an event that is not JSON (${name ?? "message"})`,
      provider: context.provider,
      model: context.model,
      upstreamBody: data,
      cause,
    });
  }
  return typeof value === "object" && value !== null ? (value as E) : undefined;
}

/** The `invalid_response` error for an event the stream sent malformed (`what`: which event). */
export function malformedEvent(source: StreamSource, what: string, cause?: unknown): ProviderError {
  return new ProviderError({
    kind: "invalid_response",
    message: `${source.provider} stream sent a malformed ${what} event`,
    provider: source.provider,
    model: source.model,
    cause,
  });
}
