import { parseToolArguments } from "../../core/collect-stream.ts";
import type { MessageInput } from "../../core/message.ts";
import { isBlank, isNonEmptyString, isPlainObject, isRecord, textOf } from "../stored-history.ts";
import {
  BEDROCK_CONVERSE,
  type ConverseBlock,
  type ConverseMessage,
  type ConverseToolResult,
} from "./bedrock-converse-wire.ts";

/** The model and endpoint a request goes to: `native` blocks replay only when both match. */
export interface BedrockConverseReplayTarget {
  model: string;
  /** Always `"bedrock"` today; kept so a Converse-compatible gateway can have its own. */
  origin: string;
}

/** How the target model takes what the converter produces. */
export interface BedrockConverseConvertOptions {
  /**
   * `toolResult.status: "error"` is accepted (Claude and Nova). Otherwise a failed tool's result says so
   * in its text (`Error: …`), since other models reject the field.
   */
  toolResultStatus?: boolean;
  /** Readable reasoning must carry its signature to be replayed (Claude). Default true. */
  requireSignedReasoning?: boolean;
}

/** The converted conversation, and what had to be changed to make it valid. */
export interface ConvertedBedrockConverseMessages {
  /** The system prompt's text blocks (cache points are placed later). */
  system: { text: string }[];
  messages: ConverseMessage[];
  warnings: string[];
  /** Names of the client tools called by `toolUse` blocks of the history, in first-use order. */
  toolNames: string[];
  /** Whether any `toolUse` / `toolResult` block is in the messages: Converse then requires a `toolConfig`. */
  hasToolBlocks: boolean;
}

/** What a tool call that has no recorded result gets, so the request stays valid. */
export const MISSING_TOOL_RESULT = "No result was recorded for this tool call.";

/** What an empty tool result is sent as: Converse rejects blank text blocks, tool results' included. */
export const EMPTY_TOOL_RESULT = "(no output)";

/** What opens a conversation whose first turn is the assistant's: Converse requires a user turn first. */
export const CONVERSATION_START = "(conversation start)";

/** Tool-use ids Converse accepts: `^[a-zA-Z0-9_-]+$`, 1 to 64 characters. */
const VALID_TOOL_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Neutral history → Converse `system` and `messages`. Pure and total: it never throws, whatever a stored
 * history holds (a raise here would wedge a session forever, since every later turn re-converts the same
 * record). What it cannot send faithfully it drops or repairs, and says so in `warnings`. The rules are
 * those of the Anthropic converter, in Converse's block shapes:
 *
 * - System messages become the `system` text blocks.
 * - An assistant turn whose `native` came from this protocol, endpoint and model is replayed from
 *   `native.blocks` verbatim and in order (`reasoningContent` with its signature or `redactedContent`,
 *   text, `toolUse`, server tool blocks). On any mismatch it is rebuilt from `content` and `toolCalls`, and
 *   its reasoning is dropped — never demoted to text.
 * - Blank text blocks are left out everywhere, replayed ones included (Converse rejects them); a blank
 *   tool result is sent as {@link EMPTY_TOOL_RESULT}.
 * - Tool calls with malformed or non-object arguments get `{}`; calls missing an id or a name are dropped;
 *   ids Converse rejects are rewritten in the call and its result alike.
 * - Tool results go first in user turns. A result with no matching call in the turn before it becomes a
 *   text block; a call with no result gets an error result ({@link MISSING_TOOL_RESULT}).
 * - Turns left with no content are dropped, consecutive turns of one role merged, and a conversation that
 *   would open with the assistant gets a user turn first ({@link CONVERSATION_START}).
 */
export function convertToBedrockConverseMessages(
  messages: readonly MessageInput[] | readonly unknown[],
  target: BedrockConverseReplayTarget,
  options: BedrockConverseConvertOptions = {},
): ConvertedBedrockConverseMessages {
  const context: Context = {
    warnings: [],
    toolResultStatus: options.toolResultStatus ?? true,
    requireSignedReasoning: options.requireSignedReasoning ?? true,
  };
  const { warnings } = context;
  const system: { text: string }[] = [];
  const turns: ConverseMessage[] = [];
  const list: readonly unknown[] = Array.isArray(messages) ? messages : [];

  list.forEach((raw, index) => {
    if (!isRecord(raw)) {
      warnings.push(`messages[${index}]: not a message object; left out`);
      return;
    }
    switch (raw.role) {
      case "system": {
        const text = textOf(raw.content, index, warnings);
        if (!isBlank(text)) system.push({ text });
        return;
      }
      case "user":
      case "tool":
        turns.push({ role: "user", content: userBlocks(raw, index, context) });
        return;
      case "assistant":
        turns.push({ role: "assistant", content: assistantBlocks(raw, index, target, context) });
        return;
      default:
        warnings.push(`messages[${index}]: unknown role ${JSON.stringify(raw.role)}; left out`);
    }
  });

  const merged = mergeTurns(turns.filter((turn) => turn.content.length > 0));
  normalizeToolIds(merged, warnings);
  pairToolResults(merged, context);
  trimFinalAssistant(merged, warnings);
  const result = merged.filter((turn) => turn.content.length > 0);
  if (result[0]?.role === "assistant") {
    warnings.push(
      "the conversation opens with an assistant turn, which Converse rejects; a user turn added first",
    );
    result.unshift({ role: "user", content: [{ text: CONVERSATION_START }] });
  }

  const toolNames: string[] = [];
  let hasToolBlocks = false;
  for (const turn of result) {
    for (const block of turn.content) {
      if (isRecord(block.toolUse) || isRecord(block.toolResult)) hasToolBlocks = true;
      if (turn.role === "assistant" && isClientToolUse(block)) {
        const name = block.toolUse!.name;
        if (!toolNames.includes(name)) toolNames.push(name);
      }
    }
  }
  return { system, messages: result, warnings, toolNames, hasToolBlocks };
}

interface Context {
  warnings: string[];
  toolResultStatus: boolean;
  requireSignedReasoning: boolean;
}

function userBlocks(raw: Record<string, unknown>, index: number, context: Context): ConverseBlock[] {
  const { warnings } = context;
  const blocks: ConverseBlock[] = [];
  const results = Array.isArray(raw.toolResults) ? raw.toolResults : [];
  results.forEach((result: unknown, position) => {
    const where = `messages[${index}].toolResults[${position}]`;
    if (!isRecord(result) || !isNonEmptyString(result.callId)) {
      const content = isRecord(result) ? textOf(result.content, index, warnings) : "";
      warnings.push(`${where}: tool result without a call id; sent as text`);
      if (!isBlank(content)) blocks.push({ text: content });
      return;
    }
    blocks.push(
      toolResultBlock(
        result.callId,
        textOf(result.content, index, warnings),
        result.isError === true,
        context,
      ),
    );
  });
  const text = textOf(raw.content, index, warnings);
  if (!isBlank(text)) blocks.push({ text });
  return blocks;
}

function assistantBlocks(
  raw: Record<string, unknown>,
  index: number,
  target: BedrockConverseReplayTarget,
  context: Context,
): ConverseBlock[] {
  const { warnings } = context;
  const native = raw.native;
  if (isRecord(native) && Array.isArray(native.blocks)) {
    if (
      native.protocol === BEDROCK_CONVERSE &&
      native.origin === target.origin &&
      native.model === target.model
    ) {
      return replayNative(native.blocks, index, context);
    }
    const reasoning = native.blocks.filter(
      (block) =>
        isRecord(block) &&
        (block.type === "thinking" || block.type === "redacted_thinking" || "reasoningContent" in block),
    ).length;
    const what = reasoning > 0 ? `; ${reasoning} reasoning block(s) dropped` : "";
    warnings.push(
      `messages[${index}]: produced by ${String(native.protocol)}/${String(native.origin)}/${String(native.model)}, ` +
        `sent to ${BEDROCK_CONVERSE}/${target.origin}/${target.model}: rebuilt from its text and tool calls${what}`,
    );
  }
  const blocks: ConverseBlock[] = [];
  const text = textOf(raw.content, index, warnings);
  if (!isBlank(text)) blocks.push({ text });
  const calls = Array.isArray(raw.toolCalls) ? raw.toolCalls : [];
  calls.forEach((call: unknown, position) => {
    const where = `messages[${index}].toolCalls[${position}]`;
    if (!isRecord(call) || !isNonEmptyString(call.id) || !isNonEmptyString(call.name)) {
      warnings.push(`${where}: tool call without an id or a name; left out`);
      return;
    }
    blocks.push({
      toolUse: { toolUseId: call.id, name: call.name, input: argumentsOf(call, where, warnings) },
    });
  });
  return blocks;
}

/** `native.blocks` as sent: verbatim and in order, minus what Converse would reject. */
function replayNative(blocks: readonly unknown[], index: number, context: Context): ConverseBlock[] {
  const { warnings } = context;
  const replayed: ConverseBlock[] = [];
  blocks.forEach((block, position) => {
    const where = `messages[${index}].native.blocks[${position}]`;
    if (!isRecord(block)) {
      warnings.push(`${where}: not a content block; left out`);
      return;
    }
    if ("text" in block) {
      if (typeof block.text !== "string") warnings.push(`${where}: text block without text; left out`);
      // Blank text (gpt-oss sends empty text deltas) is left out silently: Converse rejects it.
      else if (!isBlank(block.text)) replayed.push(block as ConverseBlock);
      return;
    }
    if ("reasoningContent" in block) {
      const reasoning = block.reasoningContent;
      if (isRecord(reasoning) && typeof reasoning.redactedContent === "string") {
        replayed.push(block as ConverseBlock);
        return;
      }
      const readable = isRecord(reasoning) ? reasoning.reasoningText : undefined;
      if (!isRecord(readable) || typeof readable.text !== "string") {
        warnings.push(`${where}: reasoning block with neither text nor redactedContent; left out`);
        return;
      }
      if (context.requireSignedReasoning && !isNonEmptyString(readable.signature)) {
        warnings.push(`${where}: reasoning without its signature; left out`);
        return;
      }
      replayed.push(block as ConverseBlock);
      return;
    }
    if ("toolUse" in block) {
      const call = block.toolUse;
      if (!isRecord(call) || !isNonEmptyString(call.toolUseId) || !isNonEmptyString(call.name)) {
        warnings.push(`${where}: toolUse without an id or a name; left out`);
        return;
      }
      if (isPlainObject(call.input)) replayed.push(block as ConverseBlock);
      else {
        warnings.push(`${where}: toolUse input is not an object; sent as {}`);
        replayed.push({
          ...block,
          toolUse: { ...call, toolUseId: call.toolUseId, name: call.name, input: {} },
        });
      }
      return;
    }
    // Cache points are placed per request, never replayed (they count against the limit of four).
    if ("cachePoint" in block) return;
    // Server tool results, citations and block types this version does not know: as they came.
    replayed.push(block as ConverseBlock);
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

function toolResultBlock(callId: string, content: string, isError: boolean, context: Context): ConverseBlock {
  let text = isBlank(content) ? EMPTY_TOOL_RESULT : content;
  if (isError && !context.toolResultStatus) text = `Error: ${text}`;
  const result: ConverseToolResult = { toolUseId: callId, content: [{ text }] };
  if (isError && context.toolResultStatus) result.status = "error";
  return { toolResult: result };
}

/** A `toolUse` the caller must answer (not one the service ran itself, such as a code interpreter). */
function isClientToolUse(block: ConverseBlock): boolean {
  const call = block.toolUse;
  return (
    isRecord(call) &&
    typeof call.toolUseId === "string" &&
    typeof call.name === "string" &&
    (call.type === undefined || call.type === "tool_use")
  );
}

/** Consecutive turns of one role become one; in user turns, tool results move before other content. */
function mergeTurns(turns: ConverseMessage[]): ConverseMessage[] {
  const merged: ConverseMessage[] = [];
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

function orderToolResultsFirst(blocks: ConverseBlock[]): ConverseBlock[] {
  const results = blocks.filter((block) => isRecord(block.toolResult));
  if (results.length === 0 || results.length === blocks.length) return blocks;
  return [...results, ...blocks.filter((block) => !isRecord(block.toolResult))];
}

/**
 * Tool-use ids must be unique in a request and match {@link VALID_TOOL_ID}. A repeated id within one turn
 * drops the later call; an id reused by a later turn, or one Converse rejects, is rewritten in the call
 * and in the next user turn's results alike, so the pairing survives.
 */
function normalizeToolIds(turns: ConverseMessage[], warnings: string[]): void {
  const used = new Set<string>();
  turns.forEach((turn, position) => {
    if (turn.role !== "assistant") return;
    const renamed = new Map<string, string>();
    const inTurn = new Set<string>();
    const content: ConverseBlock[] = [];
    for (const block of turn.content) {
      if (!isClientToolUse(block)) {
        content.push(block);
        continue;
      }
      const call = block.toolUse!;
      if (inTurn.has(call.toolUseId)) {
        warnings.push(`tool call id ${call.toolUseId} repeated within one turn; the later call left out`);
        continue;
      }
      inTurn.add(call.toolUseId);
      let id = VALID_TOOL_ID.test(call.toolUseId)
        ? call.toolUseId
        : call.toolUseId.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64);
      for (let suffix = 2; used.has(id); suffix++) {
        const tail = `_dup${suffix}`;
        id = `${id.replace(/_dup\d+$/, "").slice(0, 64 - tail.length)}${tail}`;
      }
      used.add(id);
      if (id === call.toolUseId) {
        content.push(block);
      } else {
        warnings.push(`tool call id ${call.toolUseId} is invalid or already used; sent as ${id}`);
        renamed.set(call.toolUseId, id);
        content.push({ ...block, toolUse: { ...call, toolUseId: id } });
      }
    }
    turn.content = content;
    const next = turns[position + 1];
    if (renamed.size === 0 || next?.role !== "user") return;
    next.content = next.content.map((block) => {
      const result = block.toolResult;
      const id = isRecord(result) ? renamed.get(String(result.toolUseId)) : undefined;
      return id === undefined ? block : { ...block, toolResult: { ...result!, toolUseId: id } };
    });
  });
}

/**
 * Every client `toolUse` must be answered by a `toolResult` in the very next user turn, and every
 * `toolResult` of a user turn must answer a `toolUse` of the turn before it; Converse rejects the request
 * otherwise.
 */
function pairToolResults(turns: ConverseMessage[], context: Context): void {
  const { warnings } = context;
  for (let position = 0; position < turns.length; position++) {
    const turn = turns[position]!;
    if (turn.role !== "user") continue;
    const previous = turns[position - 1];
    const expected = new Set(previous?.role === "assistant" ? toolUseIds(previous) : []);
    const answered = new Set<string>();
    turn.content = turn.content.flatMap((block): ConverseBlock[] => {
      const result = block.toolResult;
      if (!isRecord(result)) return [block];
      const id = String(result.toolUseId);
      if (expected.has(id) && !answered.has(id)) {
        answered.add(id);
        return [block];
      }
      warnings.push(
        `tool result for call ${id} has no matching tool call in the turn before it; sent as text`,
      );
      return [{ text: orphanText(result) }];
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
      next.content.flatMap((block) =>
        isRecord(block.toolResult) ? [String(block.toolResult.toolUseId)] : [],
      ),
    );
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length === 0) continue;
    warnings.push(
      `tool call(s) ${missing.join(", ")} have no recorded result; answered with an error result`,
    );
    next.content = orderToolResultsFirst([
      ...missing.map((id) => toolResultBlock(id, MISSING_TOOL_RESULT, true, context)),
      ...next.content,
    ]);
  }
}

function toolUseIds(turn: ConverseMessage): string[] {
  return turn.content.flatMap((block) => (isClientToolUse(block) ? [block.toolUse!.toolUseId] : []));
}

function orphanText(result: ConverseToolResult): string {
  const texts = (Array.isArray(result.content) ? result.content : []).flatMap((item) =>
    isRecord(item) && typeof item.text === "string" ? [item.text] : [],
  );
  const content = texts.join("\n");
  const label = result.status === "error" ? "error result" : "result";
  return `[tool ${label} for call ${String(result.toolUseId)}]${content ? `\n${content}` : ""}`;
}

/** A final assistant turn is a prefill: Claude rejects trailing whitespace there. */
function trimFinalAssistant(turns: ConverseMessage[], warnings: string[]): void {
  const last = turns.at(-1);
  if (last?.role !== "assistant") return;
  const block = last.content.at(-1);
  if (block === undefined || typeof block.text !== "string") return;
  const trimmed = block.text.trimEnd();
  if (trimmed === block.text) return;
  warnings.push("final assistant text ended with whitespace, which is rejected in a prefill; trimmed");
  if (trimmed === "") last.content.pop();
  else last.content[last.content.length - 1] = { ...block, text: trimmed };
}
