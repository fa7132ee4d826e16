/**
 * The provenance rule of `native`, written once for every history converter: an assistant turn's
 * `native.blocks` are replayed verbatim only when `native.protocol`, `native.origin` and `native.model` all
 * equal the target's; on any mismatch the turn is rebuilt from its neutral fields (`content`, `toolCalls`)
 * and its reasoning is dropped with a warning — never demoted to text, never sent to another provider or
 * model. Total, like the converters: the fields are compared with `===` and quoted with the never-throw
 * helpers of `stored-history.ts`, so a BigInt, a null-prototype object or a megabyte string in a stored
 * record cannot make it throw (seed 004: a throw while converting durable history wedges the session).
 *
 * @module
 */
import { clipped, isJsonSafe, isRecord, shown } from "./stored-history.ts";

/** Where a request goes, in the terms `native` records where a turn came from. */
export interface NativeTarget {
  /** The wire protocol, e.g. `"anthropic-messages"`. */
  protocol: string;
  /** The endpoint kind, e.g. `"anthropic"` (first-party API) or `"bedrock"`. */
  origin: string;
  /** The model: reasoning is bound to it. */
  model: string;
}

/** One replayable block of `native.blocks`: an object JSON can carry, and where it stood (for warnings). */
export interface NativeBlock {
  block: Record<string, unknown>;
  /** `messages[i].native.blocks[j]`. */
  where: string;
}

/** What a message's `native` allows on its way to a target. */
export interface NativeProvenance {
  /**
   * The blocks to replay verbatim and in emission order — only when protocol, origin and model all match;
   * otherwise `undefined`, and the turn is rebuilt from its neutral fields. Blocks that are not objects, or
   * hold what JSON cannot carry (a BigInt, a cycle), are already left out, with a warning.
   */
  replay: NativeBlock[] | undefined;
  /**
   * `native.protocol` is the target's, whatever the origin and model: protocol-level detail of the record
   * (a tool call's `argumentsText`) is this wire's own and may go back as it was.
   */
  sameProtocol: boolean;
}

/** How one converter writes an assistant turn, for {@link replayOrRebuild}. */
export interface AssistantTurnWriter<T> {
  /** The turn from `native.blocks`: each block checked and sent as it came, in order. */
  replay(blocks: readonly NativeBlock[]): T;
  /** The turn from its neutral fields; `sameProtocol` as in {@link NativeProvenance}. */
  rebuild(sameProtocol: boolean): T;
  /** Whether a turn carries nothing (every replayed block was left out). */
  isEmpty(turn: T): boolean;
}

/**
 * Applies the provenance rule to one stored message (`messages[index]`) bound for `target`. When `native`
 * matches exactly, its blocks come back for verbatim replay. Otherwise, and when `native` is present but is
 * not `{ protocol, origin, model, blocks: [] }`, a warning says the turn is rebuilt from its text and tool
 * calls and how many reasoning blocks (of any protocol: {@link REASONING_SHAPES}) are dropped. Never throws.
 */
export function nativeProvenance(
  message: Record<string, unknown>,
  index: number,
  target: NativeTarget,
  warnings: string[],
): NativeProvenance {
  const native = message.native;
  if (native === undefined || native === null) return { replay: undefined, sameProtocol: false };
  const sameProtocol = isRecord(native) && native.protocol === target.protocol;
  if (!isRecord(native) || !Array.isArray(native.blocks)) {
    warnings.push(
      `messages[${index}]: native is not { protocol, origin, model, blocks: [] }; ignored, ` +
        "rebuilt from its text and tool calls",
    );
    return { replay: undefined, sameProtocol };
  }
  if (sameProtocol && native.origin === target.origin && native.model === target.model) {
    return { replay: replayableBlocks(native.blocks, index, warnings), sameProtocol };
  }
  const reasoning = native.blocks.filter(isReasoningBlock).length;
  const dropped = reasoning > 0 ? `; ${reasoning} reasoning block(s) dropped` : "";
  warnings.push(
    `messages[${index}]: produced by ${field(native.protocol)}/${field(native.origin)}/${field(native.model)}, ` +
      `sent to ${target.protocol}/${target.origin}/${target.model}: rebuilt from its text and tool calls${dropped}`,
  );
  return { replay: undefined, sameProtocol };
}

/**
 * An assistant turn under the provenance rule: `writer.replay` of the blocks on an exact match, else
 * `writer.rebuild` (see {@link nativeProvenance}). A match whose blocks all had to be left out is rebuilt
 * too, with a warning, so the turn's text and tool calls are not lost with them. Never throws unless the
 * writer does.
 */
export function replayOrRebuild<T>(
  message: Record<string, unknown>,
  index: number,
  target: NativeTarget,
  warnings: string[],
  writer: AssistantTurnWriter<T>,
): T {
  const { replay, sameProtocol } = nativeProvenance(message, index, target, warnings);
  if (replay !== undefined) {
    const turn = writer.replay(replay);
    if (!writer.isEmpty(turn)) return turn;
    warnings.push(
      `messages[${index}]: nothing in native.blocks could be replayed; rebuilt from its text and tool calls`,
    );
  }
  return writer.rebuild(sameProtocol);
}

/** A string with something in it. */
const filled = (value: unknown) => typeof value === "string" && value !== "";

/**
 * Each protocol's reasoning as its `native.blocks` hold it — one entry per protocol name, the one place
 * they are listed (a new protocol whose blocks carry reasoning adds its shape here; a test checks every
 * built-in protocol has an entry). What counts: what must go back to that protocol for the model to keep
 * its chain of thought, so what the gateway carries in an envelope and what a rebuild reports dropping.
 */
export const REASONING_SHAPES: Readonly<Record<string, (block: Record<string, unknown>) => boolean>> = {
  /** Thinking blocks (their `signature`), redacted thinking. */
  "anthropic-messages": (block) => block.type === "thinking" || block.type === "redacted_thinking",
  /** Reasoning items (their `encrypted_content`). */
  "openai-responses": (block) => block.type === "reasoning",
  /** Converse `reasoningContent` blocks (text and signature, or redacted). */
  "bedrock-converse": (block) => "reasoningContent" in block,
  /** A Chat message's `reasoning_content` (DeepSeek, vLLM) or `reasoning` (OpenRouter, Ollama). */
  "openai-chat": (block) => filled(block.reasoning_content) || filled(block.reasoning),
  /** Thought parts (`thought: true`), and any part with a `thoughtSignature` (a call's or a text's). */
  "google-gemini": (block) => block.thought === true || typeof block.thoughtSignature === "string",
};

/** Reasoning of any protocol (see {@link REASONING_SHAPES}). */
export function isReasoningBlock(block: unknown): boolean {
  if (!isRecord(block) || Array.isArray(block)) return false;
  return Object.values(REASONING_SHAPES).some((isReasoning) => isReasoning(block));
}

/** The blocks that can go out as they are: objects JSON can carry (a request body is JSON). */
function replayableBlocks(blocks: readonly unknown[], index: number, warnings: string[]): NativeBlock[] {
  const replayable: NativeBlock[] = [];
  blocks.forEach((block, position) => {
    const where = `messages[${index}].native.blocks[${position}]`;
    if (!isRecord(block) || Array.isArray(block)) {
      warnings.push(`${where}: not a content block; left out`);
    } else if (!isJsonSafe(block)) {
      warnings.push(`${where}: holds a value JSON cannot carry (a BigInt, a cycle); left out`);
    } else {
      replayable.push({ block, where });
    }
  });
  return replayable;
}

/** A provenance field as a warning prints it: a string as it is (cut), anything else quoted safely. */
function field(value: unknown): string {
  return typeof value === "string" ? clipped(value) : shown(value);
}
