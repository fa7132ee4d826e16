/**
 * Shared runtime cases for the Gemini adapter: they run in Node, workerd, Deno and Bun (see ./cases.ts),
 * against an in-process fake Gemini API — an injected `fetch` that reads a real `Request` and answers
 * with SSE split at odd boundaries (inside multi-byte characters too), one macrotask apart.
 */
import { collectStream, type MessageInput, ProviderError } from "../../src/index.ts";
import { gemini } from "../../src/providers/gemini.ts";
import { oddChunkBody } from "../helpers/bedrock-frames.ts";
import { equal, ok, rejects } from "./assert.ts";
import type { RuntimeCase } from "./case.ts";

type Json = Record<string, unknown>;

const KEY = "AIzaSy-runtime-gemini-key-000000000";
const SIGNATURE = "CpYEAXLI2nxRuntimeSignature+/==";
const HISTORY: MessageInput[] = [{ role: "user", content: "Weather in Zürich?" }];
const TOOLS = [{ name: "weather", parameters: { type: "object", properties: { city: { type: "string" } } } }];
const encoder = new TextEncoder();

const CHUNKS: Json[] = [
  {
    candidates: [{ content: { role: "model", parts: [{ text: "Zürich → weather ☀️", thought: true }] } }],
    responseId: "rt-1",
  },
  {
    candidates: [
      {
        content: {
          role: "model",
          parts: [
            { functionCall: { name: "weather", args: { city: "Zürich" } }, thoughtSignature: SIGNATURE },
          ],
        },
        finishReason: "STOP",
      },
    ],
    usageMetadata: {
      promptTokenCount: 40,
      candidatesTokenCount: 9,
      thoughtsTokenCount: 20,
      totalTokenCount: 69,
    },
    responseId: "rt-1",
  },
];

function fakeGemini(answer: (body: Json, url: string) => Response) {
  const requests: { url: string; headers: Headers; body: Json }[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const body = JSON.parse(await request.text()) as Json;
    requests.push({ url: request.url, headers: request.headers, body });
    return answer(body, request.url);
  }) as typeof fetch;
  return { fetch: fetchImpl, requests };
}

function sseBody(chunks: Json[]): ReadableStream<Uint8Array> {
  const text = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join("");
  return oddChunkBody(encoder.encode(text), [1, 5, 3, 17, 2, 41, 7]);
}

export const geminiCases: RuntimeCase[] = [
  {
    name: "gemini: a streamed thought and signed call, split at odd bytes, replay byte for byte to the same model",
    async run() {
      const { fetch, requests } = fakeGemini(
        () => new Response(sseBody(CHUNKS), { headers: { "content-type": "text/event-stream" } }),
      );
      const provider = gemini({ apiKey: KEY, model: "gemini-2.5-flash", fetch });
      const response = await collectStream(provider.stream(HISTORY, TOOLS));
      equal(
        requests[0]!.url,
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
      );
      equal(requests[0]!.headers.get("x-goog-api-key"), KEY);
      equal(response.reasoning, "Zürich → weather ☀️");
      equal(response.message.toolCalls, [
        { id: "rt-1_call_0", name: "weather", arguments: { city: "Zürich" } },
      ]);
      equal(response.usage, { inputTokens: 40, outputTokens: 29, reasoningTokens: 20 });
      const next = [
        ...HISTORY,
        response.message,
        { role: "tool" as const, toolResults: [{ callId: "rt-1_call_0", content: "sunny" }] },
      ];
      const replay = fakeGemini(() =>
        Response.json({
          candidates: [{ content: { role: "model", parts: [{ text: "Sunny." }] }, finishReason: "STOP" }],
        }),
      );
      const again = gemini({ apiKey: KEY, model: "gemini-2.5-flash", fetch: replay.fetch });
      equal((await again.complete(next, TOOLS)).message.content, "Sunny.");
      const contents = replay.requests[0]!.body.contents as Json[];
      equal(contents[1], {
        role: "model",
        parts: [
          { text: "Zürich → weather ☀️", thought: true },
          { functionCall: { name: "weather", args: { city: "Zürich" } }, thoughtSignature: SIGNATURE },
        ],
      });
      equal(contents[2], {
        role: "user",
        parts: [{ functionResponse: { name: "weather", response: { output: "sunny" } } }],
      });
    },
  },
  {
    name: "gemini: 429 RESOURCE_EXHAUSTED waits for RetryInfo, and the key is in no error",
    async run() {
      const { fetch } = fakeGemini(() =>
        Response.json(
          {
            error: {
              code: 429,
              status: "RESOURCE_EXHAUSTED",
              message: `Quota exceeded for key ${KEY}`,
              details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "1.5s" }],
            },
          },
          { status: 429 },
        ),
      );
      const provider = gemini({ apiKey: KEY, model: "gemini-2.5-flash", fetch });
      const error = (await rejects(provider.complete(HISTORY), ProviderError)) as ProviderError;
      equal(error.kind, "rate_limit");
      equal(error.retryAfterMs, 1500);
      ok(!JSON.stringify({ ...error.toJSON(), message: error.message }).includes(KEY), "the key leaked");
    },
  },
  {
    name: "gemini: a stream cut before its finishReason is truncated",
    async run() {
      const { fetch } = fakeGemini(
        () => new Response(sseBody(CHUNKS.slice(0, 1)), { headers: { "content-type": "text/event-stream" } }),
      );
      const provider = gemini({ apiKey: KEY, model: "gemini-2.5-flash", fetch });
      const error = (await rejects(collectStream(provider.stream(HISTORY)), ProviderError)) as ProviderError;
      equal(error.kind, "truncated");
    },
  },
];
