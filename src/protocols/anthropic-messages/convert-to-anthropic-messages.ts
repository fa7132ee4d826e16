import type { Content } from "../../core/content.ts";
import type { MessageInput } from "../../core/message.ts";
import type { ValidationIssue } from "../../core/validation-error.ts";
import { type NativeBlock, replayOrRebuild } from "../native-replay.ts";
import {
  assistantBlocksOf,
  contentBlocksOf,
  type NeutralBlockWriter,
  systemTextOf,
  textOnlyOf,
  userBlocksOf,
} from "../neutral-blocks.ts";
import { repairTurns, type TurnBlocks } from "../repair-turns.ts";
import {
  forEachStoredMessage,
  isBlank,
  isNonEmptyString,
  isPlainObject,
  MISSING_TOOL_RESULT,
  orphanResultText,
  safeString,
} from "../stored-history.ts";
import {
  ANTHROPIC_MESSAGES,
  type AnthropicBlock,
  type AnthropicMessageParam,
  type AnthropicTextBlock,
  type AnthropicToolResultBlock,
} from "./anthropic-wire.ts";
import { type AnthropicPartContext, anthropicPartBlock } from "./map-anthropic-part.ts";

/** Block types only a user turn may carry. */
const USER_ONLY_BLOCKS: ReadonlySet<string> = new Set(["tool_result", "image", "document", "search_result"]);

/** The model and endpoint a request goes to: `native` blocks replay only when both match. */
export interface AnthropicReplayTarget {
  model: string;
  /** `"anthropic"` for the first-party API, `"bedrock"` for Anthropic on Bedrock. */
  origin: string;
}

/** The converted conversation, and what had to be changed to make it valid. */
export interface ConvertedAnthropicMessages {
  system: AnthropicTextBlock[];
  messages: AnthropicMessageParam[];
  warnings: string[];
  /** Parts the endpoint cannot take (each naming its field): the request must not be sent. */
  refused: ValidationIssue[];
}

/** How the endpoint differs from the first-party API. */
export interface AnthropicConvertOptions {
  /** Whether `url` image and document sources are taken (default true; Bedrock InvokeModel: false). */
  urlSources?: boolean;
}

export { MISSING_TOOL_RESULT };

/**
 * Neutral history → Anthropic `system` and `messages`. Pure and total: it never throws, whatever a stored
 * history holds (seed 004: a raise here wedges the session forever, because every later turn re-converts
 * the same record). What it cannot send faithfully it drops or repairs, and says so in `warnings`.
 *
 * - System messages become the `system` blocks.
 * - An assistant turn whose `native` came from this protocol, endpoint and model is replayed from
 *   `native.blocks` verbatim and in order (thinking with its signature, redacted_thinking, text, tool_use,
 *   server tool blocks). On any mismatch it is rebuilt from `content` and `toolCalls`, and its reasoning is
 *   dropped — never demoted to text (the rule of `native-replay.ts`, shared by every converter).
 * - Empty and whitespace-only text blocks are left out everywhere, replayed ones included (the API rejects
 *   them); thinking blocks are never touched.
 * - Tool calls with malformed or non-object arguments get `{}`; calls missing an id or a name are dropped.
 * - Tool results go in user turns, before any text. A result with no matching call in the turn before it
 *   becomes a text block (followed by its images and documents); a call with no result gets an error
 *   result ({@link MISSING_TOOL_RESULT}).
 * - Image and file parts, in user messages and in tool results, become `image` and `document` blocks
 *   (`anthropicPartBlock`); a part the endpoint cannot take is listed in `refused`, naming its field.
 *   Assistant turns carry text only: their parts are left out with a warning.
 * - Turns left with no content are dropped; consecutive turns of one role are merged.
 */
export function convertToAnthropicMessages(
  messages: readonly MessageInput[] | readonly unknown[],
  target: AnthropicReplayTarget,
  options: AnthropicConvertOptions = {},
): ConvertedAnthropicMessages {
  const warnings: string[] = [];
  const refused: ValidationIssue[] = [];
  const system: AnthropicTextBlock[] = [];
  const turns: AnthropicMessageParam[] = [];
  const writer = anthropicNeutral(warnings, { urlSources: options.urlSources ?? true, refused });

  forEachStoredMessage(messages, warnings, (raw, role, index) => {
    switch (role) {
      case "system": {
        const where = `messages[${index}].content`;
        const text = systemTextOf(raw.content, where, warnings, refused, "Anthropic Messages");
        if (!isBlank(text)) system.push({ type: "text", text });
        return;
      }
      case "user":
      case "tool":
        turns.push({ role: "user", content: userBlocksOf(raw, index, writer, warnings) });
        return;
      case "assistant":
        turns.push({ role: "assistant", content: assistantBlocks(raw, index, target, writer, warnings) });
        return;
    }
  });

  return { system, messages: repairTurns(turns, ANTHROPIC_BLOCKS, warnings), warnings, refused };
}

function assistantBlocks(
  raw: Record<string, unknown>,
  index: number,
  target: AnthropicReplayTarget,
  writer: NeutralBlockWriter<AnthropicBlock>,
  warnings: string[],
): AnthropicBlock[] {
  return replayOrRebuild(
    raw,
    index,
    { protocol: ANTHROPIC_MESSAGES, origin: target.origin, model: target.model },
    warnings,
    {
      replay: (blocks) => replayNative(blocks, warnings),
      rebuild: () => assistantBlocksOf(raw, index, writer, warnings),
      isEmpty: (blocks) => blocks.length === 0,
    },
  );
}

/** `native.blocks` as sent: verbatim and in order, minus what the API would reject. */
function replayNative(blocks: readonly NativeBlock[], warnings: string[]): AnthropicBlock[] {
  const replayed: AnthropicBlock[] = [];
  blocks.forEach(({ block, where }) => {
    if (typeof block.type !== "string") {
      warnings.push(`${where}: not a content block; left out`);
      return;
    }
    switch (block.type) {
      case "text":
        // Adaptive-thinking models really emit a "\n\n" text block before their thinking; the API rejects
        // it on the way back ("text content blocks must contain non-whitespace text").
        if (typeof block.text === "string" && !isBlank(block.text)) replayed.push(block as AnthropicBlock);
        return;
      case "thinking":
        if (typeof block.signature !== "string" || typeof block.thinking !== "string") {
          warnings.push(`${where}: thinking block without its signature; left out`);
          return;
        }
        replayed.push(block as AnthropicBlock);
        return;
      case "redacted_thinking":
        if (typeof block.data !== "string") {
          warnings.push(`${where}: redacted_thinking block without data; left out`);
          return;
        }
        replayed.push(block as AnthropicBlock);
        return;
      case "tool_use": {
        if (!isNonEmptyString(block.id) || !isNonEmptyString(block.name)) {
          warnings.push(`${where}: tool_use without an id or a name; left out`);
          return;
        }
        if (isPlainObject(block.input)) replayed.push(block as AnthropicBlock);
        else {
          warnings.push(`${where}: tool_use input is not an object; sent as {}`);
          replayed.push({ ...block, type: "tool_use", input: {} });
        }
        return;
      }
      default:
        if (USER_ONLY_BLOCKS.has(block.type)) {
          // A corrupted record: these belong in user turns, and the API rejects them in an assistant turn.
          warnings.push(`${where}: ${block.type} block in an assistant turn; left out`);
          return;
        }
        // Server tool calls and results, and block types this version does not know: as they came.
        replayed.push(block as AnthropicBlock);
    }
  });
  return replayed;
}

function toolResultBlock(
  callId: string,
  content: string | AnthropicBlock[],
  isError: boolean,
): AnthropicToolResultBlock {
  const block: AnthropicToolResultBlock = { type: "tool_result", tool_use_id: callId };
  // A blank content string becomes a blank text block server-side, which the API rejects: leave it out.
  if (typeof content === "string" ? !isBlank(content) : content.length > 0) block.content = content;
  if (isError) block.is_error = true;
  return block;
}

/** A result that answers no call, as text: its header and text, then its images and documents. */
function orphanBlocks(block: AnthropicBlock): AnthropicBlock[] {
  const isError = block.is_error === true;
  if (!Array.isArray(block.content)) {
    const content = typeof block.content === "string" ? block.content : "";
    return [{ type: "text", text: orphanResultText(block.tool_use_id, content, isError) }];
  }
  const blocks = block.content as AnthropicBlock[];
  const leading = blocks[0]?.type === "text" && typeof blocks[0].text === "string" ? blocks[0].text : "";
  const header = orphanResultText(block.tool_use_id, leading, isError);
  return [{ type: "text", text: header }, ...(leading === "" ? blocks : blocks.slice(1))];
}

/**
 * A tool result's content: text as a string (text parts joined), or — when it holds an image or a file
 * — text, image and document blocks in order, which `tool_result.content` takes.
 */
function toolResultContent(
  content: Content,
  where: string,
  writer: Pick<NeutralBlockWriter<AnthropicBlock>, "text" | "part">,
  warnings: string[],
): string | AnthropicBlock[] {
  if (typeof content === "string" || content.every((part) => part.type === "text")) {
    return textOnlyOf(content, where, warnings, "text only");
  }
  return contentBlocksOf(content, where, writer);
}

/** The blocks neutral fields become, for {@link userBlocksOf} and {@link assistantBlocksOf}. */
function anthropicNeutral(
  warnings: string[],
  context: AnthropicPartContext,
): NeutralBlockWriter<AnthropicBlock> {
  const text = (value: string): AnthropicBlock => ({ type: "text", text: value });
  const part = (value: Parameters<typeof anthropicPartBlock>[0], where: string) =>
    anthropicPartBlock(value, where, context);
  return {
    text,
    part,
    toolCall: (id, name, input) => ({ type: "tool_use", id, name, input }),
    toolResult: (callId, content, isError, where) =>
      toolResultBlock(callId, toolResultContent(content, where, { text, part }, warnings), isError),
  };
}

/** Anthropic blocks, for {@link repairTurns}: `tool_use` ids are unbounded in length. */
const ANTHROPIC_BLOCKS: TurnBlocks<AnthropicBlock> = {
  callId: (block) => (block.type === "tool_use" && typeof block.id === "string" ? block.id : undefined),
  resultId: (block) => (block.type === "tool_result" ? safeString(block.tool_use_id) : undefined),
  withCallId: (block, id) => ({ ...block, id }),
  withResultId: (block, id) => ({ ...block, tool_use_id: id }),
  orphanToText: orphanBlocks,
  missingResult: (id) => toolResultBlock(id, MISSING_TOOL_RESULT, true),
  text: (block) => (block.type === "text" && typeof block.text === "string" ? block.text : undefined),
  maxIdLength: Number.POSITIVE_INFINITY,
  prefillWarning: "final assistant text ended with whitespace, which the API rejects in a prefill; trimmed",
};
