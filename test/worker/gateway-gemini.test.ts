/**
 * The gateway over the Gemini API: a `google-gemini` route whose key comes from a secret, through the
 * neutral API and the OpenAI-compatible facade, with the upstream faked at the fetch layer.
 */
import { describe, expect, it } from "vitest";
import { gateway, OPENAI_KEY } from "./helpers.ts";

const CONFIG = {
  routes: {
    flash: { protocol: "google-gemini", model: "gemini-2.5-flash", apiKeySecret: "OPENAI_API_KEY" },
  },
};

const CHUNKS = [
  { candidates: [{ content: { role: "model", parts: [{ text: "Hello from " }] } }], responseId: "g1" },
  {
    candidates: [{ content: { role: "model", parts: [{ text: "Gemini" }] }, finishReason: "STOP" }],
    usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 3, totalTokenCount: 10 },
    responseId: "g1",
  },
];
const ANSWER = {
  candidates: [{ content: { role: "model", parts: [{ text: "Hello from Gemini" }] }, finishReason: "STOP" }],
  usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 3, totalTokenCount: 10 },
  responseId: "g1",
};

function upstream(call: { url: string }): Response {
  if (call.url.endsWith(":streamGenerateContent?alt=sse")) {
    const body = CHUNKS.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join("");
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  }
  if (call.url.endsWith(":generateContent")) return Response.json(ANSWER);
  return new Response("unexpected upstream", { status: 500 });
}

describe("a google-gemini route", () => {
  it("POST /v1/complete: the key from the secret goes as x-goog-api-key, the answer comes back neutral", async () => {
    const { call, calls } = gateway(upstream, { config: CONFIG, log: () => {} });
    const response = await call("/v1/complete", {
      json: { route: "flash", messages: [{ role: "user", content: "hi" }] },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      message: { role: "assistant", content: "Hello from Gemini" },
      stopReason: "stop",
      usage: { inputTokens: 7, outputTokens: 3 },
    });
    expect(calls[0]!.url).toBe(
      "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent",
    );
    expect(calls[0]!.headers.get("x-goog-api-key")).toBe(OPENAI_KEY);
  });

  it("POST /v1/stream sends the text deltas and ends with done", async () => {
    const { call } = gateway(upstream, { config: CONFIG, log: () => {} });
    const response = await call("/v1/stream", {
      json: { route: "flash", messages: [{ role: "user", content: "hi" }] },
    });
    const body = await response.text();
    const deltas = [...body.matchAll(/event: text-delta\ndata: (.*)\n/g)].map(
      (match) => JSON.parse(match[1]!).text,
    );
    expect(deltas.join("")).toBe("Hello from Gemini");
    expect(body).toMatch(/event: done\n/);
    expect(body).not.toContain("event: error");
  });

  it("POST /v1/chat/completions answers in the OpenAI shape", async () => {
    const { call } = gateway(upstream, { config: CONFIG, log: () => {} });
    const response = await call("/v1/chat/completions", {
      json: { model: "flash", messages: [{ role: "user", content: "hi" }] },
    });
    expect(await response.json()).toMatchObject({
      object: "chat.completion",
      model: "flash",
      choices: [{ message: { role: "assistant", content: "Hello from Gemini" }, finish_reason: "stop" }],
    });
  });
});
