/**
 * A keep-alive for the dialect routes' SSE streams once they opened: an SSE comment after a silent
 * stretch (an upstream thinking without a word, a slow first token after a tool result), so a client's or
 * a proxy's idle timeout does not cut a call that is still running. Comments are no event: every SSE
 * client skips them (`@anthropic-ai/sdk`, `openai`, the AI SDK, Claude Code, Codex). Used by
 * `/v1/messages` (converted streams; a native Anthropic upstream sends its own `ping`) and `/v1/responses`.
 *
 * @module
 */
import type { Frame } from "./write-sse.ts";

/** How long a stream may stay silent before a comment keeps the line open (Codex waits 300 s by default). */
export const KEEP_ALIVE_MS = 15_000;

/**
 * `frames`, with an SSE comment whenever the source has been silent for `ms` (an upstream thinking
 * without a word, a slow first token after a tool result), so a client's idle timeout does not cut a call
 * that is still running. Comments are no event: every SSE client skips them.
 */
export async function* keepAlive(frames: AsyncIterable<Frame>, ms = KEEP_ALIVE_MS): AsyncGenerator<Frame> {
  const iterator = frames[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    for (;;) {
      const next = iterator.next();
      // Left pending when the client goes away during a comment: its failure then has no reader.
      next.catch(() => {});
      for (;;) {
        const silent = new Promise<"silent">((resolve) => {
          timer = setTimeout(() => resolve("silent"), ms);
        });
        const result = await Promise.race([next, silent]);
        clearTimeout(timer);
        if (result === "silent") {
          yield { comment: "keep-alive" };
          continue;
        }
        if (result.done) return;
        yield result.value;
        break;
      }
    }
  } finally {
    clearTimeout(timer);
    await iterator.return?.();
  }
}
