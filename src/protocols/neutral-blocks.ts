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
import type { Content, FilePart, ImagePart } from "../core/content.ts";
import type { ValidationIssue } from "../core/validation-error.ts";
import { contentOf, isBlank, isNonEmptyString, isRecord, textOf, toolArgumentsOf } from "./stored-history.ts";

/** How one block protocol writes the blocks that neutral fields become. */
export interface NeutralBlockWriter<B> {
  /** A text block (never called with blank text). */
  text(text: string): B;
  /**
   * An image or a file (`where` names it, e.g. `messages[2].content[1]`): its block, or `undefined` when
   * the target cannot take it — the writer has then listed a warning or a refusal naming `where`.
   */
  part(part: ImagePart | FilePart, where: string): B | undefined;
  /** A client tool call. */
  toolCall(id: string, name: string, input: Record<string, unknown>): B;
  /**
   * The result of a call. `content` is text (maybe blank: the writer knows what its API accepts) or
   * valid parts; `where` names the result's `content` for the writer's warnings and refusals.
   */
  toolResult(callId: string, content: Content, isError: boolean, where: string): B;
}

/**
 * `content` as blocks: text parts (and a string) as text blocks — blank ones left out — and images and
 * files through `writer.part`, in order. `where` names the content (`messages[2].content`). Never throws.
 */
export function contentBlocksOf<B>(
  content: Content,
  where: string,
  writer: Pick<NeutralBlockWriter<B>, "text" | "part">,
): B[] {
  if (typeof content === "string") return isBlank(content) ? [] : [writer.text(content)];
  const blocks: B[] = [];
  content.forEach((part, position) => {
    if (part.type === "text") {
      if (!isBlank(part.text)) blocks.push(writer.text(part.text));
      return;
    }
    const block = writer.part(part, `${where}[${position}]`);
    if (block !== undefined) blocks.push(block);
  });
  return blocks;
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
      const content = isRecord(result) ? contentOf(result.content, `${where}.content`, warnings) : "";
      warnings.push(`${where}: tool result without a call id; sent as text`);
      blocks.push(...contentBlocksOf(content, `${where}.content`, writer));
      return;
    }
    const content = contentOf(result.content, `${where}.content`, warnings);
    blocks.push(writer.toolResult(result.callId, content, result.isError === true, `${where}.content`));
  });
  const where = `messages[${index}].content`;
  blocks.push(...contentBlocksOf(contentOf(message.content, where, warnings), where, writer));
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
  const text = assistantTextOf(message.content, index, warnings);
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

/**
 * An assistant message's text: a string as {@link textOf} reads it; a list of parts (a stored record, or a
 * message built by hand) as its text parts joined, every image or file left out with a warning — assistant
 * turns carry text only on every API. Never throws.
 */
export function assistantTextOf(value: unknown, index: number, warnings: string[]): string {
  if (!Array.isArray(value)) return textOf(value, index, warnings);
  const where = `messages[${index}].content`;
  const parts = contentOf(value, where, warnings);
  const texts: string[] = [];
  (parts as Exclude<Content, string>).forEach((part, position) => {
    if (part.type === "text") texts.push(part.text);
    else
      warnings.push(
        `${where}[${position}]: an assistant message takes text only; the ${part.type} is left out`,
      );
  });
  return texts.join("");
}

/**
 * `content` as text where a target takes text only (OpenAI Chat's tool messages, say): a string as it is;
 * parts as their text parts joined, each image or file left out with a warning naming it and saying why
 * (`reason`, e.g. "OpenAI Chat tool messages take text only"). Never throws.
 */
export function textOnlyOf(content: Content, where: string, warnings: string[], reason: string): string {
  if (typeof content === "string") return content;
  const texts: string[] = [];
  content.forEach((part, position) => {
    if (part.type === "text") texts.push(part.text);
    else warnings.push(`${where}[${position}]: ${reason}; the ${part.type} is left out`);
  });
  return texts.join("");
}

/**
 * A system message's text, read from stored `content` (`where`: `messages[i].content`): a string as it is,
 * parts as their text parts joined. Every API takes text only there and none documents a way around, so
 * each image or file is refused, naming it (`api` says whose rule: "Anthropic Messages"). Never throws.
 */
export function systemTextOf(
  value: unknown,
  where: string,
  warnings: string[],
  refused: ValidationIssue[],
  api: string,
): string {
  const content = contentOf(value, where, warnings);
  if (typeof content === "string") return content;
  const texts: string[] = [];
  content.forEach((part, position) => {
    if (part.type === "text") texts.push(part.text);
    else
      refused.push({
        path: `${where}[${position}]`,
        message: `${api} system messages take text only; send the ${part.type} in a user message`,
      });
  });
  return texts.join("");
}
