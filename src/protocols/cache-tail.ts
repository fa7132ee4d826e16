/**
 * Where automatic prompt-cache marks go in the conversation (Anthropic `cache_control`, Bedrock
 * `cachePoint`), written once: the last message, and the user message before it — so the next request,
 * which repeats this one and adds a turn, reads the whole prefix from the cache.
 *
 * @module
 */

/**
 * The positions of the last message and of the last user message before it, in that order (an empty
 * history has none; a history whose only user message is the last has one).
 *
 * @example
 * ```ts
 * autoCacheTail([{ role: "user" }, { role: "assistant" }, { role: "user" }]); // [2, 0]
 * ```
 */
export function autoCacheTail(messages: readonly { role: string }[]): number[] {
  const last = messages.length - 1;
  if (last < 0) return [];
  for (let index = last - 1; index >= 0; index--) if (messages[index]!.role === "user") return [last, index];
  return [last];
}
