/**
 * Beta flags on the way to a cloud that carries Claude (Bedrock InvokeModel, Vertex AI), written once for
 * each: such a cloud answers a flag it does not know with a 400 and first-party clients (Claude Code) send
 * many it does not take, so each keeps an allowlist ({@link BetaAllowlist}: a flag missing from it is left
 * out and reported, never a failed request); and `cache_control.scope`, which the first-party
 * `prompt-caching-scope-2026-01-05` beta adds and neither cloud takes ({@link withoutCacheScope}).
 *
 * @module
 */

/** The flags one cloud takes, and the first-party flags it knows under another name. */
export interface BetaAllowlist {
  accepted: ReadonlySet<string>;
  renamed?: Readonly<Record<string, string>>;
}

/**
 * The flags of `betas` the cloud takes (renamed where its name differs, each once, in order), and those it
 * does not, left out.
 */
export function allowedBetas(
  betas: readonly string[],
  allowlist: BetaAllowlist,
): { accepted: string[]; dropped: string[] } {
  const accepted: string[] = [];
  const dropped: string[] = [];
  const renamed = allowlist.renamed ?? {};
  for (const flag of betas) {
    const name = Object.hasOwn(renamed, flag) ? renamed[flag]! : flag;
    if (!allowlist.accepted.has(name)) dropped.push(flag);
    else if (!accepted.includes(name)) accepted.push(name);
  }
  return { accepted, dropped };
}

/**
 * `value` without the `scope` of any `cache_control` in it (the field the first-party
 * `prompt-caching-scope-2026-01-05` beta adds, which Bedrock and Vertex refuse as an extra input), and how many
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
