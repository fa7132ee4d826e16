/**
 * The frames that end a resumable stream its run never ended — the object restarted while the call was
 * in flight, or the log grew past its bounds — in the dialect of the endpoint that started it, so every
 * reader sees the failure its client understands (never a log that stops without a terminal event):
 * modelwire's `event: error`, Chat Completions' `data: {"error": …}`, Anthropic's `event: error`, the
 * Responses API's `error` + `response.failed` numbered on from the last stored event.
 *
 * @module
 */
import type { ProviderError } from "../../core/provider-error.ts";
import { chatErrorFrames } from "../chat-completions.ts";
import { PassthroughStream } from "../responses-dialect/passthrough.ts";
import { anthropicErrorFrames } from "../routes/messages.ts";
import { defaultErrorFrames, encodeFrame, type Frame } from "../write-sse.ts";

const decoder = new TextDecoder();

/**
 * The SSE text that ends a stream of `path` whose stored frames are `stored` (their text, each one
 * event), failed with `failure`.
 */
export function interruptedFrames(path: string, stored: readonly string[], failure: ProviderError): string {
  let frames: readonly Frame[];
  if (path === "/v1/chat/completions") frames = chatErrorFrames(failure, false);
  else if (path === "/v1/messages") frames = anthropicErrorFrames(failure, false);
  else if (path === "/v1/responses") {
    const stream = new PassthroughStream({
      id: "resp_interrupted",
      createdAt: Math.floor(Date.now() / 1000),
      model: "unknown",
      request: undefined,
    });
    for (const text of stored) {
      const data = dataOf(text);
      if (data !== undefined) stream.read(data);
    }
    frames = stream.errorFrames(failure, false);
  } else frames = defaultErrorFrames(failure, false);
  return frames.map((frame) => decoder.decode(encodeFrame(frame))).join("");
}

/** The data of one stored SSE event (its `data:` lines joined), undefined when it has none. */
export function dataOf(text: string): string | undefined {
  const lines = text.split("\n").filter((line) => line.startsWith("data:"));
  if (lines.length === 0) return undefined;
  return lines.map((line) => line.slice(line.startsWith("data: ") ? 6 : 5)).join("\n");
}
