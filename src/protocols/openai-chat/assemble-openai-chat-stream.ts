import { parseToolArguments } from "../../core/collect-stream.ts";
import { ProviderError } from "../../core/provider-error.ts";
import { coalesceDeltas, type StreamEvent } from "../../core/stream-event.ts";
import type { SseEvent } from "../../wire/sse.ts";
import { TextToolCallScanner } from "../text-tool-calls/index.ts";
import { mapOpenAIChatError } from "./map-openai-chat-error.ts";
import { mapOpenAIChatUsage } from "./map-openai-chat-usage.ts";
import type { OpenAIChatChunk, OpenAIChatToolCallDelta } from "./openai-chat-wire.ts";
import {
  type AssembledOpenAIChatMessage,
  type OpenAIChatResponseContext,
  openAIChatResponse,
} from "./parse-openai-chat-response.ts";

interface ToolSlot {
  position: number;
  id: string | undefined;
  name: string;
  arguments: string;
  started: boolean;
  ended: boolean;
}

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
 */
export async function* assembleOpenAIChatStream(
  events: AsyncIterable<SseEvent | readonly SseEvent[]>,
  context: OpenAIChatResponseContext,
): AsyncGenerator<StreamEvent, void, undefined> {
  const state: AssembledOpenAIChatMessage = {
    id: undefined,
    model: undefined,
    content: "",
    reasoning: "",
    refusal: "",
    toolCalls: [],
    finishReason: undefined,
    usage: undefined,
    warnings: [],
  };
  const slots = new Map<number, ToolSlot>();
  const ordered: ToolSlot[] = [];
  const scanner = context.profile.textToolCalls
    ? new TextToolCallScanner(context.profile.textToolCalls)
    : undefined;
  let produced = false;
  let sawFinish = false;

  const fail = (message: string, body: unknown, cause?: unknown): ProviderError => {
    const info = mapOpenAIChatError(undefined, body);
    return new ProviderError({
      kind: cause === undefined ? info.kind : "invalid_response",
      message: cause === undefined ? `${context.provider} stream error: ${info.message}` : message,
      code: info.code,
      retryable: info.retryable,
      provider: context.provider,
      model: context.model,
      upstreamBody: typeof body === "string" ? body : JSON.stringify(body),
      partialOutput: produced,
      cause,
    });
  };
  const callId = (slot: ToolSlot) => slot.id ?? `call_${state.id || "text"}_${slot.position}`;
  const startSlot = (slot: ToolSlot, out: StreamEvent[]) => {
    slot.started = true;
    out.push({ type: "tool-call-start", index: slot.position, id: callId(slot), name: slot.name });
    if (slot.arguments !== "") {
      out.push({
        type: "tool-call-delta",
        index: slot.position,
        id: callId(slot),
        argumentsDelta: slot.arguments,
      });
    }
  };
  const endSlots = (out: StreamEvent[]) => {
    for (const slot of ordered) {
      if (slot.ended || !slot.started) continue;
      slot.ended = true;
      out.push({
        type: "tool-call-end",
        index: slot.position,
        toolCall: {
          id: callId(slot),
          name: slot.name,
          arguments: parseToolArguments(slot.arguments),
          argumentsText: slot.arguments,
        },
      });
    }
  };
  const addTextCalls = (
    calls: ReadonlyArray<{ name: string; argumentsText: string }>,
    out: StreamEvent[],
  ) => {
    for (const call of calls) {
      const slot: ToolSlot = {
        position: ordered.length,
        id: undefined,
        name: call.name,
        arguments: call.argumentsText,
        started: false,
        ended: false,
      };
      ordered.push(slot);
      startSlot(slot, out);
    }
  };
  /** The slot key of the last tool-call delta: where a delta without `index` continues. */
  let lastKey: number | undefined;
  /**
   * A delta's slot key: its wire `index`. Servers that send no `index` (Gemini's OpenAI-compatible API) start
   * each call with its id, so a new id is a new call (keyed below zero, clear of wire indexes) and a delta
   * without id continues the last call.
   */
  const keyOf = (delta: OpenAIChatToolCallDelta): number => {
    if (typeof delta.index === "number") return delta.index;
    if (typeof delta.id === "string" && delta.id !== "") {
      for (const [key, slot] of slots) if (slot.id === delta.id) return key;
      if (lastKey !== undefined) return -1 - slots.size;
    }
    return lastKey ?? 0;
  };
  const applyToolDelta = (delta: OpenAIChatToolCallDelta, out: StreamEvent[]) => {
    const index = keyOf(delta);
    lastKey = index;
    let slot = slots.get(index);
    if (!slot) {
      slot = {
        position: ordered.length,
        id: undefined,
        name: "",
        arguments: "",
        started: false,
        ended: false,
      };
      slots.set(index, slot);
      ordered.push(slot);
    }
    if (typeof delta.id === "string" && delta.id !== "" && slot.id === undefined) slot.id = delta.id;
    const name = delta.function?.name;
    if (typeof name === "string" && name !== "" && slot.name === "") slot.name = name;
    const piece = delta.function?.arguments;
    if (typeof piece === "string" && piece !== "") {
      slot.arguments += piece;
      if (slot.started)
        out.push({ type: "tool-call-delta", index: slot.position, id: callId(slot), argumentsDelta: piece });
    }
    if (!slot.started && slot.name !== "") startSlot(slot, out);
  };

  const finish = (): StreamEvent[] => {
    const out: StreamEvent[] = [];
    if (scanner) {
      const rest = scanner.finish();
      if (rest.text !== "") {
        state.content += rest.text;
        out.push({ type: "text-delta", text: rest.text });
      }
      addTextCalls(rest.toolCalls, out);
      state.warnings.push(...rest.warnings);
    }
    endSlots(out);
    for (const slot of ordered) {
      if (slot.name === "") {
        state.warnings.push(`tool call at position ${slot.position} never got a name; left out`);
        continue;
      }
      state.toolCalls.push({ id: slot.id, name: slot.name, arguments: slot.arguments });
    }
    out.push({ type: "done", response: openAIChatResponse(state, context) });
    return out;
  };

  const out: StreamEvent[] = [];
  /** Delivers what one read produced: deltas of the read merged, nothing held back. */
  const flush = function* (): Generator<StreamEvent> {
    if (out.length === 0) return;
    coalesceDeltas(out);
    for (const event of out) {
      if (event.type !== "usage") produced = true;
      yield event;
    }
    out.length = 0;
  };
  for await (const item of events) {
    const batch: readonly SseEvent[] = Array.isArray(item) ? item : [item as SseEvent];
    for (const sse of batch) {
      if (sse.data === "[DONE]") {
        yield* flush();
        yield* finish();
        return;
      }
      let chunk: OpenAIChatChunk;
      try {
        chunk = JSON.parse(sse.data) as OpenAIChatChunk;
      } catch (cause) {
        throw fail(`${context.provider} stream sent an event that is not JSON`, sse.data, cause);
      }
      if (typeof chunk !== "object" || chunk === null) continue;
      if (chunk.error || sse.event === "error") {
        yield* flush();
        throw fail("", chunk);
      }
      if (state.id === undefined && chunk.id) state.id = chunk.id;
      if (state.model === undefined && chunk.model) state.model = chunk.model;
      const usage = chunk.usage ?? chunk.x_groq?.usage;
      if (usage) {
        state.usage = usage;
        out.push({ type: "usage", usage: mapOpenAIChatUsage(usage) });
      }
      const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
      const delta = choice?.delta;
      if (delta) {
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (typeof reasoning === "string" && reasoning !== "") {
          state.reasoning += reasoning;
          out.push({ type: "reasoning-delta", text: reasoning });
        }
        if (typeof delta.content === "string" && delta.content !== "") {
          if (scanner) {
            const released = scanner.push(delta.content);
            if (released.text !== "") {
              state.content += released.text;
              out.push({ type: "text-delta", text: released.text });
            }
            addTextCalls(released.toolCalls, out);
          } else {
            state.content += delta.content;
            out.push({ type: "text-delta", text: delta.content });
          }
        }
        if (typeof delta.refusal === "string") state.refusal += delta.refusal;
        if (Array.isArray(delta.tool_calls))
          for (const toolDelta of delta.tool_calls) applyToolDelta(toolDelta, out);
      }
      if (choice?.finish_reason) {
        state.finishReason = choice.finish_reason;
        sawFinish = true;
        endSlots(out);
      }
    }
    yield* flush();
  }
  if (sawFinish) {
    yield* finish();
    return;
  }
  throw new ProviderError({
    kind: "truncated",
    message: `${context.provider} stream ended before a finish_reason or [DONE]`,
    provider: context.provider,
    model: context.model,
    partialOutput: produced,
  });
}
