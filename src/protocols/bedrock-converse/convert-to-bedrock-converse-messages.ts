import type { Content } from "../../core/content.ts";
import type { MessageInput } from "../../core/message.ts";
import type { ValidationIssue } from "../../core/validation-error.ts";
import { type NativeBlock, replayOrRebuild } from "../native-replay.ts";
import { assistantBlocksOf, type NeutralBlockWriter, systemTextOf, userBlocksOf } from "../neutral-blocks.ts";
import { repairTurns, type TurnBlocks } from "../repair-turns.ts";
import {
  forEachStoredMessage,
  isBlank,
  isNonEmptyString,
  isPlainObject,
  isRecord,
  MISSING_TOOL_RESULT,
  orphanResultText,
  safeString,
} from "../stored-history.ts";
import {
  type ConverseMediaContext,
  converseMediaBlock,
  converseMediaContext,
  mediaKind,
} from "./bedrock-converse-media.ts";
import {
  BEDROCK_CONVERSE,
  type ConverseBlock,
  type ConverseMessage,
  type ConverseToolResult,
} from "./bedrock-converse-wire.ts";
import type { BedrockModelTraits } from "./bedrock-model-traits.ts";

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
  /**
   * Media a `toolResult` takes inside (default both); the others go in a user turn right after the
   * results, with a warning.
   */
  toolResultMedia?: BedrockModelTraits["toolResultMedia"] | undefined;
  /** What may share a user turn with tool results (default `"all"`); see `BedrockModelTraits`. */
  toolResultNeighbours?: BedrockModelTraits["toolResultNeighbours"] | undefined;
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
  /** Parts the target cannot take (a format Bedrock does not read, an https URL), each naming its field. */
  refused: ValidationIssue[];
}

export { MISSING_TOOL_RESULT };

/** What an empty tool result is sent as: Converse rejects blank text blocks, tool results' included. */
export const EMPTY_TOOL_RESULT = "(no output)";

/** What opens a conversation whose first turn is the assistant's: Converse requires a user turn first. */
export const CONVERSATION_START = "(conversation start)";

/** The assistant turn put between tool results and what may not share their user turn. */
export const RESULTS_SEPARATOR = ".";

/** The text added to a user turn that has a document and no text (Converse requires one). */
export const DOCUMENT_TEXT = "(see the attached document)";

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
 *   its reasoning is dropped — never demoted to text (the rule of `native-replay.ts`, shared by every
 *   converter).
 * - Blank text blocks are left out everywhere, replayed ones included (Converse rejects them); a blank
 *   tool result is sent as {@link EMPTY_TOOL_RESULT}.
 * - Tool calls with malformed or non-object arguments get `{}`; calls missing an id or a name are dropped;
 *   ids Converse rejects are rewritten in the call and its result alike.
 * - Tool results go first in user turns. A result with no matching call in the turn before it becomes a
 *   text block; a call with no result gets an error result ({@link MISSING_TOOL_RESULT}).
 * - Turns left with no content are dropped, consecutive turns of one role merged, and a conversation that
 *   would open with the assistant gets a user turn first ({@link CONVERSATION_START}).
 * - Images and files become `image` / `document` blocks (`bedrock-converse-media.ts`), in user turns and
 *   inside `toolResult.content`; what Bedrock cannot read is in `refused`, naming the field. Media a model
 *   cannot take inside a tool result (`toolResultMedia`) is sent right after the results, with a note in the
 *   result; tool results share their user turn only with what the model takes beside them
 *   (`toolResultNeighbours`), the rest going after a {@link RESULTS_SEPARATOR} assistant turn; an orphan
 *   result keeps its images and documents after its text; a user turn with a document and no text gets
 *   {@link DOCUMENT_TEXT}. Each of these is said in `warnings`.
 */
export function convertToBedrockConverseMessages(
  messages: readonly MessageInput[] | readonly unknown[],
  target: BedrockConverseReplayTarget,
  options: BedrockConverseConvertOptions = {},
): ConvertedBedrockConverseMessages {
  const warnings: string[] = [];
  const context: Context = {
    warnings,
    toolResultStatus: options.toolResultStatus ?? true,
    requireSignedReasoning: options.requireSignedReasoning ?? true,
    media: converseMediaContext(warnings),
    toolResultMedia: options.toolResultMedia ?? { image: true, document: true },
    deferred: [],
  };
  const system: { text: string }[] = [];
  const turns: ConverseMessage[] = [];
  /** Which stored message each user block came from, for the warnings of the repairs after conversion. */
  const sourceOf = new WeakMap<ConverseBlock, number>();

  forEachStoredMessage(messages, warnings, (raw, role, index) => {
    switch (role) {
      case "system": {
        const where = `messages[${index}].content`;
        const text = systemTextOf(raw.content, where, warnings, context.media.refused, "Bedrock Converse");
        if (!isBlank(text)) system.push({ text });
        return;
      }
      case "user":
      case "tool": {
        const content = userBlocksOf(raw, index, converseNeutral(context), warnings);
        if (context.deferred.length > 0) {
          // Media a tool result could not hold: right after the results, before the message's own content.
          let after = 0;
          content.forEach((block, position) => {
            if (isRecord(block.toolResult)) after = position + 1;
          });
          content.splice(after, 0, ...context.deferred);
          context.deferred = [];
        }
        for (const block of content) sourceOf.set(block, index);
        turns.push({ role: "user", content });
        return;
      }
      case "assistant":
        turns.push({ role: "assistant", content: assistantBlocks(raw, index, target, context) });
        return;
    }
  });

  const missingResult = (id: string) => toolResultBlock(id, MISSING_TOOL_RESULT, true, context, "");
  const repaired = repairTurns(turns, { ...CONVERSE_BLOCKS, missingResult }, warnings);
  /** The stored message a turn's blocks came from, as warnings name it (`messages[i]`), or "a user turn". */
  const named = (turn: ConverseMessage): string => {
    const index = turn.content.map((block) => sourceOf.get(block)).find((found) => found !== undefined);
    return index === undefined ? "a user turn" : `messages[${index}]`;
  };
  const result = separateToolResults(
    repaired.map(withOrphanMedia).map((turn) => withDocumentText(turn, warnings, named)),
    options.toolResultNeighbours ?? "all",
    warnings,
    named,
  );
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
  return { system, messages: result, warnings, toolNames, hasToolBlocks, refused: context.media.refused };
}

interface Context {
  warnings: string[];
  toolResultStatus: boolean;
  requireSignedReasoning: boolean;
  media: ConverseMediaContext;
  toolResultMedia: BedrockModelTraits["toolResultMedia"];
  /** Media of the tool results being written that go after the results, in the same user turn. */
  deferred: ConverseBlock[];
}

/** The media of orphan results, by the text block standing for the result (expanded after the repairs). */
const orphanMedia = new WeakMap<ConverseBlock, ConverseBlock[]>();

/** An orphan result's text block followed by its images and documents: a result keeps its parts. */
function withOrphanMedia(turn: ConverseMessage): ConverseMessage {
  if (!turn.content.some((block) => orphanMedia.has(block))) return turn;
  return { ...turn, content: turn.content.flatMap((block) => [block, ...(orphanMedia.get(block) ?? [])]) };
}

/**
 * Converse requires a text block in a message that has a document ("If you include a ContentBlock with a
 * document field, you must also include a ContentBlock with a text field"): one is added when missing.
 */
function withDocumentText(
  turn: ConverseMessage,
  warnings: string[],
  named: (turn: ConverseMessage) => string,
): ConverseMessage {
  if (turn.role !== "user" || !turn.content.some((block) => "document" in block)) return turn;
  if (turn.content.some((block) => typeof block.text === "string")) return turn;
  warnings.push(
    `${named(turn)}: a user turn holds a document and no text, which Converse rejects; the text ${JSON.stringify(DOCUMENT_TEXT)} added`,
  );
  let after = 0;
  turn.content.forEach((block, position) => {
    if (isRecord(block.toolResult)) after = position + 1;
  });
  const content = [...turn.content];
  content.splice(after, 0, { text: DOCUMENT_TEXT });
  return { ...turn, content };
}

/**
 * User turns whose tool results share the turn with blocks the model rejects there (Llama, Mistral and
 * Writer want the results alone; Claude rejects a document next to them): the results stay, the rest goes
 * to a user turn of its own after an assistant turn {@link RESULTS_SEPARATOR} (Converse would merge two
 * user turns in a row). Said in `warnings`.
 */
function separateToolResults(
  turns: ConverseMessage[],
  neighbours: BedrockModelTraits["toolResultNeighbours"],
  warnings: string[],
  named: (turn: ConverseMessage) => string,
): ConverseMessage[] {
  if (neighbours === "all") return turns;
  const rejected = (block: ConverseBlock): boolean =>
    neighbours === "none" || mediaKind(block) === "document" || mediaKind(block) === "video";
  const out: ConverseMessage[] = [];
  for (const turn of turns) {
    const results = turn.content.filter((block) => isRecord(block.toolResult));
    const rest = turn.content.filter((block) => !isRecord(block.toolResult));
    if (turn.role !== "user" || results.length === 0 || !rest.some(rejected)) {
      out.push(turn);
      continue;
    }
    warnings.push(
      `${named(turn)}: this model takes ${neighbours === "none" ? "nothing" : "no document"} beside tool results in a user turn; the rest sent in a user turn of its own after a "${RESULTS_SEPARATOR}" assistant turn`,
    );
    out.push(
      { role: "user", content: results },
      { role: "assistant", content: [{ text: RESULTS_SEPARATOR }] },
      { role: "user", content: rest },
    );
  }
  return out;
}

function assistantBlocks(
  raw: Record<string, unknown>,
  index: number,
  target: BedrockConverseReplayTarget,
  context: Context,
): ConverseBlock[] {
  return replayOrRebuild(
    raw,
    index,
    { protocol: BEDROCK_CONVERSE, origin: target.origin, model: target.model },
    context.warnings,
    {
      replay: (blocks) => replayNative(blocks, context),
      rebuild: () => assistantBlocksOf(raw, index, converseNeutral(context), context.warnings),
      isEmpty: (blocks) => blocks.length === 0,
    },
  );
}

/** `native.blocks` as sent: verbatim and in order, minus what Converse would reject. */
function replayNative(blocks: readonly NativeBlock[], context: Context): ConverseBlock[] {
  const { warnings } = context;
  const replayed: ConverseBlock[] = [];
  blocks.forEach(({ block, where }) => {
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

/**
 * A `toolResult`: text as `{ text }` items, images and documents as `{ image }` / `{ document }` items
 * where the model takes them there; one it does not is replaced by a note and sent right after the
 * results (`context.deferred`), with a warning. A failed result without `status` says `Error:` first.
 */
function toolResultBlock(
  callId: string,
  content: Content,
  isError: boolean,
  context: Context,
  where: string,
): ConverseBlock {
  const items: ConverseToolResult["content"] = [];
  if (typeof content === "string") {
    if (!isBlank(content)) items.push({ text: content });
  } else {
    content.forEach((part, position) => {
      if (part.type === "text") {
        if (!isBlank(part.text)) items.push({ text: part.text });
        return;
      }
      const at = `${where}[${position}]`;
      const block = converseMediaBlock(part, at, context.media);
      if (block === undefined) return;
      const kind = mediaKind(block) as "image" | "document";
      if (context.toolResultMedia[kind]) {
        items.push(block);
        return;
      }
      context.warnings.push(
        `${at}: this model takes no ${kind} inside a tool result; sent in the user turn after the results`,
      );
      items.push({ text: `(the ${kind} is sent after this result)` });
      context.deferred.push({ text: `The ${kind} from the result of tool call ${callId}:` }, block);
    });
  }
  if (items.length === 0) items.push({ text: EMPTY_TOOL_RESULT });
  if (isError && !context.toolResultStatus) {
    const first = items[0]!;
    if (typeof first.text === "string") items[0] = { text: `Error: ${first.text}` };
    else items.unshift({ text: "Error:" });
  }
  const result: ConverseToolResult = { toolUseId: callId, content: items };
  if (isError && context.toolResultStatus) result.status = "error";
  return { toolResult: result };
}

/** The blocks neutral fields become, for {@link userBlocksOf} and {@link assistantBlocksOf}. */
function converseNeutral(context: Context): NeutralBlockWriter<ConverseBlock> {
  return {
    text: (text) => ({ text }),
    part: (part, where) => converseMediaBlock(part, where, context.media),
    toolCall: (toolUseId, name, input) => ({ toolUse: { toolUseId, name, input } }),
    toolResult: (callId, content, isError, where) =>
      toolResultBlock(callId, content, isError, context, where),
  };
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

function orphanText(result: ConverseToolResult): string {
  const texts = (Array.isArray(result.content) ? result.content : []).flatMap((item) =>
    isRecord(item) && typeof item.text === "string" ? [item.text] : [],
  );
  return orphanResultText(result.toolUseId, texts.join("\n"), result.status === "error");
}

/**
 * Converse blocks, for {@link repairTurns} (`missingResult` depends on the model, so it is added per call):
 * client `toolUse` and `toolResult` pair by `toolUseId`, of at most 64 characters.
 */
const CONVERSE_BLOCKS: Omit<TurnBlocks<ConverseBlock>, "missingResult"> = {
  callId: (block) => (isClientToolUse(block) ? block.toolUse!.toolUseId : undefined),
  resultId: (block) => (isRecord(block.toolResult) ? safeString(block.toolResult.toolUseId) : undefined),
  withCallId: (block, id) => ({ ...block, toolUse: { ...block.toolUse!, toolUseId: id } }),
  withResultId: (block, id) => ({ ...block, toolResult: { ...block.toolResult!, toolUseId: id } }),
  orphanToText: (block) => {
    const text: ConverseBlock = { text: orphanText(block.toolResult!) };
    const content = Array.isArray(block.toolResult!.content) ? block.toolResult!.content : [];
    const media = content.filter((item) => isRecord(item) && mediaKind(item) !== undefined);
    if (media.length > 0) orphanMedia.set(text, media as ConverseBlock[]);
    return text;
  },
  text: (block) => (typeof block.text === "string" ? block.text : undefined),
  maxIdLength: 64,
  prefillWarning: "final assistant text ended with whitespace, which is rejected in a prefill; trimmed",
};
