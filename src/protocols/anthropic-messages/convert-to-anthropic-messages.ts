import { parseToolArguments } from "../../core/collect-stream.ts";
import type { MessageInput } from "../../core/message.ts";
import { isBlank, isNonEmptyString, isPlainObject, isRecord, textOf } from "../stored-history.ts";
import {
  ANTHROPIC_MESSAGES,
  type AnthropicBlock,
  type AnthropicMessageParam,
  type AnthropicTextBlock,
  type AnthropicToolResultBlock,
} from "./anthropic-wire.ts";

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
}

/** What a tool call that has no recorded result gets, so the request stays valid. */
export const MISSING_TOOL_RESULT = "No result was recorded for this tool call.";

/**
 * Neutral history → Anthropic `system` and `messages`. Pure and total: it never throws, whatever a stored
 * history holds (seed 004: a raise here wedges the session forever, because every later turn re-converts
 * the same record). What it cannot send faithfully it drops or repairs, and says so in `warnings`.
 *
 * - System messages become the `system` blocks.
 * - An assistant turn whose `native` came from this protocol, endpoint and model is replayed from
 *   `native.blocks` verbatim and in order (thinking with its signature, redacted_thinking, text, tool_use,
 *   server tool blocks). On any mismatch it is rebuilt from `content` and `toolCalls`, and its reasoning is
 *   dropped — never demoted to text.
 * - Empty and whitespace-only text blocks are left out everywhere, replayed ones included (the API rejects
 *   them); thinking blocks are never touched.
 * - Tool calls with malformed or non-object arguments get `{}`; calls missing an id or a name are dropped.
 * - Tool results go in user turns, before any text. A result with no matching call in the turn before it
 *   becomes a text block; a call with no result gets an error result ({@link MISSING_TOOL_RESULT}).
 * - Turns left with no content are dropped; consecutive turns of one role are merged.
 */
export function convertToAnthropicMessages(
  messages: readonly MessageInput[] | readonly unknown[],
  target: AnthropicReplayTarget,
): ConvertedAnthropicMessages {
  const warnings: string[] = [];
  const system: AnthropicTextBlock[] = [];
  const turns: AnthropicMessageParam[] = [];
  const list: readonly unknown[] = Array.isArray(messages) ? messages : [];

  list.forEach((raw, index) => {
    if (!isRecord(raw)) {
      warnings.push(`messages[${index}]: not a message object; left out`);
      return;
    }
    switch (raw.role) {
      case "system": {
        const text = textOf(raw.content, index, warnings);
        if (!isBlank(text)) system.push({ type: "text", text });
        return;
      }
      case "user":
      case "tool":
        turns.push({ role: "user", content: userBlocks(raw, index, warnings) });
        return;
      case "assistant":
        turns.push({ role: "assistant", content: assistantBlocks(raw, index, target, warnings) });
        return;
      default:
        warnings.push(`messages[${index}]: unknown role ${JSON.stringify(raw.role)}; left out`);
    }
  });

  const merged = mergeTurns(turns.filter((turn) => turn.content.length > 0));
  normalizeToolIds(merged, warnings);
  pairToolResults(merged, warnings);
  trimFinalAssistant(merged, warnings);
  return { system, messages: merged.filter((turn) => turn.content.length > 0), warnings };
}

function userBlocks(raw: Record<string, unknown>, index: number, warnings: string[]): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [];
  const results = Array.isArray(raw.toolResults) ? raw.toolResults : [];
  results.forEach((result: unknown, position) => {
    const where = `messages[${index}].toolResults[${position}]`;
    if (!isRecord(result) || !isNonEmptyString(result.callId)) {
      const content = isRecord(result) ? textOf(result.content, index, warnings) : "";
      warnings.push(`${where}: tool result without a call id; sent as text`);
      if (!isBlank(content)) blocks.push({ type: "text", text: content });
      return;
    }
    blocks.push(
      toolResultBlock(result.callId, textOf(result.content, index, warnings), result.isError === true),
    );
  });
  const text = textOf(raw.content, index, warnings);
  if (!isBlank(text)) blocks.push({ type: "text", text });
  return blocks;
}

function assistantBlocks(
  raw: Record<string, unknown>,
  index: number,
  target: AnthropicReplayTarget,
  warnings: string[],
): AnthropicBlock[] {
  const native = raw.native;
  if (isRecord(native) && Array.isArray(native.blocks)) {
    if (
      native.protocol === ANTHROPIC_MESSAGES &&
      native.origin === target.origin &&
      native.model === target.model
    ) {
      return replayNative(native.blocks, index, warnings);
    }
    const reasoning = native.blocks.filter(
      (block) => isRecord(block) && (block.type === "thinking" || block.type === "redacted_thinking"),
    ).length;
    const what = reasoning > 0 ? `; ${reasoning} reasoning block(s) dropped` : "";
    warnings.push(
      `messages[${index}]: produced by ${String(native.protocol)}/${String(native.origin)}/${String(native.model)}, ` +
        `sent to ${ANTHROPIC_MESSAGES}/${target.origin}/${target.model}: rebuilt from its text and tool calls${what}`,
    );
  }
  const blocks: AnthropicBlock[] = [];
  const text = textOf(raw.content, index, warnings);
  if (!isBlank(text)) blocks.push({ type: "text", text });
  const calls = Array.isArray(raw.toolCalls) ? raw.toolCalls : [];
  calls.forEach((call: unknown, position) => {
    const where = `messages[${index}].toolCalls[${position}]`;
    if (!isRecord(call) || !isNonEmptyString(call.id) || !isNonEmptyString(call.name)) {
      warnings.push(`${where}: tool call without an id or a name; left out`);
      return;
    }
    blocks.push({
      type: "tool_use",
      id: call.id,
      name: call.name,
      input: argumentsOf(call, where, warnings),
    });
  });
  return blocks;
}

/** `native.blocks` as sent: verbatim and in order, minus what the API would reject. */
function replayNative(blocks: readonly unknown[], index: number, warnings: string[]): AnthropicBlock[] {
  const replayed: AnthropicBlock[] = [];
  blocks.forEach((block, position) => {
    const where = `messages[${index}].native.blocks[${position}]`;
    if (!isRecord(block) || typeof block.type !== "string") {
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
        // Server tool calls and results, and block types this version does not know: as they came.
        replayed.push(block as AnthropicBlock);
    }
  });
  return replayed;
}

function argumentsOf(
  call: Record<string, unknown>,
  where: string,
  warnings: string[],
): Record<string, unknown> {
  if (isPlainObject(call.arguments)) return call.arguments;
  const text =
    typeof call.arguments === "string"
      ? call.arguments
      : typeof call.argumentsText === "string"
        ? call.argumentsText
        : undefined;
  const parsed = text === undefined ? {} : parseToolArguments(text);
  if (
    text !== undefined &&
    text.trim() !== "" &&
    Object.keys(parsed).length === 0 &&
    !/^\s*\{\s*\}\s*$/.test(text)
  ) {
    warnings.push(`${where}: arguments are not a JSON object; sent as {}`);
  } else if (text === undefined && call.arguments !== undefined) {
    warnings.push(`${where}: arguments are not an object; sent as {}`);
  }
  return parsed;
}

function toolResultBlock(callId: string, content: string, isError: boolean): AnthropicToolResultBlock {
  const block: AnthropicToolResultBlock = { type: "tool_result", tool_use_id: callId, content };
  // A blank content string becomes a blank text block server-side, which the API rejects: leave it out.
  if (isBlank(content)) delete (block as Partial<AnthropicToolResultBlock>).content;
  if (isError) block.is_error = true;
  return block;
}

/** Consecutive turns of one role become one; in user turns, tool results move before other content. */
function mergeTurns(turns: AnthropicMessageParam[]): AnthropicMessageParam[] {
  const merged: AnthropicMessageParam[] = [];
  for (const turn of turns) {
    const last = merged.at(-1);
    if (last && last.role === turn.role) last.content.push(...turn.content);
    else merged.push({ role: turn.role, content: [...turn.content] });
  }
  for (const turn of merged) {
    if (turn.role === "user") turn.content = orderToolResultsFirst(turn.content);
  }
  return merged;
}

function orderToolResultsFirst(blocks: AnthropicBlock[]): AnthropicBlock[] {
  const results = blocks.filter((block) => block.type === "tool_result");
  if (results.length === 0 || results.length === blocks.length) return blocks;
  return [...results, ...blocks.filter((block) => block.type !== "tool_result")];
}

/** Tool-use ids the API accepts. Ids from other providers (`functions.search:0`) may not match. */
const VALID_TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * Tool-use ids must be unique in a request and match {@link VALID_TOOL_ID}. A repeated id within one turn
 * drops the later call; an id reused by a later turn, or one with characters the API rejects, is rewritten
 * in the call and in the next user turn's results alike, so the pairing survives.
 */
function normalizeToolIds(turns: AnthropicMessageParam[], warnings: string[]): void {
  const used = new Set<string>();
  turns.forEach((turn, position) => {
    if (turn.role !== "assistant") return;
    const renamed = new Map<string, string>();
    const inTurn = new Set<string>();
    const content: AnthropicBlock[] = [];
    for (const block of turn.content) {
      if (block.type !== "tool_use" || typeof block.id !== "string") {
        content.push(block);
        continue;
      }
      if (inTurn.has(block.id)) {
        warnings.push(`tool call id ${block.id} repeated within one turn; the later call left out`);
        continue;
      }
      inTurn.add(block.id);
      let id = VALID_TOOL_ID.test(block.id) ? block.id : block.id.replace(/[^a-zA-Z0-9_-]/g, "_");
      for (let suffix = 2; used.has(id); suffix++) id = `${id.replace(/_dup\d+$/, "")}_dup${suffix}`;
      used.add(id);
      if (id === block.id) {
        content.push(block);
      } else {
        warnings.push(`tool call id ${block.id} is invalid or already used; sent as ${id}`);
        renamed.set(block.id, id);
        content.push({ ...block, id });
      }
    }
    turn.content = content;
    const next = turns[position + 1];
    if (renamed.size === 0 || next?.role !== "user") return;
    next.content = next.content.map((block) => {
      const id = block.type === "tool_result" ? renamed.get(String(block.tool_use_id)) : undefined;
      return id === undefined ? block : { ...block, tool_use_id: id };
    });
  });
}

/**
 * Every tool_use must be answered by a tool_result in the very next user turn, and every tool_result must
 * answer a tool_use of the turn before it; the API rejects the request otherwise.
 */
function pairToolResults(turns: AnthropicMessageParam[], warnings: string[]): void {
  for (let position = 0; position < turns.length; position++) {
    const turn = turns[position]!;
    if (turn.role !== "user") continue;
    const previous = turns[position - 1];
    const expected = new Set(previous?.role === "assistant" ? toolUseIds(previous) : []);
    const answered = new Set<string>();
    turn.content = turn.content.map((block) => {
      if (block.type !== "tool_result") return block;
      const id = String(block.tool_use_id);
      if (expected.has(id) && !answered.has(id)) {
        answered.add(id);
        return block;
      }
      warnings.push(
        `tool result for call ${id} has no matching tool call in the turn before it; sent as text`,
      );
      return { type: "text", text: orphanText(block) };
    });
    turn.content = orderToolResultsFirst(turn.content);
  }
  // Calls without results: add error results in the next user turn (created if needed).
  for (let position = 0; position < turns.length; position++) {
    const turn = turns[position]!;
    if (turn.role !== "assistant") continue;
    const ids = toolUseIds(turn);
    if (ids.length === 0) continue;
    let next = turns[position + 1];
    if (next?.role !== "user") {
      next = { role: "user", content: [] };
      turns.splice(position + 1, 0, next);
    }
    const answered = new Set(
      next.content.flatMap((block) => (block.type === "tool_result" ? [String(block.tool_use_id)] : [])),
    );
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length === 0) continue;
    warnings.push(
      `tool call(s) ${missing.join(", ")} have no recorded result; answered with an error result`,
    );
    next.content = orderToolResultsFirst([
      ...missing.map((id) => toolResultBlock(id, MISSING_TOOL_RESULT, true)),
      ...next.content,
    ]);
  }
}

function toolUseIds(turn: AnthropicMessageParam): string[] {
  return turn.content.flatMap((block) =>
    block.type === "tool_use" && typeof block.id === "string" ? [block.id] : [],
  );
}

function orphanText(block: AnthropicBlock): string {
  const content = typeof block.content === "string" ? block.content : "";
  const label = block.is_error === true ? "error result" : "result";
  return `[tool ${label} for call ${String(block.tool_use_id)}]${content ? `\n${content}` : ""}`;
}

/** A final assistant turn is a prefill: the API rejects trailing whitespace there. */
function trimFinalAssistant(turns: AnthropicMessageParam[], warnings: string[]): void {
  const last = turns.at(-1);
  if (last?.role !== "assistant") return;
  const block = last.content.at(-1);
  if (block?.type !== "text" || typeof block.text !== "string") return;
  const trimmed = block.text.trimEnd();
  if (trimmed === block.text) return;
  warnings.push("final assistant text ended with whitespace, which the API rejects in a prefill; trimmed");
  if (trimmed === "") last.content.pop();
  else last.content[last.content.length - 1] = { ...block, text: trimmed };
}
