/**
 * The one rule by which a stream assembler keeps a delta it does not know (a new Anthropic delta type, a
 * new Bedrock delta member): merged into its block so the block comes out as the whole answer holds it,
 * and whatever cannot be merged is reported, never dropped or mangled in silence.
 *
 * @module
 */
import { isPlainObject } from "./stored-history.ts";

/**
 * Merges `delta` into `block`, field by field (its own `type`, the delta's tag, is not content):
 *
 * - a field the block does not have (or has as `null`) takes the delta's value;
 * - a string onto a string is appended (a `signature_delta`'s `signature`, any `*_delta` whose payload
 *   field names a text field of its block);
 * - an array onto an array is appended to it; an object onto an object is merged by these same rules;
 * - the same value again changes nothing;
 * - anything else (a value of another kind, a different number) replaces the block's value, and
 *   `"<label> replaced <dotted path>"` is added to `warnings` (once).
 *
 * @example
 * ```ts
 * const block = { type: "compaction", content: null };
 * mergeUnknownDelta(block, { type: "compaction_delta", content: "Summary…" }, warnings, "compaction block 0");
 * block; // { type: "compaction", content: "Summary…" }, nothing added to warnings
 * ```
 */
export function mergeUnknownDelta(
  block: Record<string, unknown>,
  delta: Record<string, unknown>,
  warnings: string[],
  label: string,
): void {
  merge(block, delta, warnings, `${label} replaced `, "type");
}

function merge(
  target: Record<string, unknown>,
  delta: Record<string, unknown>,
  warnings: string[],
  path: string,
  skip?: string,
): void {
  // Parsed JSON: own enumerable fields only.
  for (const field in delta) {
    if (field === skip) continue;
    const value = delta[field];
    const current = target[field];
    if (current == null) target[field] = value;
    else if (typeof current === "string" && typeof value === "string") target[field] = current + value;
    else if (Array.isArray(current) && Array.isArray(value)) for (const item of value) current.push(item);
    else if (isPlainObject(current) && isPlainObject(value))
      merge(current, value, warnings, `${path}${field}.`);
    else if (current !== value) {
      target[field] = value;
      if (!warnings.includes(path + field)) warnings.push(path + field);
    }
  }
}
