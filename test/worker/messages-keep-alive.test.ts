/**
 * A converted /v1/messages stream that goes quiet after it opened (an upstream thinking without a word)
 * gets SSE comments through the silence, and `@anthropic-ai/sdk` still reads the whole message.
 */
import Anthropic from "@anthropic-ai/sdk";
import { describe, expect, it } from "vitest";
import { gateway, gatewayEnv, openaiFrames, sseResponse, TOKEN } from "./helpers.ts";
import { MESSAGES_ROUTES } from "./messages-fixtures.ts";

const encoder = new TextEncoder();

/** The frames, with a silent stretch of `pauseMs` before frame `pauseAt`. */
function pausingBody(
  frames: readonly string[],
  pauseAt: number,
  pauseMs: number,
): ReadableStream<Uint8Array> {
  let next = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, next === pauseAt ? pauseMs : 1));
      const frame = frames[next++];
      if (frame === undefined) controller.close();
      else controller.enqueue(encoder.encode(frame));
    },
  });
}

describe("/v1/messages keep-alive", () => {
  it("converted: a comment in a silent stretch after the stream opened; the SDK reads the message whole", async () => {
    const frames = openaiFrames("gpt-4o-2024-08-06", ["Let me ", "think."]);
    const { worker } = gateway(() => sseResponse(pausingBody(frames, 2, 300)), {
      config: MESSAGES_ROUTES,
      log: () => {},
      keepAliveMs: 40,
    });
    const fetchImpl = (async (url: RequestInfo | URL, init?: RequestInit) =>
      worker.app.fetch(new Request(url, init), gatewayEnv)) as typeof fetch;
    const request = { model: "gpt", max_tokens: 64, messages: [{ role: "user" as const, content: "hi" }] };
    const body = { ...request, stream: true };
    const raw = await (
      await fetchImpl("http://gateway.test/v1/messages", {
        method: "POST",
        headers: { "x-api-key": TOKEN, "content-type": "application/json" },
        body: JSON.stringify(body),
      })
    ).text();
    const firstText = raw.indexOf("Let me ");
    const comment = raw.indexOf(": keep-alive", firstText);
    expect(firstText).toBeGreaterThan(0);
    // After the first text went out, before the rest.
    expect(comment).toBeGreaterThan(firstText);
    expect(comment).toBeLessThan(raw.indexOf("think."));

    const client = new Anthropic({
      apiKey: TOKEN,
      baseURL: "http://gateway.test",
      fetch: fetchImpl,
      maxRetries: 0,
    });
    const message = await client.messages.stream(request).finalMessage();
    expect(message.content).toMatchObject([{ type: "text", text: "Let me think." }]);
  });
});
