/**
 * Conformance of `openaiResponses().stream()` / `complete()` against the official SDK (`openai`), on every
 * recorded Responses API stream in the shared fixtures (OpenAI, DeepSeek, OpenRouter, the GitHub Copilot
 * proxy, the OpenAI Agents SDK's traffic).
 *
 * For each recorded stream the exact bytes go, in random-size chunks, through our provider (injected `fetch`)
 * and through `new OpenAI(...).responses.stream(...).finalResponse()`. The SDK's final response is the
 * reference for the output items (`encrypted_content` byte for byte), function-call arguments, text and
 * usage. Everything is also checked against what the raw `data:` lines say (no src/ code, no SDK), which is
 * the reference where the SDK cannot be: a stream whose response id changes between lifecycle events (the
 * Copilot proxy) and a stream that fails with an `error` event.
 *
 * Each stream's terminal `response` object is also sent to `complete()` as the non-streaming body: the two
 * `Response`s must be deep-equal, `native.blocks` included.
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import type { Response as ModelResponse, StreamEvent, Usage } from "../../../src/index.ts";
import { ProviderError } from "../../../src/index.ts";
import { isContentEvent, isRetryableKind } from "../../../src/protocols/index.ts";
import { openaiResponses } from "../../../src/providers/openai-responses.ts";
import { byteStream, type ChunkSizes } from "../../helpers/byte-stream.ts";
import { listFixtures, loadFixture } from "../../helpers/fixtures.ts";

type Json = Record<string, unknown>;

const HISTORY = [{ role: "user" as const, content: "hi" }];
const decoder = new TextDecoder();

// ---------------------------------------------------------------------------------------------------
// Fixtures: every Responses stream, read here without any src/ code.

/** One SSE event as written on the wire, and the byte offset where its block starts. */
interface WireEvent {
  event: string | undefined;
  data: string;
  start: number;
}

interface Recorded {
  /** `<fixture path>#<interaction>`, plus `.<n>` for the n-th response of a concatenated body. */
  name: string;
  path: string;
  bytes: Uint8Array;
  events: WireEvent[];
  /** The JSON of every data line except `[DONE]`. */
  json: Json[];
  model: string;
  baseURL: string;
}

function wireEvents(body: Uint8Array): WireEvent[] {
  const events: WireEvent[] = [];
  let current: WireEvent | undefined;
  let start = 0;
  while (start <= body.length) {
    let end = body.indexOf(0x0a, start);
    if (end === -1) end = body.length;
    const line = decoder.decode(body.subarray(start, end)).replace(/\r$/, "");
    if (line === "") {
      if (current) events.push(current);
      current = undefined;
    } else if (!line.startsWith(":")) {
      current ??= { event: undefined, data: "", start };
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") current.event = value;
      if (field === "data") current.data = current.data === "" ? value : `${current.data}\n${value}`;
    }
    if (end === body.length) break;
    start = end + 1;
  }
  if (current) events.push(current);
  return events;
}

function isResponseCreated(event: WireEvent): boolean {
  return event.data !== "[DONE]" && (JSON.parse(event.data) as Json).type === "response.created";
}

async function loadRecorded(): Promise<{ recorded: Recorded[]; json: Recorded[]; skipped: string[] }> {
  const recorded: Recorded[] = [];
  const json: Recorded[] = [];
  const skipped: string[] = [];
  for (const info of listFixtures("openai-responses")) {
    const fixture = await loadFixture(info.path);
    for (const interaction of fixture.interactions) {
      const name = `${info.path}#${interaction.index}`;
      // A download the recording client made before the call (GET of the image it then sent inline).
      if (interaction.request !== undefined && interaction.request.method !== "POST") {
        skipped.push(`${name} (${interaction.request?.method} ${interaction.bodyKind})`);
        continue;
      }
      // vcrpy cassettes keep the request body as JSON text; pydantic-ai's as parsed JSON.
      const rawRequest = interaction.request?.body;
      const requestBody = (
        typeof rawRequest === "string" ? JSON.parse(rawRequest) : (rawRequest ?? {})
      ) as Json;
      const uri = interaction.request?.uri;
      const baseURL = uri ? uri.replace(/\/responses$/, "") : "https://api.openai.com/v1";
      if (interaction.bodyKind === "json") {
        const body = interaction.json as Json;
        json.push({
          name,
          path: info.path,
          bytes: interaction.body,
          events: [],
          json: [body],
          model: String(requestBody.model ?? body.model),
          baseURL,
        });
        continue;
      }
      if (interaction.bodyKind !== "sse") {
        skipped.push(`${name} (${interaction.bodyKind})`);
        continue;
      }
      // vercel's chunks.txt files may hold several responses of an agent loop, one after the other.
      const events = wireEvents(interaction.body);
      const starts = events.filter(isResponseCreated).map((event) => event.start);
      const cuts = starts.length > 1 ? starts.slice(1) : [];
      const bounds = [0, ...cuts, interaction.body.length];
      for (let part = 0; part < bounds.length - 1; part++) {
        const bytes = interaction.body.slice(bounds[part], bounds[part + 1]);
        const partEvents = wireEvents(bytes);
        const parsed = partEvents.filter((e) => e.data !== "[DONE]").map((e) => JSON.parse(e.data) as Json);
        const created = parsed.find((e) => e.type === "response.created")?.response as Json | undefined;
        recorded.push({
          name: cuts.length > 0 ? `${name}.${part}` : name,
          path: info.path,
          bytes,
          events: partEvents,
          json: parsed,
          model: String(requestBody.model ?? created?.model ?? "unknown-model"),
          baseURL,
        });
      }
    }
  }
  return { recorded, json, skipped };
}

const { recorded: RECORDED, json: JSON_RESPONSES, skipped: SKIPPED } = await loadRecorded();

function recordedNamed(part: string): Recorded {
  const found = RECORDED.find((r) => r.name.includes(part));
  if (!found) throw new Error(`no recording ${part}`);
  return found;
}

/** What the wire says about a recording, from its data lines alone. */
interface WireFacts {
  terminal: Json | undefined;
  terminalType: string | undefined;
  error: Json | undefined;
  /** `encrypted_content` per output index, from `output_item.added` and from `output_item.done`. */
  addedEncrypted: Map<number, unknown>;
  doneEncrypted: Map<number, unknown>;
  text: string;
  reasoningDeltas: string[];
  argumentDeltas: Map<number, string>;
}

function facts(recording: Recorded): WireFacts {
  const result: WireFacts = {
    terminal: undefined,
    terminalType: undefined,
    error: undefined,
    addedEncrypted: new Map(),
    doneEncrypted: new Map(),
    text: "",
    reasoningDeltas: [],
    argumentDeltas: new Map(),
  };
  for (const event of recording.json) {
    const type = event.type as string;
    const index = event.output_index as number;
    const item = event.item as Json | undefined;
    if (type === "response.output_item.added" && item?.type === "reasoning")
      result.addedEncrypted.set(index, item.encrypted_content);
    if (type === "response.output_item.done" && item?.type === "reasoning")
      result.doneEncrypted.set(index, item.encrypted_content);
    if (type === "response.output_text.delta") result.text += event.delta as string;
    if (type === "response.reasoning_summary_text.delta" || type === "response.reasoning_text.delta")
      result.reasoningDeltas.push(event.delta as string);
    if (type === "response.function_call_arguments.delta" || type === "response.custom_tool_call_input.delta")
      result.argumentDeltas.set(index, (result.argumentDeltas.get(index) ?? "") + (event.delta as string));
    if (type === "error" && result.error === undefined) result.error = event;
    if (
      (type === "response.completed" || type === "response.incomplete" || type === "response.failed") &&
      result.terminal === undefined
    ) {
      result.terminal = event.response as Json;
      result.terminalType = type;
    }
  }
  return result;
}

/**
 * Responses usage → neutral usage, written out from the convention in core/usage.ts: `input_tokens`
 * includes cache reads and writes, so input = input − cached − written; 0 stays 0, absent stays absent.
 */
function neutralUsage(usage: Json | null | undefined): Usage {
  if (!usage) return {};
  const count = (value: unknown) => (typeof value === "number" ? value : undefined);
  const details = (usage.input_tokens_details ?? {}) as Json;
  const cached = count(details.cached_tokens);
  const written = count(details.cache_write_tokens);
  const out: Usage = {};
  const input = count(usage.input_tokens);
  if (input !== undefined) out.inputTokens = input - (cached ?? 0) - (written ?? 0);
  if (count(usage.output_tokens) !== undefined) out.outputTokens = count(usage.output_tokens);
  if (cached !== undefined) out.cachedInputTokens = cached;
  if (written !== undefined) out.cacheWriteTokens = written;
  const reasoning = count(((usage.output_tokens_details ?? {}) as Json).reasoning_tokens);
  if (reasoning !== undefined) out.reasoningTokens = reasoning;
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Running our provider and the SDK on the same bytes.

/** Deterministic random chunk sizes (1..64 bytes) seeded from the recording's name. */
function randomChunkSizes(seedText: string): ChunkSizes {
  let seed = 2166136261;
  for (let i = 0; i < seedText.length; i++) seed = Math.imul(seed ^ seedText.charCodeAt(i), 16777619);
  const sizes: number[] = [];
  for (let i = 0; i < 257; i++) {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    sizes.push(1 + ((((t ^ (t >>> 14)) >>> 0) % 64) | 0));
  }
  return sizes;
}

function sseResponse(bytes: Uint8Array, sizes: ChunkSizes): Response {
  return new Response(byteStream(bytes, sizes), { headers: { "content-type": "text/event-stream" } });
}

function provider(recording: Recorded, respond: (init?: RequestInit) => Response) {
  return openaiResponses({
    apiKey: "test-key-for-conformance",
    model: recording.model,
    baseURL: recording.baseURL,
    fetch: async (_url, init) => respond(init),
  });
}

interface OurRun {
  events: StreamEvent[];
  error?: unknown;
  requestBody?: Json;
}

async function runOurs(recording: Recorded, bytes: Uint8Array, sizes: ChunkSizes): Promise<OurRun> {
  const run: OurRun = { events: [] };
  const ours = provider(recording, (init) => {
    run.requestBody = JSON.parse(String(init?.body)) as Json;
    return sseResponse(bytes, sizes);
  });
  try {
    for await (const event of ours.stream(HISTORY)) run.events.push(event);
  } catch (error) {
    run.error = error;
  }
  return run;
}

function doneOf(run: OurRun): ModelResponse {
  if (run.error !== undefined) throw run.error;
  const last = run.events.at(-1);
  if (last?.type !== "done") throw new Error("stream ended without a done event");
  return last.response;
}

interface SdkRun {
  response?: Json;
  error?: Error;
}

async function runSdk(recording: Recorded, sizes: ChunkSizes): Promise<SdkRun> {
  const client = new OpenAI({
    apiKey: "test",
    maxRetries: 0,
    fetch: (async () => sseResponse(recording.bytes, sizes)) as unknown as typeof fetch,
  });
  const run: SdkRun = {};
  try {
    const stream = client.responses.stream({ model: recording.model, input: "hi" });
    run.response = JSON.parse(JSON.stringify(await stream.finalResponse())) as Json;
  } catch (error) {
    run.error = error as Error;
  }
  return run;
}

interface Conformance {
  ours: OurRun;
  sdk: SdkRun;
  wire: WireFacts;
}

const cache = new Map<string, Promise<Conformance>>();

function conformance(recording: Recorded): Promise<Conformance> {
  let result = cache.get(recording.name);
  if (!result) {
    const sizes = randomChunkSizes(recording.name);
    result = (async () => {
      const [ours, sdk] = await Promise.all([
        runOurs(recording, recording.bytes, sizes),
        runSdk(recording, sizes),
      ]);
      return { ours, sdk, wire: facts(recording) };
    })();
    cache.set(recording.name, result);
  }
  return result;
}

/**
 * The streams the SDK cannot accumulate, with the error it gives. Each is asserted, so an SDK that learns to
 * parse one shows up here; our behaviour on them is asserted against the wire directly.
 */
const SDK_FAILURES: Record<string, { error: string; message: RegExp }> = {
  // The Copilot proxy gives every lifecycle event a new response id: the SDK refuses the stream.
  "openai-responses/vercel-ai__github-copilot-id-rotation.1.chunks.txt#0": {
    error: "OpenAIError",
    message: /Lifecycle response identity changed/,
  },
  // An `error` event (insufficient_quota) mid-stream: the SDK throws it as an APIError, as we throw a
  // ProviderError.
  "openai-responses/vercel-ai__openai-error.1.chunks.txt#0": {
    error: "APIError",
    message: /exceeded your current quota/,
  },
};

/** Recorded models that are not OpenAI reasoning models: no `include` for them. */
const WITHOUT_ENCRYPTED_REASONING = new Set(["gpt-4o", "deepseek-v4-flash", "openai/gpt-oss-20b"]);

/** The SDK's output items without the fields its helpers add (`parsed_arguments`, `parsed`). */
function sdkItems(sdk: SdkRun): Json[] {
  const output = structuredClone((sdk.response?.output ?? []) as Json[]);
  for (const item of output) {
    delete item.parsed_arguments;
    if (Array.isArray(item.content)) for (const part of item.content as Json[]) delete part.parsed;
  }
  return output;
}

// ---------------------------------------------------------------------------------------------------

describe("OpenAI Responses conformance: recorded streams", () => {
  it("covers every recorded Responses stream", () => {
    // 13 files: the Agents SDK cassette has 3 streams (and 2 non-LLM 204s), DeepSeek, phase and
    // test_openai_responses_stream 2 each, vercel's reasoning-encrypted-content file 4 concatenated
    // responses, 8 files 1 each.
    expect(RECORDED).toHaveLength(21);
    expect(new Set(RECORDED.map((r) => r.path)).size).toBe(13);
    // Every file contributed: a stream, a non-streaming JSON response, or only what is skipped below.
    const files = new Set([...RECORDED, ...JSON_RESPONSES].map((r) => r.path));
    for (const skipped of SKIPPED) files.add(skipped.split("#")[0]!);
    expect(files.size).toBe(listFixtures("openai-responses").length);
    expect(SKIPPED).toEqual([
      "openai-responses/openllmetry__test_music_composer_handoff_hierarchy.yaml#0 (empty)",
      "openai-responses/openllmetry__test_music_composer_handoff_hierarchy.yaml#3 (empty)",
      "openai-responses/pydantic-ai__test_image_url_input_force_download_response_api.yaml#0 (GET text)",
    ]);
    // Non-streaming JSON responses (pydantic-ai keeps them decoded): checked through complete() below.
    expect(JSON_RESPONSES.length).toBeGreaterThanOrEqual(1);
    expect([...new Set(RECORDED.map((r) => r.model))].sort()).toEqual([
      "deepseek-v4-flash",
      "gpt-4o",
      "gpt-5",
      "gpt-5-mini-2025-08-07",
      "gpt-5-nano-2025-08-07",
      "gpt-5.1-codex-max",
      "gpt-5.2-codex",
      "gpt-5.3-codex",
      "gpt-5.5",
      "o3-mini",
      "openai/gpt-oss-20b",
    ]);
    for (const recording of RECORDED) expect(recording.json.length, recording.name).toBeGreaterThan(3);
    const all = RECORDED.map(facts);
    expect(all.filter((f) => f.terminalType === "response.completed")).toHaveLength(20);
    expect(all.filter((f) => f.error !== undefined)).toHaveLength(1);
    // encrypted_content really differs between output_item.added and output_item.done in 5 streams.
    expect(
      all.filter((f) =>
        [...f.addedEncrypted].some(
          ([index, value]) => typeof value === "string" && value !== f.doneEncrypted.get(index),
        ),
      ),
    ).toHaveLength(5);
  });

  it("the SDK fails on exactly the documented streams", async () => {
    const failing: string[] = [];
    for (const recording of RECORDED) {
      const { sdk } = await conformance(recording);
      if (!sdk.error) continue;
      failing.push(recording.name);
      const expected = SDK_FAILURES[recording.name];
      expect(expected, `${recording.name}: ${sdk.error.message}`).toBeDefined();
      expect(sdk.error.constructor.name, recording.name).toBe(expected!.error);
      expect(sdk.error.message, recording.name).toMatch(expected!.message);
    }
    expect(failing.sort()).toEqual(Object.keys(SDK_FAILURES).sort());
  });

  for (const recording of RECORDED) {
    const sdkFails = recording.name in SDK_FAILURES;
    const wire = facts(recording);
    describe(recording.name, () => {
      it("sends a stateless streaming request, asking reasoning models for encrypted reasoning", async () => {
        const { ours } = await conformance(recording);
        expect(ours.requestBody).toMatchObject({
          model: recording.model,
          stream: true,
          store: false,
          input: [{ role: "user", content: "hi" }],
        });
        // Non-reasoning models reject the include ("Encrypted content is not supported with this model").
        expect(ours.requestBody?.include).toEqual(
          WITHOUT_ENCRYPTED_REASONING.has(recording.model) ? undefined : ["reasoning.encrypted_content"],
        );
      });

      if (wire.error) {
        it("an error event becomes a ProviderError before any output", async () => {
          const { ours } = await conformance(recording);
          expect(ours.error).toBeInstanceOf(ProviderError);
          const error = ours.error as ProviderError;
          const body = wire.error!.error as Json;
          expect(error.message).toContain(String(body.message));
          expect(error).toMatchObject({
            kind: "rate_limit",
            code: "insufficient_quota",
            retryable: false,
            partialOutput: false,
            model: recording.model,
          });
          expect(error.upstreamBody).toBe(JSON.stringify(wire.error));
          expect(ours.events.filter(isContentEvent)).toEqual([]);
          expect(ours.events.some((e) => e.type === "done")).toBe(false);
        });
        return;
      }

      it("output items are the terminal response's, verbatim (the SDK's, where it parses the stream)", async () => {
        const { ours, sdk } = await conformance(recording);
        const done = doneOf(ours);
        const terminalOutput = wire.terminal!.output as Json[];
        expect(done.message.native).toStrictEqual({
          protocol: "openai-responses",
          origin:
            new URL(recording.baseURL).host === "api.openai.com" ? "openai" : new URL(recording.baseURL).host,
          model: recording.model,
          blocks: terminalOutput,
        });
        if (sdkFails) return;
        expect(done.message.native!.blocks).toStrictEqual(sdkItems(sdk));
      });

      it("encrypted_content is the final value, never output_item.added's", async () => {
        const { ours, sdk } = await conformance(recording);
        const blocks = doneOf(ours).message.native!.blocks as Json[];
        const reasoning = blocks.filter((block) => block.type === "reasoning");
        expect(reasoning.length).toBe(wire.doneEncrypted.size);
        const sdkReasoning = sdkFails ? [] : sdkItems(sdk).filter((item) => item.type === "reasoning");
        reasoning.forEach((block, position) => {
          const terminal = (wire.terminal!.output as Json[]).filter((item) => item.type === "reasoning");
          expect(block.encrypted_content).toBe(terminal[position]!.encrypted_content);
          if (!sdkFails) expect(block.encrypted_content).toBe(sdkReasoning[position]!.encrypted_content);
          const added = [...wire.addedEncrypted.values()][position];
          if (typeof added === "string" && typeof block.encrypted_content === "string")
            expect(block.encrypted_content).not.toBe(added);
        });
      });

      it("function-call arguments, text and usage match the SDK and the wire", async () => {
        const { ours, sdk } = await conformance(recording);
        const done = doneOf(ours);
        const terminalOutput = wire.terminal!.output as Json[];
        const calls = terminalOutput.filter(
          (item) => item.type === "function_call" || item.type === "custom_tool_call",
        );
        expect(done.message.toolCalls.map((call) => [call.id, call.name, call.argumentsText])).toStrictEqual(
          calls.map((item) => [item.call_id, item.name, item.arguments ?? item.input]),
        );
        for (const call of done.message.toolCalls) {
          const item = calls.find((candidate) => candidate.call_id === call.id)!;
          if (item.type === "function_call")
            expect(call.arguments).toStrictEqual(JSON.parse(call.argumentsText!));
          else expect(call.arguments).toStrictEqual({ input: item.input });
        }
        expect(done.message.content).toBe(wire.text);
        expect(done.usage).toStrictEqual(neutralUsage(wire.terminal!.usage as Json));
        expect(done.stopReason).toBe(calls.length > 0 ? "tool-calls" : "stop");
        expect(done.rawStopReason).toBe("completed");
        expect(done.id).toBe(wire.terminal!.id);
        expect(done.model).toBe(wire.terminal!.model);
        expect(done.warnings).toBeUndefined();
        if (sdkFails) return;
        const sdkCalls = sdkItems(sdk).filter(
          (item) => item.type === "function_call" || item.type === "custom_tool_call",
        );
        expect(done.message.toolCalls.map((call) => call.argumentsText)).toStrictEqual(
          sdkCalls.map((item) => item.arguments ?? item.input),
        );
        if (typeof wire.terminal!.output_text === "string") {
          // OpenRouter sends `output_text: ""` beside a message saying "4": the SDK keeps the server's
          // field; we read the text from the items.
          expect(sdk.response!.output_text).toBe(wire.terminal!.output_text);
          expect(recording.name).toContain("openrouter");
        } else expect(done.message.content).toBe(sdk.response!.output_text);
        expect(done.usage).toStrictEqual(neutralUsage(sdk.response!.usage as Json));
        expect(done.id).toBe(sdk.response!.id);
      });

      it("stream events add up to the response", async () => {
        const { ours } = await conformance(recording);
        const done = doneOf(ours);
        const text = ours.events.flatMap((e) => (e.type === "text-delta" ? [e.text] : []));
        const reasoning = ours.events.flatMap((e) => (e.type === "reasoning-delta" ? [e.text] : []));
        expect(text.join("")).toBe(done.message.content);
        expect(reasoning.join("")).toBe(done.reasoning ?? "");
        // Every reasoning delta on the wire arrived, in order (parts set off by a blank line).
        expect(reasoning.join("").replaceAll("\n\n", "")).toBe(
          wire.reasoningDeltas.join("").replaceAll("\n\n", ""),
        );
        const starts = ours.events.filter((e) => e.type === "tool-call-start");
        const ends = ours.events.flatMap((e) => (e.type === "tool-call-end" ? [e.toolCall] : []));
        expect(starts.map((e) => e.type === "tool-call-start" && [e.index, e.id, e.name])).toStrictEqual(
          done.message.toolCalls.map((call, index) => [index, call.id, call.name]),
        );
        expect(ends).toStrictEqual(done.message.toolCalls);
        done.message.toolCalls.forEach((call, index) => {
          const deltas = ours.events.flatMap((e) =>
            e.type === "tool-call-delta" && e.index === index ? [e.argumentsDelta] : [],
          );
          expect(deltas.join("")).toBe(call.argumentsText);
        });
        const usage = ours.events.filter((e) => e.type === "usage");
        expect(usage.at(-1)).toStrictEqual({ type: "usage", usage: done.usage });
        expect(ours.events.at(-1)?.type).toBe("done");
      });

      it("complete() on the terminal response equals the stream's done response", async () => {
        const { ours } = await conformance(recording);
        const streamed = doneOf(ours);
        const json = provider(recording, () => Response.json(wire.terminal));
        expect(await json.complete(HISTORY)).toStrictEqual(streamed);
      });
    });
  }

  it("a non-streaming response (reasoning, web search, reasoning, message) parses to its items verbatim", async () => {
    const recording = JSON_RESPONSES.find((r) => r.path.includes("web_search_tool_stream"));
    const body = recording!.json[0]!;
    const text = decoder.decode(recording!.bytes);
    const ours = provider(recording!, () => new Response(text));
    const response = await ours.complete(HISTORY);
    const client = new OpenAI({
      apiKey: "test",
      maxRetries: 0,
      fetch: (async () =>
        new Response(text, {
          headers: { "content-type": "application/json" },
        })) as unknown as typeof fetch,
    });
    const sdk = JSON.parse(
      JSON.stringify(await client.responses.create({ model: recording!.model, input: "hi" })),
    ) as Json;
    expect(response.message.native!.blocks).toStrictEqual(body.output);
    expect(response.message.native!.blocks).toStrictEqual(sdk.output);
    expect((body.output as Json[]).map((item) => item.type)).toEqual([
      "reasoning",
      "web_search_call",
      "reasoning",
      "message",
    ]);
    expect(response.message.content).toBe(sdk.output_text);
    expect(response.usage).toStrictEqual(neutralUsage(sdk.usage as Json));
    expect(response.stopReason).toBe("stop");
  });

  it("every stream's output items replay verbatim, in order, on the next turn to the same model", async () => {
    let replayed = 0;
    for (const recording of RECORDED) {
      const { ours } = await conformance(recording);
      if (ours.error) continue;
      const done = doneOf(ours);
      const history = [
        ...HISTORY,
        done.message,
        ...done.message.toolCalls.map((call) => ({
          role: "tool" as const,
          toolResults: [{ callId: call.id, content: "ok" }],
        })),
      ];
      let sent: Json | undefined;
      const next = provider(recording, (init) => {
        sent = JSON.parse(String(init?.body)) as Json;
        return Response.json(facts(recording).terminal);
      });
      await next.complete(history);
      const input = sent!.input as Json[];
      const blocks = done.message.native!.blocks as Json[];
      // Reasoning with nothing usable to send back (Copilot's `encrypted_content: null`) is left out; the
      // rest goes back exactly as it came, in the same order.
      const usable = blocks.filter(
        (block) =>
          block.type !== "reasoning" ||
          (typeof block.encrypted_content === "string" && block.encrypted_content !== "") ||
          (Array.isArray(block.content) && block.content.length > 0),
      );
      const replay = input.slice(1, 1 + usable.length);
      if (usable.length === blocks.length) expect(replay).toStrictEqual(blocks);
      else expect(replay.map((item) => item.type)).toStrictEqual(usable.map((block) => block.type));
      const outputs = input.slice(1 + usable.length);
      expect(outputs).toStrictEqual(
        done.message.toolCalls.map((call) => ({
          type:
            blocks.find((b) => b.call_id === call.id)!.type === "custom_tool_call"
              ? "custom_tool_call_output"
              : "function_call_output",
          call_id: call.id,
          output: "ok",
        })),
      );
      replayed++;
    }
    expect(replayed).toBe(20);
  });
});

describe("OpenAI Responses conformance: cut streams", () => {
  const cases = [
    recordedNamed("pydantic-ai__test_openai_responses_streaming_usage.yaml#0"),
    recordedNamed("pydantic-ai__test_openai_responses_phase_streamed_on_part_start.yaml#0"),
    recordedNamed("pydantic-ai__test_openai_responses_raw_cot_stream_openrouter.yaml#0"),
  ];
  for (const recording of cases) {
    it(`${recording.name}: every cut before the terminal event throws a ProviderError, never done`, async () => {
      const full = await runOurs(recording, recording.bytes, [23]);
      doneOf(full);
      const terminalAt = recording.events.findIndex(
        (event) => event.data !== "[DONE]" && (JSON.parse(event.data) as Json).type === "response.completed",
      );
      expect(terminalAt).toBeGreaterThan(0);
      const terminalStart = recording.events[terminalAt]!.start;
      const cuts = new Map<number, "boundary" | "mid-event">();
      for (const [position, event] of recording.events.slice(0, terminalAt).entries()) {
        cuts.set(event.start, "boundary");
        const end = recording.events[position + 1]!.start;
        for (const offset of [event.start + 1, Math.floor((event.start + end) / 2), end - 3]) {
          if (offset > event.start && offset < terminalStart && !cuts.has(offset))
            cuts.set(offset, "mid-event");
        }
      }
      cuts.set(terminalStart, "boundary");
      let sawPartial = 0;
      let sawNoOutput = 0;
      for (const [cut, kind] of cuts) {
        const run = await runOurs(recording, recording.bytes.slice(0, cut), [5, 1, 13]);
        const where = `${recording.name} cut at ${cut} (${kind})`;
        expect(
          run.events.some((event) => event.type === "done"),
          where,
        ).toBe(false);
        expect(run.error, where).toBeInstanceOf(ProviderError);
        const error = run.error as ProviderError;
        if (kind === "boundary") expect(error.kind, where).toBe("truncated");
        else expect(["truncated", "invalid_response"], where).toContain(error.kind);
        expect(error.retryable, where).toBe(isRetryableKind(error.kind));
        // Whatever was yielded is a prefix of the uncut stream's content, nothing invented.
        const content = run.events.filter(isContentEvent);
        const produced = content.length > 0;
        expect(error.partialOutput, where).toBe(produced);
        const text = (events: StreamEvent[]) =>
          events
            .flatMap((e) => (e.type === "text-delta" || e.type === "reasoning-delta" ? [e.text] : []))
            .join("");
        expect(text(full.events).startsWith(text(run.events)), where).toBe(true);
        if (produced) sawPartial++;
        else sawNoOutput++;
      }
      expect(sawPartial).toBeGreaterThan(0);
      expect(sawNoOutput).toBeGreaterThan(0);
    });
  }

  it("OpenRouter's [DONE] without a terminal event is truncated, not done", async () => {
    const recording = recordedNamed("raw_cot_stream_openrouter");
    expect(recording.events.at(-1)!.data).toBe("[DONE]");
    const terminal = recording.events.find((e) => e.data.includes('"type":"response.completed"'))!;
    const next = recording.events[recording.events.indexOf(terminal) + 1]!;
    const bytes = new Uint8Array([
      ...recording.bytes.slice(0, terminal.start),
      ...recording.bytes.slice(next.start),
    ]);
    const run = await runOurs(recording, bytes, [64]);
    expect(run.error).toMatchObject({ name: "ProviderError", kind: "truncated", partialOutput: true });
  });

  it("one async step per network read: a whole body in one chunk is delivered in few events", async () => {
    const recording = recordedNamed("test_openai_responses_thinking_part_iter");
    const whole = await runOurs(recording, recording.bytes, [recording.bytes.length]);
    const reasoning = whole.events.filter((e) => e.type === "reasoning-delta");
    const text = whole.events.filter((e) => e.type === "text-delta");
    // 383 summary deltas and 271 text deltas on the wire, merged per read.
    expect(reasoning).toHaveLength(1);
    expect(text).toHaveLength(1);
    const split = await runOurs(recording, recording.bytes, [1]);
    expect(doneOf(split)).toStrictEqual(doneOf(whole));
  });
});
