import { parseToolArguments } from "../../core/collect-stream.ts";
import { ProviderError } from "../../core/provider-error.ts";
import type { Response } from "../../core/response.ts";
import { coalesceDeltas, type StreamEvent } from "../../core/stream-event.ts";
import type { SseEvent } from "../../wire/sse.ts";
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

/** One output item being streamed, keyed by its `output_index` (ids are not stable across events). */
interface Slot {
  outputIndex: number;
  /** The latest full item: from `output_item.added`, replaced by `output_item.done`. */
  item: OpenAIResponsesOutputItem | undefined;
  done: boolean;
  /** Position in the message's `toolCalls` (function and custom tool calls only). */
  toolPosition: number | undefined;
  toolStarted: boolean;
  toolEnded: boolean;
  /** Argument text (function calls) or input text (custom tool calls) delivered so far. */
  argumentText: string;
  /** Text delivered so far per content part: `t<content_index>`, `s<summary_index>`, `r<content_index>`. */
  parts: Map<string, string>;
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
 *   and `custom_tool_call_input.delta` → tool-call deltas. A `.done` event (or `output_item.done`) whose
 *   text goes past what the deltas delivered sends the rest, so a server that skips deltas loses nothing.
 * - The final items are the terminal response's `output` (`response.completed` / `response.incomplete`):
 *   `encrypted_content` differs between `output_item.added` and `.done` / `response.completed` in real
 *   streams, and only the final value is kept. A terminal response without `output` falls back to the
 *   `output_item.done` items in `output_index` order.
 * - `error` and `response.failed` are a `ProviderError` (kind from the error code); `partialOutput` says
 *   whether output had been produced.
 */
export class OpenAIResponsesStreamAssembler {
  /** True once `response.completed` or `response.incomplete` arrived. */
  finished = false;
  /** True once any content event was produced (for `ProviderError.partialOutput`). */
  producedOutput = false;
  private readonly slots = new Map<number, Slot>();
  private toolCount = 0;
  private reasoningStarted = false;
  private id: string | undefined;
  private model: string | undefined;
  private terminal: OpenAIResponsesResponse | undefined;
  private readonly context: OpenAIResponsesResponseContext;

  constructor(context: OpenAIResponsesResponseContext) {
    this.context = context;
  }

  /** Applies one event, pushing the neutral events it produces onto `out`. Throws `ProviderError`. */
  apply(event: OpenAIResponsesStreamEvent, out: StreamEvent[]): void {
    switch (event.type) {
      case "response.output_text.delta":
        this.textDelta(event, `t${partIndex(event.content_index)}`, "text-delta", out);
        return;
      case "response.reasoning_summary_text.delta":
        this.textDelta(event, `s${partIndex(event.summary_index)}`, "reasoning-delta", out);
        return;
      case "response.reasoning_text.delta":
        this.textDelta(event, `r${partIndex(event.content_index)}`, "reasoning-delta", out);
        return;
      case "response.function_call_arguments.delta":
      case "response.custom_tool_call_input.delta":
        this.argumentDelta(event, typeof event.delta === "string" ? event.delta : "", out);
        return;
      case "response.output_text.done":
        this.catchUp(event, `t${partIndex(event.content_index)}`, event.text, "text-delta", out);
        return;
      case "response.reasoning_summary_text.done":
        this.catchUp(event, `s${partIndex(event.summary_index)}`, event.text, "reasoning-delta", out);
        return;
      case "response.reasoning_text.done":
        this.catchUp(event, `r${partIndex(event.content_index)}`, event.text, "reasoning-delta", out);
        return;
      case "response.function_call_arguments.done":
        this.argumentsDone(event, event.arguments, out);
        return;
      case "response.custom_tool_call_input.done":
        this.argumentsDone(event, event.input, out);
        return;
      case "response.output_item.added":
        this.itemAdded(event, out);
        return;
      case "response.output_item.done":
        this.itemDone(event, out);
        return;
      case "response.created":
      case "response.in_progress":
      case "response.queued":
        this.remember(event.response);
        return;
      case "response.completed":
      case "response.incomplete": {
        const response = isRecord(event.response) ? event.response : {};
        this.remember(response);
        this.terminal = response;
        this.finished = true;
        if (isRecord(response.usage))
          out.push({ type: "usage", usage: mapOpenAIResponsesUsage(response.usage) });
        return;
      }
      case "response.failed": {
        const response = isRecord(event.response) ? event.response : {};
        throw openAIResponsesResponseFailure(response, this.context, this.producedOutput);
      }
      case "error":
        throw openAIResponsesFailure(event, this.context, "stream error", this.producedOutput, event);
      default:
        // Part boundaries, hosted-tool progress, annotations, refusal deltas (read from the final items)
        // and event types this version does not know.
        return;
    }
  }

  /**
   * The final response, after `response.completed` / `response.incomplete`. Tool calls of the final items
   * that never got their `output_item.done` (or never started) are ended here, from the final items.
   */
  finish(out: StreamEvent[]): Response {
    const terminal = this.terminal ?? {};
    const items =
      Array.isArray(terminal.output) && (terminal.output.length > 0 || this.slots.size === 0)
        ? terminal.output
        : this.assembledItems();
    const json: OpenAIResponsesResponse = { ...terminal };
    if (json.id === undefined && this.id !== undefined) json.id = this.id;
    if (json.model === undefined && this.model !== undefined) json.model = this.model;
    const response = openAIResponsesResponse(json, items, this.context);
    const started = new Set<number>();
    const ended = new Set<number>();
    for (const slot of this.slots.values()) {
      if (slot.toolPosition === undefined) continue;
      if (slot.toolStarted) started.add(slot.toolPosition);
      if (slot.toolEnded) ended.add(slot.toolPosition);
    }
    response.message.toolCalls.forEach((toolCall, index) => {
      if (ended.has(index)) return;
      if (!started.has(index)) {
        out.push({ type: "tool-call-start", index, id: toolCall.id, name: toolCall.name });
        if (toolCall.argumentsText)
          out.push({
            type: "tool-call-delta",
            index,
            id: toolCall.id,
            argumentsDelta: toolCall.argumentsText,
          });
      }
      out.push({ type: "tool-call-end", index, toolCall });
      this.producedOutput = true;
    });
    return response;
  }

  /** The error for a stream that ended before its terminal event. */
  truncated(): ProviderError {
    return new ProviderError({
      kind: "truncated",
      message: `${this.context.provider} stream ended before response.completed`,
      provider: this.context.provider,
      model: this.context.model,
      partialOutput: this.producedOutput,
    });
  }

  private remember(response: OpenAIResponsesResponse | null | undefined): void {
    if (!isRecord(response)) return;
    if (typeof response.id === "string" && response.id !== "") this.id ??= response.id;
    if (typeof response.model === "string" && response.model !== "") this.model ??= response.model;
  }

  private slot(outputIndex: unknown): Slot {
    const index = typeof outputIndex === "number" && Number.isInteger(outputIndex) ? outputIndex : 0;
    let slot = this.slots.get(index);
    if (!slot) {
      slot = {
        outputIndex: index,
        item: undefined,
        done: false,
        toolPosition: undefined,
        toolStarted: false,
        toolEnded: false,
        argumentText: "",
        parts: new Map(),
      };
      this.slots.set(index, slot);
    }
    return slot;
  }

  private itemAdded(event: OpenAIResponsesStreamEvent, out: StreamEvent[]): void {
    if (!isRecord(event.item)) return;
    const slot = this.slot(event.output_index);
    slot.item = event.item;
    if (!isToolItem(event.item)) return;
    const initial = toolText(event.item);
    if (initial !== "" && slot.argumentText === "") slot.argumentText = initial;
    const name = event.item.name;
    if (!slot.toolStarted && typeof name === "string" && name !== "") {
      this.startTool(slot, out, this.callIdOf(slot), name);
      if (slot.argumentText !== "") this.pushArguments(slot, slot.argumentText, out);
    }
  }

  private itemDone(event: OpenAIResponsesStreamEvent, out: StreamEvent[]): void {
    if (!isRecord(event.item)) return;
    const slot = this.slot(event.output_index);
    const item = event.item;
    slot.item = item;
    slot.done = true;
    if (item.type === "message" && Array.isArray(item.content)) {
      item.content.forEach((part, index) => {
        if (isRecord(part) && part.type === "output_text")
          this.catchUpSlot(slot, `t${index}`, part.text, "text-delta", out);
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
          if (isRecord(part)) this.catchUpSlot(slot, `${prefix}${index}`, part.text, "reasoning-delta", out);
        });
      }
      return;
    }
    if (!isToolItem(item)) return;
    const name = typeof item.name === "string" ? item.name : "";
    if (name === "") return; // left out of toolCalls by the response builder too
    const field = item.type === "custom_tool_call" ? item.input : item.arguments;
    const final = typeof field === "string" ? field : slot.argumentText;
    if (!slot.toolStarted) {
      this.startTool(slot, out, this.callIdOf(slot), name);
      if (slot.argumentText !== "") this.pushArguments(slot, slot.argumentText, out);
    }
    if (final.startsWith(slot.argumentText) && final.length > slot.argumentText.length) {
      const rest = final.slice(slot.argumentText.length);
      slot.argumentText = final;
      this.pushArguments(slot, rest, out);
    } else if (final !== "" || slot.argumentText === "") {
      slot.argumentText = final;
    }
    slot.toolEnded = true;
    const id = this.callIdOf(slot);
    const index = slot.toolPosition ?? 0;
    out.push({
      type: "tool-call-end",
      index,
      toolCall:
        item.type === "function_call"
          ? { id, name, arguments: parseToolArguments(final), argumentsText: final }
          : { id, name, arguments: { input: final }, argumentsText: final },
    });
    this.producedOutput = true;
  }

  private textDelta(
    event: OpenAIResponsesStreamEvent,
    key: string,
    type: "text-delta" | "reasoning-delta",
    out: StreamEvent[],
  ): void {
    const delta = typeof event.delta === "string" ? event.delta : "";
    if (delta === "") return;
    const slot = this.slot(event.output_index);
    this.deliver(slot, key, delta, type, out);
  }

  private catchUp(
    event: OpenAIResponsesStreamEvent,
    key: string,
    text: unknown,
    type: "text-delta" | "reasoning-delta",
    out: StreamEvent[],
  ): void {
    this.catchUpSlot(this.slot(event.output_index), key, text, type, out);
  }

  /** Delivers the part of `text` past what this content part already delivered. */
  private catchUpSlot(
    slot: Slot,
    key: string,
    text: unknown,
    type: "text-delta" | "reasoning-delta",
    out: StreamEvent[],
  ): void {
    if (typeof text !== "string") return;
    const sent = slot.parts.get(key) ?? "";
    if (text.length > sent.length && text.startsWith(sent))
      this.deliver(slot, key, text.slice(sent.length), type, out);
  }

  private deliver(
    slot: Slot,
    key: string,
    delta: string,
    type: "text-delta" | "reasoning-delta",
    out: StreamEvent[],
  ): void {
    const sent = slot.parts.get(key);
    slot.parts.set(key, (sent ?? "") + delta);
    let text = delta;
    if (type === "reasoning-delta") {
      // A new reasoning part is set off by a blank line, as `Response.reasoning` joins them.
      if (sent === undefined && this.reasoningStarted) text = `\n\n${delta}`;
      this.reasoningStarted = true;
    }
    this.producedOutput = true;
    const last = out[out.length - 1];
    if (last !== undefined && last.type === type) last.text += text;
    else out.push({ type, text });
  }

  private argumentDelta(event: OpenAIResponsesStreamEvent, delta: string, out: StreamEvent[]): void {
    if (delta === "") return;
    const slot = this.slot(event.output_index);
    slot.argumentText += delta;
    // Before the item's name is known (no `output_item.added`), pieces are held and sent on start.
    if (slot.toolStarted && !slot.toolEnded) this.pushArguments(slot, delta, out);
  }

  private argumentsDone(event: OpenAIResponsesStreamEvent, text: unknown, out: StreamEvent[]): void {
    if (typeof text !== "string") return;
    const slot = this.slot(event.output_index);
    if (text.length > slot.argumentText.length && text.startsWith(slot.argumentText)) {
      const rest = text.slice(slot.argumentText.length);
      slot.argumentText = text;
      if (slot.toolStarted && !slot.toolEnded) this.pushArguments(slot, rest, out);
    }
  }

  private startTool(slot: Slot, out: StreamEvent[], id: string, name: string): void {
    slot.toolPosition ??= this.toolCount++;
    slot.toolStarted = true;
    this.producedOutput = true;
    out.push({ type: "tool-call-start", index: slot.toolPosition, id, name });
  }

  private pushArguments(slot: Slot, piece: string, out: StreamEvent[]): void {
    if (piece === "" || slot.toolPosition === undefined) return;
    this.producedOutput = true;
    const last = out[out.length - 1];
    if (last?.type === "tool-call-delta" && last.index === slot.toolPosition) last.argumentsDelta += piece;
    else
      out.push({
        type: "tool-call-delta",
        index: slot.toolPosition,
        id: this.callIdOf(slot),
        argumentsDelta: piece,
      });
  }

  private callIdOf(slot: Slot): string {
    const callId = slot.item?.call_id;
    if (typeof callId === "string" && callId !== "") return callId;
    return fallbackCallId(this.id ?? "response", slot.toolPosition ?? 0);
  }

  private orderedSlots(): Slot[] {
    return [...this.slots.values()].sort((a, b) => a.outputIndex - b.outputIndex);
  }

  /** Items rebuilt from the events, for a terminal response that carries no `output`. */
  private assembledItems(): OpenAIResponsesOutputItem[] {
    const items: OpenAIResponsesOutputItem[] = [];
    for (const slot of this.orderedSlots()) {
      const item = slot.item;
      if (item === undefined) continue;
      if (slot.done) {
        items.push(item);
        continue;
      }
      // Never finished: what the deltas delivered, on top of the item as it was added.
      if (item.type === "function_call") items.push({ ...item, arguments: slot.argumentText });
      else if (item.type === "custom_tool_call") items.push({ ...item, input: slot.argumentText });
      else if (item.type === "message") items.push({ ...item, content: partsOf(slot, "t", "output_text") });
      else if (item.type === "reasoning")
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

/**
 * Assembles a Responses API SSE stream: neutral events as they arrive, then `done` with the final response.
 * Takes single events or the per-read batches of `readSseBatches` (one async step per network read, and the
 * deltas of one read merged into one event). Parses each event's JSON exactly once. A stream that ends — or
 * sends `[DONE]` (OpenRouter) — before `response.completed` / `response.incomplete` throws a `truncated`
 * `ProviderError`, never a silent success; bad JSON is `invalid_response`.
 */
export async function* assembleOpenAIResponsesStream(
  events: AsyncIterable<SseEvent | readonly SseEvent[]>,
  context: OpenAIResponsesResponseContext,
): AsyncGenerator<StreamEvent, void, undefined> {
  const assembler = new OpenAIResponsesStreamAssembler(context);
  const out: StreamEvent[] = [];
  for await (const item of events) {
    const batch: readonly SseEvent[] = Array.isArray(item) ? item : [item as SseEvent];
    let ended = false;
    for (const sse of batch) {
      if (sse.data === "[DONE]") {
        ended = true;
        break;
      }
      let event: OpenAIResponsesStreamEvent;
      try {
        event = JSON.parse(sse.data) as OpenAIResponsesStreamEvent;
      } catch (cause) {
        yield* deliver(out);
        throw new ProviderError({
          kind: "invalid_response",
          message: `${context.provider} stream sent an event that is not JSON (${sse.event ?? "message"})`,
          provider: context.provider,
          model: context.model,
          upstreamBody: sse.data,
          partialOutput: assembler.producedOutput,
          cause,
        });
      }
      if (typeof event !== "object" || event === null) continue;
      // An `event: error` whose payload has no `type` of its own is an error all the same.
      if (sse.event === "error" && typeof event.type !== "string") event = { ...event, type: "error" };
      try {
        assembler.apply(event, out);
      } catch (error) {
        // Output produced earlier in this batch has not reached the caller: deliver it, then fail.
        yield* deliver(out);
        throw error;
      }
      if (assembler.finished) break;
    }
    if (assembler.finished) {
      const response = assembler.finish(out);
      yield* deliver(out);
      yield { type: "done", response };
      return;
    }
    yield* deliver(out);
    if (ended) break;
  }
  throw assembler.truncated();
}

function* deliver(out: StreamEvent[]): Generator<StreamEvent> {
  if (out.length === 0) return;
  coalesceDeltas(out);
  for (const event of out) yield event;
  out.length = 0;
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
  for (const [key, text] of slot.parts) {
    if (!key.startsWith(prefix)) continue;
    const index = Number(key.slice(prefix.length));
    parts[index] = type === "output_text" ? { type, text, annotations: [] } : { type, text };
  }
  return parts.filter((part) => part !== undefined);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
