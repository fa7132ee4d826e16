/**
 * The Claude beta flags Bedrock's InvokeModel takes in the body's `anthropic_beta` — an allowlist, since
 * Bedrock answers a flag it does not know with a 400 (`invalid beta flag`) and first-party clients such as
 * Claude Code send many it does not take. Support varies by model and region; a flag missing here is left
 * out and reported, never a failed request. Sources: the AWS Bedrock Claude parameter pages, and the flags
 * gateways in the field forward to Bedrock.
 *
 * @module
 */

/** Flags InvokeModel takes. */
const ACCEPTED = new Set([
  "computer-use-2024-10-22",
  "computer-use-2025-01-24",
  "computer-use-2025-11-24",
  "token-efficient-tools-2025-02-19",
  "output-128k-2025-02-19",
  "interleaved-thinking-2025-05-14",
  "dev-full-thinking-2025-05-14",
  "fine-grained-tool-streaming-2025-05-14",
  "context-management-2025-06-27",
  "context-1m-2025-08-07",
  "tool-search-tool-2025-10-19",
  "tool-examples-2025-10-29",
  "effort-2025-11-24",
  "compact-2026-01-12",
]);

/** First-party flags Bedrock knows under another name. */
const RENAMED: Readonly<Record<string, string>> = {
  "advanced-tool-use-2025-11-20": "tool-search-tool-2025-10-19",
};

/**
 * The flags of `betas` InvokeModel takes (renamed where Bedrock's name differs, each once, in order), and
 * those it does not, left out.
 */
export function bedrockInvokeBetas(betas: readonly string[]): { accepted: string[]; dropped: string[] } {
  const accepted: string[] = [];
  const dropped: string[] = [];
  for (const flag of betas) {
    const name = Object.hasOwn(RENAMED, flag) ? RENAMED[flag]! : flag;
    if (!ACCEPTED.has(name)) dropped.push(flag);
    else if (!accepted.includes(name)) accepted.push(name);
  }
  return { accepted, dropped };
}

/**
 * `value` without the `scope` of any `cache_control` in it (the field the first-party
 * `prompt-caching-scope-2026-01-05` beta adds, which InvokeModel refuses as an extra input), and how many
 * were taken out. Objects on the way to one are copied; the rest is shared, never changed.
 */
export function withoutCacheScope(value: unknown): { value: unknown; removed: number } {
  let removed = 0;
  const walk = (node: unknown, depth: number): unknown => {
    // Request bodies nest a handful of levels; the gateway's JSON depth limit bounds this further.
    if (depth > 64 || typeof node !== "object" || node === null) return node;
    if (Array.isArray(node)) {
      let copy: unknown[] | undefined;
      node.forEach((item, index) => {
        const next = walk(item, depth + 1);
        if (next === item) return;
        copy ??= [...node];
        copy[index] = next;
      });
      return copy ?? node;
    }
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(node)) {
      let next = walk(item, depth + 1);
      if (key === "cache_control" && typeof next === "object" && next !== null && "scope" in next) {
        const { scope: _scope, ...rest } = next as Record<string, unknown>;
        next = rest;
        removed++;
      }
      if (next === item) continue;
      copy ??= { ...(node as Record<string, unknown>) };
      copy[key] = next;
    }
    return copy ?? node;
  };
  return { value: walk(value, 0), removed };
}
