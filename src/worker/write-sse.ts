/**
 * Server-sent events out of the Worker: a neutral `StreamEvent` stream, or any other sequence of JSON
 * frames, as an SSE body. A failure mid-stream ends the body with an `event: error` frame carrying the
 * error's JSON (see `clientErrorJSON`) — never a clean end that looks like success.
 *
 * @module
 */
import { ProviderError } from "../core/provider-error.ts";
import { StructuredOutputError } from "../core/structured-output.ts";
import { toProviderError } from "../providers/http.ts";
import { clientErrorJSON, structuredOutputErrorJSON } from "./gateway-error.ts";

const encoder = new TextEncoder();

/** One SSE frame: `event:` (optional), `id:` (optional) and the data, JSON-encoded unless already text. */
function sseFrame(data: unknown, event?: string, id?: string | number): Uint8Array {
  let text = "";
  if (id !== undefined) text += `id: ${id}\n`;
  if (event !== undefined) text += `event: ${event}\n`;
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  // A payload with newlines needs one data: line per line (JSON.stringify never emits raw newlines).
  for (const line of payload.split("\n")) text += `data: ${line}\n`;
  return encoder.encode(`${text}\n`);
}

/** One SSE frame to send: an event (`data`, with `event` and `id`), or a comment that keeps the line open. */
export type Frame = { data: unknown; event?: string; id?: string | number } | { comment: string };

/** What a streamed route produces: frames to send, in order; throwing ends the stream with an error frame. */
export type FrameSource = AsyncIterable<Frame>;

/**
 * The frames that end a failed stream: the failure (a `ProviderError`, or the `StructuredOutputError` of an
 * answer that is not the JSON asked for) and whether the upstream's raw body may be shown.
 */
export type ErrorFrames = (
  failure: ProviderError | StructuredOutputError,
  expose: boolean,
) => readonly Frame[];

/** modelwire's own error frame: `event: error` with the error's JSON. */
export const defaultErrorFrames: ErrorFrames = (failure, expose) => [
  {
    event: "error",
    data: StructuredOutputError.is(failure)
      ? structuredOutputErrorJSON(failure)
      : clientErrorJSON(failure, expose),
  },
];

/** A frame's bytes, as the gateway's SSE bodies send it. */
export function encodeFrame(frame: Frame): Uint8Array {
  return "comment" in frame ? commentFrame(frame.comment) : sseFrame(frame.data, frame.event, frame.id);
}

/** An SSE comment line (`: text`), which clients ignore. */
function commentFrame(text: string): Uint8Array {
  return encoder.encode(`: ${text.replace(/[\r\n]+/g, " ")}\n\n`);
}

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
    /** Whether the error frame may carry the upstream's raw body (see `clientErrorJSON`). */
    expose?: boolean;
    /**
     * The frames that end a stream that failed, in the route's dialect (default: `event: error` with
     * modelwire's error JSON; a `StructuredOutputError` as `structuredOutputErrorJSON`).
     */
    errorFrames?: ErrorFrames;
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
        controller.enqueue(encodeFrame(value));
      } catch (error) {
        finished = true;
        const failure =
          StructuredOutputError.is(error) || ProviderError.is(error)
            ? error
            : toProviderError(error, options.context, options.abort?.signal);
        const frames = (options.errorFrames ?? defaultErrorFrames)(failure, options.expose ?? false);
        for (const frame of frames) controller.enqueue(encodeFrame(frame));
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

/**
 * A stream that opened, and the response headers it brings (known only once the upstream answered: the
 * beta flags it left out, say). Past the hold the response has started: those headers are sent as SSE
 * comment lines (`: name: value`) before the first event instead.
 */
export interface OpenedFrames {
  frames: FrameSource;
  headers?: Record<string, string>;
}

/** Options of {@link heldSseResponse}. */
export interface HeldSseOptions {
  abort?: AbortController;
  context: { provider: string; model: string };
  expose?: boolean;
  /** See `sseResponse`'s `errorFrames`. */
  errorFrames?: ErrorFrames;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** How long to wait for the stream to open before answering anyway (default 1000 ms). */
  holdMs?: number;
  /** Between two comments while still waiting, once answered (default 15 s). */
  keepAliveMs?: number;
}

/**
 * The SSE response of a stream that is still opening (`pending`: its first event awaited, a pool's
 * failover inside). Opened within `holdMs`, it is answered as {@link sseResponse}; failed within `holdMs`,
 * the error is thrown, so the route answers it with its HTTP status (a 429 with `Retry-After`, say).
 *
 * Past `holdMs` the response starts anyway, with a comment, and keeps the line open with a comment every
 * `keepAliveMs` until the stream opens: workerd notices a client that went away (the request's signal)
 * only once a response has started, and a call nobody waits for must not run on to the end. A failure
 * after that point is the stream's final `event: error` frame.
 */
export async function heldSseResponse(
  pending: Promise<FrameSource | OpenedFrames>,
  options: HeldSseOptions,
): Promise<Response> {
  const settled = pending.then(
    (opened): OpenedFrames => (Symbol.asyncIterator in opened ? { frames: opened } : opened),
    (error: unknown) => ({ error }),
  );
  const early = await Promise.race([settled, delay(options.holdMs ?? 1000)]);
  if (early !== undefined) {
    if ("error" in early) throw early.error;
    return sseResponse(early.frames, { ...options, headers: { ...options.headers, ...early.headers } });
  }
  const keepAliveMs = options.keepAliveMs ?? 15_000;
  return sseResponse(
    (async function* () {
      yield { comment: "waiting for the upstream" };
      for (;;) {
        const next = await Promise.race([settled, delay(keepAliveMs)]);
        if (next === undefined) {
          if (options.abort?.signal.aborted) throw options.abort.signal.reason;
          yield { comment: "keep-alive" };
          continue;
        }
        if ("error" in next) throw next.error;
        const opened = next as OpenedFrames;
        // The response started before these were known: they go out as comment lines instead, each
        // `name: value`, before the stream's first event.
        for (const [name, value] of Object.entries(opened.headers ?? {}))
          yield { comment: `${name}: ${value}` };
        yield* opened.frames;
        return;
      }
    })(),
    options,
  );
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
