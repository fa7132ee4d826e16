/**
 * Turning a stream into a response: {@link collectStream} (what `complete()` would have returned) and
 * {@link StreamAccumulator} (a response built from neutral deltas, for providers that have nothing richer).
 *
 * @module
 */
import type { Message, ToolCall } from "./message.ts";
import type { AssistantMessage, Response, StopReason } from "./response.ts";
import type { StreamEvent } from "./stream-event.ts";
import { requireDone, type StreamSource } from "./stream-guards.ts";
import type { Usage } from "./usage.ts";

export type { StreamSource };

/** Who a stream is attributed to when {@link collectStream} is not told. */
const UNKNOWN_SOURCE: StreamSource = { provider: "unknown", model: "unknown" };

/**
 * Consumes a stream and returns its final `Response`, the same value `complete()` returns for the same
 * output. `onEvent` sees every event first (to print text as it arrives, say).
 *
 * A stream that ends without its `done` event is a `ProviderError` of kind `truncated` (see
 * {@link requireDone}; `source` names who produced it) — never a silent success with half a message.
 *
 * @example
 * ```ts
 * const response = await collectStream(provider.stream(messages), {
 *   onEvent: (event) => event.type === "text-delta" && write(event.text),
 * });
 * ```
 */
export async function collectStream(
  events: AsyncIterable<StreamEvent>,
  options: { onEvent?: (event: StreamEvent) => void; source?: StreamSource } = {},
): Promise<Response> {
  for await (const event of requireDone(events, options.source ?? UNKNOWN_SOURCE)) {
    options.onEvent?.(event);
    if (event.type === "done") return event.response;
  }
  // Unreachable: requireDone ends after `done` or throws.
  throw new Error("collectStream: the stream ended without done");
}

/**
 * Builds a `Response` from neutral stream deltas: text and reasoning concatenated, tool calls by index, the
 * latest usage. Providers whose wire format carries more (signed blocks, reasoning items) assemble their own
 * `native` and pass it to {@link StreamAccumulator.toResponse}.
 */
export class StreamAccumulator {
  text = "";
  reasoning = "";
  readonly toolCalls: ToolCall[] = [];
  usage: Usage = {};
  private readonly argumentText: (string | undefined)[] = [];

  /** Applies one event. `done` is ignored: it already is a response. */
  add(event: StreamEvent): void {
    switch (event.type) {
      case "text-delta":
        this.text += event.text;
        break;
      case "reasoning-delta":
        this.reasoning += event.text;
        break;
      case "tool-call-start":
        this.toolCalls[event.index] = { id: event.id, name: event.name, arguments: {} };
        this.argumentText[event.index] = "";
        break;
      case "tool-call-delta":
        this.argumentText[event.index] = (this.argumentText[event.index] ?? "") + event.argumentsDelta;
        break;
      case "tool-call-end":
        this.toolCalls[event.index] = event.toolCall;
        this.argumentText[event.index] = undefined;
        break;
      case "usage":
        this.usage = event.usage;
        break;
      case "done":
        break;
    }
  }

  /** The response so far. `stopReason` defaults to `tool-calls` when there are tool calls, else `stop`. */
  toResponse(meta: {
    model: string;
    provider: string;
    stopReason?: StopReason;
    rawStopReason?: string;
    native?: Message["native"];
    id?: string;
  }): Response {
    const toolCalls: ToolCall[] = [];
    this.toolCalls.forEach((call, index) => {
      const text = this.argumentText[index];
      // A call that started but never ended keeps what arrived, parsed where possible.
      toolCalls.push(
        text === undefined ? call : { ...call, arguments: parseToolArguments(text), argumentsText: text },
      );
    });
    const message: AssistantMessage = {
      role: "assistant",
      content: this.text,
      toolCalls,
      toolResults: [],
      synthetic: false,
    };
    if (meta.native) message.native = meta.native;
    const response: Response = {
      message,
      usage: this.usage,
      stopReason: meta.stopReason ?? (toolCalls.length > 0 ? "tool-calls" : "stop"),
      model: meta.model,
      provider: meta.provider,
    };
    if (meta.rawStopReason !== undefined) response.rawStopReason = meta.rawStopReason;
    if (meta.id !== undefined) response.id = meta.id;
    if (this.reasoning) response.reasoning = this.reasoning;
    return response;
  }
}

/**
 * Parses tool-call argument text the way every adapter must: an object stays an object; anything else
 * (malformed or truncated JSON, an array, a string) becomes `{}`, with the text kept in `argumentsText` by
 * the caller. Never throws.
 */
export function parseToolArguments(text: string): Record<string, unknown> {
  return toolArgumentsObject(text) ?? {};
}

/**
 * {@link parseToolArguments}, telling the cases apart: the object, `{}` for empty text, `undefined` for text
 * that is not an object (the caller keeps `{}` and the text). Never throws.
 */
export function toolArgumentsObject(text: string): Record<string, unknown> | undefined {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {
    // Not JSON: not an object.
  }
  return undefined;
}
