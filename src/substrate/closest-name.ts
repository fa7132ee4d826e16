/**
 * "Did you mean …?" for configuration: the known name closest to a misspelt one.
 *
 * @module
 */

/**
 * The name in `names` closest to `value` by edit distance (Levenshtein, case-insensitive), or `undefined`
 * when none is close enough to be a plausible typo: at most a third of the longer name's length in edits
 * (at least 2). A name that starts with `value` (or that `value` starts with) is always plausible
 * (`openai` → `openai-chat`). Ties go to the earlier name.
 *
 * @example
 * ```ts
 * closestName("anthropc", ["anthropic", "openai-chat"]); // "anthropic"
 * closestName("gemini", ["anthropic", "openai-chat"]);   // undefined
 * ```
 */
export function closestName(value: string, names: readonly string[]): string | undefined {
  const needle = value.trim().toLowerCase();
  if (needle === "") return undefined;
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const name of names) {
    const candidate = name.toLowerCase();
    const distance = editDistance(needle, candidate);
    const prefix = candidate.startsWith(needle) || needle.startsWith(candidate);
    const limit = Math.max(2, Math.floor(Math.max(needle.length, candidate.length) / 3));
    if (!prefix && distance > limit) continue;
    // A prefix relation beats any plain edit distance of the same size.
    const score = prefix ? distance - 0.5 : distance;
    if (score < bestScore) {
      best = name;
      bestScore = score;
    }
  }
  return best;
}

/** Levenshtein distance with one rolling row. */
function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let row = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, substitution);
    }
    row = next;
  }
  return row[b.length]!;
}
