/**
 * A fake NDJSON Chat server's answers, for the tests that serve the protocol through `createProvider`,
 * `fallback` and the Worker with the upstream faked at the fetch layer.
 *
 * @module
 */
import type { NdjsonAnswer } from "./protocol.ts";

/** A whole answer saying `text`. */
export function ndjsonAnswer(text: string, model = "nd-1"): Response {
  const answer: NdjsonAnswer = {
    object: "answer",
    model,
    parts: [{ type: "text", text }],
    finish: "end",
    usage: { input: 12, output: 3, cached: 2 },
  };
  return Response.json(answer);
}

/** A streamed answer: `text` in `pieces`, then the end line — or, with `failAfter`, an error line instead. */
export function ndjsonStream(
  pieces: readonly string[],
  failAfter?: { code: string; message: string },
): Response {
  const lines: unknown[] = pieces.map((delta) => ({ type: "text", delta }));
  lines.push(
    failAfter
      ? { type: "error", ...failAfter }
      : { type: "end", finish: "end", usage: { input: 12, output: 3, cached: 2 } },
  );
  const encoder = new TextEncoder();
  let next = 0;
  // One line per read, so the events of each read are delivered as it arrives.
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const line = lines[next++];
      if (line === undefined) controller.close();
      else controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`));
    },
  });
  return new Response(body, { headers: { "content-type": "application/x-ndjson" } });
}

/** An error answer: `status` with the wire's error body. */
export function ndjsonError(status: number, code: string, message: string): Response {
  return Response.json({ error: { code, message } }, { status });
}
