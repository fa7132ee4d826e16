/**
 * Conformance of `openaiChat().stream()` / `complete()` against the official SDK (`openai`), on every recorded
 * Chat Completions SSE response in the shared fixtures (hosted OpenAI, Azure, DeepSeek, OpenRouter, Groq,
 * xAI and Anthropic's OpenAI-compatible endpoint).
 *
 * For each recorded interaction the exact bytes go, in random-size chunks, through our provider (injected
 * `fetch`) and through `new OpenAI(...).chat.completions.stream(...).finalChatCompletion()`. The SDK's final
 * completion is the reference for text, tool calls, finish reason and usage. Everything is also checked
 * against expectations rebuilt here from the raw `data:` lines alone (no src/ code, no SDK), which is the
 * reference where the SDK cannot be: reasoning deltas (the SDK keeps only the last chunk's value of fields
 * it does not know), and the three streams the SDK cannot parse (a mid-stream error inside a chunk, Groq's
 * `event: error`, tool-call indexes starting at 1).
 */
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import {
  collectStream,
  type Response as ModelResponse,
  type OpenAIChatEndpoint,
  openaiChat,
  ProviderError,
  type StopReason,
  type StreamEvent,
  type Usage,
} from "../../../src/index.ts";
import { coalesceDeltas, isContentEvent, isRetryableKind } from "../../../src/protocols/index.ts";
import { byteStream, type ChunkSizes } from "../../helpers/byte-stream.ts";
import { listFixtures, loadFixture } from "../../helpers/fixtures.ts";

type Json = Record<string, unknown>;

const HISTORY = [{ role: "user" as const, content: "hi" }];
const decoder = new TextDecoder();

// ---------------------------------------------------------------------------------------------------
// Fixtures: every Chat Completions interaction, with the wire read here without any src/ code.

interface WireLine {
  /** Byte offset of the line's first byte in the body. */
  start: number;
  text: string;
}

/** One SSE event as written on the wire: its `event:` name (if any), data, and where its block starts. */
interface WireEvent {
  event: string | undefined;
  data: string;
  start: number;
}

interface Recorded {
  /** `<fixture path>#<interaction>` */
  name: string;
  path: string;
  bytes: Uint8Array;
  events: WireEvent[];
  /** The JSON of every data line except `[DONE]`. */
  chunks: Json[];
  endpoint: OpenAIChatEndpoint;
  baseURL: string;
  model: string;
}

function lines(body: Uint8Array): WireLine[] {
  const out: WireLine[] = [];
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf(0x0a, start);
    if (end === -1) end = body.length;
    out.push({ start, text: decoder.decode(body.subarray(start, end)).replace(/\r$/, "") });
    start = end + 1;
  }
  return out;
}

function wireEvents(body: Uint8Array): WireEvent[] {
  const events: WireEvent[] = [];
  let current: WireEvent | undefined;
  for (const line of lines(body)) {
    if (line.text === "") {
      if (current) events.push(current);
      current = undefined;
      continue;
    }
    if (line.text.startsWith(":")) continue;
    current ??= { event: undefined, data: "", start: line.start };
    const colon = line.text.indexOf(":");
    const field = colon === -1 ? line.text : line.text.slice(0, colon);
    let value = colon === -1 ? "" : line.text.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") current.event = value;
    if (field === "data") current.data = current.data === "" ? value : `${current.data}\n${value}`;
  }
  if (current) events.push(current);
  return events;
}

/** Where each recording came from → the endpoint profile our provider gets for it. */
function endpointFor(
  path: string,
  uri: string | undefined,
): { endpoint: OpenAIChatEndpoint; baseURL: string } {
  const host = uri === undefined ? undefined : new URL(uri).host;
  // Hosted OpenAI and Azure OpenAI (the model router recording) speak the hosted API.
  if (host === "api.openai.com" || path.includes("azure-model-router")) {
    return { endpoint: "openai", baseURL: "https://api.openai.com/v1" };
  }
  const kind = host?.includes("deepseek")
    ? "deepseek"
    : host?.includes("openrouter")
      ? "openrouter"
      : host?.includes("groq")
        ? "groq"
        : path.includes("xai")
          ? "xai"
          : "anthropic-compat";
  return { endpoint: { kind }, baseURL: `https://${kind}.example/v1` };
}

async function loadRecorded(): Promise<{ recorded: Recorded[]; skipped: string[] }> {
  const recorded: Recorded[] = [];
  const skipped: string[] = [];
  for (const info of listFixtures("openai-chat")) {
    const fixture = await loadFixture(info.path);
    for (const interaction of fixture.interactions) {
      const name = `${info.path}#${interaction.index}`;
      if (interaction.bodyKind !== "sse") {
        skipped.push(`${name} (${interaction.bodyKind})`);
        continue;
      }
      const events = wireEvents(interaction.body);
      const chunks = events.filter((e) => e.data !== "[DONE]").map((e) => JSON.parse(e.data) as Json);
      const model = chunks.map((chunk) => chunk.model).find((m) => typeof m === "string" && m !== "");
      recorded.push({
        name,
        path: info.path,
        bytes: interaction.body,
        events,
        chunks,
        ...endpointFor(info.path, interaction.request?.uri),
        model: String(model ?? "unknown-model"),
      });
    }
  }
  return { recorded, skipped };
}

const { recorded: RECORDED, skipped: SKIPPED } = await loadRecorded();

function recordedNamed(part: string): Recorded {
  const found = RECORDED.find((r) => r.name.includes(part));
  if (!found) throw new Error(`no recording ${part}`);
  return found;
}

// ---------------------------------------------------------------------------------------------------
// What the wire says, rebuilt from the data lines alone.

interface WireToolCall {
  wireIndex: number;
  id: string | undefined;
  name: string;
  arguments: string;
}

interface WireExpectation {
  id: string | undefined;
  model: string | undefined;
  text: string;
  reasoning: string;
  /** Per chunk, the reasoning piece it carried (for the SDK's last-value-wins behaviour). */
  reasoningPieces: { field: "reasoning_content" | "reasoning"; value: unknown }[];
  refusal: string;
  toolCalls: WireToolCall[];
  finishReason: string | undefined;
  usage: Json | undefined;
  /** The first error the stream carries (`error` inside a chunk, or an `event: error`). */
  error: { event: WireEvent; body: Json; before: WireEvent[] } | undefined;
  done: boolean;
}

function fromWire(events: readonly WireEvent[]): WireExpectation {
  const expectation: WireExpectation = {
    id: undefined,
    model: undefined,
    text: "",
    reasoning: "",
    reasoningPieces: [],
    refusal: "",
    toolCalls: [],
    finishReason: undefined,
    usage: undefined,
    error: undefined,
    done: false,
  };
  for (const [position, event] of events.entries()) {
    if (event.data === "[DONE]") {
      expectation.done = true;
      break;
    }
    const chunk = JSON.parse(event.data) as Json;
    if (event.event === "error" || chunk.error) {
      expectation.error = { event, body: chunk, before: events.slice(0, position) };
      break;
    }
    if (expectation.id === undefined && typeof chunk.id === "string" && chunk.id !== "")
      expectation.id = chunk.id;
    if (expectation.model === undefined && typeof chunk.model === "string" && chunk.model !== "")
      expectation.model = chunk.model;
    const usage = (chunk.usage ?? (chunk.x_groq as Json | undefined)?.usage) as Json | null | undefined;
    if (usage) expectation.usage = usage;
    for (const choice of (chunk.choices ?? []) as Json[]) {
      if ((choice.index ?? 0) !== 0) continue;
      const delta = (choice.delta ?? {}) as Json;
      if (typeof delta.content === "string") expectation.text += delta.content;
      if (typeof delta.refusal === "string") expectation.refusal += delta.refusal;
      const field =
        "reasoning_content" in delta ? "reasoning_content" : "reasoning" in delta ? "reasoning" : undefined;
      if (field) expectation.reasoningPieces.push({ field, value: delta[field] });
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === "string") expectation.reasoning += reasoning;
      for (const toolDelta of (delta.tool_calls ?? []) as Json[]) {
        const wireIndex = toolDelta.index as number;
        let call = expectation.toolCalls.find((c) => c.wireIndex === wireIndex);
        if (!call) {
          call = { wireIndex, id: undefined, name: "", arguments: "" };
          expectation.toolCalls.push(call);
        }
        const fn = (toolDelta.function ?? {}) as Json;
        if (call.id === undefined && typeof toolDelta.id === "string" && toolDelta.id !== "")
          call.id = toolDelta.id;
        if (call.name === "" && typeof fn.name === "string") call.name = fn.name;
        if (typeof fn.arguments === "string") call.arguments += fn.arguments;
      }
      if (typeof choice.finish_reason === "string") expectation.finishReason = choice.finish_reason;
    }
  }
  return expectation;
}

/** `finish_reason` → neutral, per the Chat Completions reference (written out here, not taken from src/). */
const FINISH_REASONS: Record<string, StopReason> = {
  stop: "stop",
  length: "length",
  tool_calls: "tool-calls",
  content_filter: "content-filter",
};

/**
 * Chat usage → neutral usage, written out from the convention in core/usage.ts: `prompt_tokens` includes
 * cached tokens, so input = prompt − cached; 0 stays 0 and an absent count stays absent.
 */
function neutralUsage(usage: Json | null | undefined): Usage {
  if (!usage) return {};
  const count = (value: unknown) => (typeof value === "number" ? value : undefined);
  const cached = count((usage.prompt_tokens_details as Json | undefined)?.cached_tokens);
  const prompt = count(usage.prompt_tokens);
  const out: Usage = {};
  if (prompt !== undefined) out.inputTokens = prompt - (cached ?? 0);
  if (count(usage.completion_tokens) !== undefined) out.outputTokens = count(usage.completion_tokens);
  if (cached !== undefined) out.cachedInputTokens = cached;
  const reasoning = count((usage.completion_tokens_details as Json | undefined)?.reasoning_tokens);
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
  return openaiChat({
    apiKey: "test",
    model: recording.model,
    baseURL: recording.baseURL,
    endpoint: recording.endpoint,
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
  completion?: Json;
  error?: Error;
  contentDeltas: string[];
  argumentDeltas: { index: number; delta: string }[];
}

async function runSdk(recording: Recorded, sizes: ChunkSizes): Promise<SdkRun> {
  const client = new OpenAI({
    apiKey: "test",
    maxRetries: 0,
    fetch: (async () => sseResponse(recording.bytes, sizes)) as unknown as typeof fetch,
  });
  const run: SdkRun = { contentDeltas: [], argumentDeltas: [] };
  try {
    const stream = client.chat.completions.stream({ model: recording.model, messages: HISTORY });
    stream.on("content", (delta) => run.contentDeltas.push(delta));
    stream.on("tool_calls.function.arguments.delta", (event) =>
      run.argumentDeltas.push({ index: event.index, delta: event.arguments_delta }),
    );
    run.completion = JSON.parse(JSON.stringify(await stream.finalChatCompletion())) as Json;
  } catch (error) {
    run.error = error as Error;
  }
  return run;
}

interface Conformance {
  ours: OurRun;
  sdk: SdkRun;
  wire: WireExpectation;
}

/**
 * Each recording's run, shared by the tests that read it — except under mutation testing (the Stryker
 * runner defines `__stryker__`), whose per-test coverage would credit only the test that filled the cache.
 */
const cache = "__stryker__" in globalThis ? undefined : new Map<string, Promise<Conformance>>();

function conformance(recording: Recorded): Promise<Conformance> {
  let result = cache?.get(recording.name);
  if (!result) {
    const sizes = randomChunkSizes(recording.name);
    result = (async () => {
      const [ours, sdk] = await Promise.all([
        runOurs(recording, recording.bytes, sizes),
        runSdk(recording, sizes),
      ]);
      return { ours, sdk, wire: fromWire(recording.events) };
    })();
    cache?.set(recording.name, result);
  }
  return result;
}

/**
 * The streams the SDK cannot accumulate, with the error it gives. Each is asserted, so an SDK that learns
 * to parse one shows up here; our behaviour on them is asserted against the wire directly.
 */
const SDK_FAILURES: Record<string, { error: string; message: RegExp }> = {
  // An `error` object inside an ordinary chunk: the SDK throws it as an APIError.
  "openai-chat/pydantic-ai__test_openrouter_stream_error.yaml#0": {
    error: "APIError",
    message: /Token limit reached/,
  },
  // Groq's `event: error` mid-stream.
  "openai-chat/pydantic-ai__test_tool_use_failed_error_streaming.yaml#0": {
    error: "APIError",
    message: /Tool call validation failed/,
  },
  // tool_calls whose first index is 1: the SDK's snapshot has a hole at 0 and crashes finalising it.
  "openai-chat/vercel-ai__anthropic-fallback-tool-call.sse#0": {
    error: "OpenAIError",
    message: /Cannot read properties of undefined/,
  },
};

/** The one message of the SDK's final completion. */
function sdkMessage(sdk: SdkRun): Json {
  const choices = sdk.completion?.choices as Json[] | undefined;
  return (choices?.[0]?.message ?? {}) as Json;
}

/** Our tool calls in the shape the wire and the SDK have them. */
function wireShape(response: ModelResponse) {
  return response.message.toolCalls.map((call) => ({
    id: call.id,
    name: call.name,
    arguments: call.argumentsText,
  }));
}

/**
 * The non-streaming body for the same output: the SDK's final completion where it has one, with the SDK's
 * last-value-wins reasoning field replaced by the joined reasoning deltas; otherwise built from the wire.
 */
function completionBody(recording: Recorded, conformanceRun: Conformance): Json {
  const { sdk, wire } = conformanceRun;
  if (sdk.completion) {
    const body = structuredClone(sdk.completion);
    const message = sdkMessage({ ...sdk, completion: body });
    const field = wire.reasoningPieces.at(-1)?.field;
    if (field) message[field] = wire.reasoning === "" ? null : wire.reasoning;
    return body;
  }
  const message: Json = { role: "assistant", content: wire.text === "" ? null : wire.text };
  if (wire.reasoning !== "") message.reasoning_content = wire.reasoning;
  if (wire.toolCalls.length > 0) {
    message.tool_calls = wire.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: wire.id,
    object: "chat.completion",
    model: wire.model ?? recording.model,
    choices: [{ index: 0, message, finish_reason: wire.finishReason ?? null }],
    usage: wire.usage ?? null,
  };
}

// ---------------------------------------------------------------------------------------------------

describe("OpenAI Chat conformance: recorded streams", () => {
  it("covers every recorded Chat Completions interaction", () => {
    // 10 files with streams: 3 cassettes with 2, 2 and 3 streams, 5 cassettes with 1, and 2 vercel files.
    expect(RECORDED).toHaveLength(14);
    // The rest are non-streaming JSON responses (image, document and structured-output recordings) and
    // the downloads their client made before sending a URL's bytes inline.
    expect(SKIPPED).toEqual([
      "openai-chat/pydantic-ai__test_document_as_binary_content_input_with_tool.yaml#0 (json)",
      "openai-chat/pydantic-ai__test_document_as_binary_content_input_with_tool.yaml#1 (json)",
      "openai-chat/pydantic-ai__test_document_url_input.yaml#0 (text)",
      "openai-chat/pydantic-ai__test_document_url_input.yaml#1 (json)",
      "openai-chat/pydantic-ai__test_image_url_input_force_download.yaml#0 (text)",
      "openai-chat/pydantic-ai__test_image_url_input_force_download.yaml#1 (json)",
      "openai-chat/pydantic-ai__test_image_url_tool_response.yaml#0 (json)",
      "openai-chat/pydantic-ai__test_image_url_tool_response.yaml#1 (json)",
      "openai-chat/pydantic-ai__test_openai_native_output.yaml#0 (json)",
      "openai-chat/pydantic-ai__test_openai_native_output.yaml#1 (json)",
      "openai-chat/pydantic-ai__test_openai_prompted_output.yaml#0 (json)",
      "openai-chat/pydantic-ai__test_openai_prompted_output.yaml#1 (json)",
      "openai-chat/pydantic-ai__test_openai_tool_output.yaml#0 (json)",
      "openai-chat/pydantic-ai__test_openai_tool_output.yaml#1 (json)",
      "openai-chat/pydantic-ai__test_text_document_url_input.yaml#0 (text)",
      "openai-chat/pydantic-ai__test_text_document_url_input.yaml#1 (json)",
    ]);
    const files = new Set([...RECORDED.map((r) => r.path), ...SKIPPED.map((s) => s.split("#")[0])]);
    expect(files.size).toBe(listFixtures("openai-chat").length);
    expect(new Set(RECORDED.map((r) => r.path)).size).toBe(10);
    for (const recording of RECORDED) expect(recording.chunks.length, recording.name).toBeGreaterThan(3);
    // The hard cases the README lists are all here.
    const wires = RECORDED.map((r) => fromWire(r.events));
    expect(wires.filter((w) => w.error !== undefined)).toHaveLength(2);
    expect(wires.filter((w) => w.toolCalls.length >= 2)).toHaveLength(2);
    expect(wires.filter((w) => w.toolCalls[0]?.wireIndex === 1)).toHaveLength(1);
    expect(wires.filter((w) => w.reasoning !== "").length).toBeGreaterThanOrEqual(6);
    // vercel's chunks.txt files kept no `[DONE]` line (Azure, xAI): those streams end at their finish_reason.
    expect(wires.filter((w) => !w.done && !w.error)).toHaveLength(2);
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

  it("the SDK keeps only the last chunk's value of reasoning fields; we join the deltas", async () => {
    let compared = 0;
    for (const recording of RECORDED) {
      const { sdk, wire } = await conformance(recording);
      const last = wire.reasoningPieces.at(-1);
      if (!sdk.completion || !last) continue;
      expect(sdkMessage(sdk)[last.field], recording.name).toStrictEqual(last.value);
      if (wire.reasoningPieces.filter((p) => typeof p.value === "string" && p.value !== "").length > 1)
        compared++;
    }
    // DeepSeek, xAI, OpenRouter (reasoning) and Groq (two streams).
    expect(compared).toBe(5);
  });

  for (const recording of RECORDED) {
    const sdkFails = recording.name in SDK_FAILURES;
    describe(recording.name, () => {
      it("sends a streaming request the endpoint profile allows", async () => {
        const { ours } = await conformance(recording);
        expect(ours.requestBody).toMatchObject({ model: recording.model, stream: true, messages: HISTORY });
        if (recording.endpoint === "openai") {
          expect(ours.requestBody?.stream_options).toStrictEqual({ include_usage: true });
        } else {
          expect(ours.requestBody?.stream_options).toBeUndefined();
        }
      });

      const wire = fromWire(recording.events);
      if (wire.error) {
        it("a mid-stream error becomes a ProviderError after the events before it", async () => {
          const { ours } = await conformance(recording);
          expect(ours.error).toBeInstanceOf(ProviderError);
          const error = ours.error as ProviderError;
          const body = wire.error!.body.error as Json;
          expect(error.message).toContain(String(body.message));
          expect(error.provider).toBe((recording.endpoint as { kind: string }).kind);
          expect(error.model).toBe(recording.model);
          expect(error.upstreamBody).toBe(JSON.stringify(wire.error!.body));
          expect(ours.events.some((e) => e.type === "done")).toBe(false);
          // Exactly the content that came before the error reached the caller, so the error is partial.
          const before = fromWire(wire.error!.before);
          const reasoning = ours.events.flatMap((e) => (e.type === "reasoning-delta" ? [e.text] : []));
          const text = ours.events.flatMap((e) => (e.type === "text-delta" ? [e.text] : []));
          expect(reasoning.join("")).toBe(before.reasoning);
          expect(text.join("")).toBe(before.text);
          expect(before.reasoning.length).toBeGreaterThan(0);
          expect(error.partialOutput).toBe(true);
          if (recording.name.includes("openrouter")) {
            // `{code: 400, message: "Token limit reached"}`: the numeric code is the status it stands for.
            expect(error).toMatchObject({ kind: "bad_request", code: "400", retryable: false });
          } else {
            // Groq's tool_use_failed: the model wrote an invalid tool call. No status travels with it; it is
            // a failed generation that a new attempt may well get right.
            expect(error).toMatchObject({ kind: "server", code: "tool_use_failed", retryable: true });
          }
        });
        return;
      }

      it("text, tool calls, finish reason, id and model match the SDK (or the wire, where the SDK fails)", async () => {
        const { ours, sdk } = await conformance(recording);
        const done = doneOf(ours);
        const expectedCalls = wire.toolCalls.map((call) => ({
          id: call.id,
          name: call.name,
          arguments: call.arguments,
        }));
        expect(done.message.content).toBe(wire.text);
        expect(wireShape(done)).toStrictEqual(expectedCalls);
        expect(done.rawStopReason).toBe(wire.finishReason);
        expect(done.stopReason).toBe(FINISH_REASONS[wire.finishReason!]);
        expect(done.id).toBe(wire.id);
        expect(done.model).toBe(wire.model);
        expect(done.provider).toBe(
          recording.endpoint === "openai" ? "openai" : (recording.endpoint as { kind: string }).kind,
        );
        expect(done.warnings).toBeUndefined();
        for (const call of done.message.toolCalls)
          expect(call.arguments).toStrictEqual(JSON.parse(call.argumentsText!));
        if (sdkFails) return;

        const message = sdkMessage(sdk);
        const choice = (sdk.completion!.choices as Json[])[0]!;
        expect(done.message.content).toBe((message.content as string | null) ?? "");
        const sdkCalls = ((message.tool_calls ?? []) as Json[]).map((call) => {
          const fn = call.function as Json;
          return { id: call.id, name: fn.name, arguments: fn.arguments };
        });
        expect(wireShape(done)).toStrictEqual(sdkCalls);
        expect(done.rawStopReason).toBe(choice.finish_reason);
        expect(done.id).toBe(sdk.completion!.id);
        expect(done.model).toBe(sdk.completion!.model);
      });

      it("usage maps from the SDK's usage (inputTokens = prompt − cached; 0 kept; absent undefined)", async () => {
        const { ours, sdk } = await conformance(recording);
        const done = doneOf(ours);
        expect(done.usage).toStrictEqual(neutralUsage(wire.usage));
        if (!sdkFails)
          expect(done.usage).toStrictEqual(neutralUsage(sdk.completion!.usage as Json | undefined));
        const usageEvents = ours.events.filter((event) => event.type === "usage");
        if (wire.usage) expect(usageEvents.at(-1)?.usage).toStrictEqual(done.usage);
        else expect(usageEvents).toEqual([]);
      });

      it("reasoning is the joined reasoning_content / reasoning deltas", async () => {
        const { ours } = await conformance(recording);
        const done = doneOf(ours);
        expect(done.reasoning).toBe(wire.reasoning === "" ? undefined : wire.reasoning);
        const blocks = done.message.native?.blocks as Json[];
        expect(done.message.native).toMatchObject({
          protocol: "openai-chat",
          origin: typeof recording.endpoint === "string" ? recording.endpoint : recording.endpoint.kind,
          model: recording.model,
        });
        expect(blocks).toHaveLength(1);
        expect(blocks[0]!.reasoning_content).toBe(wire.reasoning === "" ? undefined : wire.reasoning);
      });

      it("streamed events agree with the final response and with the SDK's deltas", async () => {
        const { ours, sdk } = await conformance(recording);
        const done = doneOf(ours);
        const { events } = ours;
        expect(events.filter((event) => event.type === "done")).toHaveLength(1);
        expect(events.at(-1)?.type).toBe("done");

        const texts = events.flatMap((e) => (e.type === "text-delta" ? [e.text] : []));
        expect(texts.every((text) => text !== "")).toBe(true);
        expect(texts.join("")).toBe(done.message.content);
        const reasoning = events.flatMap((e) => (e.type === "reasoning-delta" ? [e.text] : []));
        expect(reasoning.join("")).toBe(done.reasoning ?? "");
        if (!sdkFails) expect(texts).toStrictEqual(sdk.contentDeltas.filter((delta) => delta !== ""));

        const calls = done.message.toolCalls;
        const starts = events.filter((e) => e.type === "tool-call-start");
        expect(starts.map((e) => e.index)).toEqual(calls.map((_, index) => index));
        calls.forEach((call, index) => {
          const own = events.filter(
            (e) =>
              (e.type === "tool-call-start" || e.type === "tool-call-delta" || e.type === "tool-call-end") &&
              e.index === index,
          );
          expect(own[0]).toStrictEqual({ type: "tool-call-start", index, id: call.id, name: call.name });
          expect(own.at(-1)).toStrictEqual({ type: "tool-call-end", index, toolCall: call });
          const deltas = own.slice(1, -1);
          for (const delta of deltas) expect(delta).toMatchObject({ type: "tool-call-delta", id: call.id });
          expect(deltas.map((d) => (d.type === "tool-call-delta" ? d.argumentsDelta : "")).join("")).toBe(
            call.argumentsText,
          );
        });
        if (!sdkFails) {
          // The SDK's argument deltas, by wire index → our position, in the same order.
          const position = new Map(wire.toolCalls.map((call, at) => [call.wireIndex, at]));
          const ourDeltas = events.flatMap((e) =>
            e.type === "tool-call-delta" ? [{ index: e.index, delta: e.argumentsDelta }] : [],
          );
          expect(ourDeltas).toStrictEqual(
            sdk.argumentDeltas
              .filter((d) => d.delta !== "")
              .map((d) => ({ index: position.get(d.index), delta: d.delta })),
          );
        }
        // Every call ends before done, and no content event follows a tool call's end except other calls'.
        const doneAt = events.length - 1;
        for (const [at, event] of events.entries())
          if (event.type === "tool-call-end") expect(at).toBeLessThan(doneAt);
      });

      it("complete() on the same output (the SDK's final JSON) equals stream()'s done response", async () => {
        const run = await conformance(recording);
        const done = doneOf(run.ours);
        const body = completionBody(recording, run);
        let requestBody: Json | undefined;
        const completed = await provider(recording, (init) => {
          requestBody = JSON.parse(String(init?.body)) as Json;
          return new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } });
        }).complete(HISTORY);
        expect(requestBody?.stream).toBeUndefined();
        expect(requestBody?.stream_options).toBeUndefined();
        expect(completed).toStrictEqual(done);
      });

      it("the response does not depend on chunking (whole body, one byte at a time)", async () => {
        const { ours } = await conformance(recording);
        const done = doneOf(ours);
        const whole = await runOurs(recording, recording.bytes, recording.bytes.length);
        // Deltas that arrive in one read are merged, so event granularity follows the chunking; with every
        // adjacent same-kind delta merged, the sequences must be identical.
        expect(fullyMerged(whole.events)).toStrictEqual(fullyMerged(ours.events));
        expect(doneOf(whole)).toStrictEqual(done);
        if (recording.bytes.length < 10_000) {
          const bytewise = await runOurs(recording, recording.bytes, [1]);
          expect(doneOf(bytewise)).toStrictEqual(done);
        }
      });
    });
  }
});

// ---------------------------------------------------------------------------------------------------

function fullyMerged(events: readonly StreamEvent[]): StreamEvent[] {
  const copy = structuredClone([...events]);
  coalesceDeltas(copy);
  return copy;
}

describe("OpenAI Chat conformance: streams cut before their finish_reason", () => {
  const cases = [
    recordedNamed("test_run_stream_sync_streams_real_model.yaml#0"),
    recordedNamed("test_run_stream_sync_streams_real_model.yaml#1"),
    recordedNamed("openllmetry__test_open_ai_function_calls_tools_streaming_parallel.yaml#1"),
    recordedNamed("vercel-ai__anthropic-fallback-tool-call.sse#0"),
  ];
  for (const recording of cases) {
    it(`${recording.name}: every cut throws a ProviderError, never done`, async () => {
      const full = await runOurs(recording, recording.bytes, [23]);
      doneOf(full);
      const finishAt = recording.events.findIndex((event) => {
        if (event.data === "[DONE]") return false;
        const choices = ((JSON.parse(event.data) as Json).choices ?? []) as Json[];
        return choices.some((choice) => typeof choice.finish_reason === "string");
      });
      expect(finishAt).toBeGreaterThan(0);
      const finishStart = recording.events[finishAt]!.start;
      const cuts = new Map<number, "boundary" | "mid-event">();
      for (const [position, event] of recording.events.slice(0, finishAt).entries()) {
        cuts.set(event.start, "boundary");
        const end = recording.events[position + 1]!.start;
        for (const offset of [
          event.start + 1,
          event.start + 8,
          Math.floor((event.start + end) / 2),
          end - 3,
        ]) {
          if (offset > event.start && offset < finishStart && !cuts.has(offset))
            cuts.set(offset, "mid-event");
        }
      }
      cuts.set(finishStart, "boundary");
      expect(cuts.size).toBeGreaterThan(15);
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
        // A cut inside a data line leaves half a JSON value as the last event.
        else expect(["truncated", "invalid_response"], where).toContain(error.kind);
        expect(error.retryable, where).toBe(isRetryableKind(error.kind));
        // Whatever was yielded is exactly the start of the uncut stream, nothing invented.
        expect(run.events, where).toStrictEqual(full.events.slice(0, run.events.length));
        const produced = run.events.some(isContentEvent);
        expect(error.partialOutput, where).toBe(produced);
        if (produced) sawPartial++;
        else sawNoOutput++;
      }
      expect(sawPartial).toBeGreaterThan(0);
      expect(sawNoOutput).toBeGreaterThan(0);
    });
  }

  it("a text stream cut before finish_reason and [DONE]: truncated, partial, through collectStream too", async () => {
    const recording = recordedNamed("test_run_stream_sync_streams_real_model.yaml#1");
    const finish = recording.events.find((event) => event.data.includes('"finish_reason":"stop"'))!;
    const bytes = recording.bytes.slice(0, finish.start);
    const run = await runOurs(recording, bytes, [64]);
    expect(run.events.filter((e) => e.type === "text-delta").length).toBeGreaterThan(3);
    expect(run.error).toMatchObject({ kind: "truncated", partialOutput: true, retryable: true });
    const ours = provider(recording, () => sseResponse(bytes, [7]));
    await expect(collectStream(ours.stream(HISTORY))).rejects.toMatchObject({
      name: "ProviderError",
      kind: "truncated",
      partialOutput: true,
    });
  });

  it("a stream with a finish_reason but no [DONE] still completes (Azure's recording ends that way)", async () => {
    const recording = recordedNamed("azure-model-router");
    expect(recording.events.at(-1)!.data).not.toBe("[DONE]");
    const { ours } = await conformance(recording);
    expect(doneOf(ours).stopReason).toBe("stop");
  });
});
