import type { MessageInput } from "../../core/message.ts";
import type { ValidationIssue } from "../../core/validation-error.ts";
import { type NativeBlock, replayOrRebuild } from "../native-replay.ts";
import { assistantTextOf, textOnlyOf } from "../neutral-blocks.ts";
import { PendingResults, type PendingCall as PendingResultsCall } from "../pending-results.ts";
import {
  clipped,
  contentOf,
  forEachStoredMessage,
  isBlank,
  isNonEmptyString,
  isPlainObject,
  isRecord,
  MISSING_TOOL_RESULT,
  safeJson,
  safeString,
  shown,
  toolArgumentsTextOf,
} from "../stored-history.ts";
import { openAIResponsesContentOf } from "./map-openai-responses-content.ts";
import {
  OPENAI_RESPONSES,
  type OpenAIResponsesCallOutputItem,
  type OpenAIResponsesInputItem,
  type OpenAIResponsesOutputItem,
} from "./openai-responses-wire.ts";

export { MISSING_TOOL_RESULT };

/** The endpoint and model a request goes to, and how it keeps state. */
export interface OpenAIResponsesReplayTarget {
  model: string;
  /** `native.origin` of the endpoint: `"openai"`, or the host of a Responses-compatible server. */
  origin: string;
  /**
   * The request's `store`. With `store: false` the server keeps nothing, so a reasoning item can only be
   * replayed with its `encrypted_content` (or its reasoning text); with `store: true` its id is enough.
   */
  store: boolean;
  /**
   * `previous_response_id`: the server already holds the conversation up to and including the last
   * assistant turn, so only the messages after it are sent (and the system text, as `instructions`, which
   * the server does not carry over).
   */
  previousResponseId?: string | undefined;
}

/** The converted conversation, and what had to be changed to make it valid. */
export interface ConvertedOpenAIResponsesInput {
  /** The system messages' text, joined by a blank line; `undefined` when there is none. */
  instructions: string | undefined;
  input: OpenAIResponsesInputItem[];
  warnings: string[];
  /**
   * Images and files the API cannot take (an unsupported media type, a `gs://` URL), each naming its
   * field: the request must not go out (the shell raises them as one `ValidationError`).
   */
  refused: ValidationIssue[];
}

/** A call of the turn before, waiting for its result, and the kind of output item that answers it. */
interface PendingCall extends PendingResultsCall {
  kind: OpenAIResponsesCallOutputItem["type"];
}

interface AssistantTurn {
  items: OpenAIResponsesInputItem[];
  calls: PendingCall[];
}

/** Bookkeeping shared by every turn of one request. */
interface RequestIds {
  callIds: Set<string>;
  itemIds: Set<string>;
}

/**
 * Neutral history → Responses `instructions` and `input`. Pure and total: it never throws, whatever a
 * stored history holds (seed 004: a raise here wedges the session, because every later turn re-converts the
 * same record). What it cannot send faithfully it drops or repairs, and says so in `warnings`.
 *
 * - **Order is meaning.** An assistant turn whose `native` came from this protocol, origin and model is
 *   replayed from `native.blocks`: the output items verbatim and in emission order (reasoning with its id and
 *   `encrypted_content`, messages, function calls, hosted-tool items). The API binds a reasoning item to the
 *   item that follows it, so reasoning → call_a → reasoning → call_b goes back exactly so (seed 004: "assistant
 *   replay reordered reasoning against calls" sent all reasoning first).
 * - On any provenance mismatch the turn is rebuilt from `content` (an assistant message) and `toolCalls`
 *   (`function_call` items), and its reasoning is dropped — never sent to another provider or model, never
 *   demoted to text (the rule of `native-replay.ts`, shared by every converter).
 * - Replayed items the API would reject are repaired: a reasoning item that cannot be resolved (no
 *   `encrypted_content` nor reasoning text with `store: false`, or a duplicate id) is left out and the items
 *   it led to lose their ids (they would name a reasoning item that is not there); a reasoning item with no
 *   item after it (an `incomplete` turn, two in a row) is left out; a call without `call_id` or name is left
 *   out; a repeated item id is removed, a repeated `call_id` renamed (its results follow the new id).
 * - Tool results become `function_call_output` (or `custom_tool_call_output`) items right after the turn
 *   that made the call; a call with no result gets an error output ({@link MISSING_TOOL_RESULT}); a result
 *   answering no call becomes user text.
 * - System messages become `instructions` (their text; an image or file there is left out with a warning);
 *   user content becomes a user message after that message's results: text as a string, images and files
 *   as `input_image` / `input_file` parts (`map-openai-responses-content.ts`). A tool result's images and
 *   files go in its output's parts, as the API takes them. A part the API cannot take is listed in
 *   `refused`, naming its field.
 */
export function convertToOpenAIResponsesInput(
  messages: readonly MessageInput[] | readonly unknown[],
  target: OpenAIResponsesReplayTarget,
): ConvertedOpenAIResponsesInput {
  const warnings: string[] = [];
  const refused: ValidationIssue[] = [];
  const sink = { warnings, refused };
  const system: string[] = [];
  const input: OpenAIResponsesInputItem[] = [];
  const ids: RequestIds = { callIds: new Set(), itemIds: new Set() };
  const results = new PendingResults<PendingCall, OpenAIResponsesInputItem>(
    input,
    {
      output: (call, output, where, added) => ({
        type: call.kind,
        call_id: call.sent,
        output: openAIResponsesContentOf(output, where, sink, -added),
      }),
      // Only results answering no call come here, their header part put in front of their parts.
      text: (text, where, added) => ({
        role: "user",
        content: openAIResponsesContentOf(text, where, sink, -added),
      }),
    },
    warnings,
  );
  // Stryker disable next-line ArrayDeclaration: equivalent: `list` is only searched for an assistant message, which a filler element is not.
  const list: readonly unknown[] = Array.isArray(messages) ? messages : [];

  // With previous_response_id the server holds everything through the last assistant turn.
  let heldByServer = -1;
  if (typeof target.previousResponseId === "string" && target.previousResponseId !== "") {
    // Stryker disable next-line ArithmeticOperator: equivalent: starting past the end only reads empty slots first.
    for (let index = list.length - 1; index >= 0; index--) {
      const raw = list[index];
      if (isRecord(raw) && raw.role === "assistant") {
        heldByServer = index;
        break;
      }
    }
  }

  forEachStoredMessage(messages, warnings, (raw, role, index) => {
    switch (role) {
      case "system": {
        const where = `messages[${index}].content`;
        const text = textOnlyOf(
          contentOf(raw.content, where, warnings),
          where,
          warnings,
          "instructions take text only",
        );
        if (!isBlank(text)) system.push(text);
        return;
      }
      case "user":
      case "tool": {
        if (index <= heldByServer) return;
        results.answerAll(raw.toolResults, index);
        const where = `messages[${index}].content`;
        const content = openAIResponsesContentOf(contentOf(raw.content, where, warnings), where, sink);
        if (typeof content === "string" ? !isBlank(content) : content.length > 0) {
          results.flush();
          input.push({ role: "user", content });
        }
        return;
      }
      case "assistant": {
        if (index < heldByServer) return;
        results.flush();
        if (index === heldByServer) {
          // The server has this turn's items; only its calls matter here, for the results that follow.
          results.open(heldCalls(raw));
          return;
        }
        const turn = assistantTurn(raw, index, target, warnings, ids);
        input.push(...turn.items);
        results.open(turn.calls);
        return;
      }
    }
  });
  results.flush();
  return { instructions: system.length > 0 ? system.join("\n\n") : undefined, input, warnings, refused };
}

function assistantTurn(
  raw: Record<string, unknown>,
  index: number,
  target: OpenAIResponsesReplayTarget,
  warnings: string[],
  ids: RequestIds,
): AssistantTurn {
  return replayOrRebuild(
    raw,
    index,
    { protocol: OPENAI_RESPONSES, origin: target.origin, model: target.model },
    warnings,
    {
      replay: (blocks) => replayNative(blocks, index, target, warnings, ids),
      rebuild: (sameProtocol) => rebuildTurn(raw, index, sameProtocol, warnings, ids),
      isEmpty: (turn) => turn.items.length === 0,
    },
  );
}

/** A turn from its neutral fields: the text as an assistant message, then each call as a `function_call`. */
function rebuildTurn(
  raw: Record<string, unknown>,
  index: number,
  fromThisProtocol: boolean,
  warnings: string[],
  ids: RequestIds,
): AssistantTurn {
  const items: OpenAIResponsesInputItem[] = [];
  const calls: PendingCall[] = [];
  const text = assistantTextOf(raw.content, index, warnings);
  if (!isBlank(text)) items.push({ role: "assistant", content: text });
  const toolCalls = Array.isArray(raw.toolCalls) ? raw.toolCalls : [];
  toolCalls.forEach((call: unknown, position) => {
    const where = `messages[${index}].toolCalls[${position}]`;
    if (!isRecord(call) || !isNonEmptyString(call.name)) {
      warnings.push(`${where}: tool call without a name; left out`);
      return;
    }
    let original: string;
    if (isNonEmptyString(call.id)) original = call.id;
    else {
      original = `call_${index}_${position}`;
      warnings.push(`${where}: tool call without an id; sent as ${original}`);
    }
    const sent = uniqueCallId(original, ids, where, warnings);
    items.push({
      type: "function_call",
      call_id: sent,
      name: call.name,
      arguments: toolArgumentsTextOf(call, fromThisProtocol),
    });
    calls.push({ original, sent, kind: "function_call_output" });
  });
  if (items.length === 0) {
    warnings.push(`messages[${index}]: assistant turn with no text and no tool calls; left out`);
  }
  return { items, calls };
}

interface Entry {
  item: OpenAIResponsesOutputItem;
  reasoning: boolean;
  dropped: boolean;
}

/** `native.blocks` as sent: verbatim and in order, minus what the API would reject. */
function replayNative(
  blocks: readonly NativeBlock[],
  index: number,
  target: OpenAIResponsesReplayTarget,
  warnings: string[],
  ids: RequestIds,
): AssistantTurn {
  const entries: Entry[] = [];
  blocks.forEach(({ block, where }) => {
    if (typeof block.type !== "string") {
      warnings.push(`${where}: not an output item; left out`);
      return;
    }
    const item = block as OpenAIResponsesOutputItem;
    switch (item.type) {
      case "reasoning": {
        const duplicate = isNonEmptyString(item.id) && ids.itemIds.has(item.id);
        const resolvable = target.store || isNonEmptyString(item.encrypted_content) || hasReasoningText(item);
        if (duplicate || !resolvable) {
          warnings.push(
            duplicate
              ? `${where}: reasoning item ${clipped(safeString(item.id))} already sent in this request; left out`
              : `${where}: reasoning item without encrypted_content cannot be resolved with store: false; left out`,
          );
          entries.push({ item, reasoning: true, dropped: true });
          return;
        }
        if (isNonEmptyString(item.id)) ids.itemIds.add(item.id);
        entries.push({ item, reasoning: true, dropped: false });
        return;
      }
      case "function_call":
      case "custom_tool_call": {
        if (!isNonEmptyString(item.call_id) || !isNonEmptyString(item.name)) {
          warnings.push(`${where}: ${item.type} without a call_id or a name; left out`);
          entries.push({ item, reasoning: false, dropped: true });
          return;
        }
        const field = item.type === "function_call" ? "arguments" : "input";
        let repaired = item;
        if (typeof item[field] !== "string") {
          const text = item.type === "function_call" ? objectJson(item.arguments) : "";
          warnings.push(`${where}: ${field} is not text; sent as ${shown(text)}`);
          repaired = { ...item, [field]: text };
        }
        entries.push({ item: repaired, reasoning: false, dropped: false });
        return;
      }
      case "function_call_output":
      case "custom_tool_call_output":
        warnings.push(`${where}: a tool result inside an assistant turn; left out`);
        return;
      default:
        entries.push({ item, reasoning: false, dropped: false });
    }
  });

  // Items that followed a reasoning item which is not sent lose their ids: with an id, the API looks for
  // the reasoning item they were produced with and rejects the request when it is missing.
  let unbound = false;
  for (const entry of entries) {
    if (entry.reasoning) {
      unbound = entry.dropped;
      continue;
    }
    if (entry.dropped) continue;
    if (isNonEmptyString(entry.item.id) && (unbound || ids.itemIds.has(entry.item.id))) {
      if (!unbound)
        warnings.push(
          `messages[${index}]: item id ${clipped(entry.item.id)} already sent in this request; id removed`,
        );
      const { id: _id, ...rest } = entry.item;
      entry.item = rest as OpenAIResponsesOutputItem;
    }
    if (isNonEmptyString(entry.item.id)) ids.itemIds.add(entry.item.id);
  }

  const kept = entries.filter((entry) => !entry.dropped);
  const items: OpenAIResponsesInputItem[] = [];
  const calls: PendingCall[] = [];
  kept.forEach((entry, position) => {
    if (entry.reasoning) {
      const next = kept[position + 1];
      if (next === undefined || next.reasoning) {
        // The API rejects a reasoning item "provided without its required following item".
        warnings.push(
          `messages[${index}]: reasoning item ${clipped(safeString(entry.item.id))} has no item after it; left out`,
        );
        // Not sent after all: a later turn's item with the same id is not a duplicate.
        if (isNonEmptyString(entry.item.id)) ids.itemIds.delete(entry.item.id);
        return;
      }
      items.push(entry.item);
      return;
    }
    let item = entry.item;
    if (item.type === "function_call" || item.type === "custom_tool_call") {
      const original = item.call_id as string;
      const sent = uniqueCallId(original, ids, `messages[${index}].native`, warnings);
      if (sent !== original) item = { ...item, call_id: sent };
      calls.push({
        original,
        sent,
        kind: item.type === "function_call" ? "function_call_output" : "custom_tool_call_output",
      });
    }
    items.push(item);
  });
  return { items, calls };
}

/** The calls of a turn the server holds (`previous_response_id`): from its items, else its tool calls. */
function heldCalls(raw: Record<string, unknown>): PendingCall[] {
  const calls: PendingCall[] = [];
  const native = isRecord(raw.native) ? raw.native : undefined;
  if (native?.protocol === OPENAI_RESPONSES && Array.isArray(native.blocks)) {
    for (const block of native.blocks) {
      if (!isRecord(block) || !isNonEmptyString(block.call_id)) continue;
      if (block.type === "function_call")
        calls.push({ original: block.call_id, sent: block.call_id, kind: "function_call_output" });
      else if (block.type === "custom_tool_call")
        calls.push({ original: block.call_id, sent: block.call_id, kind: "custom_tool_call_output" });
    }
    if (calls.length > 0) return calls;
  }
  // Stryker disable next-line ArrayDeclaration: equivalent: a filler element is not a call with an id, so it is skipped.
  const toolCalls = Array.isArray(raw.toolCalls) ? raw.toolCalls : [];
  for (const call of toolCalls) {
    if (isRecord(call) && isNonEmptyString(call.id))
      calls.push({ original: call.id, sent: call.id, kind: "function_call_output" });
  }
  return calls;
}

/** `original`, or `original_<n>` when a call of this request already uses it. */
function uniqueCallId(original: string, ids: RequestIds, where: string, warnings: string[]): string {
  let sent = original;
  for (let n = 2; ids.callIds.has(sent); n++) sent = `${original}_${n}`;
  if (sent !== original)
    warnings.push(
      `${where}: call id ${clipped(original)} already used in this request; sent as ${clipped(sent)}`,
    );
  ids.callIds.add(sent);
  return sent;
}

function objectJson(value: unknown): string {
  if (isPlainObject(value)) return safeJson(value) ?? "{}";
  return "{}";
}

function hasReasoningText(item: Record<string, unknown>): boolean {
  return (
    Array.isArray(item.content) &&
    item.content.some((part) => isRecord(part) && typeof part.text === "string" && part.text !== "")
  );
}
