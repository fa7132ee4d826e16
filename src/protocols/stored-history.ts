/**
 * Reading stored history without trusting it: small total helpers every history converter uses, so a
 * record that is not what the types say (a number for text, a string for arguments, an object without a
 * prototype) degrades instead of throwing. Never throws.
 *
 * @module
 */
import { parseToolArguments } from "../core/collect-stream.ts";
import { type Content, type ContentPart, checkContentPart } from "../core/content.ts";

/** The roles a stored message may have; a record with any other is left out. */
export type StoredRole = "system" | "user" | "assistant" | "tool";

const ROLES: ReadonlySet<unknown> = new Set<StoredRole>(["system", "user", "assistant", "tool"]);

/**
 * Calls `visit` for each message of a stored history, in order, with its role and index. What cannot be
 * converted is left out with a warning: an entry that is not an object, a role that is none of
 * {@link StoredRole}; a history that is not an array has no messages. Never throws unless `visit` does.
 */
export function forEachStoredMessage(
  messages: unknown,
  warnings: string[],
  visit: (message: Record<string, unknown>, role: StoredRole, index: number) => void,
): void {
  const list: readonly unknown[] = Array.isArray(messages) ? messages : [];
  list.forEach((raw, index) => {
    if (!isRecord(raw)) warnings.push(`messages[${index}]: not a message object; left out`);
    else if (!ROLES.has(raw.role))
      warnings.push(`messages[${index}]: unknown role ${shown(raw.role)}; left out`);
    else visit(raw, raw.role as StoredRole, index);
  });
}

/** What a tool call that has no recorded result gets, so the request stays valid. */
export const MISSING_TOOL_RESULT = "No result was recorded for this tool call.";

/**
 * Message content as text: strings as they are, numbers, BigInts (what some JSON readers make of large
 * integers) and booleans printed, anything else "" (warned).
 */
export function textOf(value: unknown, index: number, warnings: string[]): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") {
    return String(value);
  }
  warnings.push(`messages[${index}]: content is not text; left out`);
  return "";
}

/**
 * Message or tool-result content as {@link Content}: text as {@link textOf} reads it, or the parts of an
 * array, each checked against the part schema (a `data:` URL read as inline data); a string item is a text
 * part. An item that is not a valid part is left out with a warning naming it (`<where>[<i>]`), so what
 * reaches a protocol's part mapping is always a valid part. Never throws.
 *
 * @example
 * ```ts
 * contentOf([{ type: "text", text: "Look:" }, { type: "image", url: "https://…/cat.png" }], "messages[0].content", warnings);
 * ```
 */
export function contentOf(value: unknown, where: string, warnings: string[]): Content {
  if (!Array.isArray(value)) {
    if (typeof value === "string") return value;
    if (value === undefined || value === null) return "";
    if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") {
      return String(value);
    }
    warnings.push(`${where}: content is not text or a list of parts; left out`);
    return "";
  }
  const parts: ContentPart[] = [];
  value.forEach((item: unknown, position) => {
    if (typeof item === "string") {
      parts.push({ type: "text", text: item });
      return;
    }
    const checked = checkContentPart(item);
    if ("part" in checked) parts.push(checked.part);
    else {
      const { path, message } = checked.issue;
      const field = path.length > 0 ? `.${path.map(String).join(".")}` : "";
      warnings.push(`${where}[${position}]${field}: not a valid content part (${message}); left out`);
      // Blank text in its place (left out like any blank text), so the parts after it keep their
      // positions and the warnings and refusals about them name the right field.
      parts.push({ type: "text", text: "" });
    }
  });
  return parts;
}

/**
 * The text a tool result that answers no call is sent as (every API rejects a result naming no call of the
 * turn before it, so it goes as text): `[tool result for call <id>]`, then its content.
 */
export function orphanResultText(callId: unknown, content: string, isError: boolean): string;
export function orphanResultText(callId: unknown, content: Content, isError: boolean): Content;
export function orphanResultText(callId: unknown, content: Content, isError: boolean): Content {
  if (typeof content !== "string") {
    const header = orphanResultText(callId, "", isError);
    return [{ type: "text", text: header }, ...content];
  }
  return `[tool ${isError ? "error result" : "result"} for call ${safeString(callId)}]${content ? `\n${content}` : ""}`;
}

/** Empty or whitespace only: the providers reject such text blocks. */
export function isBlank(text: string): boolean {
  return text.trim() === "";
}

/** Any non-null object (arrays included). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** A non-null object that is not an array: what tool arguments must be. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A string with at least one character: what ids and names must be. */
export function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value !== "";
}

/** `JSON.stringify` that never throws (`undefined` for what JSON cannot hold: BigInt, cycles). */
export function safeJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** `String()` that never throws (objects without a prototype have no `toString`). */
export function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    try {
      return Object.prototype.toString.call(value);
    } catch {
      return `[${typeof value}]`;
    }
  }
}

/** Whether `JSON.stringify` can carry `value` (no BigInt, no cycle, not nested past the stack): what a request body needs. */
export function isJsonSafe(value: unknown): boolean {
  return safeJson(value) !== undefined;
}

/** Longest stored value a warning quotes; the rest is cut (a stored string may be megabytes long). */
const SHOWN_LENGTH = 80;

/** `text`, cut to a length a warning can quote. */
export function clipped(text: string): string {
  return text.length > SHOWN_LENGTH ? `${text.slice(0, SHOWN_LENGTH)}…` : text;
}

/**
 * A stored value as a warning quotes it: its JSON (strings in quotes), else `10n` for a BigInt and
 * `String()` for what JSON cannot hold, cut to a readable length. Never throws.
 */
export function shown(value: unknown): string {
  if (typeof value === "bigint") return clipped(`${value}n`);
  return clipped(safeJson(value) ?? safeString(value));
}

/**
 * A stored tool call's arguments as the object a request sends: `arguments` when it is one JSON can carry,
 * else the JSON object parsed from `arguments` or `argumentsText`; `{}` (warned, at `where`) when there is
 * none.
 */
export function toolArgumentsOf(
  call: Record<string, unknown>,
  where: string,
  warnings: string[],
): Record<string, unknown> {
  const value = call.arguments;
  if (isPlainObject(value) && isJsonSafe(value)) return value;
  const object = isPlainObject(value);
  const text =
    typeof value === "string"
      ? value
      : typeof call.argumentsText === "string"
        ? call.argumentsText
        : undefined;
  const parsed = text === undefined ? {} : parseToolArguments(text);
  if (object) {
    warnings.push(
      `${where}: arguments hold a value JSON cannot carry (a BigInt, a cycle); ` +
        (text === undefined ? "sent as {}" : "sent as parsed from argumentsText"),
    );
  } else if (
    text !== undefined &&
    text.trim() !== "" &&
    Object.keys(parsed).length === 0 &&
    !/^\s*\{\s*\}\s*$/.test(text)
  ) {
    warnings.push(`${where}: arguments are not a JSON object; sent as {}`);
  } else if (text === undefined && value !== undefined) {
    warnings.push(`${where}: arguments are not an object; sent as {}`);
  }
  return parsed;
}

/**
 * A stored tool call's arguments as the text a request sends (Chat's `function.arguments`, Responses'
 * `arguments`): the original `argumentsText` when `sameProtocol` (this wire produced it, so a truncated
 * call is replayed as it was), else `arguments` as it is or as JSON, else `argumentsText`, else `"{}"`.
 */
export function toolArgumentsTextOf(call: Record<string, unknown>, sameProtocol: boolean): string {
  if (sameProtocol && typeof call.argumentsText === "string") return call.argumentsText;
  if (typeof call.arguments === "string") return call.arguments;
  if (isPlainObject(call.arguments)) {
    // A value JSON cannot hold (a BigInt, a cycle) must not make replay throw.
    const text = safeJson(call.arguments);
    if (text !== undefined) return text;
  }
  if (typeof call.argumentsText === "string") return call.argumentsText;
  return "{}";
}
