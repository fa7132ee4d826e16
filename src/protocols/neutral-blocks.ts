/**
 * A stored message's neutral fields (`content`, `toolCalls`, `toolResults`) as the content blocks of a
 * block protocol — Anthropic Messages and Bedrock Converse — written once over the protocol's block
 * constructors, as `repair-turns.ts` is for the repairs after. Both protocols take the same rules: blank
 * text is left out, tool results come before the text of their turn, a result without a call id is sent as
 * its text, a call without an id or a name is left out. Total, like the converters: every read goes
 * through the never-throw helpers of `stored-history.ts`.
 *
 * @module
 */
import { isBlank, isNonEmptyString, isRecord, textOf, toolArgumentsOf } from "./stored-history.ts";

/** How one block protocol writes the blocks that neutral fields become. */
export interface NeutralBlockWriter<B> {
  /** A text block (never called with blank text). */
  text(text: string): B;
  /** A client tool call. */
  toolCall(id: string, name: string, input: Record<string, unknown>): B;
  /** The result of a call (`content` may be blank: the writer knows what its API accepts). */
  toolResult(callId: string, content: string, isError: boolean): B;
}

/**
 * A user (or tool) message's blocks: each tool result, then the message's text. A result without a call id
 * cannot answer a call, so its content goes as text, with a warning. Never throws.
 */
export function userBlocksOf<B>(
  message: Record<string, unknown>,
  index: number,
  writer: NeutralBlockWriter<B>,
  warnings: string[],
): B[] {
  const blocks: B[] = [];
  const results = Array.isArray(message.toolResults) ? message.toolResults : [];
  results.forEach((result: unknown, position) => {
    const where = `messages[${index}].toolResults[${position}]`;
    if (!isRecord(result) || !isNonEmptyString(result.callId)) {
      const content = isRecord(result) ? textOf(result.content, index, warnings) : "";
      warnings.push(`${where}: tool result without a call id; sent as text`);
      if (!isBlank(content)) blocks.push(writer.text(content));
      return;
    }
    blocks.push(
      writer.toolResult(result.callId, textOf(result.content, index, warnings), result.isError === true),
    );
  });
  const text = textOf(message.content, index, warnings);
  if (!isBlank(text)) blocks.push(writer.text(text));
  return blocks;
}

/**
 * An assistant message's blocks from its neutral fields (what a turn is rebuilt from when its `native`
 * cannot be replayed): its text, then each tool call with its arguments as an object. A call without an id
 * or a name is left out, with a warning. Never throws.
 */
export function assistantBlocksOf<B>(
  message: Record<string, unknown>,
  index: number,
  writer: NeutralBlockWriter<B>,
  warnings: string[],
): B[] {
  const blocks: B[] = [];
  const text = textOf(message.content, index, warnings);
  if (!isBlank(text)) blocks.push(writer.text(text));
  const calls = Array.isArray(message.toolCalls) ? message.toolCalls : [];
  calls.forEach((call: unknown, position) => {
    const where = `messages[${index}].toolCalls[${position}]`;
    if (!isRecord(call) || !isNonEmptyString(call.id) || !isNonEmptyString(call.name)) {
      warnings.push(`${where}: tool call without an id or a name; left out`);
      return;
    }
    blocks.push(writer.toolCall(call.id, call.name, toolArgumentsOf(call, where, warnings)));
  });
  return blocks;
}
