import type { CacheOption } from "../../core/call-options.ts";
import { autoCacheTail } from "../cache-tail.ts";
import type { AnthropicBlock, AnthropicCacheControl, AnthropicRequestBody } from "./anthropic-wire.ts";

/** The API accepts at most four `cache_control` marks per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** Blocks that cannot carry `cache_control`: reasoning (signed, replayed verbatim) and blank text. */
function canMark(block: AnthropicBlock): boolean {
  if (block.type === "thinking" || block.type === "redacted_thinking") return false;
  if (block.type === "text") return typeof block.text === "string" && block.text.trim() !== "";
  return true;
}

/**
 * Marks prompt-cache breakpoints on a request body (in place) and returns warnings.
 *
 * - `"off"` (or undefined): no marks.
 * - `"auto"` or `{ ttl }`: the last tool, the last system block, and the end of the conversation's stable
 *   prefix — the last block of the last message and of the user turn before it, so the next call (which
 *   appends to this history) reads what this one wrote. At most four marks.
 * - `{ breakpoints: [...] }`: exactly where asked (`"tools"`, `"system"`, or `{ message: i }` for the last
 *   markable block of `messages[i]` of the request), up to four.
 *
 * Marks are never put on thinking blocks (replayed byte for byte) or on blank text.
 *
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching
 */
export function placeAnthropicCacheBreakpoints(
  body: AnthropicRequestBody,
  cache: CacheOption | undefined,
): string[] {
  const warnings: string[] = [];
  if (cache === undefined || cache === "off") return warnings;
  const ttl = typeof cache === "object" ? cache.ttl : undefined;
  const control: AnthropicCacheControl = ttl ? { type: "ephemeral", ttl } : { type: "ephemeral" };
  let placed = 0;
  const mark = (
    target: { cache_control?: AnthropicCacheControl } | AnthropicBlock | undefined,
    label: string,
  ): void => {
    if (!target) {
      warnings.push(`cache breakpoint at ${label}: nothing there to mark`);
      return;
    }
    if (placed >= MAX_CACHE_BREAKPOINTS) {
      warnings.push(`cache breakpoint at ${label} left out: the API allows ${MAX_CACHE_BREAKPOINTS}`);
      return;
    }
    target.cache_control = control;
    placed++;
  };
  const lastMarkable = (index: number): AnthropicBlock | undefined => {
    const message = body.messages[index];
    if (!message) return undefined;
    for (let position = message.content.length - 1; position >= 0; position--) {
      const block = message.content[position]!;
      if (canMark(block)) {
        // Copy the block: it may be a replayed native block shared with the caller's history.
        const copy = { ...block };
        message.content[position] = copy;
        return copy;
      }
    }
    return undefined;
  };

  if (typeof cache === "object" && cache.breakpoints) {
    for (const breakpoint of cache.breakpoints) {
      if (breakpoint === "tools") mark(body.tools?.at(-1), "tools");
      else if (breakpoint === "system") mark(body.system?.at(-1), "system");
      else mark(lastMarkable(breakpoint.message), `messages[${breakpoint.message}]`);
    }
    return warnings;
  }

  if (body.tools?.length) mark(body.tools.at(-1), "tools");
  if (body.system?.length) mark(body.system.at(-1), "system");
  for (const index of autoCacheTail(body.messages)) {
    const block = lastMarkable(index);
    if (block && placed < MAX_CACHE_BREAKPOINTS) mark(block, `messages[${index}]`);
  }
  return warnings;
}
