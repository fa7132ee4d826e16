/**
 * Reading stored history without trusting it: small total helpers every history converter uses, so a
 * record that is not what the types say (a number for text, a string for arguments, an object without a
 * prototype) degrades instead of throwing. Never throws.
 *
 * @module
 */

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
