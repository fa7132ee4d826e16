import { ProviderError } from "../../core/provider-error.ts";
import type { Response } from "../../core/response.ts";
import type { StreamEvent } from "../../core/stream-event.ts";
import type { SseEvent } from "../../wire/sse.ts";
import { deliverBatches, eventObject, pushText } from "../deliver-batches.ts";
import { ToolCallTracker, toolCallFrom } from "../tool-call-tracker.ts";
import type { GeminiCandidate, GeminiPart, GeminiResponse } from "./google-gemini-wire.ts";
import { mapGeminiError } from "./map-gemini-error.ts";
import { mapGeminiUsage } from "./map-gemini-usage.ts";
import { type GeminiResponseContext, geminiCallId, parseGeminiResponse } from "./parse-gemini-response.ts";

/**
 * The `streamGenerateContent?alt=sse` state machine. Every SSE event is a whole `GenerateContentResponse`
 * holding the next parts of the answer; the assembler keeps every part of every event verbatim and in
 * order (the whole answer's parts are those parts: `thoughtSignature`s stay on the part they came on, an
 * empty-text part that only carries a signature included), and at the end hands the rebuilt answer to
 * `parseGeminiResponse`, so streamed and whole give the same `Response`.
 *
 * - a text part → `text-delta`; a thought part (`thought: true`) → `reasoning-delta`;
 * - a `functionCall` part arrives whole (the only form this protocol requests): `tool-call-start`, its
 *   arguments as one `tool-call-delta`, `tool-call-end`;
 * - `usageMetadata` (running totals, not always growing) → `usage`; the last one is the answer's;
 * - the terminal condition is an event whose candidate has a `finishReason` (or, for a blocked prompt,
 *   a `promptFeedback.blockReason`): the stream has no `[DONE]`, it just ends. Events after it (a late
 *   usage) are still read; a stream that ends before one is `truncated`;
 * - an `{ "error": … }` event is a `ProviderError` (`mapGeminiError`).
 */
export class GeminiStreamAssembler {
  /** True once an event carried the finish reason (or a prompt block). */
  stopped = false;
  /** Never set: the stream is read to its end, since usage may follow the finish reason. */
  readonly ended = false;
  /** What a complete stream has sent, as the `truncated` error names it. */
  readonly terminal = "a finishReason";
  /** Who the response is from (`Response.provider`, `native.origin` and `native.model`). */
  readonly context: GeminiResponseContext;
  readonly #parts: GeminiPart[] = [];
  readonly #tools = new ToolCallTracker<number>();
  /** The answer as far as it has come: the last candidate's fields, the first response id, the last usage. */
  #answer: GeminiResponse = {};
  #candidate: GeminiCandidate = {};
  #calls = 0;

  constructor(context: GeminiResponseContext) {
    this.context = context;
  }

  /** Applies one event, pushing the neutral events it produces onto `out`. Throws `ProviderError`. */
  apply(event: GeminiResponse, out: StreamEvent[]): void {
    if ("error" in event && event.error !== undefined) {
      const info = mapGeminiError(undefined, event);
      throw new ProviderError({
        ...info,
        provider: this.context.provider,
        model: this.context.model,
        upstreamBody: JSON.stringify(event),
      });
    }
    const answer = this.#answer;
    if (answer.responseId === undefined && typeof event.responseId === "string")
      answer.responseId = event.responseId;
    if (typeof event.modelVersion === "string") answer.modelVersion = event.modelVersion;
    if (event.promptFeedback !== undefined) answer.promptFeedback = event.promptFeedback;
    if (typeof event.promptFeedback?.blockReason === "string") this.stopped = true;
    const candidate = Array.isArray(event.candidates) ? event.candidates[0] : undefined;
    if (candidate !== undefined && typeof candidate === "object" && candidate !== null) {
      const { content, ...fields } = candidate;
      this.#candidate = { ...this.#candidate, ...fields };
      answer.candidates = [this.#candidate];
      const parts = Array.isArray(content?.parts) ? content.parts : [];
      for (const part of parts) this.#part(part, out);
      if (typeof candidate.finishReason === "string") this.stopped = true;
    }
    if (event.usageMetadata !== undefined) {
      answer.usageMetadata = event.usageMetadata;
      out.push({ type: "usage", usage: mapGeminiUsage(event.usageMetadata) });
    }
  }

  /** The final response. */
  finish(): Response {
    const answer: GeminiResponse = { ...this.#answer };
    if (answer.candidates !== undefined || this.#parts.length > 0) {
      answer.candidates = [{ ...this.#candidate, content: { role: "model", parts: this.#parts } }];
    }
    return parseGeminiResponse(answer, this.context);
  }

  #part(part: GeminiPart, out: StreamEvent[]): void {
    if (typeof part !== "object" || part === null) return;
    this.#parts.push(part);
    if (typeof part.text === "string" && part.text !== "") {
      pushText(out, part.thought === true ? "reasoning-delta" : "text-delta", part.text);
    }
    const call = part.functionCall;
    if (typeof call === "object" && call !== null) {
      const position = this.#calls++;
      const tracked = this.#tools.open();
      tracked.id = geminiCallId(call.id, this.#answer.responseId, position);
      tracked.name = String(call.name);
      const args = JSON.stringify(call.args ?? {});
      this.#tools.start(tracked, out);
      this.#tools.append(tracked, args, out);
      this.#tools.end(tracked, toolCallFrom(tracked.id, call.name, call.args), out);
    }
  }
}

/**
 * Assembles a `streamGenerateContent?alt=sse` stream: neutral events as they arrive, then `done` with the
 * final response (see {@link GeminiStreamAssembler}). Takes single events or the per-read batches of
 * `readSseBatches`; each event's JSON is parsed once. A stream without a finish reason is `truncated`,
 * never a silent success; data that is not JSON is `invalid_response`.
 */
export function assembleGeminiStream(
  events: AsyncIterable<SseEvent | readonly SseEvent[]>,
  context: GeminiResponseContext,
): AsyncGenerator<StreamEvent, void, undefined> {
  const assembler = new GeminiStreamAssembler(context);
  return deliverBatches(events, assembler, (sse, out) => {
    const event = eventObject<GeminiResponse | GeminiResponse[]>(sse.data, sse.event, context);
    if (event === undefined) return;
    // Some Google streams wrap an event (an error, mostly) in a one-element array.
    for (const item of Array.isArray(event) ? event : [event]) {
      if (typeof item === "object" && item !== null) assembler.apply(item, out);
    }
  });
}
