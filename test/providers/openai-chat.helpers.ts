/**
 * Shared by the openaiChat() provider tests: a recording fetch, completions, chunks and SSE bodies.
 */
import { expect } from "vitest";
import { type CallOptions, collectStream, ProviderError, type StreamEvent } from "../../src/index.ts";
import { byteStream } from "../helpers/byte-stream.ts";

/** Shaped like no known key, so only the provider's own redaction (not a pattern) can hide it. */
export const KEY = "test-secret-key-4f9a2c71e0";
export const HI = [{ role: "user" as const, content: "hi" }];
export const WEATHER = {
  name: "weather",
  parameters: { type: "object", properties: { city: { type: "string" } } },
};

export type Json = Record<string, unknown>;

export interface Captured {
  url: string;
  headers: Headers;
  body: Json;
}

export function fakeFetch(respond: (captured: Captured) => Response | Promise<Response>): {
  fetch: typeof fetch;
  requests: Captured[];
} {
  const requests: Captured[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const captured = {
      url: String(input),
      headers: new Headers(init?.headers),
      body: JSON.parse(String(init?.body)) as Json,
    };
    requests.push(captured);
    return respond(captured);
  }) as typeof fetch;
  return { fetch: fetchImpl, requests };
}

export function completion(message: Json, extra: Json = {}): Json {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    model: "served-model",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: "stop" }],
    usage: {
      prompt_tokens: 20,
      completion_tokens: 5,
      total_tokens: 25,
      prompt_tokens_details: { cached_tokens: 8 },
      completion_tokens_details: { reasoning_tokens: 0 },
    },
    ...extra,
  };
}

export const TEXT_COMPLETION = completion({ content: "Hello" });

export function sse(chunks: readonly (Json | string)[]): string {
  return chunks
    .map((chunk) => `data: ${typeof chunk === "string" ? chunk : JSON.stringify(chunk)}\n\n`)
    .join("");
}

export function sseResponse(text: string, chunkSize = 5): Response {
  return new Response(byteStream(new TextEncoder().encode(text), chunkSize), {
    headers: { "content-type": "text/event-stream" },
  });
}

export function chunk(delta: Json, finish: string | null = null, extra: Json = {}): Json {
  return {
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    model: "served-model",
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  };
}

export function errorResponse(status: number, error: Json, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(ProviderError.is(error), String(error)).toBe(true);
  return error as ProviderError;
}

export async function streamFailure(iterable: AsyncIterable<StreamEvent>): Promise<ProviderError> {
  return failure(collectStream(iterable));
}

export function withParallel(options: CallOptions, parallelToolCalls: boolean): CallOptions {
  return { ...options, parallelToolCalls };
}

// ---------------------------------------------------------------------------------------------------
