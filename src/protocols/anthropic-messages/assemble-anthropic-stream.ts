import { toolArgumentsObject } from "../../core/collect-stream.ts";
import { ProviderError } from "../../core/provider-error.ts";
import type { Response } from "../../core/response.ts";
import type { StreamEvent } from "../../core/stream-event.ts";
import type { SseEvent } from "../../wire/sse.ts";
import { deliverBatches, eventObject, malformedEvent, pushText } from "../deliver-batches.ts";
import { JSON_INDEX, JSON_STRING, jsonStringValue } from "../json-shape.ts";
import { mergeUnknownDelta } from "../merge-unknown-delta.ts";
import { PieceBuffer } from "../piece-buffer.ts";
import { ToolCallTracker, toolCallFrom } from "../tool-call-tracker.ts";
import type { AnthropicBlock, AnthropicMessage, AnthropicStreamEvent } from "./anthropic-wire.ts";
import { mapAnthropicError } from "./map-anthropic-error.ts";
import { mapAnthropicUsage, mergeAnthropicUsage } from "./map-anthropic-usage.ts";
import { type AnthropicResponseContext, parseAnthropicResponse } from "./parse-anthropic-response.ts";

/** A `content_block_delta` event as the API writes it (see `applyData`): index, delta type and member, contents. */
const DELTA_EVENT = new RegExp(
  `^\\{"type":"content_block_delta","index":${JSON_INDEX},"delta":\\{"type":"(text_delta","text|thinking_delta","thinking|input_json_delta","partial_json)":"${JSON_STRING}"\\}\\}$`,
);

/**
 * The Messages stream state machine: one parsed event in, neutral events out, and at the end the same
 * `Response` that `parseAnthropicResponse` builds from the non-streaming JSON — `native.blocks` included,
 * signatures byte for byte.
 *
 * Blocks are rebuilt keyed by the event `index`, in emission order, starting from the block object of
 * `content_block_start` so every field the API sent is kept (server tool blocks it does not know too):
 * - `text_delta` / `thinking_delta` append to the block's text / thinking (kept as pieces until the block
 *   ends: `PieceBuffer`);
 * - `redacted_thinking` carries its `data` on `content_block_start` and has no deltas;
 * - `input_json_delta` pieces are joined and parsed once at `content_block_stop` (`ToolCallTracker`);
 *   malformed JSON (a `max_tokens` stop can cut it) gives `{}` with the text kept in `argumentsText`;
 * - `signature_delta`, `citations_delta` and delta types this version does not know are merged into their
 *   block by the one rule of `mergeUnknownDelta`: the signature is appended, not substituted (seed 004:
 *   streamed signatures were lost), so a signature sent in pieces survives; a citation joins `citations`;
 *   a `compaction_delta`'s `content` fills the compaction block's `null`; a value it had to replace is
 *   listed in `Response.warnings`;
 * - `message_delta` usage overrides `message_start` usage field by field;
 * - an `error` event is a `ProviderError` (`overloaded_error` → `overloaded`).
 *
 * Shared by the first-party SSE stream and Bedrock's InvokeModelWithResponseStream chunks.
 */
export class AnthropicStreamAssembler {
  /** True once `message_stop` arrived. */
  stopped = false;
  /** The same as `stopped`: nothing comes after `message_stop`. */
  ended = false;
  /** The terminal event of a Messages stream. */
  readonly terminal = "message_stop";
  /** Who the response is from (`Response.provider`, `native.origin` and `native.model`). */
  readonly context: AnthropicResponseContext;
  /** By event index; sparse where no block started (`forEach` skips those indices). */
  readonly #blocks: AnthropicBlock[] = [];
  /** Whether each block index has been finished (content_block_stop or message_stop). */
  readonly #closed: boolean[] = [];
  /** The streamed text of text and thinking blocks, not yet written into the block, per block index. */
  readonly #pending: (PieceBuffer | undefined)[] = [];
  /** Blocks that take `input_json_delta` (client `tool_use` ones start: they are the tool calls), by index. */
  readonly #tools = new ToolCallTracker<number>();
  readonly #malformedInput = new Map<AnthropicBlock, string>();
  readonly #warnings: string[] = [];
  /** The message of `message_start` (id, model, usage), its stop reason and usage updated as they come. */
  // Stryker disable next-line ObjectLiteral,ArrayDeclaration: equivalent: finish() replaces `content` with the streamed blocks, and the other fields are read by name.
  #message: AnthropicMessage = { content: [] };

  constructor(context: AnthropicResponseContext) {
    this.context = context;
  }

  /** Applies one event, pushing the neutral events it produces onto `out`. Throws `ProviderError`. */
  apply(event: AnthropicStreamEvent, out: StreamEvent[]): void {
    switch (event.type) {
      case "content_block_delta":
        this.#delta(event.index, event.delta, out);
        return;
      case "content_block_start":
        this.#start(event.index, event.content_block, out);
        return;
      case "content_block_stop":
        this.#stop(event.index, out);
        return;
      case "message_start": {
        const message = event.message ?? { content: [] };
        this.#message = message;
        out.push({ type: "usage", usage: mapAnthropicUsage(message.usage) });
        // Programmatic tool calling sends whole blocks inside message_start, then message_stop.
        if (Array.isArray(message.content)) {
          message.content.forEach((block, index) => {
            this.#start(index, block, out);
            this.#stop(index, out);
          });
        }
        return;
      }
      case "message_delta":
        if (event.delta && "stop_reason" in event.delta) this.#message.stop_reason = event.delta.stop_reason;
        // A refusal's explanation: `Response.refusal` when the model wrote nothing.
        if (event.delta && "stop_details" in event.delta)
          this.#message.stop_details = event.delta.stop_details as AnthropicMessage["stop_details"];
        if (event.usage) {
          this.#message.usage = mergeAnthropicUsage(this.#message.usage ?? {}, event.usage);
          out.push({ type: "usage", usage: mapAnthropicUsage(this.#message.usage) });
        }
        return;
      case "message_stop":
        // A max_tokens stop can leave a block without its content_block_stop: finish it here, so its
        // argument text is kept and its tool-call-end event is sent (#stop leaves a stopped block as it is).
        this.#blocks.forEach((_block, index) => {
          this.#stop(index, out);
        });
        this.stopped = true;
        this.ended = true;
        return;
      case "error": {
        const info = mapAnthropicError(undefined, event);
        throw new ProviderError({
          ...info,
          provider: this.context.provider,
          model: this.context.model,
          upstreamBody: JSON.stringify(event),
        });
      }
      // Stryker disable next-line ConditionalExpression: equivalent: an empty default falls out of the switch, which returns too.
      default:
        // ping, and event types this version does not know.
        return;
    }
  }

  /** The final response. Call after `message_stop`. */
  finish(): Response {
    const blocks: AnthropicBlock[] = [];
    this.#blocks.forEach((block, index) => {
      this.#joinPending(index, block);
      blocks.push(block);
    });
    // The message as the whole answer has it: message_start's, with the content the stream carried.
    return parseAnthropicResponse({ ...this.#message, content: blocks }, this.context, {
      malformedInput: this.#malformedInput,
      warnings: this.#warnings,
    });
  }

  #start(index: number, block: AnthropicBlock, out: StreamEvent[]): void {
    if (typeof index !== "number" || typeof block !== "object" || block === null)
      throw malformedEvent(this.context, "content_block_start");
    this.#blocks[index] = block;
    switch (block.type) {
      case "text":
      case "thinking": {
        const text = block[block.type];
        if (typeof text === "string") sendText(out, block.type, text);
        this.#pending[index] = new PieceBuffer();
        return;
      }
      case "tool_use": {
        const call = this.#tools.open(index);
        call.id = String(block.id);
        call.name = String(block.name);
        this.#tools.start(call, out);
        return;
      }
      // Stryker disable next-line ConditionalExpression: equivalent, as the next line.
      default:
        // server_tool_use, mcp_tool_use and the like stream their input too (a call that never starts:
        // no events); other blocks arrive whole.
        // Stryker disable next-line ConditionalExpression,StringLiteral,CallExpression: equivalent on a stream that starts each index once: input_json_delta opens the call itself when none is open, and a call that never starts sends no events and is only read at its block's stop.
        if ("input" in block) this.#tools.open(index);
    }
  }

  #delta(index: number, delta: { type: string; [field: string]: unknown }, out: StreamEvent[]): void {
    const block = this.#blocks[index];
    if (block === undefined || typeof delta !== "object" || delta === null)
      throw malformedEvent(this.context, "content_block_delta");
    switch (delta.type) {
      case "text_delta":
      case "thinking_delta": {
        const field = delta.type === "text_delta" ? "text" : "thinking";
        const text = String(delta[field] ?? "");
        // A text block's text, a thinking block's thinking; the other field, should a block get it, merged.
        if (!this.#piece(index, field, text, out)) {
          this.#merge(index, block, delta);
          sendText(out, field, text);
        }
        return;
      }
      case "input_json_delta":
        this.#inputPiece(index, String(delta.partial_json ?? ""), out);
        return;
      case "citations_delta":
        // One `citation` per delta; the block holds them all as `citations`.
        this.#merge(index, block, { type: delta.type, citations: [delta.citation] });
        return;
      default:
        // signature_delta (appended to the signature: seed 004, streamed signatures were lost), and delta
        // types this version does not know (compaction_delta: its `content` onto the block's `null`).
        this.#merge(index, block, delta);
    }
  }

  /**
   * A piece of a text block's text or a thinking block's thinking (`field` names which): held, and sent
   * on as a delta. False, with nothing done, when block `index` is not of that type (or not started).
   */
  #piece(index: number, field: "text" | "thinking", text: string, out: StreamEvent[]): boolean {
    const pieces = this.#blocks[index]?.type === field ? this.#pending[index] : undefined;
    if (pieces === undefined) return false;
    pieces.push(text);
    sendText(out, field, text);
    return true;
  }

  /** A piece of a block's input JSON (`input_json_delta`). */
  #inputPiece(index: number, json: string, out: StreamEvent[]): void {
    this.#tools.append(this.#tools.get(index) ?? this.#tools.open(index), json, out);
  }

  /**
   * Applies a `content_block_delta` event read straight from its JSON text when it has the exact shape the
   * API writes — `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"…"}}`, or
   * `thinking_delta` / `thinking`, `input_json_delta` / `partial_json` — to a block started with that
   * type. True when applied; false, with nothing done, for anything else (the caller parses the event).
   */
  applyData(data: string, out: StreamEvent[]): boolean {
    const match = DELTA_EVENT.exec(data);
    if (match === null) return false;
    const index = Number(match[1]);
    const text = jsonStringValue(match[3]!);
    if (text === undefined) return false;
    // The delta type and member, told apart by their second letter: te(xt), th(inking), in(put_json).
    const kind = match[2]!.charCodeAt(1);
    if (kind !== 110) return this.#piece(index, kind === 101 ? "text" : "thinking", text, out);
    if (this.#blocks[index] === undefined) return false;
    this.#inputPiece(index, text, out);
    return true;
  }

  /** Merges a delta into its block by the rule of `mergeUnknownDelta`; what it replaced is a warning. */
  #merge(index: number, block: AnthropicBlock, delta: { type: string; [field: string]: unknown }): void {
    // The block's streamed text first, should the delta touch that field.
    if (block.type in delta) this.#joinPending(index, block);
    mergeUnknownDelta(block, delta, this.#warnings, `${block.type} block ${index}: ${delta.type}`);
  }

  #stop(index: number, out: StreamEvent[]): void {
    const block = this.#blocks[index];
    if (block === undefined) throw malformedEvent(this.context, "content_block_stop");
    if (this.#closed[index]) return;
    this.#closed[index] = true;
    // Stryker disable next-line CallExpression: equivalent on a stream that starts each index once: finish() joins every block's pieces too; joining here lets them go sooner.
    this.#joinPending(index, block);
    const call = this.#tools.get(index);
    if (call === undefined) return;
    // No input deltas (a block that came whole): its input stays as it came.
    const json = call.arguments.text();
    // Parsed below, for good: the text need not live until the end of the stream.
    // Stryker disable next-line CallExpression: equivalent: memory only; a stopped block is never stopped again (#closed), so the text is not read twice.
    call.arguments.clear();
    if (json !== "") {
      const input = toolArgumentsObject(json);
      block.input = input ?? {};
      if (input === undefined) this.#malformedInput.set(block, json);
    }
    this.#tools.end(
      call,
      toolCallFrom(block.id, block.name, block.input, this.#malformedInput.get(block)),
      out,
    );
  }

  /** Appends the block's pending deltas to the field they belong to. */
  #joinPending(index: number, block: AnthropicBlock): void {
    const pieces = this.#pending[index];
    if (pieces === undefined) return;
    this.#pending[index] = undefined;
    const field = block.type as "text" | "thinking";
    block[field] = (typeof block[field] === "string" ? block[field] : "") + pieces.text();
  }
}

/** Sends a piece of a text block's text or a thinking block's thinking on as a delta (none when empty). */
function sendText(out: StreamEvent[], field: "text" | "thinking", text: string): void {
  if (text !== "") pushText(out, field === "text" ? "text-delta" : "reasoning-delta", text);
}

/**
 * Assembles a Messages API SSE stream: neutral events as they arrive, then `done` with the final response.
 * Takes single events or the per-read batches of `readSseBatches` (one async step per network read, and
 * the deltas of one read merged into one event). Parses each event's JSON exactly once. A stream that
 * ends before `message_stop` throws a `truncated` `ProviderError`, never a silent success; bad JSON is
 * `invalid_response`.
 */
export function assembleAnthropicStream(
  events: AsyncIterable<SseEvent | readonly SseEvent[]>,
  context: AnthropicResponseContext,
): AsyncGenerator<StreamEvent, void, undefined> {
  const assembler = new AnthropicStreamAssembler(context);
  return deliverBatches(events, assembler, (sse, out) => {
    if (assembler.applyData(sse.data, out)) return;
    const event = eventObject<AnthropicStreamEvent>(sse.data, sse.event, context);
    if (event !== undefined) assembler.apply(event, out);
  });
}
