import type { NativeTarget } from "./protocol.ts";

/**
 * The provenance check, written once: `native` replays verbatim to `target` over `protocol` exactly when
 * it is an object with a `blocks` array, produced by that protocol (`native.protocol`), at that endpoint
 * kind (`native.origin`) and by that model (`native.model`) — each compared exactly. Anything else (a
 * foreign protocol, another origin such as the same Claude model on Bedrock, another model, a record
 * without blocks) is rebuilt from the neutral fields.
 *
 * @example
 * ```ts
 * replaysNative("anthropic-messages", message.native, { origin: "anthropic", model: "claude-sonnet-4-6" });
 * ```
 */
export function replaysNative(protocol: string, native: unknown, target: NativeTarget): boolean {
  // Optional chaining reads nothing off null or undefined; any other non-object has no such fields.
  const record = native as { protocol?: unknown; origin?: unknown; model?: unknown; blocks?: unknown } | null;
  return (
    record?.protocol === protocol &&
    record.origin === target.origin &&
    record.model === target.model &&
    Array.isArray(record.blocks)
  );
}
