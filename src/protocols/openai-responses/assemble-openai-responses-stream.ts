import { parseToolArguments } from "../../core/collect-stream.ts";
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
import { endToolCallsFrom, type StreamedToolCall, ToolCallTracker } from "../tool-call-tracker.ts";
import { mapOpenAIResponsesUsage } from "./map-openai-responses-usage.ts";
import { openAIResponsesFailure } from "./openai-responses-failure.ts";
import type {
  OpenAIResponsesOutputItem,
  OpenAIResponsesResponse,
  OpenAIResponsesStreamEvent,
} from "./openai-responses-wire.ts";
import {
  fallbackCallId,
  type OpenAIResponsesResponseContext,
  openAIResponsesResponse,
  openAIResponsesResponseFailure,
} from "./parse-openai-responses-response.ts";

/**
 * A text, reasoning-summary or argument delta as OpenAI writes it (see `applyData`): the kind, the
 * `output_index`, which part index follows it and its value, and the delta's contents.
 */
const DELTA_EVENT = new RegExp(
  `^\\{"type":"response\\.(output_text|reasoning_summary_text|function_call_arguments)\\.delta","sequence_number":${JSON_COUNT},"item_id":"${JSON_STRING_UNCAPTURED}","output_index":${JSON_INDEX}(?:,"(content|summary)_index":${JSON_INDEX})?,"delta":"${JSON_STRING}"(?:,"logprobs":\\[\\])?(?:,"obfuscation":"${JSON_STRING_UNCAPTURED}")?\\}$`,
);

/** One output item being streamed, keyed by its `output_index` (ids are not stable across events). */
interface Slot {
  outputIndex: number;
  /** The latest full item: from `output_item.added`, replaced by `output_item.done`. */
  item: OpenAIResponsesOutputItem | undefined;
  done: boolean;
  /** Text delivered so far per content part: `t<content_index>`, `s<summary_index>`, `r<content_index>`. */
  parts: Map<string, PieceBuffer>;
}

/**
 * The Responses stream state machine: one parsed event in, neutral events out, and at the end the same
 * `Response` that `parseOpenAIResponsesResponse` builds from the non-streaming JSON — `native.blocks`
 * included.
 *
 * - Items are keyed by `output_index`, never by item id (the GitHub Copilot proxy rotates ids between the
 *   events of one item, and OpenRouter finishes items out of order).
 * - `output_text.delta` → text; `reasoning_summary_text.delta` (OpenAI) and `reasoning_text.delta`
 *   (DeepSeek, OpenRouter raw CoT) → reasoning, a blank line between parts; `function_call_arguments.delta`
 *   and `custom_tool_call_input.delta` → tool-call deltas; `refusal.delta` / `refusal.done` are kept (not
 *   streamed as text) and the refusal is `Response.refusal` on `done`, read from the final message item. A `.done` event (or `output_item.done`) whose
 *   text goes past what the deltas delivered sends the rest, so a server that skips deltas loses nothing.
 * - The final items are the terminal response's `output` (`response.completed` / `response.incomplete`):
 *   `encrypted_content` differs between `output_item.added` and `.done` / `response.completed` in real
 *   streams, and only the final value is kept. Items of types this version does not know are kept there
 *   verbatim, as `parseOpenAIResponsesResponse` keeps them. A terminal response without `output` falls back
 *   to the `output_item.done` items in `output_index` order; an item that never got its `output_item.done`
 *   is then rebuilt from its deltas (or kept as `output_item.added` sent it), with a warning.
 * - `error` and `response.failed` are a `ProviderError` (kind from the error code).
 */
export class OpenAIResponsesStreamAssembler {
  /** True once `response.completed` or `response.incomplete` arrived. */
  finished = false;
  /** True once nothing more is read: the terminal event, or `[DONE]` (OpenRouter) arrived. */
  ended = false;
  /** The same as `finished`: the answer is complete. */
  get stopped(): boolean {
    return this.finished;
  }
  /** The terminal event of a Responses stream (or `response.incomplete`). */
  readonly terminal = "response.completed";
  /** Who the response is from (`Response.provider`, `native.origin` and `native.model`). */
  readonly context: OpenAIResponsesResponseContext;
  readonly #slots = new Map<number, Slot>();
  /** Function and custom tool calls, by `output_index`. */
  readonly #tools = new ToolCallTracker<number>();
  #reasoningStarted = false;
  #id: string | undefined;
  #model: string | undefined;
  #terminalResponse: OpenAIResponsesResponse | undefined;

  constructor(context: OpenAIResponsesResponseContext) {
    this.context = context;
  }

  /** Applies one event, pushing the neutral events it produces onto `out`. Throws `ProviderError`. */
  apply(event: OpenAIResponsesStreamEvent, out: StreamEvent[]): void {
    switch (event.type) {
      case "response.output_text.delta":
        this.#textDelta(
          event.output_index,
          `t${partIndex(event.content_index)}`,
          event.delta,
          "text-delta",
          out,
        );
        return;
      case "response.reasoning_summary_text.delta":
        this.#textDelta(
          event.output_index,
          `s${partIndex(event.summary_index)}`,
          event.delta,
          "reasoning-delta",
          out,
        );
        return;
      case "response.reasoning_text.delta":
        this.#textDelta(
          event.output_index,
          `r${partIndex(event.content_index)}`,
          event.delta,
          "reasoning-delta",
          out,
        );
        return;
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta":
        this.#argumentsDelta(event.output_index, event.delta, out);
        return;
      case "response.refusal.delta":
        this.#refusalPiece(event, typeof event.delta === "string" ? event.delta : "", false);
        return;
      case "response.refusal.done":
        this.#refusalPiece(event, event.refusal, true);
        return;
      case "response.output_text.done":
        this.#textDone(event, `t${partIndex(event.content_index)}`, "text-delta", out);
        return;
      case "response.reasoning_summary_text.done":
        this.#textDone(event, `s${partIndex(event.summary_index)}`, "reasoning-delta", out);
        return;
      case "response.reasoning_text.done":
        this.#textDone(event, `r${partIndex(event.content_index)}`, "reasoning-delta", out);
        return;
      case "response.function_call_arguments.done":
        this.#argumentsCatchUp(this.#call(event.output_index), event.arguments, out);
        return;
      case "response.custom_tool_call_input.done":
        this.#argumentsCatchUp(this.#call(event.output_index), event.input, out);
        return;
      case "response.output_item.added":
        this.#itemAdded(event, out);
        return;
      case "response.output_item.done":
        this.#itemDone(event, out);
        return;
      case "response.created":
      case "response.in_progress":
      case "response.queued":
        this.#remember(event.response);
        return;
      case "response.completed":
      case "response.incomplete": {
        const response = isRecord(event.response) ? event.response : {};
        this.#remember(response);
        this.#terminalResponse = response;
        this.finished = true;
        this.ended = true;
        if (isRecord(response.usage))
          out.push({ type: "usage", usage: mapOpenAIResponsesUsage(response.usage) });
        return;
      }
      case "response.failed": {
        const response = isRecord(event.response) ? event.response : {};
        throw openAIResponsesResponseFailure(response, this.context, false);
      }
      case "error":
        throw openAIResponsesFailure(event, this.context, "stream error", false, event);
      default:
        // Part boundaries, hosted-tool progress, annotations and event types this version does not know
        // (their items arrive whole in the terminal response).
        return;
    }
  }

  /**
   * Applies a delta event read straight from its JSON text when it has the exact shape OpenAI writes —
   * `{"type":"response.output_text.delta","sequence_number":N,"item_id":"…","output_index":N,
   * "content_index":N,"delta":"…","logprobs":[],"obfuscation":"…"}`, the same for
   * `reasoning_summary_text.delta` with `summary_index`, and `function_call_arguments.delta` with neither
   * (`logprobs: []` and `obfuscation` optional). True when applied; false, with nothing done, for anything
   * else (the caller parses the event).
   */
  applyData(data: string, out: StreamEvent[]): boolean {
    const match = DELTA_EVENT.exec(data);
    if (match === null) return false;
    const delta = jsonStringValue(match[5]!);
    if (delta === undefined) return false;
    const outputIndex = Number(match[2]);
    // The kind, told apart by its first letter: o(utput_text), r(easoning_summary_text), f(unction_call…),
    // and the part index a text kind must carry: content_index, summary_index (arguments have no parts).
    const kind = match[1]!.charCodeAt(0);
    const part = match[3];
    if (kind === 102) this.#argumentsDelta(outputIndex, delta, out);
    else if (kind === 111) {
      if (part !== "content") return false;
      this.#textDelta(outputIndex, `t${match[4]}`, delta, "text-delta", out);
    } else {
      if (part !== "summary") return false;
      this.#textDelta(outputIndex, `s${match[4]}`, delta, "reasoning-delta", out);
    }
    return true;
  }

  /** `[DONE]`: nothing more is read (a stream without its terminal event before it is truncated). */
  over(): void {
    this.ended = true;
  }

  /**
   * The final response, after `response.completed` / `response.incomplete`. Tool calls of the final items
   * that never got their `output_item.done` (or never started) are ended here, from the final items.
   */
  finish(out: StreamEvent[]): Response {
    const terminal = this.#terminalResponse ?? {};
    const warnings: string[] = [];
    const items =
      Array.isArray(terminal.output) && (terminal.output.length > 0 || this.#slots.size === 0)
        ? terminal.output
        : this.#assembledItems(warnings);
    const json: OpenAIResponsesResponse = { ...terminal };
    if (json.id === undefined && this.#id !== undefined) json.id = this.#id;
    if (json.model === undefined && this.#model !== undefined) json.model = this.#model;
    const context =
      warnings.length === 0
        ? this.context
        : { ...this.context, warnings: [...(this.context.warnings ?? []), ...warnings] };
    const response = openAIResponsesResponse(json, items, context);
    endToolCallsFrom(this.#tools, response.message.toolCalls, out);
    return response;
  }

  #remember(response: OpenAIResponsesResponse | null | undefined): void {
    if (!isRecord(response)) return;
    if (typeof response.id === "string" && response.id !== "") this.#id ??= response.id;
    if (typeof response.model === "string" && response.model !== "") this.#model ??= response.model;
  }

  #slot(outputIndex: unknown): Slot {
    const index = indexOf(outputIndex);
    let slot = this.#slots.get(index);
    if (!slot) {
      slot = { outputIndex: index, item: undefined, done: false, parts: new Map() };
      this.#slots.set(index, slot);
    }
    return slot;
  }

  /** The tool call at an `output_index` (opened on its first event: arguments may come before the item). */
  #call(outputIndex: unknown): StreamedToolCall {
    const index = indexOf(outputIndex);
    this.#slot(index);
    return this.#tools.get(index) ?? this.#tools.open(index);
  }

  #itemAdded(event: OpenAIResponsesStreamEvent, out: StreamEvent[]): void {
    if (!isRecord(event.item)) return;
    const slot = this.#slot(event.output_index);
    slot.item = event.item;
    if (!isToolItem(event.item)) return;
    const call = this.#call(event.output_index);
    this.#identify(call, event.item);
    const initial = toolText(event.item);
    if (initial !== "" && call.arguments.text() === "") this.#tools.append(call, initial, out);
    if (call.name !== "") this.#start(call, out);
  }

  #itemDone(event: OpenAIResponsesStreamEvent, out: StreamEvent[]): void {
    if (!isRecord(event.item)) return;
    const slot = this.#slot(event.output_index);
    const item = event.item;
    slot.item = item;
    slot.done = true;
    if (item.type === "message" && Array.isArray(item.content)) {
      item.content.forEach((part, index) => {
        if (isRecord(part) && part.type === "output_text")
          this.#catchUp(slot, `t${index}`, part.text, "text-delta", out);
      });
      return;
    }
    if (item.type === "reasoning") {
      for (const [field, prefix] of [
        ["summary", "s"],
        ["content", "r"],
      ] as const) {
        const list = item[field];
        if (!Array.isArray(list)) continue;
        list.forEach((part, index) => {
          if (isRecord(part)) this.#catchUp(slot, `${prefix}${index}`, part.text, "reasoning-delta", out);
        });
      }
      return;
    }
    if (!isToolItem(item)) return;
    const call = this.#call(event.output_index);
    this.#identify(call, item);
    if (call.name === "") return; // left out of toolCalls by the response builder too
    this.#start(call, out);
    const field = item.type === "custom_tool_call" ? item.input : item.arguments;
    const final = typeof field === "string" ? field : call.arguments.text();
    this.#argumentsCatchUp(call, final, out);
    this.#tools.end(
      call,
      item.type === "function_call"
        ? {
            id: call.id,
            name: call.name,
            arguments: parseToolArguments(final),
            argumentsText: final,
          }
        : { id: call.id, name: call.name, arguments: { input: final }, argumentsText: final },
      out,
    );
  }

  /** The call id and name an item gives its tool call. */
  #identify(call: StreamedToolCall, item: Record<string, unknown>): void {
    if (typeof item.call_id === "string" && item.call_id !== "") call.id = item.call_id;
    if (call.name === "" && typeof item.name === "string") call.name = item.name;
  }

  /** Starts a call whose name is known; one without `call_id` is named as the response builder names it. */
  #start(call: StreamedToolCall, out: StreamEvent[]): void {
    if (call.id === "") call.id = fallbackCallId(this.#id ?? "response", this.#tools.started.length);
    this.#tools.start(call, out);
  }

  /**
   * A refusal's text (`response.refusal.delta`, or the whole of it in `.done`): kept for an item the
   * terminal response does not carry, not streamed as text — the refusal is `Response.refusal` on `done`,
   * as `parseOpenAIResponsesResponse` reads it from the message item's `refusal` part.
   */
  #refusalPiece(event: OpenAIResponsesStreamEvent, text: unknown, whole: boolean): void {
    if (typeof text !== "string" || text === "") return;
    const slot = this.#slot(event.output_index);
    const key = `f${partIndex(event.content_index)}`;
    let part = slot.parts.get(key);
    if (part === undefined) {
      part = new PieceBuffer();
      slot.parts.set(key, part);
    }
    const sent = part.text();
    if (!whole) part.push(text);
    else if (text.length > sent.length && text.startsWith(sent)) part.push(text.slice(sent.length));
  }

  /** A text or reasoning delta of the content part `key` of the item at `outputIndex`. */
  #textDelta(
    outputIndex: unknown,
    key: string,
    delta: unknown,
    type: "text-delta" | "reasoning-delta",
    out: StreamEvent[],
  ): void {
    if (typeof delta === "string" && delta !== "")
      this.#deliver(this.#slot(outputIndex), key, delta, type, out);
  }

  /** A piece of the arguments (or custom input) of the tool call at `outputIndex`. */
  #argumentsDelta(outputIndex: unknown, delta: unknown, out: StreamEvent[]): void {
    this.#tools.append(this.#call(outputIndex), typeof delta === "string" ? delta : "", out);
  }

  /** A part's `.done` event: whatever of its `text` the deltas did not deliver goes out now. */
  #textDone(
    event: OpenAIResponsesStreamEvent,
    key: string,
    type: "text-delta" | "reasoning-delta",
    out: StreamEvent[],
  ): void {
    this.#catchUp(this.#slot(event.output_index), key, event.text, type, out);
  }

  /** Delivers the part of `text` past what this content part already delivered. */
  #catchUp(
    slot: Slot,
    key: string,
    text: unknown,
    type: "text-delta" | "reasoning-delta",
    out: StreamEvent[],
  ): void {
    if (typeof text !== "string") return;
    const sent = slot.parts.get(key)?.text() ?? "";
    if (text.length > sent.length && text.startsWith(sent))
      this.#deliver(slot, key, text.slice(sent.length), type, out);
  }

  #deliver(
    slot: Slot,
    key: string,
    delta: string,
    type: "text-delta" | "reasoning-delta",
    out: StreamEvent[],
  ): void {
    let part = slot.parts.get(key);
    let text = delta;
    if (type === "reasoning-delta") {
      // A new reasoning part is set off by a blank line, as `Response.reasoning` joins them.
      if (part === undefined && this.#reasoningStarted) text = `\n\n${delta}`;
      this.#reasoningStarted = true;
    }
    if (part === undefined) {
      part = new PieceBuffer();
      slot.parts.set(key, part);
    }
    part.push(delta);
    pushText(out, type, text);
  }

  /** Sends the part of a call's final argument text past what its deltas delivered. */
  #argumentsCatchUp(call: StreamedToolCall, text: unknown, out: StreamEvent[]): void {
    if (typeof text !== "string") return;
    const sent = call.arguments.text();
    if (text.length > sent.length && text.startsWith(sent))
      this.#tools.append(call, text.slice(sent.length), out);
  }

  /**
   * Items rebuilt from the events, for a terminal response that carries no `output`: the finished ones as
   * `output_item.done` sent them; the others from their deltas, each with a warning.
   */
  #assembledItems(warnings: string[]): OpenAIResponsesOutputItem[] {
    const items: OpenAIResponsesOutputItem[] = [];
    const slots = [...this.#slots.values()].sort((a, b) => a.outputIndex - b.outputIndex);
    for (const slot of slots) {
      const item = slot.item;
      if (item === undefined) continue;
      if (slot.done) {
        items.push(item);
        continue;
      }
      const type = String(item.type);
      warnings.push(
        `output[${items.length}] (${type}) never got its output_item.done and the terminal response has no output: ` +
          (KNOWN_ITEMS.has(type) ? "rebuilt from its deltas" : "kept as output_item.added sent it"),
      );
      // What the deltas delivered, on top of the item as it was added.
      const argumentText = this.#tools.get(slot.outputIndex)?.arguments.text() ?? "";
      if (type === "function_call") items.push({ ...item, arguments: argumentText });
      else if (type === "custom_tool_call") items.push({ ...item, input: argumentText });
      else if (type === "message") items.push({ ...item, content: messageParts(slot) });
      else if (type === "reasoning")
        items.push({
          ...item,
          summary: partsOf(slot, "s", "summary_text"),
          ...(Array.isArray(item.content) || hasParts(slot, "r")
            ? { content: partsOf(slot, "r", "reasoning_text") }
            : {}),
        });
      else items.push(item);
    }
    return items;
  }
}

/** The item types {@link OpenAIResponsesStreamAssembler} can rebuild from their deltas. */
const KNOWN_ITEMS = new Set(["function_call", "custom_tool_call", "message", "reasoning"]);

/**
 * Assembles a Responses API SSE stream: neutral events as they arrive, then `done` with the final response.
 * Takes single events or the per-read batches of `readSseBatches` (one async step per network read, and the
 * deltas of one read merged into one event). Parses each event's JSON exactly once. A stream that ends — or
 * sends `[DONE]` (OpenRouter) — before `response.completed` / `response.incomplete` throws a `truncated`
 * `ProviderError`, never a silent success; bad JSON is `invalid_response`.
 */
export function assembleOpenAIResponsesStream(
  events: AsyncIterable<SseEvent | readonly SseEvent[]>,
  context: OpenAIResponsesResponseContext,
): AsyncGenerator<StreamEvent, void, undefined> {
  const assembler = new OpenAIResponsesStreamAssembler(context);
  return deliverBatches(events, assembler, (sse, out) => {
    if (sse.data === "[DONE]") {
      assembler.over();
      return;
    }
    if (assembler.applyData(sse.data, out)) return;
    let event = eventObject<OpenAIResponsesStreamEvent>(sse.data, sse.event, context);
    if (event === undefined) return;
    // An `event: error` whose payload has no `type` of its own is an error all the same.
    if (sse.event === "error" && typeof event.type !== "string") event = { ...event, type: "error" };
    assembler.apply(event, out);
  });
}

function indexOf(outputIndex: unknown): number {
  return typeof outputIndex === "number" && Number.isInteger(outputIndex) ? outputIndex : 0;
}

function partIndex(value: unknown): number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : 0;
}

function isToolItem(item: Record<string, unknown>): boolean {
  return item.type === "function_call" || item.type === "custom_tool_call";
}

function toolText(item: Record<string, unknown>): string {
  const value = item.type === "custom_tool_call" ? item.input : item.arguments;
  return typeof value === "string" ? value : "";
}

function hasParts(slot: Slot, prefix: string): boolean {
  for (const key of slot.parts.keys()) if (key.startsWith(prefix)) return true;
  return false;
}

function partsOf(slot: Slot, prefix: string, type: string): Array<Record<string, unknown>> {
  const parts: Array<Record<string, unknown>> = [];
  for (const [key, pieces] of slot.parts) {
    if (!key.startsWith(prefix)) continue;
    const index = Number(key.slice(prefix.length));
    const text = pieces.text();
    parts[index] = type === "output_text" ? { type, text, annotations: [] } : { type, text };
  }
  return parts.filter((part) => part !== undefined);
}

/** A message's content parts from its deltas: `output_text` and `refusal` parts, by content index. */
function messageParts(slot: Slot): Array<Record<string, unknown>> {
  const parts: Array<Record<string, unknown>> = [];
  for (const [key, pieces] of slot.parts) {
    const index = Number(key.slice(1));
    if (key.startsWith("t")) parts[index] = { type: "output_text", text: pieces.text(), annotations: [] };
    else if (key.startsWith("f")) parts[index] = { type: "refusal", refusal: pieces.text() };
  }
  return parts.filter((part) => part !== undefined);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
