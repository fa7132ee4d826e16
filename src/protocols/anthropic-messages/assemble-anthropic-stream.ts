import { ProviderError } from "../../core/provider-error.ts";
import type { Response } from "../../core/response.ts";
import type { StreamEvent } from "../../core/stream-event.ts";
import type { SseEvent } from "../../wire/sse.ts";
import { deliverBatches } from "../deliver-batches.ts";
import type { AnthropicBlock, AnthropicStreamEvent, AnthropicUsage } from "./anthropic-wire.ts";
import { mapAnthropicError } from "./map-anthropic-error.ts";
import { mapAnthropicUsage, mergeAnthropicUsage } from "./map-anthropic-usage.ts";
import { type AnthropicResponseContext, anthropicResponseFromBlocks } from "./parse-anthropic-response.ts";

/**
 * One block's deltas, kept compact until the block ends: every 256 pieces are joined into one flat string,
 * and the chunks are joined once at the end. `block.text += delta` keeps a V8 rope instead — a ~20-byte
 * node plus a string object per delta, ~7 bytes per character of a typical text stream.
 */
class PieceBuffer {
  readonly field: "text" | "thinking" | "json";
  private chunks: string[] = [];
  private parts: string[] = [];
  constructor(field: "text" | "thinking" | "json") {
    this.field = field;
  }
  push(piece: string): void {
    this.parts.push(piece);
    if (this.parts.length === 256) {
      this.chunks.push(this.parts.join(""));
      this.parts = [];
    }
  }
  join(): string {
    if (this.parts.length > 0) this.chunks.push(this.parts.join(""));
    return this.chunks.length === 1 ? this.chunks[0]! : this.chunks.join("");
  }
}

/**
 * The Messages stream state machine: one parsed event in, neutral events out, and at the end the same
 * `Response` that `parseAnthropicResponse` builds from the non-streaming JSON — `native.blocks` included,
 * signatures byte for byte.
 *
 * Blocks are rebuilt keyed by the event `index`, in emission order, starting from the block object of
 * `content_block_start` so every field the API sent is kept (server tool blocks it does not know too):
 * - `text_delta` / `thinking_delta` append; a `signature_delta` is appended to the signature, not
 *   substituted (seed 004: streamed signatures were lost), so a signature sent in pieces survives;
 * - `redacted_thinking` carries its `data` on `content_block_start` and has no deltas;
 * - `input_json_delta` pieces are joined and parsed once at `content_block_stop`; malformed JSON (a
 *   `max_tokens` stop can cut it) gives `{}` with the text kept in `argumentsText`;
 * - `message_delta` usage overrides `message_start` usage field by field;
 * - an `error` event is a `ProviderError` (`overloaded_error` → `overloaded`).
 *
 * Shared by the first-party SSE stream and Bedrock's InvokeModelWithResponseStream chunks.
 */
export class AnthropicStreamAssembler {
  /** True once `message_stop` arrived. */
  stopped = false;
  /** The same as `stopped`: nothing comes after `message_stop`. */
  get ended(): boolean {
    return this.stopped;
  }
  /** True once any content event was produced (for `ProviderError.partialOutput`). */
  producedOutput = false;
  private readonly blocks: (AnthropicBlock | undefined)[] = [];
  /** Joined `input_json_delta` text per block index; undefined for blocks that take none. */
  private readonly inputJson: (string | undefined)[] = [];
  /** Position in `toolCalls` per block index, for client `tool_use` blocks. */
  private readonly toolIndex: (number | undefined)[] = [];
  private readonly malformedInput = new Map<AnthropicBlock, string>();
  /** Whether each block index has been finished (content_block_stop or message_stop). */
  private readonly closed: boolean[] = [];
  private toolCount = 0;
  /** Deltas not yet joined into their block, per block index. */
  private readonly pending: (PieceBuffer | undefined)[] = [];
  private id: string | undefined;
  private model: string | undefined;
  private usage: AnthropicUsage = {};
  private stopReason: string | null | undefined;

  private readonly context: AnthropicResponseContext;

  constructor(context: AnthropicResponseContext) {
    this.context = context;
  }

  /** Applies one event, pushing the neutral events it produces onto `out`. Throws `ProviderError`. */
  apply(event: AnthropicStreamEvent, out: StreamEvent[]): void {
    switch (event.type) {
      case "content_block_delta":
        this.delta(event.index, event.delta, out);
        return;
      case "content_block_start":
        this.start(event.index, event.content_block, out);
        return;
      case "content_block_stop":
        this.stop(event.index, out);
        return;
      case "message_start": {
        const message = event.message ?? { content: [] };
        this.id = message.id;
        this.model = message.model;
        this.usage = message.usage ?? {};
        if (message.stop_reason) this.stopReason = message.stop_reason;
        out.push({ type: "usage", usage: mapAnthropicUsage(this.usage) });
        // Programmatic tool calling sends whole blocks inside message_start, then message_stop.
        if (Array.isArray(message.content)) {
          message.content.forEach((block, index) => {
            this.start(index, block, out);
            this.stop(index, out);
          });
        }
        return;
      }
      case "message_delta":
        if (event.delta && "stop_reason" in event.delta) this.stopReason = event.delta.stop_reason;
        if (event.usage) {
          this.usage = mergeAnthropicUsage(this.usage, event.usage);
          out.push({ type: "usage", usage: mapAnthropicUsage(this.usage) });
        }
        return;
      case "message_stop":
        // A max_tokens stop can leave a block without its content_block_stop: finish it here, so its
        // argument text is kept and its tool-call-end event is sent.
        this.blocks.forEach((block, index) => {
          if (block !== undefined && !this.closed[index]) this.stop(index, out);
        });
        this.stopped = true;
        return;
      case "error": {
        const info = mapAnthropicError(undefined, event);
        throw new ProviderError({
          kind: info.kind,
          message: info.message,
          code: info.code,
          requestId: info.requestId,
          provider: this.context.provider,
          model: this.context.model,
          upstreamBody: JSON.stringify(event),
          partialOutput: this.producedOutput,
        });
      }
      default:
        // ping, and event types this version does not know.
        return;
    }
  }

  /** The final response. Call after `message_stop`. */
  finish(): Response {
    this.blocks.forEach((block, index) => {
      if (block !== undefined) this.joinPending(index, block);
    });
    const blocks: AnthropicBlock[] = [];
    for (const block of this.blocks) if (block !== undefined) blocks.push(block);
    return anthropicResponseFromBlocks(blocks, {
      id: this.id,
      model: this.model,
      stopReason: this.stopReason,
      usage: mapAnthropicUsage(this.usage),
      context: this.context,
      malformedInput: this.malformedInput,
    });
  }

  /** The error for a stream that ended before `message_stop`. */
  truncated(): ProviderError {
    return new ProviderError({
      kind: "truncated",
      message: "Anthropic stream ended before message_stop",
      provider: this.context.provider,
      model: this.context.model,
      partialOutput: this.producedOutput,
    });
  }

  private start(index: number, block: AnthropicBlock, out: StreamEvent[]): void {
    if (typeof index !== "number" || typeof block !== "object" || block === null)
      throw this.invalid("content_block_start");
    this.blocks[index] = block;
    switch (block.type) {
      case "text":
        if (typeof block.text !== "string") block.text = "";
        else if (block.text !== "") this.emit(out, { type: "text-delta", text: block.text });
        return;
      case "thinking":
        if (typeof block.thinking !== "string") block.thinking = "";
        else if (block.thinking !== "") this.emit(out, { type: "reasoning-delta", text: block.thinking });
        return;
      case "tool_use": {
        const position = this.toolCount++;
        this.toolIndex[index] = position;
        this.inputJson[index] = "";
        this.emit(out, {
          type: "tool-call-start",
          index: position,
          id: String(block.id),
          name: String(block.name),
        });
        return;
      }
      default:
        // server_tool_use, mcp_tool_use and the like stream their input too; other blocks arrive whole.
        if ("input" in block) this.inputJson[index] = "";
    }
  }

  private delta(index: number, delta: { type: string; [field: string]: unknown }, out: StreamEvent[]): void {
    const block = this.blocks[index];
    if (block === undefined || typeof delta !== "object" || delta === null)
      throw this.invalid("content_block_delta");
    switch (delta.type) {
      case "text_delta": {
        const text = String(delta.text ?? "");
        this.pieces(index, block, "text").push(text);
        if (text !== "") this.emitText(out, "text-delta", text);
        return;
      }
      case "thinking_delta": {
        const text = String(delta.thinking ?? "");
        this.pieces(index, block, "thinking").push(text);
        if (text !== "") this.emitText(out, "reasoning-delta", text);
        return;
      }
      case "signature_delta":
        block.signature =
          (typeof block.signature === "string" ? block.signature : "") + String(delta.signature ?? "");
        return;
      case "input_json_delta": {
        const piece = String(delta.partial_json ?? "");
        this.pieces(index, block, "json").push(piece);
        const position = this.toolIndex[index];
        if (position !== undefined && piece !== "") {
          this.producedOutput = true;
          const last = out[out.length - 1];
          // Pieces of one call from the same read become one event, as text does.
          if (last?.type === "tool-call-delta" && last.index === position) last.argumentsDelta += piece;
          else
            out.push({
              type: "tool-call-delta",
              index: position,
              id: String(block.id),
              argumentsDelta: piece,
            });
        }
        return;
      }
      case "citations_delta":
        if (!Array.isArray(block.citations)) block.citations = [];
        (block.citations as unknown[]).push(delta.citation);
        return;
      default:
        return;
    }
  }

  private stop(index: number, out: StreamEvent[]): void {
    const block = this.blocks[index];
    if (block === undefined) throw this.invalid("content_block_stop");
    if (this.closed[index]) return;
    this.closed[index] = true;
    this.joinPending(index, block);
    const json = this.inputJson[index];
    this.inputJson[index] = undefined; // parsed below; the rope of pieces need not live until finish()
    if (json !== undefined) {
      if (json.trim() !== "") {
        let parsed: unknown;
        try {
          parsed = JSON.parse(json);
        } catch {
          parsed = undefined;
        }
        if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) block.input = parsed;
        else {
          block.input = {};
          this.malformedInput.set(block, json);
        }
      } else if (typeof block.input !== "object" || block.input === null) {
        block.input = {};
      }
    }
    const position = this.toolIndex[index];
    if (position !== undefined) {
      const input = block.input as Record<string, unknown>;
      const toolCall = { id: String(block.id), name: String(block.name), arguments: input };
      const raw = this.malformedInput.get(block);
      this.emit(out, {
        type: "tool-call-end",
        index: position,
        toolCall: raw === undefined ? toolCall : { ...toolCall, argumentsText: raw },
      });
    }
  }

  private pieces(index: number, block: AnthropicBlock, field: PieceBuffer["field"]): PieceBuffer {
    const pending = this.pending[index];
    if (pending?.field === field) return pending;
    this.joinPending(index, block);
    const created = new PieceBuffer(field);
    this.pending[index] = created;
    return created;
  }

  /** Appends the block's pending deltas to the field they belong to. */
  private joinPending(index: number, block: AnthropicBlock): void {
    const pending = this.pending[index];
    if (pending === undefined) return;
    this.pending[index] = undefined;
    const joined = pending.join();
    if (pending.field === "json") this.inputJson[index] = (this.inputJson[index] ?? "") + joined;
    else
      block[pending.field] = (typeof block[pending.field] === "string" ? block[pending.field] : "") + joined;
  }

  private emit(out: StreamEvent[], event: StreamEvent): void {
    this.producedOutput = true;
    out.push(event);
  }

  /**
   * Text and reasoning pieces go through here: one that directly follows a piece of the same kind in `out`
   * (the same network read) is appended to it instead of becoming another event object.
   */
  private emitText(out: StreamEvent[], type: "text-delta" | "reasoning-delta", text: string): void {
    this.producedOutput = true;
    const last = out[out.length - 1];
    if (last !== undefined && last.type === type) last.text += text;
    else out.push({ type, text });
  }

  private invalid(what: string): ProviderError {
    return new ProviderError({
      kind: "invalid_response",
      message: `Anthropic stream sent a malformed ${what} event`,
      provider: this.context.provider,
      model: this.context.model,
      partialOutput: this.producedOutput,
    });
  }
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
    let event: AnthropicStreamEvent;
    try {
      event = JSON.parse(sse.data) as AnthropicStreamEvent;
    } catch (cause) {
      throw new ProviderError({
        kind: "invalid_response",
        message: `Anthropic stream sent an event that is not JSON (${sse.event ?? "message"})`,
        provider: context.provider,
        model: context.model,
        upstreamBody: sse.data,
        partialOutput: assembler.producedOutput,
        cause,
      });
    }
    if (typeof event === "object" && event !== null) assembler.apply(event, out);
  });
}
