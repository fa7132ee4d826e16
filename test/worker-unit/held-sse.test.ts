/**
 * `heldSseResponse`: the headers a stream brings (what a dialect route learns from the upstream's answer —
 * the beta flags it left out, the warnings) reach the client whether the stream opened within the hold or
 * after the response had started.
 */
import { describe, expect, it } from "vitest";
import { type Frame, heldSseResponse, type OpenedFrames } from "../../src/worker/write-sse.ts";

const CONTEXT = { provider: "modelwire", model: "route" };

async function* frames(...items: Frame[]): AsyncGenerator<Frame> {
  yield* items;
}

function opened(): OpenedFrames {
  return {
    frames: frames({ event: "message_start", data: '{"type":"message_start"}' }),
    headers: { "x-modelwire-dropped-betas": "claude-code-20250219", "x-modelwire-warnings": '["a"]' },
  };
}

describe("heldSseResponse and the headers a stream brings", () => {
  it("a stream open within the hold: its headers are the response's", async () => {
    const response = await heldSseResponse(Promise.resolve(opened()), { context: CONTEXT, holdMs: 1000 });
    expect(response.headers.get("x-modelwire-dropped-betas")).toBe("claude-code-20250219");
    expect(response.headers.get("x-modelwire-warnings")).toBe('["a"]');
    expect(await response.text()).toBe('event: message_start\ndata: {"type":"message_start"}\n\n');
  });

  it("a stream that opens after the response started: its headers are comment lines before its first event", async () => {
    let open!: (value: OpenedFrames) => void;
    const pending = new Promise<OpenedFrames>((resolve) => {
      open = resolve;
    });
    const response = await heldSseResponse(pending, { context: CONTEXT, holdMs: 1 });
    expect(response.headers.get("x-modelwire-dropped-betas")).toBeNull();
    open(opened());
    expect(await response.text()).toBe(
      ": waiting for the upstream\n\n" +
        ": x-modelwire-dropped-betas: claude-code-20250219\n\n" +
        ': x-modelwire-warnings: ["a"]\n\n' +
        'event: message_start\ndata: {"type":"message_start"}\n\n',
    );
  });
});
