/**
 * The repairs a converted history needs before Anthropic Messages or Bedrock Converse accept it, written
 * once over the protocol's block shape: both APIs reject the same things (a tool call unanswered in the next
 * user turn, a result answering no call, repeated or malformed tool ids, two turns of one role in a row,
 * trailing whitespace in a prefill), only their blocks differ. Pure and total, like the converters.
 *
 * @module
 */
import { clipped } from "./stored-history.ts";

/** A turn of the request: Anthropic's `messages[]` and Converse's alike. */
export interface Turn<B> {
  role: "user" | "assistant";
  content: B[];
}

/** How {@link repairTurns} reads and rewrites one protocol's blocks. */
export interface TurnBlocks<B extends object> {
  /** The id of a client tool call block; undefined for every other block. */
  callId(block: B): string | undefined;
  /** The call id a tool result block answers, as a string; undefined for every other block. */
  resultId(block: B): string | undefined;
  /** The call block with its id replaced. */
  withCallId(block: B, id: string): B;
  /** The result block with the id of the call it answers replaced. */
  withResultId(block: B, id: string): B;
  /**
   * A text block standing for a result that answers no call of the turn before it (or that text block
   * followed by the result's images and documents, for protocols whose results carry them).
   */
  orphanToText(block: B): B | B[];
  /** The error result answering a call that has none. */
  missingResult(id: string): B;
  /** The text of a text block; undefined for every other block. */
  text(block: B): string | undefined;
  /** Longest tool id accepted (ids are otherwise `[a-zA-Z0-9_-]+`); `Infinity` for no limit. */
  maxIdLength: number;
  /** The warning when a final assistant (prefill) text is trimmed. */
  prefillWarning: string;
}

/**
 * `turns` (one per history message, possibly empty) made acceptable, and what was changed said in
 * `warnings`:
 * - empty turns are dropped and consecutive turns of one role merged; in user turns, tool results go first;
 * - tool ids are made unique and valid: a repeated id within one turn drops the later call; an id reused by
 *   a later turn, or one with characters the API rejects, is rewritten in the call and in the next user
 *   turn's results alike, so the pairing survives;
 * - every tool result must answer a call of the turn just before it, else it becomes a text block
 *   (`orphanToText`); every call must be answered in the very next user turn (created if needed), else it
 *   gets `missingResult`;
 * - trailing whitespace is trimmed off a final assistant text (a prefill).
 */
export function repairTurns<B extends object>(
  turns: readonly Turn<B>[],
  blocks: TurnBlocks<B>,
  warnings: string[],
): Turn<B>[] {
  const merged = mergeTurns(
    turns.filter((turn) => turn.content.length > 0),
    blocks,
  );
  normalizeToolIds(merged, blocks, warnings);
  pairToolResults(merged, blocks, warnings);
  trimFinalAssistant(merged, blocks, warnings);
  return merged.filter((turn) => turn.content.length > 0);
}

/** Consecutive turns of one role become one; in user turns, tool results move before other content. */
function mergeTurns<B extends object>(turns: readonly Turn<B>[], blocks: TurnBlocks<B>): Turn<B>[] {
  const merged: Turn<B>[] = [];
  for (const turn of turns) {
    const last = merged.at(-1);
    if (last && last.role === turn.role) last.content.push(...turn.content);
    else merged.push({ role: turn.role, content: [...turn.content] });
  }
  for (const turn of merged) {
    if (turn.role === "user") turn.content = resultsFirst(turn.content, blocks);
  }
  return merged;
}

/** Tool results first, in order; the same array when there is nothing to move. */
function resultsFirst<B extends object>(content: B[], blocks: TurnBlocks<B>): B[] {
  const results: B[] = [];
  const others: B[] = [];
  for (const block of content) (blocks.resultId(block) === undefined ? others : results).push(block);
  return results.length > 0 && others.length > 0 ? [...results, ...others] : content;
}

function normalizeToolIds<B extends object>(
  turns: Turn<B>[],
  blocks: TurnBlocks<B>,
  warnings: string[],
): void {
  const max = blocks.maxIdLength;
  const used = new Set<string>();
  turns.forEach((turn, position) => {
    if (turn.role !== "assistant") return;
    /** The id each call of this turn is sent with, by its own id. */
    const sent = new Map<string, string>();
    turn.content = turn.content.flatMap((block) => {
      const original = blocks.callId(block);
      if (original === undefined) return [block];
      if (sent.has(original)) {
        warnings.push(`tool call id ${clipped(original)} repeated within one turn; the later call left out`);
        return [];
      }
      // Only `[a-zA-Z0-9_-]`, at most `maxIdLength` long: ids from other providers may not be.
      let id = original.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, max);
      for (let suffix = 2; used.has(id); suffix++) {
        const tail = `_dup${suffix}`;
        id = `${id.replace(/_dup\d+$/, "").slice(0, max - tail.length)}${tail}`;
      }
      used.add(id);
      sent.set(original, id);
      if (id === original) return [block];
      warnings.push(`tool call id ${clipped(original)} is invalid or already used; sent as ${clipped(id)}`);
      return [blocks.withCallId(block, id)];
    });
    const next = turns[position + 1];
    if (next?.role !== "user") return;
    next.content = next.content.map((block) => {
      const answers = blocks.resultId(block);
      const id = answers === undefined ? undefined : sent.get(answers);
      return id === undefined || id === answers ? block : blocks.withResultId(block, id);
    });
  });
}

function pairToolResults<B extends object>(
  turns: Turn<B>[],
  blocks: TurnBlocks<B>,
  warnings: string[],
): void {
  turns.forEach((turn, position) => {
    if (turn.role !== "user") return;
    const previous = turns[position - 1];
    /** Calls of the turn before, each answered at most once. */
    const open = new Set(previous?.role === "assistant" ? callIds(previous, blocks) : []);
    const content = turn.content.flatMap((block) => {
      const id = blocks.resultId(block);
      if (id === undefined || open.delete(id)) return [block];
      warnings.push(
        `tool result for call ${clipped(id)} has no matching tool call in the turn before it; sent as text`,
      );
      return blocks.orphanToText(block);
    });
    turn.content = resultsFirst(content, blocks);
  });
  // Calls without results: add error results in the next user turn (created if needed), before its own.
  for (let position = 0; position < turns.length; position++) {
    const turn = turns[position]!;
    const ids = turn.role === "assistant" ? callIds(turn, blocks) : [];
    if (ids.length === 0) continue;
    let next = turns[position + 1];
    if (next?.role !== "user") {
      next = { role: "user", content: [] };
      turns.splice(position + 1, 0, next);
    }
    const answered = new Set(next.content.map((block) => blocks.resultId(block)));
    const missing = ids.filter((id) => !answered.has(id));
    if (missing.length === 0) continue;
    warnings.push(
      `tool call(s) ${missing.map(clipped).join(", ")} have no recorded result; answered with an error result`,
    );
    next.content = [...missing.map((id) => blocks.missingResult(id)), ...next.content];
  }
}

function callIds<B extends object>(turn: Turn<B>, blocks: TurnBlocks<B>): string[] {
  return turn.content.flatMap((block) => blocks.callId(block) ?? []);
}

/** A final assistant turn is a prefill: trailing whitespace is rejected there. */
function trimFinalAssistant<B extends object>(
  turns: Turn<B>[],
  blocks: TurnBlocks<B>,
  warnings: string[],
): void {
  const last = turns.at(-1);
  if (last?.role !== "assistant") return;
  const block = last.content.at(-1);
  const text = block === undefined ? undefined : blocks.text(block);
  if (text === undefined) return;
  const trimmed = text.trimEnd();
  if (trimmed === text) return;
  warnings.push(blocks.prefillWarning);
  if (trimmed === "") last.content.pop();
  else last.content[last.content.length - 1] = { ...block, text: trimmed } as B;
}
