/**
 * Events of a streaming call. Contract: a `stream()` yields any number of deltas and ends with exactly one
 * `done` event carrying the final {@link Response} — the same value `complete()` returns for the same
 * output. A failure throws a `ProviderError` from the iteration instead; a stream never ends silently
 * without `done`.
 *
 * Names follow `<noun>-<verb>` with `start` / `delta` / `end`.
 *
 * @module
 */
import type { ToolCall } from "./message.ts";
import type { Response } from "./response.ts";
import type { Usage } from "./usage.ts";

/** A piece of visible text. */
export interface TextDeltaEvent {
  type: "text-delta";
  text: string;
}

/** A piece of readable reasoning (thinking text or a reasoning summary). */
export interface ReasoningDeltaEvent {
  type: "reasoning-delta";
  text: string;
}

/** A tool call began. `index` is its position in the final message's `toolCalls`. */
export interface ToolCallStartEvent {
  type: "tool-call-start";
  index: number;
  id: string;
  name: string;
}

/** A piece of a tool call's argument JSON, as the model produced it. */
export interface ToolCallDeltaEvent {
  type: "tool-call-delta";
  index: number;
  id: string;
  argumentsDelta: string;
}

/** A tool call is complete; `toolCall` is final (arguments parsed, or `{}` with the text kept). */
export interface ToolCallEndEvent {
  type: "tool-call-end";
  index: number;
  toolCall: ToolCall;
}

/** Usage so far (cumulative for the call, not an increment). The `done` response has the final figures. */
export interface UsageEvent {
  type: "usage";
  usage: Usage;
}

/** The last event: the whole response. */
export interface DoneEvent {
  type: "done";
  response: Response;
}

export type StreamEvent =
  | TextDeltaEvent
  | ReasoningDeltaEvent
  | ToolCallStartEvent
  | ToolCallDeltaEvent
  | ToolCallEndEvent
  | UsageEvent
  | DoneEvent;

/** The `type` of each stream event. */
export type StreamEventType = StreamEvent["type"];

/**
 * True for events that carry model output (text, reasoning, tool calls). Wrappers such as `fallback()`
 * may switch providers only before the first such event has reached the caller.
 */
export function isContentEvent(event: StreamEvent): boolean {
  return event.type !== "usage" && event.type !== "done";
}

/**
 * Merges, in place, adjacent deltas of the same kind that were produced from one network read: text with
 * text, reasoning with reasoning, argument pieces of the same tool call. Nothing is delayed (those bytes are
 * already in hand); a consumer just gets fewer, larger deltas. Returns the new length of `events`.
 */
export function coalesceDeltas(events: StreamEvent[]): number {
  let kept = 0;
  for (let index = 0; index < events.length; index++) {
    const event = events[index]!;
    const previous = kept > 0 ? events[kept - 1]! : undefined;
    if (previous !== undefined && previous.type === event.type) {
      if (event.type === "text-delta" || event.type === "reasoning-delta") {
        events[kept - 1] = { type: event.type, text: (previous as TextDeltaEvent).text + event.text };
        continue;
      }
      if (event.type === "tool-call-delta" && (previous as ToolCallDeltaEvent).index === event.index) {
        events[kept - 1] = {
          ...event,
          argumentsDelta: (previous as ToolCallDeltaEvent).argumentsDelta + event.argumentsDelta,
        };
        continue;
      }
    }
    events[kept++] = event;
  }
  events.length = kept;
  return kept;
}
