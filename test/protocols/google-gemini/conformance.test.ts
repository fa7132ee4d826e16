/**
 * Conformance of `gemini().complete()` / `stream()` against the official SDK (`@google/genai`), on every
 * recorded `generateContent` / `streamGenerateContent` answer in `test/fixtures/google/`.
 *
 * For each recorded call the exact response bytes go, in random-size chunks (fast-check, fixed seed),
 * through our provider (injected `fetch`) and through `new GoogleGenAI({ httpOptions: { fetch } })`'s own
 * `generateContent` / `generateContentStream` (Vertex recordings through its Vertex converter). The SDK's
 * view is the reference: the candidate's parts (concatenated over a stream's chunks) must be our
 * `native.blocks` exactly — signatures included —, its finish reason our `rawStopReason`, its function
 * calls our tool calls, its last `usageMetadata` our usage (read independently here), its `responseId`
 * and `modelVersion` our `id` and `model`; and what we streamed must add up to what we returned.
 */
import { GoogleGenAI } from "@google/genai";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gemini, type Response as ModelResponse, type StreamEvent, type Usage } from "../../../src/index.ts";
import { byteStream } from "../../helpers/byte-stream.ts";
import { RECORDED_CALLS, type RecordedCall, SKIPPED_INTERACTIONS } from "./recorded-calls.helpers.ts";

type Json = Record<string, unknown>;
const KEY = "test-key-conformance-0123456789";

/** What the SDK makes of a recorded answer. */
interface SdkView {
  parts: Json[];
  finishReason: string | undefined;
  blockReason: string | undefined;
  usage: Json | undefined;
  functionCalls: { name?: string; args?: unknown; id?: string }[];
  responseId: string | undefined;
  modelVersion: string | undefined;
}

function fakeFetch(call: RecordedCall, sizes: readonly number[]): typeof fetch {
  return (async () =>
    new Response(byteStream(call.body, sizes), {
      status: call.status,
      headers: { "content-type": call.stream ? "text/event-stream" : "application/json" },
    })) as typeof fetch;
}

async function viaSdk(call: RecordedCall, sizes: readonly number[]): Promise<SdkView> {
  const httpOptions = { baseUrl: "http://fake.invalid", fetch: fakeFetch(call, sizes) };
  const ai = call.vertex
    ? new GoogleGenAI({ vertexai: true, apiKey: KEY, httpOptions })
    : new GoogleGenAI({ apiKey: KEY, httpOptions: { ...httpOptions, apiVersion: "v1beta" } });
  const request = { model: call.model, contents: "hi" };
  const view: SdkView = {
    parts: [],
    finishReason: undefined,
    blockReason: undefined,
    usage: undefined,
    functionCalls: [],
    responseId: undefined,
    modelVersion: undefined,
  };
  const chunks = call.stream
    ? await ai.models.generateContentStream(request)
    : [await ai.models.generateContent(request)];
  for await (const chunk of chunks) {
    const candidate = chunk.candidates?.[0];
    view.parts.push(...((candidate?.content?.parts ?? []) as Json[]));
    view.finishReason = candidate?.finishReason ?? view.finishReason;
    view.blockReason = chunk.promptFeedback?.blockReason ?? view.blockReason;
    if (chunk.usageMetadata) view.usage = chunk.usageMetadata as Json;
    view.responseId ??= chunk.responseId;
    view.modelVersion = chunk.modelVersion ?? view.modelVersion;
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) view.functionCalls.push(part.functionCall);
    }
  }
  return view;
}

async function viaModelwire(
  call: RecordedCall,
  sizes: readonly number[],
): Promise<{ response: ModelResponse; events: StreamEvent[] }> {
  const provider = gemini({ apiKey: KEY, model: call.model, fetch: fakeFetch(call, sizes) });
  if (!call.stream)
    return { response: await provider.complete([{ role: "user", content: "hi" }]), events: [] };
  const events: StreamEvent[] = [];
  for await (const event of provider.stream([{ role: "user", content: "hi" }])) events.push(event);
  const done = events.at(-1);
  if (done?.type !== "done") throw new Error("no done event");
  return { response: done.response, events };
}

/** Usage as this test reads `usageMetadata`, independently of `mapGeminiUsage`. */
function expectedUsage(usage: Json | undefined): Usage {
  if (!usage) return {};
  const n = (key: string) => (typeof usage[key] === "number" ? (usage[key] as number) : undefined);
  const expected: Usage = {};
  const prompt = n("promptTokenCount");
  const cached = n("cachedContentTokenCount");
  const tools = n("toolUsePromptTokenCount");
  if (prompt !== undefined || tools !== undefined)
    expected.inputTokens = (prompt ?? 0) + (tools ?? 0) - (cached ?? 0);
  if (cached !== undefined) expected.cachedInputTokens = cached;
  const total = n("totalTokenCount");
  if (total !== undefined && prompt !== undefined) expected.outputTokens = total - prompt - (tools ?? 0);
  if (n("thoughtsTokenCount") !== undefined) expected.reasoningTokens = n("thoughtsTokenCount");
  return expected;
}

function compare(call: RecordedCall, sdk: SdkView, response: ModelResponse): void {
  expect(response.message.native, call.name).toEqual({
    protocol: "google-gemini",
    origin: "gemini",
    model: call.model,
    blocks: sdk.parts,
  });
  expect(response.rawStopReason).toBe(sdk.finishReason ?? sdk.blockReason);
  const text = sdk.parts.filter((part) => part.thought !== true && typeof part.text === "string");
  expect(response.message.content).toBe(text.map((part) => part.text).join(""));
  const thoughts = sdk.parts
    .filter((part) => part.thought === true)
    .map((part) => part.text)
    .join("");
  expect(response.reasoning).toBe(thoughts === "" ? undefined : thoughts);
  expect(response.message.toolCalls.map(({ name, arguments: args }) => ({ name, args }))).toEqual(
    sdk.functionCalls.map(({ name, args }) => ({ name, args: args ?? {} })),
  );
  for (const [position, call_] of sdk.functionCalls.entries()) {
    if (call_.id) expect(response.message.toolCalls[position]?.id).toBe(call_.id);
  }
  expect(response.usage).toEqual(expectedUsage(sdk.usage));
  expect(response.id).toBe(sdk.responseId);
  expect(response.model).toBe(sdk.modelVersion ?? call.model);
  if (sdk.functionCalls.length > 0) expect(response.stopReason).toBe("tool-calls");
}

function compareEvents(response: ModelResponse, events: readonly StreamEvent[]): void {
  expect(events.filter((event) => event.type === "done")).toHaveLength(1);
  const text = events.flatMap((event) => (event.type === "text-delta" ? [event.text] : [])).join("");
  expect(text).toBe(response.message.content);
  const reasoning = events
    .flatMap((event) => (event.type === "reasoning-delta" ? [event.text] : []))
    .join("");
  expect(reasoning).toBe(response.reasoning ?? "");
  const ends = events.flatMap((event) => (event.type === "tool-call-end" ? [event.toolCall] : []));
  expect(ends).toEqual(response.message.toolCalls);
  const usage = events.filter((event) => event.type === "usage").at(-1);
  if (usage?.type === "usage") expect(usage.usage).toEqual(response.usage);
}

const sizes = fc.array(fc.integer({ min: 1, max: 97 }), { minLength: 1, maxLength: 12 });

describe("the recorded Gemini calls", () => {
  it("every interaction is either a generateContent call tested here or skipped with its reason", () => {
    expect(RECORDED_CALLS.length).toBe(65);
    expect(RECORDED_CALLS.filter((call) => call.stream)).toHaveLength(8);
    // OAuth token, two downloads, four file-search store calls, two OpenAI calls.
    expect(SKIPPED_INTERACTIONS).toHaveLength(9);
    for (const reason of SKIPPED_INTERACTIONS) expect(reason).toMatch(/is not a generateContent call$/);
  });
});

describe.each(RECORDED_CALLS.map((call) => [call.name, call] as const))("%s", (_name, call) => {
  it("modelwire and @google/genai read the same bytes alike, through random chunk splits", {
    timeout: 60_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(sizes, async (chunks) => {
        const [sdk, ours] = await Promise.all([viaSdk(call, chunks), viaModelwire(call, chunks)]);
        compare(call, sdk, ours.response);
        if (call.stream) compareEvents(ours.response, ours.events);
      }),
      { seed: 18, numRuns: call.stream ? 25 : 3 },
    );
  });
});
