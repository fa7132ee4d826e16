/**
 * Tool calls as a stream sends them, for every stream assembler: opened under the wire's own key (a block
 * index, a `tool_calls[].index`, an `output_index`), started once their id and name are known, their
 * argument text sent in pieces, ended once — and the calls still open at the end closed from the final
 * response ({@link endToolCallsFrom}).
 *
 * @module
 */
import type { ToolCall } from "../core/message.ts";
import type { StreamEvent } from "../core/stream-event.ts";
import { PieceBuffer } from "./piece-buffer.ts";

/** One tool call being streamed, as {@link ToolCallTracker} keeps it. */
export interface StreamedToolCall {
  /**
   * Its place in the final message's `toolCalls`, the `index` of its events: given when it starts (calls
   * take positions in the order they start), undefined before.
   */
  position?: number;
  /** The id its events carry: set by the assembler before the start (the wire's, or a fallback). */
  id: string;
  /** The tool's name ("" until the wire gave it). */
  name: string;
  ended: boolean;
  /** The argument text received so far (held until the call starts, then sent as it arrives). */
  readonly arguments: PieceBuffer;
}

/**
 * The tool calls of one streamed answer.
 *
 * - {@link open} a call (under its wire key, if it has one); {@link start} it once its id and name are
 *   known: `tool-call-start`, then the argument text that arrived before as one `tool-call-delta`;
 * - {@link append} argument pieces: held before the start, sent after it (a piece that follows a delta of
 *   the same call in `out`, from the same network read, is appended to that event), ignored after the end;
 * - {@link end} a call once, with its final `ToolCall`.
 *
 * A call that is never started (a server tool's input, say) only gathers its argument text: it sends no
 * events and takes no position.
 */
export class ToolCallTracker<K = number> {
  /** The started calls, by position. */
  readonly started: StreamedToolCall[] = [];
  readonly #byKey = new Map<K, StreamedToolCall>();

  /** The call opened under `key`, if any. */
  get(key: K): StreamedToolCall | undefined {
    return this.#byKey.get(key);
  }

  /** Opens a new call, under `key` when given (a later call under the same key replaces it there). */
  open(key?: K): StreamedToolCall {
    const call: StreamedToolCall = {
      id: "",
      name: "",
      ended: false,
      arguments: new PieceBuffer(),
    };
    if (key !== undefined) this.#byKey.set(key, call);
    return call;
  }

  /** Starts `call` (once): it takes the next position; the arguments held so far follow as one delta. */
  start(call: StreamedToolCall, out: StreamEvent[]): void {
    if (call.position !== undefined) return;
    const index = this.started.push(call) - 1;
    call.position = index;
    out.push({ type: "tool-call-start", index, id: call.id, name: call.name });
    const held = call.arguments.text();
    if (held !== "") out.push({ type: "tool-call-delta", index, id: call.id, argumentsDelta: held });
  }

  /** Adds a piece of `call`'s argument text, sent as a delta while the call is started and not ended. */
  append(call: StreamedToolCall, piece: string, out: StreamEvent[]): void {
    if (piece === "" || call.ended) return;
    call.arguments.push(piece);
    const index = call.position;
    if (index === undefined) return;
    const last = out[out.length - 1];
    if (last?.type === "tool-call-delta" && last.index === index) last.argumentsDelta += piece;
    else out.push({ type: "tool-call-delta", index, id: call.id, argumentsDelta: piece });
  }

  /** Ends a started `call` (once) with its final `toolCall`. */
  end(call: StreamedToolCall, toolCall: ToolCall, out: StreamEvent[]): void {
    if (call.position === undefined || call.ended) return;
    call.ended = true;
    out.push({ type: "tool-call-end", index: call.position, toolCall });
  }
}

/**
 * Closes an answer's calls from `toolCalls`, the final response's (position by position): each one not
 * ended yet is ended with its final value — after a start carrying its whole argument text when it never
 * started.
 */
export function endToolCallsFrom(
  tracker: ToolCallTracker<unknown>,
  toolCalls: readonly ToolCall[],
  out: StreamEvent[],
): void {
  toolCalls.forEach((toolCall, position) => {
    let call = tracker.started[position];
    if (call === undefined) {
      call = tracker.open();
      call.id = toolCall.id;
      call.name = toolCall.name;
      call.arguments.push(toolCall.argumentsText ?? "");
      tracker.start(call, out);
    }
    tracker.end(call, toolCall, out);
  });
}

/**
 * A tool call from what the wire names it — id, name and its input as parsed — the one way the final
 * message and the stream's `tool-call-end` build it: an input that is not an object is `{}`;
 * `argumentsText`, when given, is the streamed text that did not parse.
 */
export function toolCallFrom(id: unknown, name: unknown, input: unknown, argumentsText?: string): ToolCall {
  const call: ToolCall = {
    id: String(id),
    name: String(name),
    arguments:
      typeof input === "object" && input !== null && !Array.isArray(input)
        ? (input as ToolCall["arguments"])
        : {},
  };
  if (argumentsText !== undefined) call.argumentsText = argumentsText;
  return call;
}
