/**
 * The smallest useful Worker on modelwire: one streaming Anthropic call, its text streamed back to the
 * client as it arrives. The benchmark and `test/tooling/bundle-size.test.ts` bundle this file to measure
 * what one adapter costs a deployed Worker; it is not deployed.
 *
 * @module
 */
import { anthropic } from "../../src/index.ts";

interface Env {
  ANTHROPIC_API_KEY: string;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const claude = anthropic({ apiKey: env.ANTHROPIC_API_KEY, model: "claude-sonnet-4-6" });
    const prompt = new URL(request.url).searchParams.get("q") ?? "Hello";
    const events = claude
      .stream([{ role: "user", content: prompt }], undefined, { maxTokens: 1024 })
      [Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        for (;;) {
          const { done, value } = await events.next();
          if (done) return controller.close();
          if (value.type === "text-delta") return controller.enqueue(encoder.encode(value.text));
        }
      },
      async cancel() {
        await events.return?.();
      },
    });
    return new Response(body, { headers: { "content-type": "text/plain; charset=utf-8" } });
  },
};
