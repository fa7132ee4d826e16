import { parseToolArguments } from "../../core/collect-stream.ts";
import { ProviderError } from "../../core/provider-error.ts";
import type { Response } from "../../core/response.ts";
import type { StreamEvent } from "../../core/stream-event.ts";
import type { SseEvent } from "../../wire/sse.ts";
import { deliverBatches, eventObject, pushText } from "../deliver-batches.ts";
import {
  JSON_COUNT,
  JSON_INDEX,
  JSON_STRING,
  JSON_STRING_UNCAPTURED,
  jsonStringValue,
} from "../json-shape.ts";
import { PieceBuffer } from "../piece-buffer.ts";
import { TextToolCallScanner } from "../text-tool-calls/index.ts";
import { type StreamedToolCall, ToolCallTracker } from "../tool-call-tracker.ts";
import { mapOpenAIChatError } from "./map-openai-chat-error.ts";
import { mapOpenAIChatUsage } from "./map-openai-chat-usage.ts";
import type { OpenAIChatChunk, OpenAIChatToolCallDelta, OpenAIChatUsage } from "./openai-chat-wire.ts";
import {
  type AssembledOpenAIChatMessage,
  type OpenAIChatResponseContext,
  openAIChatResponse,
} from "./parse-openai-chat-response.ts";

/**
 * Assembles a Chat Completions stream: neutral events as chunks arrive, then `done` with the same
 * `Response` that `parseOpenAIChatResponse` gives for the same output.
 *
 * - `tool_calls` deltas are assembled by `index`: id and name arrive once (a server that repeats them is
 *   tolerated), arguments in pieces, several calls interleaved, indexes that start at 1 or skip;
 * - `reasoning_content` (DeepSeek, xAI, vLLM) and `reasoning` (Groq, OpenRouter) → reasoning events;
 * - text tool calls (profile `textToolCalls`) are cut out of the text as it streams: text before a tag
 *   goes out at once, the tag never does;
 * - usage from the trailing usage chunk (or Groq's `x_groq.usage`);
 * - an `error` object inside a chunk (OpenRouter) or an `error` event (Groq) → `ProviderError`;
 * - the stream ends at `[DONE]`, or at the end of the body once a `finish_reason` was seen; a body that
 *   ends before either is `truncated`.
 *
 * Other members of a chunk's `delta` (OpenRouter's `reasoning_details`, `annotations`, `audio`) are not
 * read, here as in `parseOpenAIChatResponse`: `native.blocks` is the canonical assistant message both ways.
 */
export function assembleOpenAIChatStream(
  events: AsyncIterable<SseEvent | readonly SseEvent[]>,
  context: OpenAIChatResponseContext,
): AsyncGenerator<StreamEvent, void, undefined> {
  const assembler = new OpenAIChatStreamAssembler(context);
  return deliverBatches(events, assembler, (sse, out) => assembler.apply(sse, out));
}

/**
 * A Chat Completions chunk as servers write the bulk of a stream (see `#applyData`): the envelope members
 * in any order, then one choice of index 0 with a delta of one text member (name: group 1, contents: 2)
 * or of one tool call's index (3) and argument text (4), no finish reason, and `usage: null` or
 * OpenAI's `obfuscation` padding or neither.
 */
const CHUNK_DATA = new RegExp(
  [
    `^\\{(?:"(?:id|object|model|system_fingerprint|service_tier|provider)":"${JSON_STRING_UNCAPTURED}",|"created":${JSON_COUNT},)*`,
    String.raw`"choices":\[\{"index":0,"delta":\{(?:"(content|reasoning_content|reasoning)":"${JSON_STRING}"`,
    String.raw`|"tool_calls":\[\{"index":${JSON_INDEX},"function":\{"arguments":"${JSON_STRING}"\}\}\])\}`,
    String.raw`(?:,"logprobs":null)?,"finish_reason":null\}\](?:,"usage":null)?`,
    String.raw`(?:,"obfuscation":"[A-Za-z0-9+/=_-]*")?\}$`,
  ].join(""),
);

/** The Chat Completions stream state machine behind {@link assembleOpenAIChatStream}. */
class OpenAIChatStreamAssembler {
  /** True once `[DONE]` arrived. */
  ended = false;
  /** True once a `finish_reason` (or `[DONE]`) arrived: a body that ends now is complete. */
  stopped = false;
  /** What a complete Chat stream has sent, as the `truncated` error names it. */
  readonly terminal = "a finish_reason or [DONE]";
  /** Who the response is from (`Response.provider`, `native.origin` and `native.model`). */
  readonly context: OpenAIChatResponseContext;
  #id: string | undefined;
  #model: string | undefined;
  readonly #content = new PieceBuffer();
  readonly #reasoning = new PieceBuffer();
  readonly #refusal = new PieceBuffer();
  #finishReason: string | null | undefined;
  #usage: OpenAIChatUsage | null | undefined;
  readonly #warnings: string[] = [];
  /** Calls keyed by their wire `index` (or, for servers that send none, below zero by id). */
  readonly #tools = new ToolCallTracker<number>();
  /** The calls of `tool_calls` deltas, in the order they first appeared. */
  readonly #wireCalls: StreamedToolCall[] = [];
  /** The key of each call that has an id, for servers that send no `index`. */
  readonly #keysById = new Map<string, number>();
  /** The key of the last tool-call delta: where a delta without `index` continues. */
  #lastKey: number | undefined;
  readonly #scanner: TextToolCallScanner | undefined;

  constructor(context: OpenAIChatResponseContext) {
    this.context = context;
    if (context.profile.textToolCalls) this.#scanner = new TextToolCallScanner(context.profile.textToolCalls);
  }

  /** Applies one SSE event, pushing the neutral events it produces onto `out`. Throws `ProviderError`. */
  apply(sse: SseEvent, out: StreamEvent[]): void {
    if (sse.data === "[DONE]") {
      this.ended = true;
      this.stopped = true;
      return;
    }
    if (sse.event === undefined && this.#applyData(sse.data, out)) return;
    const chunk = eventObject<OpenAIChatChunk>(sse.data, sse.event, this.context);
    if (chunk === undefined) return;
    if (chunk.error || sse.event === "error") throw this.#fail(chunk);
    if (this.#id === undefined && chunk.id) this.#id = chunk.id;
    if (this.#model === undefined && chunk.model) this.#model = chunk.model;
    const usage = chunk.usage ?? chunk.x_groq?.usage;
    if (usage) {
      this.#usage = usage;
      out.push({ type: "usage", usage: mapOpenAIChatUsage(usage) });
    }
    let choice: NonNullable<OpenAIChatChunk["choices"]>[number] | undefined;
    if (Array.isArray(chunk.choices))
      for (const candidate of chunk.choices)
        if ((candidate.index ?? 0) === 0) {
          choice = candidate;
          break;
        }
    const delta = choice?.delta;
    if (delta) {
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === "string") this.#reasoningPiece(reasoning, out);
      if (typeof delta.content === "string") this.#contentPiece(delta.content, out);
      if (typeof delta.refusal === "string") this.#refusal.push(delta.refusal);
      if (Array.isArray(delta.tool_calls))
        for (const toolDelta of delta.tool_calls) this.#toolDelta(toolDelta, out);
    }
    if (choice?.finish_reason) {
      this.#finishReason = choice.finish_reason;
      this.stopped = true;
      this.#endCalls(out);
    }
  }

  /**
   * Applies a chunk read straight from its JSON text when it has the exact shape a server writes for the
   * bulk of a stream — the envelope (`id`, `object`, `created`, `model`, `system_fingerprint`,
   * `service_tier`, `provider`), one choice of index 0 whose delta holds only `content`,
   * `reasoning_content` or `reasoning`, or one tool call's `index` and `function.arguments`, no finish
   * reason, `usage: null` or none — and the envelope's id and model were already taken from an earlier
   * chunk (only the first one's count). True when applied; false, with nothing done, for anything else.
   */
  #applyData(data: string, out: StreamEvent[]): boolean {
    if (this.#id === undefined || this.#model === undefined) return false;
    const match = CHUNK_DATA.exec(data);
    if (match === null) return false;
    const piece = jsonStringValue(match[2] ?? match[4]!);
    if (piece === undefined) return false;
    if (match[1] === "content") this.#contentPiece(piece, out);
    else if (match[1] !== undefined) this.#reasoningPiece(piece, out);
    else this.#appendArguments(this.#callOf(Number(match[3])), piece, out);
    return true;
  }

  /** A piece of reasoning text (`reasoning_content`, `reasoning`): held, and sent on. */
  #reasoningPiece(piece: string, out: StreamEvent[]): void {
    if (piece === "") return;
    this.#reasoning.push(piece);
    pushText(out, "reasoning-delta", piece);
  }

  /** A piece of the answer's text: held and sent on, or to the text tool-call scanner first. */
  #contentPiece(piece: string, out: StreamEvent[]): void {
    if (piece === "") return;
    if (this.#scanner) this.#released(this.#scanner.push(piece), out);
    else {
      this.#content.push(piece);
      pushText(out, "text-delta", piece);
    }
  }

  /** The final response; text the scanner still held and the calls still open go onto `out` first. */
  finish(out: StreamEvent[]): Response {
    if (this.#scanner) {
      const rest = this.#scanner.finish();
      this.#released(rest, out);
      this.#warnings.push(...rest.warnings);
    }
    this.#endCalls(out);
    const toolCalls: AssembledOpenAIChatMessage["toolCalls"] = [];
    this.#wireCalls.forEach((call, position) => {
      if (call.name === "")
        this.#warnings.push(`tool call at position ${position} never got a name; left out`);
    });
    for (const call of this.#tools.started)
      toolCalls.push({ id: call.id, name: call.name, arguments: call.arguments.text() });
    return openAIChatResponse(
      {
        id: this.#id,
        model: this.#model,
        content: this.#content.text(),
        reasoning: this.#reasoning.text(),
        refusal: this.#refusal.text(),
        toolCalls,
        finishReason: this.#finishReason,
        usage: this.#usage,
        warnings: this.#warnings,
      },
      this.context,
    );
  }

  /** Text the scanner let go (goes out at once) and the text tool calls it cut out (start whole). */
  #released(
    released: { text: string; toolCalls: ReadonlyArray<{ name: string; argumentsText: string }> },
    out: StreamEvent[],
  ): void {
    if (released.text !== "") {
      this.#content.push(released.text);
      pushText(out, "text-delta", released.text);
    }
    for (const parsed of released.toolCalls) {
      const call = this.#tools.open();
      call.name = parsed.name;
      call.arguments.push(parsed.argumentsText);
      this.#start(call, out);
    }
  }

  /** Starts a call whose name is known; one the wire gave no id is named after its position. */
  #start(call: StreamedToolCall, out: StreamEvent[]): void {
    if (call.id === "") call.id = `call_${this.#id || "text"}_${this.#tools.started.length}`;
    this.#tools.start(call, out);
  }

  /**
   * A delta's call key: its wire `index`. Servers that send no `index` (Gemini's OpenAI-compatible API)
   * start each call with its id, so a new id is a new call (keyed below zero, clear of wire indexes) and a
   * delta without id continues the last call.
   */
  #keyOf(delta: OpenAIChatToolCallDelta): number {
    if (typeof delta.index === "number") return delta.index;
    if (typeof delta.id === "string" && delta.id !== "") {
      const known = this.#keysById.get(delta.id);
      if (known !== undefined) return known;
      if (this.#lastKey !== undefined) return -1 - this.#wireCalls.length;
    }
    return this.#lastKey ?? 0;
  }

  #toolDelta(delta: OpenAIChatToolCallDelta, out: StreamEvent[]): void {
    const key = this.#keyOf(delta);
    const call = this.#callOf(key);
    if (typeof delta.id === "string" && delta.id !== "" && call.id === "") {
      call.id = delta.id;
      this.#keysById.set(delta.id, key);
    }
    const name = delta.function?.name;
    if (typeof name === "string" && name !== "" && call.name === "") call.name = name;
    const piece = delta.function?.arguments;
    this.#appendArguments(call, typeof piece === "string" ? piece : "", out);
  }

  /** The call a tool-call delta continues (opened when new); it becomes where an unindexed delta goes. */
  #callOf(key: number): StreamedToolCall {
    this.#lastKey = key;
    let call = this.#tools.get(key);
    if (call === undefined) {
      call = this.#tools.open(key);
      this.#wireCalls.push(call);
    }
    return call;
  }

  /** Adds argument text to `call`; pieces before its name are held, and go out with the start. */
  #appendArguments(call: StreamedToolCall, piece: string, out: StreamEvent[]): void {
    this.#tools.append(call, piece, out);
    if (call.name !== "" && call.position === undefined) this.#start(call, out);
  }

  /** Ends the calls started and not ended: their arguments are complete. */
  #endCalls(out: StreamEvent[]): void {
    for (const call of this.#tools.started) {
      if (call.ended) continue;
      const text = call.arguments.text();
      this.#tools.end(
        call,
        {
          id: call.id,
          name: call.name,
          arguments: parseToolArguments(text),
          argumentsText: text,
        },
        out,
      );
    }
  }

  /** The `ProviderError` for an error the stream reports (an `error` chunk, an `error` event). */
  #fail(body: unknown): ProviderError {
    const info = mapOpenAIChatError(undefined, body);
    return new ProviderError({
      provider: this.context.provider,
      model: this.context.model,
      kind: info.kind,
      message: `${this.context.provider} stream error: ${info.message}`,
      code: info.code,
      retryable: info.retryable,
      upstreamBody: JSON.stringify(body),
    });
  }
}
