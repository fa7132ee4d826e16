/**
 * A Worker with the usual production shape: Anthropic first, retried, then OpenAI Chat, behind a fallback
 * chain; one streaming call. Bundled by `npm run bench` and `test/tooling/bundle-size.test.ts` to measure
 * what two adapters and the substrate cost a deployed Worker; it is not deployed.
 *
 * @module
 */
import { anthropic, fallback, openaiChat, retry } from "../../src/index.ts";

interface Env {
  ANTHROPIC_API_KEY: string;
  OPENAI_API_KEY: string;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const chain = fallback([
      {
        provider: retry(anthropic({ apiKey: env.ANTHROPIC_API_KEY, model: "claude-sonnet-4-6" }), {
          attempts: 2,
        }),
      },
      { provider: openaiChat({ apiKey: env.OPENAI_API_KEY, model: "gpt-4.1-mini" }) },
    ]);
    const prompt = new URL(request.url).searchParams.get("q") ?? "Hello";
    const encoder = new TextEncoder();
    const events = chain.stream([{ role: "user", content: prompt }])[Symbol.asyncIterator]();
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
