import { ProviderError } from "../../core/provider-error.ts";
import type { Response } from "../../core/response.ts";
import type { StreamEvent } from "../../core/stream-event.ts";
import { type AwsEventFrame, frameInfo } from "../../wire/aws-event-stream.ts";
import { deliverBatches } from "../deliver-batches.ts";
import { base64ToBytes, bytesToBase64 } from "./base64.ts";
import type {
  ConverseBlock,
  ConverseStreamEvents,
  ConverseToolResultContent,
  ConverseUsage,
} from "./bedrock-converse-wire.ts";
import { bedrockStreamError } from "./bedrock-stream-error.ts";
import { mapBedrockConverseUsage } from "./map-bedrock-converse-usage.ts";
import {
  type BedrockConverseResponseContext,
  converseResponseFromBlocks,
} from "./parse-bedrock-converse-response.ts";

/**
 * A block's text pieces, kept compact until the block ends: every 256 pieces are joined into one string
 * (`text += piece` would keep a rope of one node per delta).
 */
class Pieces {
  private chunks: string[] = [];
  private parts: string[] = [];
  push(piece: string): void {
    this.parts.push(piece);
    if (this.parts.length === 256) {
      this.chunks.push(this.parts.join(""));
      this.parts = [];
    }
  }
  join(): string {
    if (this.parts.length > 0) {
      this.chunks.push(this.parts.join(""));
      this.parts = [];
    }
    if (this.chunks.length > 1) this.chunks = [this.chunks.join("")];
    return this.chunks[0] ?? "";
  }
}

type EntryKind = "text" | "reasoning" | "redacted" | "toolUse" | "toolResult";

/** One content block being assembled. */
interface Entry {
  kind: EntryKind;
  /** The block as it will appear in `native.blocks`; filled in when the entry closes. */
  block: ConverseBlock;
  /** Text, reasoning text or tool input JSON. */
  pieces: Pieces;
  signature: string | undefined;
  redacted: Uint8Array[] | undefined;
  resultContent: ConverseToolResultContent[] | undefined;
  /** Position in `toolCalls`, for client `toolUse` blocks. */
  toolIndex: number | undefined;
  closed: boolean;
}

const utf8 = new TextDecoder();

/**
 * The ConverseStream state machine: one event in (its `:event-type` and parsed payload), neutral events
 * out, and at the end the same `Response` that `parseBedrockConverseResponse` builds from the `Converse`
 * JSON — `native.blocks` included, signatures byte for byte.
 *
 * Blocks are keyed by `contentBlockIndex` and kept in emission order:
 * - text and reasoning blocks get no `contentBlockStart`: their first delta opens them;
 * - `reasoningContent.text` pieces are joined, the signature (a separate, final delta) is appended, and
 *   `redactedContent` (base64) opens a redacted block;
 * - `toolUse` blocks open with `contentBlockStart` (id, name, and `type` for server tools) and their
 *   `input` pieces are joined and parsed once at `contentBlockStop`; malformed JSON (a `max_tokens` stop
 *   can cut it) gives `{}` with the text kept in `argumentsText`; server tool calls are kept in
 *   `native.blocks` but are not tool calls for the caller;
 * - `messageStop` carries the stop reason, `metadata` the usage.
 *
 * The stream is complete after `metadata` (or at the end of the body once `messageStop` was seen).
 */
export class BedrockConverseStreamAssembler {
  /** True once `messageStop` arrived. */
  stopped = false;
  /** True once `metadata` arrived after `messageStop`: nothing more is expected. */
  ended = false;
  /** True once any content event was produced (for `ProviderError.partialOutput`). */
  producedOutput = false;
  /** Every block, in emission order. */
  private readonly entries: Entry[] = [];
  /** The open (or last) entry per `contentBlockIndex`. */
  private readonly current = new Map<number, Entry>();
  private readonly malformedInput = new Map<ConverseBlock, string>();
  private toolCount = 0;
  private usage: ConverseUsage | undefined;
  private stopReason: string | null | undefined;
  private readonly context: BedrockConverseResponseContext;

  constructor(context: BedrockConverseResponseContext) {
    this.context = context;
  }

  /**
   * Applies one frame of the event stream. An exception frame (`:message-type: exception` or `error`, or
   * an `…Exception` event) throws its `ProviderError`; a payload that is not JSON is `invalid_response`.
   */
  applyFrame(frame: AwsEventFrame, out: StreamEvent[]): void {
    const { messageType, eventType } = frameInfo(frame);
    if ((messageType !== undefined && messageType !== "event") || eventType?.endsWith("Exception")) {
      throw bedrockStreamError(frame, {
        provider: this.context.provider,
        model: this.context.model,
        partialOutput: this.producedOutput,
      });
    }
    if (eventType === undefined) return;
    let payload: unknown;
    const text = utf8.decode(frame.payload);
    try {
      payload = JSON.parse(text);
    } catch (cause) {
      throw new ProviderError({
        kind: "invalid_response",
        message: `Bedrock ConverseStream sent a ${eventType} event that is not JSON`,
        provider: this.context.provider,
        model: this.context.model,
        upstreamBody: text,
        partialOutput: this.producedOutput,
        cause,
      });
    }
    this.apply(eventType, payload, out);
  }

  /**
   * Applies one decoded event (`:event-type` and payload; vercel's chunks.txt lines are
   * `{ [eventType]: payload }`), pushing the neutral events it produces onto `out`. Throws `ProviderError`.
   */
  apply(eventType: string, payload: unknown, out: StreamEvent[]): void {
    if (typeof payload !== "object" || payload === null) throw this.invalid(eventType);
    switch (eventType) {
      case "contentBlockDelta":
        this.delta(payload as ConverseStreamEvents["contentBlockDelta"], out);
        return;
      case "contentBlockStart":
        this.start(payload as ConverseStreamEvents["contentBlockStart"], out);
        return;
      case "contentBlockStop": {
        const index = (payload as ConverseStreamEvents["contentBlockStop"]).contentBlockIndex;
        if (typeof index !== "number") throw this.invalid(eventType);
        const entry = this.current.get(index);
        if (entry) this.close(entry, out);
        return;
      }
      case "messageStop": {
        for (const entry of this.entries) if (!entry.closed) this.close(entry, out);
        this.stopReason = (payload as ConverseStreamEvents["messageStop"]).stopReason;
        this.stopped = true;
        return;
      }
      case "metadata": {
        const usage = (payload as ConverseStreamEvents["metadata"]).usage;
        if (usage) {
          this.usage = usage;
          out.push({ type: "usage", usage: mapBedrockConverseUsage(usage) });
        }
        if (this.stopped) this.ended = true;
        return;
      }
      default:
        // messageStart, and event types this version does not know.
        return;
    }
  }

  /** The final response. Call after `messageStop`. */
  finish(): Response {
    const blocks: ConverseBlock[] = [];
    for (const entry of this.entries) {
      if (!entry.closed) this.seal(entry);
      blocks.push(entry.block);
    }
    return converseResponseFromBlocks(blocks, {
      stopReason: this.stopReason,
      usage: mapBedrockConverseUsage(this.usage),
      context: this.context,
      malformedInput: this.malformedInput,
    });
  }

  /** The error for a stream that ended before `messageStop`. */
  truncated(): ProviderError {
    return new ProviderError({
      kind: "truncated",
      message: "Bedrock ConverseStream ended before messageStop",
      provider: this.context.provider,
      model: this.context.model,
      partialOutput: this.producedOutput,
    });
  }

  private start(event: ConverseStreamEvents["contentBlockStart"], out: StreamEvent[]): void {
    const index = event.contentBlockIndex;
    if (typeof index !== "number") throw this.invalid("contentBlockStart");
    const start = event.start;
    if (typeof start?.toolUse === "object" && start.toolUse !== null) {
      const call = start.toolUse;
      if (typeof call.toolUseId !== "string" || typeof call.name !== "string") {
        throw this.invalid("contentBlockStart");
      }
      const entry = this.open(index, "toolUse", {
        toolUse: { ...call, toolUseId: call.toolUseId, name: call.name, input: {} },
      });
      if (call.type === undefined || call.type === "tool_use") {
        entry.toolIndex = this.toolCount++;
        this.emit(out, {
          type: "tool-call-start",
          index: entry.toolIndex,
          id: call.toolUseId,
          name: call.name,
        });
      }
      return;
    }
    if (typeof start?.toolResult === "object" && start.toolResult !== null) {
      const entry = this.open(index, "toolResult", {
        toolResult: { ...start.toolResult, toolUseId: String(start.toolResult.toolUseId), content: [] },
      });
      entry.resultContent = [];
    }
    // Other starts (images, documents, block kinds this version does not know) carry nothing to keep.
  }

  private delta(event: ConverseStreamEvents["contentBlockDelta"], out: StreamEvent[]): void {
    const index = event.contentBlockIndex;
    const delta = event.delta;
    if (typeof index !== "number" || typeof delta !== "object" || delta === null) {
      throw this.invalid("contentBlockDelta");
    }
    if (typeof delta.text === "string") {
      const entry = this.entryFor(index, "text", delta.text === "");
      if (entry === undefined) return;
      entry.pieces.push(delta.text);
      if (delta.text !== "") this.emitText(out, "text-delta", delta.text);
      return;
    }
    const reasoning = delta.reasoningContent;
    if (typeof reasoning === "object" && reasoning !== null) {
      if (typeof reasoning.redactedContent === "string") {
        const entry = this.entryFor(index, "redacted", false)!;
        let bytes: Uint8Array;
        try {
          bytes = base64ToBytes(reasoning.redactedContent);
        } catch (cause) {
          throw this.invalid("contentBlockDelta (redactedContent is not base64)", cause);
        }
        if (entry.redacted === undefined) entry.redacted = [bytes];
        else entry.redacted.push(bytes);
        this.producedOutput = true;
        return;
      }
      if (typeof reasoning.text === "string") {
        const entry = this.entryFor(index, "reasoning", reasoning.text === "");
        if (entry === undefined) return;
        entry.pieces.push(reasoning.text);
        if (reasoning.text !== "") this.emitText(out, "reasoning-delta", reasoning.text);
      }
      if (typeof reasoning.signature === "string") {
        const entry = this.entryFor(index, "reasoning", false)!;
        entry.signature = (entry.signature ?? "") + reasoning.signature;
      }
      return;
    }
    const call = delta.toolUse;
    if (typeof call === "object" && call !== null) {
      const entry = this.current.get(index);
      if (entry?.kind !== "toolUse" || entry.closed)
        throw this.invalid("contentBlockDelta (toolUse without its start)");
      const piece = typeof call.input === "string" ? call.input : "";
      entry.pieces.push(piece);
      if (entry.toolIndex !== undefined && piece !== "") {
        this.producedOutput = true;
        const last = out[out.length - 1];
        // Pieces of one call from the same read become one event, as text does.
        if (last?.type === "tool-call-delta" && last.index === entry.toolIndex) last.argumentsDelta += piece;
        else
          out.push({
            type: "tool-call-delta",
            index: entry.toolIndex,
            id: String(entry.block.toolUse!.toolUseId),
            argumentsDelta: piece,
          });
      }
      return;
    }
    if (Array.isArray(delta.toolResult)) {
      const entry = this.current.get(index);
      if (entry?.kind !== "toolResult" || entry.closed) {
        throw this.invalid("contentBlockDelta (toolResult without its start)");
      }
      entry.resultContent!.push(...delta.toolResult);
      return;
    }
    // Citations and delta kinds this version does not know.
  }

  /**
   * The open entry of `kind` at `index`, or a new one. A delta of another kind than the block open at its
   * index starts a new block there (or is skipped when it is empty), so nothing is mixed or lost.
   */
  private entryFor(index: number, kind: EntryKind, empty: boolean): Entry | undefined {
    const entry = this.current.get(index);
    if (entry !== undefined && !entry.closed && entry.kind === kind) return entry;
    if (empty && entry !== undefined && !entry.closed) return undefined;
    return this.open(index, kind, {});
  }

  private open(index: number, kind: EntryKind, block: ConverseBlock): Entry {
    const entry: Entry = {
      kind,
      block,
      pieces: new Pieces(),
      signature: undefined,
      redacted: undefined,
      resultContent: undefined,
      toolIndex: undefined,
      closed: false,
    };
    const previous = this.current.get(index);
    if (previous !== undefined && !previous.closed) this.seal(previous);
    this.current.set(index, entry);
    this.entries.push(entry);
    return entry;
  }

  /** Closes an entry: its block gets its final content; a client tool call ends. */
  private close(entry: Entry, out: StreamEvent[]): void {
    if (entry.closed) return;
    this.seal(entry);
    if (entry.toolIndex !== undefined) {
      const call = entry.block.toolUse!;
      const toolCall = { id: call.toolUseId, name: call.name, arguments: call.input };
      const raw = this.malformedInput.get(entry.block);
      this.emit(out, {
        type: "tool-call-end",
        index: entry.toolIndex,
        toolCall: raw === undefined ? toolCall : { ...toolCall, argumentsText: raw },
      });
    }
  }

  /** Fills in an entry's block from what arrived. */
  private seal(entry: Entry): void {
    entry.closed = true;
    switch (entry.kind) {
      case "text":
        entry.block.text = entry.pieces.join();
        return;
      case "reasoning": {
        const reasoningText: { text: string; signature?: string } = { text: entry.pieces.join() };
        if (entry.signature !== undefined) reasoningText.signature = entry.signature;
        entry.block.reasoningContent = { reasoningText };
        return;
      }
      case "redacted": {
        const parts = entry.redacted ?? [];
        let bytes = parts[0] ?? new Uint8Array(0);
        if (parts.length > 1) {
          bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
          let at = 0;
          for (const part of parts) {
            bytes.set(part, at);
            at += part.length;
          }
        }
        entry.block.reasoningContent = { redactedContent: bytesToBase64(bytes) };
        return;
      }
      case "toolUse": {
        const json = entry.pieces.join();
        const call = entry.block.toolUse!;
        if (json.trim() === "") {
          call.input = {};
          return;
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(json);
        } catch {
          parsed = undefined;
        }
        if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
          call.input = parsed as Record<string, unknown>;
        } else {
          call.input = {};
          this.malformedInput.set(entry.block, json);
        }
        return;
      }
      case "toolResult":
        entry.block.toolResult!.content = entry.resultContent ?? [];
        return;
    }
  }

  private emit(out: StreamEvent[], event: StreamEvent): void {
    this.producedOutput = true;
    out.push(event);
  }

  /** Text and reasoning pieces: one that follows a piece of the same kind in `out` is appended to it. */
  private emitText(out: StreamEvent[], type: "text-delta" | "reasoning-delta", text: string): void {
    this.producedOutput = true;
    const last = out[out.length - 1];
    if (last !== undefined && last.type === type) last.text += text;
    else out.push({ type, text });
  }

  private invalid(what: string, cause?: unknown): ProviderError {
    return new ProviderError({
      kind: "invalid_response",
      message: `Bedrock ConverseStream sent a malformed ${what} event`,
      provider: this.context.provider,
      model: this.context.model,
      partialOutput: this.producedOutput,
      cause,
    });
  }
}

/**
 * Assembles a ConverseStream body, given as the frame batches of `readAwsEventStream` (or single frames):
 * neutral events as they arrive (the deltas of one read merged), then `done` with the final response.
 * An exception frame throws its `ProviderError` (after the output of the frames before it);
 * a stream that ends before `messageStop` throws `truncated`, never a silent success.
 */
export function assembleBedrockConverseStream(
  frames: AsyncIterable<AwsEventFrame | readonly AwsEventFrame[]>,
  context: BedrockConverseResponseContext,
): AsyncGenerator<StreamEvent, void, undefined> {
  const assembler = new BedrockConverseStreamAssembler(context);
  return deliverBatches(frames, assembler, (frame, out) => assembler.applyFrame(frame, out));
}
