/**
 * Reading stored history without trusting it: small total helpers every history converter uses, so a
 * record that is not what the types say (a number for text, a string for arguments, an object without a
 * prototype) degrades instead of throwing. Never throws.
 *
 * @module
 */
import { parseToolArguments } from "../core/collect-stream.ts";

/** What a tool call that has no recorded result gets, so the request stays valid. */
export const MISSING_TOOL_RESULT = "No result was recorded for this tool call.";

/** Message content as text: strings as they are, numbers and booleans printed, anything else "" (warned). */
export function textOf(value: unknown, index: number, warnings: string[]): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  warnings.push(`messages[${index}]: content is not text; left out`);
  return "";
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
    return Object.prototype.toString.call(value);
  }
}

/**
 * A stored tool call's arguments as the object a request sends: `arguments` when it is one, else the JSON
 * object parsed from `arguments` or `argumentsText`; `{}` (warned, at `where`) when there is none.
 */
export function toolArgumentsOf(
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
