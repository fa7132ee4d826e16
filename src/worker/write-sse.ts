/**
 * Server-sent events out of the Worker: a neutral `StreamEvent` stream, or any other sequence of JSON
 * frames, as an SSE body. A failure mid-stream ends the body with an `event: error` frame carrying
 * `ProviderError.toJSON()` — never a clean end that looks like success.
 *
 * @module
 */
import { ProviderError } from "../core/provider-error.ts";
import { toProviderError } from "../providers/http.ts";

const encoder = new TextEncoder();

/** One SSE frame: `event:` (optional), `id:` (optional) and the data, JSON-encoded unless already text. */
export function sseFrame(data: unknown, event?: string, id?: string | number): Uint8Array {
  let text = "";
  if (id !== undefined) text += `id: ${id}\n`;
  if (event !== undefined) text += `event: ${event}\n`;
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  // A payload with newlines needs one data: line per line (JSON.stringify never emits raw newlines).
  for (const line of payload.split("\n")) text += `data: ${line}\n`;
  return encoder.encode(`${text}\n`);
}

/** What a streamed route produces: frames to send, in order; throwing ends the stream with an error frame. */
export type FrameSource = AsyncIterable<{ data: unknown; event?: string; id?: string | number }>;

/**
 * An SSE `Response` from frames. `abort` is called when the client disconnects (the body is cancelled), so
 * the upstream fetch is aborted too. Errors become a final `event: error` frame with the error's JSON.
 */
export function sseResponse(
  frames: FrameSource,
  options: {
    abort?: AbortController;
    context: { provider: string; model: string };
    headers?: Record<string, string>;
  },
): Response {
  const iterator = frames[Symbol.asyncIterator]();
  let finished = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (finished) return;
      try {
        const { done, value } = await iterator.next();
        if (done) {
          finished = true;
          controller.close();
          return;
        }
        controller.enqueue(sseFrame(value.data, value.event, value.id));
      } catch (error) {
        finished = true;
        const failure = ProviderError.is(error)
          ? error
          : toProviderError(error, options.context, options.abort?.signal);
        controller.enqueue(sseFrame(failure.toJSON(), "error"));
        controller.close();
      }
    },
    async cancel(reason) {
      finished = true;
      options.abort?.abort(reason ?? new DOMException("client disconnected", "AbortError"));
      await iterator.return?.().catch(() => {});
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      ...options.headers,
    },
  });
}
