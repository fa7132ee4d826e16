/**
 * The error a wrapper raises when the caller's `signal` aborts while the wrapper itself is waiting
 * (between attempts, before the next entry of a chain).
 *
 * @module
 */
import { ProviderError } from "./provider-error.ts";

/**
 * A `ProviderError` of kind `aborted` for `provider`, with the signal's reason as `cause`.
 *
 * @example
 * ```ts
 * if (signal?.aborted) throw abortedError(provider, signal);
 * ```
 */
export function abortedError(provider: { name: string; model: string }, signal: AbortSignal): ProviderError {
  return new ProviderError({
    kind: "aborted",
    message: "call aborted",
    provider: provider.name,
    model: provider.model,
    cause: signal.reason,
  });
}
