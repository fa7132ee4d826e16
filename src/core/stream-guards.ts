/**
 * The two rules every consumer of a `stream()` obeys, written once. `fallback()`, `retry()`,
 * `collectStream()` and the Worker's pool failover call these two functions; nothing else restates them.
 *
 * - {@link requireDone}: a stream ends with its `done` event, or it is a `truncated` `ProviderError`
 *   (with `partialOutput` when content had gone out) — never a silent end that looks like success.
 * - {@link holdUntilContent}: a stream may be switched (another fallback entry, another retry attempt,
 *   another pool member) only before its first content event. Events before that (`usage`) are held back
 *   and released with the first content event; once content went out, a failure is raised with
 *   `partialOutput: true`, so nobody switches and sends the same text twice.
 *
 * "Content" is {@link isContentEvent}: text, reasoning and tool-call events. `usage` is not content, and
 * neither is `done`.
 *
 * @module
 */
import { markPartialOutput, ProviderError } from "./provider-error.ts";
import { isContentEvent, type StreamEvent } from "./stream-event.ts";

/** Who produced a stream, for the error raised when it ends without `done`. */
export interface StreamSource {
  provider: string;
  model: string;
}

/**
 * Passes `events` through up to and including their `done` event, then stops reading (later events are
 * never pulled, and the source is closed). A stream that ends without `done` throws a `ProviderError` of
 * kind `truncated` naming `source`, with `partialOutput: true` when a content event went out before the
 * end. Errors of the stream itself pass through unchanged.
 *
 * @example
 * ```ts
 * for await (const event of requireDone(provider.stream(messages), { provider: "openai", model: "gpt-4.1" })) {
 *   if (event.type === "text-delta") write(event.text);
 *   if (event.type === "done") save(event.response);
 * }
 * // A body cut before the end: ProviderError { kind: "truncated", partialOutput: true, provider: "openai" }
 * ```
 */
export async function* requireDone(
  events: AsyncIterable<StreamEvent>,
  source: StreamSource,
): AsyncGenerator<StreamEvent, void, undefined> {
  let contentSent = false;
  for await (const event of events) {
    if (isContentEvent(event)) contentSent = true;
    yield event;
    if (event.type === "done") return;
  }
  throw new ProviderError({
    kind: "truncated",
    message: "stream ended without its final `done` event",
    provider: source.provider,
    model: source.model,
    partialOutput: contentSent,
  });
}

/**
 * Opens a stream (`open()`, under {@link requireDone}) and resolves once its first content event — or its
 * `done` — has arrived. Until then nothing reaches the caller: a failure before any content (an error
 * event after `usage`, a cut before the first delta, a `truncated` end) rejects with the stream's own
 * error, and the caller may switch to another provider. The resolved stream yields the held events in
 * order (the `usage` events seen so far, then the first content event), then the rest; an error after
 * that point is raised with `partialOutput: true` (errors that are not `ProviderError`s pass unchanged).
 *
 * Closing the resolved stream early (`break`, `return()`) — even before reading from it — closes the
 * source stream.
 *
 * @example
 * ```ts
 * // Try each provider until one starts producing content; never switch after that.
 * for (const provider of providers) {
 *   let events: AsyncIterableIterator<StreamEvent>;
 *   try {
 *     events = await holdUntilContent(() => provider.stream(messages), {
 *       provider: provider.name,
 *       model: provider.model,
 *     });
 *   } catch (error) {
 *     if (ProviderError.is(error) && error.retryable) continue; // nothing went out: switch
 *     throw error;
 *   }
 *   yield* events; // usage held so far, the first delta, the rest, `done`
 *   return;
 * }
 * ```
 */
export async function holdUntilContent(
  open: () => AsyncIterable<StreamEvent>,
  source: StreamSource,
): Promise<AsyncIterableIterator<StreamEvent>> {
  const iterator = requireDone(open(), source);
  const held: StreamEvent[] = [];
  for (;;) {
    // An error here rejects: nothing has reached the caller, who may switch.
    const next = await iterator.next();
    // requireDone ends only after `done` (which returns below) or by throwing.
    if (next.done) return new ReleasedStream(held, iterator);
    held.push(next.value);
    if (next.value.type === "done" || isContentEvent(next.value)) return new ReleasedStream(held, iterator);
  }
}

/** The stream {@link holdUntilContent} resolves with: the held events, then the rest of `source`. */
class ReleasedStream implements AsyncIterableIterator<StreamEvent> {
  private readonly held: StreamEvent[];
  private readonly source: AsyncGenerator<StreamEvent, void, undefined>;
  private finished = false;

  constructor(held: StreamEvent[], source: AsyncGenerator<StreamEvent, void, undefined>) {
    this.held = held;
    this.source = source;
  }

  async next(): Promise<IteratorResult<StreamEvent, undefined>> {
    const held = this.held.shift();
    if (held !== undefined) return { done: false, value: held };
    if (this.finished) return { done: true, value: undefined };
    try {
      const next = await this.source.next();
      if (next.done) this.finished = true;
      return next.done ? { done: true, value: undefined } : next;
    } catch (error) {
      this.finished = true;
      // Content reached the caller before this failure: it must not be switched away from.
      throw markPartialOutput(error, true);
    }
  }

  async return(): Promise<IteratorResult<StreamEvent, undefined>> {
    this.held.length = 0;
    if (!this.finished) {
      this.finished = true;
      await this.source.return();
    }
    return { done: true, value: undefined };
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
