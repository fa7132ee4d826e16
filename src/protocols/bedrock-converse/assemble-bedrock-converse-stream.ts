import { toolArgumentsObject } from "../../core/collect-stream.ts";
import type { Response } from "../../core/response.ts";
import type { StreamEvent } from "../../core/stream-event.ts";
import { type AwsEventFrame, frameInfo } from "../../wire/aws-event-stream.ts";
import { deliverBatches, eventObject, malformedEvent, pushText } from "../deliver-batches.ts";
import { mergeUnknownDelta } from "../merge-unknown-delta.ts";
import { PieceBuffer } from "../piece-buffer.ts";
import { type StreamedToolCall, ToolCallTracker, toolCallFrom } from "../tool-call-tracker.ts";
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

type EntryKind = "text" | "reasoning" | "redacted" | "toolUse" | "toolResult" | "other";

/** One content block being assembled. */
interface Entry {
  kind: EntryKind;
  /** The block as it will appear in `native.blocks`; filled in when the entry closes. */
  block: ConverseBlock;
  /** Text or reasoning text. */
  pieces: PieceBuffer;
  signature: string | undefined;
  redacted: Uint8Array[] | undefined;
  resultContent: ConverseToolResultContent[] | undefined;
  /** A `toolUse` block's call (its input JSON; started when it is a client tool call). */
  call: StreamedToolCall | undefined;
  closed: boolean;
}

/** The members of `contentBlockDelta.delta` this assembler reads; any other is merged by `mergeUnknownDelta`. */
const KNOWN_DELTAS = new Set(["text", "reasoningContent", "toolUse", "toolResult"]);

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
 * - a `contentBlockStart` of a kind this version does not know opens a block holding it verbatim, and
 *   delta members it does not know are merged into that block by `mergeUnknownDelta`; one that arrives for
 *   a block of a known kind (where it has no place) is left out with a warning in `Response.warnings`;
 * - `messageStop` carries the stop reason, `metadata` the usage.
 *
 * The stream is complete after `metadata` (or at the end of the body once `messageStop` was seen).
 */
export class BedrockConverseStreamAssembler {
  /** True once `messageStop` arrived. */
  stopped = false;
  /** True once `metadata` arrived after `messageStop`: nothing more is expected. */
  ended = false;
  /** The terminal event of a ConverseStream. */
  readonly terminal = "messageStop";
  /** Who the response is from (`Response.provider`, `native.origin` and `native.model`). */
  readonly context: BedrockConverseResponseContext;
  /** Every block, in emission order. */
  readonly #entries: Entry[] = [];
  /** The open (or last) entry per `contentBlockIndex`. */
  readonly #current = new Map<number, Entry>();
  readonly #malformedInput = new Map<ConverseBlock, string>();
  readonly #tools = new ToolCallTracker<number>();
  readonly #warnings: string[] = [];
  #usage: ConverseUsage | undefined;
  #stopReason: string | null | undefined;

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
      throw bedrockStreamError(frame, this.context);
    }
    if (eventType === undefined) return;
    this.apply(eventType, eventObject(utf8.decode(frame.payload), eventType, this.context) ?? null, out);
  }

  /**
   * Applies one decoded event (`:event-type` and payload; vercel's chunks.txt lines are
   * `{ [eventType]: payload }`), pushing the neutral events it produces onto `out`. Throws `ProviderError`.
   */
  apply(eventType: string, payload: unknown, out: StreamEvent[]): void {
    if (typeof payload !== "object" || payload === null) throw malformedEvent(this.context, eventType);
    switch (eventType) {
      case "contentBlockDelta":
        this.#delta(payload as ConverseStreamEvents["contentBlockDelta"], out);
        return;
      case "contentBlockStart":
        this.#start(payload as ConverseStreamEvents["contentBlockStart"], out);
        return;
      case "contentBlockStop": {
        const index = (payload as ConverseStreamEvents["contentBlockStop"]).contentBlockIndex;
        if (typeof index !== "number") throw malformedEvent(this.context, eventType);
        const entry = this.#current.get(index);
        if (entry) this.#close(entry, out);
        return;
      }
      case "messageStop": {
        for (const entry of this.#entries) if (!entry.closed) this.#close(entry, out);
        this.#stopReason = (payload as ConverseStreamEvents["messageStop"]).stopReason;
        this.stopped = true;
        return;
      }
      case "metadata": {
        const usage = (payload as ConverseStreamEvents["metadata"]).usage;
        if (usage) {
          this.#usage = usage;
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
    for (const entry of this.#entries) {
      if (!entry.closed) this.#seal(entry);
      blocks.push(entry.block);
    }
    return converseResponseFromBlocks(blocks, {
      stopReason: this.#stopReason,
      usage: mapBedrockConverseUsage(this.#usage),
      context: this.context,
      malformedInput: this.#malformedInput,
      warnings: this.#warnings,
    });
  }

  #start(event: ConverseStreamEvents["contentBlockStart"], out: StreamEvent[]): void {
    const index = event.contentBlockIndex;
    if (typeof index !== "number") throw malformedEvent(this.context, "contentBlockStart");
    const start = event.start;
    if (typeof start?.toolUse === "object" && start.toolUse !== null) {
      const call = start.toolUse;
      if (typeof call.toolUseId !== "string" || typeof call.name !== "string") {
        throw malformedEvent(this.context, "contentBlockStart");
      }
      const entry = this.#open(index, "toolUse", {
        toolUse: { ...call, toolUseId: call.toolUseId, name: call.name, input: {} },
      });
      const tracked = this.#tools.open();
      tracked.id = call.toolUseId;
      tracked.name = call.name;
      entry.call = tracked;
      // Server tool calls (`type: "server_tool_use"`) stay in native.blocks only: they never start.
      if (call.type === undefined || call.type === "tool_use") this.#tools.start(tracked, out);
      return;
    }
    if (typeof start?.toolResult === "object" && start.toolResult !== null) {
      const entry = this.#open(index, "toolResult", {
        toolResult: { ...start.toolResult, toolUseId: String(start.toolResult.toolUseId), content: [] },
      });
      entry.resultContent = [];
      return;
    }
    // A block kind this version does not know: kept as it started, its deltas merged in.
    if (typeof start === "object" && start !== null && Object.keys(start).length > 0)
      this.#open(index, "other", { ...start } as ConverseBlock);
  }

  #delta(event: ConverseStreamEvents["contentBlockDelta"], out: StreamEvent[]): void {
    const index = event.contentBlockIndex;
    const delta = event.delta;
    if (typeof index !== "number" || typeof delta !== "object" || delta === null) {
      throw malformedEvent(this.context, "contentBlockDelta");
    }
    if (typeof delta.text === "string") {
      const entry = this.#entryFor(index, "text", delta.text === "");
      if (entry === undefined) return;
      entry.pieces.push(delta.text);
      if (delta.text !== "") pushText(out, "text-delta", delta.text);
      return;
    }
    const reasoning = delta.reasoningContent;
    if (typeof reasoning === "object" && reasoning !== null) {
      if (typeof reasoning.redactedContent === "string") {
        const entry = this.#entryFor(index, "redacted", false)!;
        let bytes: Uint8Array;
        try {
          bytes = base64ToBytes(reasoning.redactedContent);
        } catch (cause) {
          throw malformedEvent(this.context, "contentBlockDelta (redactedContent is not base64)", cause);
        }
        if (entry.redacted === undefined) entry.redacted = [bytes];
        else entry.redacted.push(bytes);
        return;
      }
      if (typeof reasoning.text === "string") {
        const entry = this.#entryFor(index, "reasoning", reasoning.text === "");
        if (entry === undefined) return;
        entry.pieces.push(reasoning.text);
        if (reasoning.text !== "") pushText(out, "reasoning-delta", reasoning.text);
      }
      if (typeof reasoning.signature === "string") {
        const entry = this.#entryFor(index, "reasoning", false)!;
        entry.signature = (entry.signature ?? "") + reasoning.signature;
      }
      return;
    }
    const call = delta.toolUse;
    if (typeof call === "object" && call !== null) {
      const entry = this.#current.get(index);
      if (entry?.kind !== "toolUse" || entry.closed)
        throw malformedEvent(this.context, "contentBlockDelta (toolUse without its start)");
      this.#tools.append(entry.call!, typeof call.input === "string" ? call.input : "", out);
      return;
    }
    if (Array.isArray(delta.toolResult)) {
      const entry = this.#current.get(index);
      if (entry?.kind !== "toolResult" || entry.closed) {
        throw malformedEvent(this.context, "contentBlockDelta (toolResult without its start)");
      }
      entry.resultContent!.push(...delta.toolResult);
      return;
    }
    this.#unknownDelta(index, delta);
  }

  /**
   * Delta members this version does not know (`citation`, `image`, …): merged into the block of a kind it
   * does not know either that is open at `index` (or a new one), or — where a block of a known kind is open
   * there, which has no field for them — left out with a warning. (A delta is a tagged union: one member.)
   */
  #unknownDelta(index: number, delta: Record<string, unknown>): void {
    const unknown: Record<string, unknown> = {};
    let any = false;
    for (const member of Object.keys(delta)) {
      if (KNOWN_DELTAS.has(member)) continue;
      unknown[member] = delta[member];
      any = true;
    }
    if (!any) return;
    let entry = this.#current.get(index);
    if (entry !== undefined && !entry.closed && entry.kind !== "other") {
      this.#warn(
        `content block ${index} (${entry.kind}): contentBlockDelta ${Object.keys(unknown).join(", ")} left out`,
      );
      return;
    }
    if (entry === undefined || entry.closed) entry = this.#open(index, "other", {});
    mergeUnknownDelta(entry.block, unknown, this.#warnings, `content block ${index}: contentBlockDelta`);
  }

  /**
   * The open entry of `kind` at `index`, or a new one. A delta of another kind than the block open at its
   * index starts a new block there (or is skipped when it is empty), so nothing is mixed or lost.
   */
  #entryFor(index: number, kind: EntryKind, empty: boolean): Entry | undefined {
    const entry = this.#current.get(index);
    if (entry !== undefined && !entry.closed && entry.kind === kind) return entry;
    if (empty && entry !== undefined && !entry.closed) return undefined;
    return this.#open(index, kind, {});
  }

  #open(index: number, kind: EntryKind, block: ConverseBlock): Entry {
    const entry: Entry = {
      kind,
      block,
      pieces: new PieceBuffer(),
      signature: undefined,
      redacted: undefined,
      resultContent: undefined,
      call: undefined,
      closed: false,
    };
    const previous = this.#current.get(index);
    if (previous !== undefined && !previous.closed) this.#seal(previous);
    this.#current.set(index, entry);
    this.#entries.push(entry);
    return entry;
  }

  /** Closes an entry: its block gets its final content; a client tool call ends. */
  #close(entry: Entry, out: StreamEvent[]): void {
    if (entry.closed) return;
    this.#seal(entry);
    if (entry.call?.position !== undefined) {
      const call = entry.block.toolUse!;
      const toolCall = toolCallFrom(
        call.toolUseId,
        call.name,
        call.input,
        this.#malformedInput.get(entry.block),
      );
      this.#tools.end(entry.call, toolCall, out);
    }
  }

  /** Fills in an entry's block from what arrived. */
  #seal(entry: Entry): void {
    entry.closed = true;
    switch (entry.kind) {
      case "text":
        entry.block.text = entry.pieces.text();
        return;
      case "reasoning": {
        const reasoningText: { text: string; signature?: string } = { text: entry.pieces.text() };
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
        const json = entry.call!.arguments.text();
        entry.call!.arguments.clear();
        const input = toolArgumentsObject(json);
        entry.block.toolUse!.input = input ?? {};
        if (input === undefined) this.#malformedInput.set(entry.block, json);
        return;
      }
      case "toolResult":
        entry.block.toolResult!.content = entry.resultContent ?? [];
        return;
      case "other":
        return;
    }
  }

  #warn(warning: string): void {
    if (!this.#warnings.includes(warning)) this.#warnings.push(warning);
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
