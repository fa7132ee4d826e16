import { nativeProvenance } from "./native-replay.ts";
import type { ReplayTarget } from "./protocol.ts";

/**
 * The provenance rule as a yes or no: whether `native` replays verbatim to `target` over `protocol` — an
 * object with a `blocks` array, produced by that protocol, at that endpoint kind and by that model, each
 * compared exactly. It asks `nativeProvenance`, the rule every history converter applies, so a protocol
 * object's `replaysNative` and its `buildRequest` cannot disagree. Never throws.
 *
 * @example
 * ```ts
 * replaysNative("anthropic-messages", message.native, { origin: "anthropic", model: "claude-sonnet-4-6" });
 * ```
 */
export function replaysNative(protocol: string, native: unknown, target: ReplayTarget): boolean {
  return nativeProvenance({ native }, 0, { protocol, ...target }, []).replay !== undefined;
}
