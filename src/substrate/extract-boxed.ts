/**
 * The boxed-answer helper: the final `\boxed{…}` of a model's answer (maths and reasoning benchmarks).
 *
 * @module
 */

const BOXED = "\\boxed";

/**
 * The content of the last `\boxed{…}` in `text`, trimmed, with nested braces handled
 * (`\boxed{\frac{1}{2}}` → `\frac{1}{2}`) and escaped braces (`\{`, `\}`) not counted. A box inside
 * another box belongs to the outer one. `undefined` when there is no box, or when the last one is not
 * closed (a truncated answer is no answer; an earlier box is not returned in its place).
 *
 * @example
 * ```ts
 * extractBoxed("so the answer is \\boxed{\\frac{1}{2}}.");   // "\\frac{1}{2}"
 * extractBoxed("first \\boxed{1}, corrected: \\boxed{2}");   // "2"
 * extractBoxed("\\boxed{\\{1, 2\\}}");                       // "\\{1, 2\\}"
 * extractBoxed("\\boxed{12");                                // undefined
 * ```
 */
export function extractBoxed(text: string): string | undefined {
  if (typeof text !== "string") return undefined;
  let last: string | undefined;
  let position = 0;
  while (position < text.length) {
    const at = text.indexOf(BOXED, position);
    if (at < 0) break;
    let open = at + BOXED.length;
    // `\boxedfoo` is another command; `\boxed {x}` is a box.
    if (/[A-Za-z]/.test(text[open] ?? "")) {
      position = open;
      continue;
    }
    while (open < text.length && /\s/.test(text[open]!)) open++;
    if (text[open] !== "{") {
      position = open;
      continue;
    }
    const close = matchingBrace(text, open);
    if (close < 0) return undefined;
    last = text.slice(open + 1, close).trim();
    position = close + 1;
  }
  return last;
}

/** Index of the `}` closing the `{` at `open`, or -1. Escaped braces (`\{`, `\}`) do not count. */
function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    const character = text[index];
    if (character === "\\") {
      index++;
      continue;
    }
    if (character === "{") depth++;
    else if (character === "}" && --depth === 0) return index;
  }
  return -1;
}
