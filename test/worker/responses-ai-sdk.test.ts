/**
 * The AI SDK's default OpenAI provider (`openai("route")` is the Responses API) against /v1/responses:
 * `generateText` and `streamText` with a tool over two steps, on an Anthropic route (the signed thinking
 * carried across in `encrypted_content`) and on a Responses route (passed through) — and the 400 a
 * converted route answers to the `item_reference`s the SDK sends when `store` is left at its default.
 */
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, stepCountIs, streamText, tool } from "ai";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import {
  anthropicError,
  anthropicEvents,
  anthropicFrames,
  sseResponse,
  streamBody,
  TOKEN,
} from "./helpers.ts";
import {
  anthropicThinkingUpstream,
  responsesGateway,
  responsesUpstream,
  THINKING,
  THINKING_BLOCK,
  TOOL_USE_ID,
} from "./responses-upstreams.ts";

const weather = tool({
  description: "Current weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, temp_c: 18, sky: "sunny" }),
});

/** Stateless, and a reasoning model as far as the SDK knows (so it asks for encrypted reasoning). */
const STATELESS = { openai: { store: false, forceReasoning: true, reasoningEffort: "low" } } as const;

function provider(fetch: typeof globalThis.fetch) {
  return createOpenAI({ baseURL: "http://gateway.test/v1", apiKey: TOKEN, fetch });
}

describe("@ai-sdk/openai (Responses) through the gateway", () => {
  it("generateText on an Anthropic route: a tool over two steps, the thinking back to Anthropic as it was", async () => {
    const { fetch, calls } = responsesGateway(anthropicThinkingUpstream);
    const result = await generateText({
      model: provider(fetch)("claude"),
      prompt: "What is the weather in Paris?",
      tools: { get_weather: weather },
      stopWhen: stepCountIs(2),
      providerOptions: STATELESS,
    });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.toolCalls[0]).toMatchObject({
      toolName: "get_weather",
      input: { city: "Paris" },
    });
    expect(result.steps[0]!.reasoningText).toBe(THINKING);
    expect(result.text).toBe("It is 18 °C and sunny in Paris.");
    expect(calls).toHaveLength(2);
    const assistant = (calls[1]!.body.messages as { role: string; content: unknown }[]).find(
      (message) => message.role === "assistant",
    )!;
    const blocks = assistant.content as Record<string, unknown>[];
    expect(JSON.stringify(blocks[0])).toBe(JSON.stringify(THINKING_BLOCK));
    expect(blocks[1]).toMatchObject({ type: "tool_use", id: TOOL_USE_ID, input: { city: "Paris" } });
  });

  it("streamText on an Anthropic route: the same two steps, streamed", async () => {
    const { fetch, calls } = responsesGateway(anthropicThinkingUpstream);
    const result = streamText({
      model: provider(fetch)("claude"),
      prompt: "What is the weather in Paris?",
      tools: { get_weather: weather },
      stopWhen: stepCountIs(2),
      providerOptions: STATELESS,
    });
    const kinds = new Set<string>();
    for await (const part of result.fullStream) {
      kinds.add(part.type);
      if (part.type === "error") throw part.error;
    }
    expect(kinds).toContain("reasoning-delta");
    expect(kinds).toContain("tool-call");
    expect(await result.text).toBe("It is 18 °C and sunny in Paris.");
    expect((await result.steps)[0]!.reasoningText).toBe(THINKING);
    const assistant = (calls[1]!.body.messages as { role: string; content: unknown }[]).find(
      (message) => message.role === "assistant",
    )!;
    expect(JSON.stringify((assistant.content as unknown[])[0])).toBe(JSON.stringify(THINKING_BLOCK));
  });

  it("generateText on a Responses route: the upstream's encrypted reasoning goes back with the call", async () => {
    const { fetch, calls } = responsesGateway(responsesUpstream);
    const result = await generateText({
      model: provider(fetch)("gpt5"),
      prompt: "What is the weather in Paris?",
      tools: { get_weather: weather },
      stopWhen: stepCountIs(2),
      providerOptions: STATELESS,
    });
    expect(result.text).toBe("It is 18 °C and sunny in Paris.");
    const input = calls[1]!.body.input as Record<string, unknown>[];
    const reasoning = input.find((item) => item.type === "reasoning")!;
    expect(reasoning.encrypted_content).toBe("gAAAAABo-ENCRYPTED-FIRST-reasoning==");
    expect(input.findIndex((item) => item.type === "reasoning")).toBeLessThan(
      input.findIndex((item) => item.type === "function_call"),
    );
  });

  it("with store at its default, a converted route refuses the SDK's item_reference, saying what to set", async () => {
    const { fetch } = responsesGateway(anthropicThinkingUpstream);
    const error = await generateText({
      model: provider(fetch)("claude"),
      prompt: "What is the weather in Paris?",
      tools: { get_weather: weather },
      stopWhen: stepCountIs(2),
      maxRetries: 0,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    const { statusCode, responseBody } = error as { statusCode?: number; responseBody?: string };
    expect(statusCode).toBe(400);
    expect(responseBody).toContain("item_reference");
    expect(responseBody).toContain("store = false");
  });

  it("streamText: a failure after the text started is an error part with the gateway's message", async () => {
    const events = anthropicEvents(["Hel", "lo"]);
    const { fetch } = responsesGateway(() =>
      sseResponse(streamBody(anthropicFrames(events.slice(0, 5)), { end: "error" })),
    );
    const result = streamText({ model: provider(fetch)("claude"), prompt: "hi", maxRetries: 0 });
    const parts: { type: string; error?: unknown; text?: string }[] = [];
    for await (const part of result.fullStream) parts.push(part as (typeof parts)[number]);
    expect(parts.filter((part) => part.type === "text-delta").map((part) => part.text)).toEqual([
      "Hel",
      "lo",
    ]);
    const error = parts.find((part) => part.type === "error")?.error as { message?: string } | undefined;
    expect(error).toBeDefined();
    // The gateway's error event, read as one (not a schema validation failure).
    expect(JSON.stringify(error)).toContain("Network connection lost");
    expect(JSON.stringify(error)).not.toContain("validation");
  });

  it("a failure before the stream opened is the HTTP 429 with Retry-After: thrown, retryable", async () => {
    const { fetch } = responsesGateway(() =>
      anthropicError(429, "rate_limit_error", "Rate limited", { "retry-after": "2" }),
    );
    const result = streamText({ model: provider(fetch)("claude"), prompt: "hi", maxRetries: 0 });
    let caught: unknown;
    for await (const part of result.fullStream) if (part.type === "error") caught = part.error;
    expect(caught).toMatchObject({ statusCode: 429, isRetryable: true });
    expect((caught as { responseHeaders: Record<string, string> }).responseHeaders["retry-after"]).toBe("2");
  });
});
